//===- DeviceProxyTest.cpp - the proxy between hosts, without kernels -----===//
//
// Two DeviceProxies over TCP on loopback for a 2-rank layout whose ranks
// are on two hosts; the test plays the kernels: it writes a message into
// rank 0's sending half (slot, sizes, head) and reads it from rank 1's
// receiving half (head, sizes, slot), releasing slots through tail.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/DeviceProxy.h"
#include "Schedules.h"
#include "collrt/device/WaitState.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace collrt {
namespace testing {
namespace {

using ::testing::HasSubstr;

uint64_t loadAcquire(const uint64_t *w) {
  return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}
void storeRelease(uint64_t *w, uint64_t v) {
  __atomic_store_n(w, v, __ATOMIC_RELEASE);
}

struct TwoHosts {
  dev::LaunchLayout whole;
  std::vector<std::vector<uint64_t>> arenas; // host arenas, 8-byte aligned
  std::unique_ptr<dev::DeviceProxy> proxies[2];
  int32_t abortFlags[2] = {0, 0};
  const dev::LaunchLayout::Connection *conn = nullptr; // 0 -> 1, channel 0
  dev::ProxyPolling polling = dev::ProxyPolling::Sleep;

  void setUp() {
    // Rank 0 sends to rank 1 twice on channel 0.
    Program p = emptyProgram(Collective::AllReduce, 2, 1);
    append(p, 0, 0, sendTo(1, in(0), 0));
    append(p, 0, 0, sendTo(1, in(0), 1));
    append(p, 1, 0, recvFrom(0, out(0), 0));
    append(p, 1, 0, recvFrom(0, out(0), 1));
    PlanCollective c;
    c.location = "test";
    c.dtype = DataType::F32;
    c.reduction = ReduceOp::Sum;
    c.connectionSlots = 2;
    c.program = p;
    c.groups = {{0, 1}};
    dev::DeviceOptions o;
    o.slotBytes = 4096;
    o.hosts = {0, 1};
    ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 64, o, &whole).ok());
    for (const auto &cn : whole.connections())
      if (cn.from == 0 && cn.to == 1)
        conn = &cn;
    ASSERT_TRUE(conn && conn->net);
    arenas.resize(2);
    std::vector<std::string> handles(2);
    for (int32_t r = 0; r < 2; ++r) {
      dev::DeviceOptions mine = o;
      mine.ranks = {r};
      dev::LaunchLayout one;
      ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 64, mine, &one).ok());
      arenas[size_t(r)].assign(one.arena(r).hostBytes / 8 + 1, 0);
      std::vector<char *> hosts(2, nullptr);
      hosts[size_t(r)] = reinterpret_cast<char *>(arenas[size_t(r)].data());
      std::unique_ptr<net::Net> socketNet;
      ASSERT_TRUE(net::createSocketNet("127.0.0.1", "tcp", &socketNet).ok());
      Status s =
          dev::DeviceProxy::create(std::move(socketNet), 0, one, hosts,
                                   "rank " + std::to_string(r), &proxies[r]);
      ASSERT_TRUE(s.ok()) << s.toString();
      proxies[r]->setPolling(polling);
      handles[size_t(r)] = proxies[r]->handle();
    }
    for (int32_t r = 0; r < 2; ++r)
      ASSERT_TRUE(proxies[r]->start(handles, &abortFlags[r], 10).ok());
  }
  char *host(int32_t r) {
    return reinterpret_cast<char *>(arenas[size_t(r)].data());
  }
  uint64_t *word(int32_t r, uint64_t offset) {
    return reinterpret_cast<uint64_t *>(host(r) + offset);
  }
  /// Rank 0's kernel: message `seq` of `bytes` bytes, each byte `fill`.
  void send(uint64_t seq, uint64_t bytes, char fill) {
    uint64_t slot = seq % whole.slots();
    std::memset(host(0) + conn->sendBuffers + slot * whole.slotCapacity(), fill,
                bytes);
    __atomic_store_n(word(0, conn->sendSizes) + slot, bytes, __ATOMIC_RELAXED);
    storeRelease(word(0, conn->sendHead), seq + 1);
  }
  bool waitFor(const uint64_t *w, uint64_t value, double seconds = 10) {
    auto until = std::chrono::steady_clock::now() +
                 std::chrono::duration<double>(seconds);
    while (loadAcquire(w) < value)
      if (std::chrono::steady_clock::now() > until)
        return false;
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    return true;
  }
};

TEST(DeviceProxyTest, MessagesCrossAndSlotsComeBack) {
  TwoHosts t;
  t.setUp();
  if (::testing::Test::HasFatalFailure())
    return;
  uint32_t slots = t.whole.slots();
  // More messages than slots: the sender's tail must come back.
  for (uint64_t seq = 0; seq < 3 * slots; ++seq) {
    if (seq >= slots) { // the slot of message seq - slots is free again
      ASSERT_TRUE(t.waitFor(t.word(0, t.conn->tail), seq + 1 - slots));
    }
    uint64_t bytes = 16 + 8 * (seq % 5);
    t.send(seq, bytes, char('a' + seq));
    ASSERT_TRUE(t.waitFor(t.word(1, t.conn->head), seq + 1))
        << "message " << seq << " did not arrive";
    uint64_t slot = seq % slots;
    EXPECT_EQ(loadAcquire(t.word(1, t.conn->sizes) + slot), bytes);
    const char *data =
        t.host(1) + t.conn->buffers + slot * t.whole.slotCapacity();
    for (uint64_t i = 0; i < bytes; ++i)
      ASSERT_EQ(data[i], char('a' + seq)) << "message " << seq << " byte " << i;
    storeRelease(t.word(1, t.conn->recvTail), seq + 1); // released
  }
  EXPECT_TRUE(t.waitFor(t.word(0, t.conn->tail), 3 * slots));
  EXPECT_EQ(t.proxies[0]->messagesSent(), 3 * slots);
  EXPECT_EQ(t.proxies[1]->messagesReceived(), 3 * slots);
  // Both stop together; goodbyes, no error.
  t.proxies[0]->requestStop(5);
  t.proxies[1]->requestStop(5);
  EXPECT_TRUE(t.proxies[0]->stop(5).ok());
  EXPECT_TRUE(t.proxies[1]->stop(5).ok());
  EXPECT_EQ(t.abortFlags[0], 0);
  EXPECT_EQ(t.abortFlags[1], 0);
}

// A launch makes its messages due (what each rank's halves send and
// receive in one launch); with ProxyPolling::Launch an idle proxy (asleep
// between polls) wakes for it and polls until they have moved; with the
// default, Sleep, it is only counted.
TEST(DeviceProxyTest, ALaunchWakesAnIdleProxyUntilItsMessagesMoved) {
  for (dev::ProxyPolling polling :
       {dev::ProxyPolling::Launch, dev::ProxyPolling::Sleep}) {
    SCOPED_TRACE(dev::proxyPollingName(polling));
    TwoHosts t;
    t.polling = polling;
    t.setUp();
    if (::testing::Test::HasFatalFailure())
      return;
    // Rank 0 sends two messages a launch, rank 1 receives them.
    EXPECT_EQ(t.proxies[0]->messagesPerLaunch(), 2u);
    EXPECT_EQ(t.proxies[1]->messagesPerLaunch(), 2u);
    for (int round = 0; round < 2; ++round) {
      // Nothing to do: wait until both threads are in their idle sleeps
      // (under load that may take longer than their backoff's few ms).
      if (polling == dev::ProxyPolling::Launch)
        for (int r = 0; r < 2; ++r) {
          auto until =
              std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (!t.proxies[r]->idleAsleep() &&
                 std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          ASSERT_TRUE(t.proxies[r]->idleAsleep())
              << "rank " << r << "'s proxy never went to sleep";
        }
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
      uint64_t woken[2] = {t.proxies[0]->wakeups(), t.proxies[1]->wakeups()};
      for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(t.proxies[r]->messagesDue(), 0u);
        t.proxies[r]->launched();
        EXPECT_EQ(t.proxies[r]->messagesDue(), 2u);
      }
      for (int r = 0; r < 2; ++r) {
        auto until =
            std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (polling == dev::ProxyPolling::Launch &&
               t.proxies[r]->wakeups() == woken[r] &&
               std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        if (polling == dev::ProxyPolling::Launch)
          EXPECT_EQ(t.proxies[r]->wakeups(), woken[r] + 1)
              << "rank " << r << "'s proxy did not wake for the launch";
        else
          EXPECT_EQ(t.proxies[r]->wakeups(), 0u);
      }
      for (uint64_t i = 0; i < 2; ++i) {
        uint64_t seq = 2 * uint64_t(round) + i;
        uint64_t slots = t.whole.slots(); // message seq - slots came back
        ASSERT_TRUE(t.waitFor(t.word(0, t.conn->tail),
                              seq >= slots ? seq + 1 - slots : 0));
        t.send(seq, 32, char('k' + seq));
        ASSERT_TRUE(t.waitFor(t.word(1, t.conn->head), seq + 1));
        storeRelease(t.word(1, t.conn->recvTail), seq + 1);
      }
      ASSERT_TRUE(t.waitFor(t.word(0, t.conn->tail), 2 * uint64_t(round) + 2));
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while ((t.proxies[0]->messagesDue() || t.proxies[1]->messagesDue()) &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      EXPECT_EQ(t.proxies[0]->messagesDue(), 0u);
      EXPECT_EQ(t.proxies[1]->messagesDue(), 0u);
    }
    t.proxies[0]->requestStop(5);
    t.proxies[1]->requestStop(5);
    EXPECT_TRUE(t.proxies[0]->stop(5).ok());
    EXPECT_TRUE(t.proxies[1]->stop(5).ok());
  }
}

TEST(DeviceProxyTest, APeerThatDiesIsNamedAndAbortsTheLaunch) {
  TwoHosts t;
  t.setUp();
  if (::testing::Test::HasFatalFailure())
    return;
  t.send(0, 24, 'x');
  ASSERT_TRUE(t.waitFor(t.word(1, t.conn->head), 1));
  // Rank 0's process dies: its proxy goes without a goodbye while rank 1
  // still expects a message.
  t.proxies[0].reset();
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!t.proxies[1]->failed() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(t.proxies[1]->failed());
  Status s = t.proxies[1]->error();
  EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("rank 1: device proxy: rank 1's connection from rank "
                        "0 closed without a goodbye (its process failed, "
                        "exited early or was killed)"));
  // The launch's blocks are told to give up.
  EXPECT_EQ(__atomic_load_n(&t.abortFlags[1], __ATOMIC_ACQUIRE),
            int32_t(dev::wait::HostAbort));
  EXPECT_EQ(t.proxies[1]->stop(1).code(), ErrorCode::PeerFailure);
}

TEST(DeviceProxyTest, AnLLMessageOrAnOversizedOneIsRefused) {
  TwoHosts t;
  t.setUp();
  if (::testing::Test::HasFatalFailure())
    return;
  t.send(0, t.whole.slotCapacity() + 16, 'y'); // larger than the slot
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!t.proxies[0]->failed() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Status s = t.proxies[0]->error();
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch) << s.toString();
  EXPECT_THAT(s.message(),
              HasSubstr("rank 0's connection to rank 1 on channel 0: message "
                        "1 has size word"));
  EXPECT_THAT(s.message(), HasSubstr("(outside the slot of"));
}

//===----------------------------------------------------------------------===//
// GPUDirect: how the device arenas are registered (GpuDirectMemory's
// policy). The "GPU memory" is a memfd mapped here, which the socket net of
// the emulator (deviceIsHost) registers as such and whose stand-in dma-buf
// (a descriptor of the memfd positioned at the exported pages) it checks.
//===----------------------------------------------------------------------===//

/// What RegistrationNet was asked, and the failures it gives.
struct RegistrationLog {
  Status dmaBufFailure, peerMemFailure;
  int dmaBufCalls = 0, peerMemCalls = 0;
};

/// The emulator's SocketNet, with failures injected into its GPU memory
/// registrations.
class RegistrationNet final : public net::Net {
public:
  explicit RegistrationNet(RegistrationLog *log) : log_(log) {
    Status s = net::createSocketNet("127.0.0.1", "tcp", &inner_,
                                    /*deviceIsHost=*/true);
    EXPECT_TRUE(s.ok()) << s.toString();
  }
  const char *name() const override { return inner_->name(); }
  const std::vector<net::NetDeviceInfo> &devices() const override {
    return inner_->devices();
  }
  Status listen(int dev, std::string *handle,
                std::unique_ptr<net::NetListenComm> *listen) override {
    return inner_->listen(dev, handle, listen);
  }
  Status connect(int dev, const std::string &handle, uint32_t depth,
                 Deadline deadline,
                 std::unique_ptr<net::NetConnecting> *connecting) override {
    return inner_->connect(dev, handle, depth, deadline, connecting);
  }
  Status regMr(int dev, void *data, size_t bytes, net::NetMemoryKind kind,
               std::unique_ptr<net::NetMemory> *memory) override {
    if (kind == net::NetMemoryKind::Device) {
      ++log_->peerMemCalls;
      if (!log_->peerMemFailure.ok())
        return log_->peerMemFailure;
    }
    return inner_->regMr(dev, data, bytes, kind, memory);
  }
  Status regMrDmaBuf(int dev, void *data, size_t bytes, int fd, uint64_t offset,
                     std::unique_ptr<net::NetMemory> *memory) override {
    ++log_->dmaBufCalls;
    if (!log_->dmaBufFailure.ok())
      return log_->dmaBufFailure;
    return inner_->regMrDmaBuf(dev, data, bytes, fd, offset, memory);
  }
  Status deregMr(std::unique_ptr<net::NetMemory> memory) override {
    return inner_->deregMr(std::move(memory));
  }

private:
  RegistrationLog *log_;
  std::unique_ptr<net::Net> inner_;
};

/// Rank 0's launch of a 2-rank layout on two hosts with GPUDirect: its
/// host arena, and its device arena 100 bytes into a memfd mapping (not
/// on a page boundary, so that the dma-buf offset is not 0).
/// An exporter that cannot export (an old driver, a device without dma-buf
/// support), saying `why`.
dev::DmaBufExporter cannotExport(std::string why) {
  return [why](void *, size_t, int *, uint64_t *) {
    return Status(ErrorCode::Unsupported, why);
  };
}

struct GpuDirectRank {
  dev::LaunchLayout layout;
  std::vector<uint64_t> host;
  int memfd = -1;
  char *mapping = nullptr;
  size_t mapped = 0;
  char *device = nullptr;

  void setUp() {
    Program p = emptyProgram(Collective::AllReduce, 2, 1);
    append(p, 0, 0, sendTo(1, in(0), 0));
    append(p, 1, 0, recvFrom(0, out(0), 0));
    PlanCollective c;
    c.location = "test";
    c.dtype = DataType::F32;
    c.reduction = ReduceOp::Sum;
    c.connectionSlots = 2;
    c.program = p;
    c.groups = {{0, 1}};
    dev::DeviceOptions o;
    o.slotBytes = 4096;
    o.hosts = {0, 1};
    o.gpuDirect = true;
    o.ranks = {0};
    ASSERT_TRUE(dev::LaunchLayout::create(c, 0, 64, o, &layout).ok());
    host.assign(layout.arena(0).hostBytes / 8 + 1, 0);
    memfd = memfd_create("collc-proxy-test-dma-buf", MFD_CLOEXEC);
    ASSERT_GE(memfd, 0);
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    mapped = (100 + layout.arena(0).bytes + page - 1) / page * page;
    ASSERT_EQ(ftruncate(memfd, off_t(mapped)), 0);
    void *m =
        mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    ASSERT_NE(m, MAP_FAILED);
    mapping = static_cast<char *>(m);
    device = mapping + 100;
  }
  ~GpuDirectRank() {
    if (mapping)
      munmap(mapping, mapped);
    if (memfd >= 0)
      close(memfd);
  }
  /// A stand-in dma-buf of the pages that hold [data, data + bytes): a new
  /// descriptor of the memfd at the first page; `shift` added to the
  /// offset (a wrong one).
  dev::DmaBufExporter exporter(uint64_t shift = 0) const {
    int fd = memfd;
    const char *base = mapping;
    return [fd, base, shift](void *data, size_t, int *out,
                             uint64_t *offset) -> Status {
      uint64_t at = uint64_t(static_cast<char *>(data) - base);
      uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
      int f = open(("/proc/self/fd/" + std::to_string(fd)).c_str(),
                   O_RDWR | O_CLOEXEC);
      if (f < 0 || lseek(f, off_t(at / page * page), SEEK_SET) < 0)
        return Status(ErrorCode::SystemError, "test exporter: open/lseek");
      *out = f;
      *offset = at % page + shift;
      return Status::success();
    };
  }
  /// Creates the proxy with `registration` and `exporter`.
  Status create(dev::GpuMemoryRegistration registration,
                dev::DmaBufExporter exporter, RegistrationLog *log,
                std::unique_ptr<dev::DeviceProxy> *proxy) {
    std::vector<char *> hosts = {reinterpret_cast<char *>(host.data()),
                                 nullptr};
    dev::GpuDirectMemory g;
    g.deviceArenas = {device, nullptr};
    g.registration = registration;
    g.exportDmaBuf = std::move(exporter);
    return dev::DeviceProxy::create(std::make_unique<RegistrationNet>(log), 0,
                                    layout, hosts, "rank 0", proxy, g);
  }
};

/// Descriptors of this process open on the test's memfd.
int openDmaBufs() {
  int n = 0;
  for (int fd = 0; fd < 4096; ++fd) {
    char target[256] = {};
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t len = readlink(link.c_str(), target, sizeof target - 1);
    if (len > 0 && std::strstr(target, "collc-proxy-test-dma-buf"))
      ++n;
  }
  return n;
}

TEST(DeviceProxyGpuDirectTest, EachPolicyRegistersAndSaysHow) {
  GpuDirectRank t;
  t.setUp();
  if (::testing::Test::HasFatalFailure())
    return;
  struct Case {
    dev::GpuMemoryRegistration registration;
    bool dmaBuf;
    const char *says;
  };
  const Case cases[] = {
      {dev::GpuMemoryRegistration::Auto, true,
       "GPU memory registered through dma-buf"},
      {dev::GpuMemoryRegistration::DmaBuf, true,
       "GPU memory registered through dma-buf"},
      {dev::GpuMemoryRegistration::PeerMem, false,
       "GPU memory registered through nvidia-peermem (dma-buf: not tried: "
       "peermem was asked for)"},
  };
  for (const Case &c : cases) {
    RegistrationLog log;
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s = t.create(c.registration, t.exporter(), &log, &proxy);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(log.dmaBufCalls, c.dmaBuf ? 1 : 0);
    EXPECT_EQ(log.peerMemCalls, c.dmaBuf ? 0 : 1);
    ASSERT_EQ(proxy->registrations().size(), 1u);
    EXPECT_EQ(proxy->registrations()[0].rank, 0);
    EXPECT_EQ(proxy->registrations()[0].dmaBuf, c.dmaBuf);
    EXPECT_EQ(proxy->gpuMemoryRegistration(), c.says);
    EXPECT_THAT(proxy->describe(), HasSubstr(std::string("; ") + c.says));
    // The exported descriptor was closed after the registration: only the
    // test's own is open.
    EXPECT_EQ(openDmaBufs(), 1);
  }
}

TEST(DeviceProxyGpuDirectTest, AutoTakesPeermemWhereDmaBufIsUnsupported) {
  GpuDirectRank t;
  t.setUp();
  if (::testing::Test::HasFatalFailure())
    return;
  // The exporter cannot (an old driver); then the NIC library cannot.
  {
    RegistrationLog log;
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s = t.create(
        dev::GpuMemoryRegistration::Auto,
        cannotExport("the CUDA driver lacks cuMemGetHandleForAddressRange"),
        &log, &proxy);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(log.dmaBufCalls, 0);
    EXPECT_EQ(log.peerMemCalls, 1);
    EXPECT_EQ(proxy->gpuMemoryRegistration(),
              "GPU memory registered through nvidia-peermem (dma-buf: "
              "exporting it: the CUDA driver lacks "
              "cuMemGetHandleForAddressRange)");
  }
  {
    RegistrationLog log;
    log.dmaBufFailure =
        Status(ErrorCode::Unsupported, "ib: libibverbs.so.1 lacks "
                                       "ibv_reg_dmabuf_mr");
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s =
        t.create(dev::GpuMemoryRegistration::Auto, t.exporter(), &log, &proxy);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(log.dmaBufCalls, 1);
    EXPECT_EQ(log.peerMemCalls, 1);
    EXPECT_THAT(proxy->gpuMemoryRegistration(),
                ::testing::MatchesRegex(
                    "GPU memory registered through nvidia-peermem \\(dma-buf: "
                    "registering dma-buf fd [0-9]+ at offset 100: ib: "
                    "libibverbs.so.1 lacks ibv_reg_dmabuf_mr\\)"));
    EXPECT_EQ(openDmaBufs(), 1); // closed on the failure too
  }
  // Neither way: both reasons.
  {
    RegistrationLog log;
    log.dmaBufFailure = Status(ErrorCode::Unsupported, "no dma-buf here");
    log.peerMemFailure =
        Status(ErrorCode::TransportError,
               "ib: ibv_reg_mr failed: Bad address (nvidia-peermem?)");
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s =
        t.create(dev::GpuMemoryRegistration::Auto, t.exporter(), &log, &proxy);
    EXPECT_EQ(s.code(), ErrorCode::TransportError) << s.toString();
    EXPECT_THAT(s.message(),
                ::testing::MatchesRegex(
                    "rank 0: device proxy: rank 0's device arena \\(GPUDirect "
                    "RDMA, [0-9]+ bytes\\): GPU memory cannot be registered: "
                    "dma-buf: registering dma-buf fd [0-9]+ at offset 100: no "
                    "dma-buf here; nvidia-peermem: ib: ibv_reg_mr failed: Bad "
                    "address \\(nvidia-peermem\\?\\)"));
  }
}

TEST(DeviceProxyGpuDirectTest, FailuresNameTheRankTheStepAndWhy) {
  GpuDirectRank t;
  t.setUp();
  if (::testing::Test::HasFatalFailure())
    return;
  // dma-buf asked for, and the exporter cannot: an error, not peermem.
  {
    RegistrationLog log;
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s = t.create(
        dev::GpuMemoryRegistration::DmaBuf,
        cannotExport("CUDA device 0 cannot export its memory as a dma-buf"),
        &log, &proxy);
    EXPECT_EQ(s.code(), ErrorCode::Unsupported);
    EXPECT_THAT(s.message(),
                HasSubstr("rank 0: device proxy: registering rank 0's device "
                          "arena (GPUDirect RDMA, "));
    EXPECT_THAT(s.message(),
                HasSubstr(" bytes) through dma-buf: exporting it: CUDA "
                          "device 0 cannot export its memory as a dma-buf"));
    EXPECT_EQ(log.peerMemCalls, 0);
  }
  // A dma-buf that does not back the memory (a wrong offset): the socket
  // net's check finds it, with either policy that tries dma-buf; auto does
  // not hide it behind peermem.
  for (dev::GpuMemoryRegistration policy :
       {dev::GpuMemoryRegistration::DmaBuf, dev::GpuMemoryRegistration::Auto}) {
    RegistrationLog log;
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s = t.create(policy, t.exporter(4096), &log, &proxy);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
    EXPECT_THAT(
        s.message(),
        ::testing::MatchesRegex(
            "rank 0: device proxy: registering rank 0's device arena "
            "\\(GPUDirect RDMA, [0-9]+ bytes\\) through dma-buf: registering "
            "dma-buf fd [0-9]+ at offset 4196: tcp: dma-buf fd [0-9]+ does "
            "not back address 0x[0-9a-f]+ \\(offset 4196, [0-9]+ bytes\\): "
            "the address is at offset 100 of the file, and the dma-buf "
            "\\(which starts at the fd's position 0\\) puts it at 4196.*"));
    if (policy == dev::GpuMemoryRegistration::Auto) {
      EXPECT_THAT(s.message(),
                  HasSubstr("(a failure, not a lack of support, so "
                            "nvidia-peermem was not tried)"));
    }
    EXPECT_EQ(log.peerMemCalls, 0);
    EXPECT_EQ(openDmaBufs(), 1);
  }
  // A descriptor of another file.
  {
    RegistrationLog log;
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s = t.create(
        dev::GpuMemoryRegistration::DmaBuf,
        [](void *, size_t, int *fd, uint64_t *offset) {
          *fd = memfd_create("collc-proxy-test-other", MFD_CLOEXEC);
          *offset = 100;
          return *fd >= 0 ? Status::success()
                          : Status(ErrorCode::SystemError, "memfd_create");
        },
        &log, &proxy);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.toString();
    EXPECT_THAT(s.message(), HasSubstr("does not back address 0x"));
    EXPECT_THAT(s.message(), HasSubstr("the address is mapped from device "));
    EXPECT_THAT(s.message(), HasSubstr("collc-proxy-test-dma-buf"));
  }
  // peermem asked for, and the NIC cannot register GPU memory.
  {
    RegistrationLog log;
    log.peerMemFailure =
        Status(ErrorCode::TransportError, "ib: ibv_reg_mr failed: Bad address");
    std::unique_ptr<dev::DeviceProxy> proxy;
    Status s = t.create(dev::GpuMemoryRegistration::PeerMem, t.exporter(), &log,
                        &proxy);
    EXPECT_EQ(s.code(), ErrorCode::TransportError);
    EXPECT_THAT(s.message(),
                HasSubstr("bytes) through nvidia-peermem: ib: ibv_reg_mr "
                          "failed: Bad address"));
    EXPECT_EQ(log.dmaBufCalls, 0);
  }
  // The socket net without deviceIsHost refuses dma-bufs (a real GPU's
  // memory): Unsupported, saying so.
  std::unique_ptr<net::Net> plain;
  ASSERT_TRUE(net::createSocketNet("127.0.0.1", "tcp", &plain).ok());
  std::unique_ptr<net::NetMemory> m;
  Status s = plain->regMrDmaBuf(0, t.device, 64, t.memfd, 100, &m);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
  EXPECT_EQ(s.message(),
            "tcp: the socket net cannot register dma-buf (GPU) memory");
}

} // namespace
} // namespace testing
} // namespace collrt

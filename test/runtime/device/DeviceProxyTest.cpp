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

} // namespace
} // namespace testing
} // namespace collrt

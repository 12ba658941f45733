//===- DeviceProxy.cpp - device connections across hosts ------------------===//
#include "runtime/device/DeviceProxy.h"

#include "collrt/device/WaitState.h"
#include "runtime/exec/Backoff.h"

#include <cstring>
#include <deque>
#include <map>
#include <system_error>
#include <tuple>

#include <unistd.h>

namespace collrt {
namespace dev {

namespace {

constexpr uint64_t kHelloTag = 1ull << 32;
constexpr uint64_t kHelloMagic = 0x4f4c4c4548564544ull; // "DEVHELLO"
constexpr size_t kHelloBytes = 32;
/// The kernel marks an LL message in sizes[] (ChannelCommon.h's kLLMessage).
constexpr uint64_t kLLBit = 1ull << 63;

uint64_t loadAcquire(const uint64_t *word) {
  return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}
void storeRelease(uint64_t *word, uint64_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// Registers [data, data + bytes) of device memory through dma-buf: the
/// exporter's fd and offset given to Net::regMrDmaBuf, the fd closed after
/// (the registration holds its own reference). Messages without a prefix:
/// the caller names the rank.
Status registerDmaBuf(net::Net &net, int dev, char *data, uint64_t bytes,
                      const DmaBufExporter &exporter,
                      std::unique_ptr<net::NetMemory> *memory) {
  if (!exporter)
    return Status(ErrorCode::Unsupported,
                  "this executor cannot export its device memory as a "
                  "dma-buf (no exporter)");
  int fd = -1;
  uint64_t offset = 0;
  if (Status s = exporter(data, size_t(bytes), &fd, &offset); !s.ok()) {
    if (fd >= 0)
      ::close(fd);
    return withContext(s, "exporting it");
  }
  if (fd < 0)
    return Status(ErrorCode::SystemError,
                  "exporting it: the exporter gave no file descriptor");
  Status s = net.regMrDmaBuf(dev, data, size_t(bytes), fd, offset, memory);
  std::string which = "dma-buf fd " + std::to_string(fd) + " at offset " +
                      std::to_string(offset);
  ::close(fd);
  if (!s.ok())
    return withContext(s, "registering " + which);
  return Status::success();
}

void putWord(char *at, uint64_t v) { std::memcpy(at, &v, 8); }
uint64_t getWord(const char *at) {
  uint64_t v;
  std::memcpy(&v, at, 8);
  return v;
}

} // namespace

/// One Net connection: this process's rank `rank` to (sends) or from its
/// remote peer `peer`, carrying every channel of that pair.
struct DeviceProxy::Link {
  int32_t rank = 0, peer = 0;
  bool sends = false;
  uint32_t depth = 1;
  std::unique_ptr<net::NetConnecting> connecting;
  std::unique_ptr<net::NetSendComm> sendComm;
  std::unique_ptr<net::NetRecvComm> recvComm;
  char hello[kHelloBytes] = {};
  std::unique_ptr<net::NetMemory> helloMemory;
  net::NetRequest *helloRequest = nullptr;
  bool ready = false;
  /// After the hello the same buffer carries the goodbye: a receive link
  /// keeps a receive of it posted; a send link sends it when the proxy
  /// stops with nothing left to send.
  net::NetRequest *byeRequest = nullptr;
  bool peerLeft = false;
  /// A send link whose connection failed while it had nothing to send (the
  /// peer may just have left): an error only if a message comes for it.
  Status closed;
  net::NetComm *comm() const {
    return sendComm ? static_cast<net::NetComm *>(sendComm.get())
                    : static_cast<net::NetComm *>(recvComm.get());
  }
  std::string name() const {
    return std::string("rank ") + std::to_string(rank) + "'s connection " +
           (sends ? "to" : "from") + " rank " + std::to_string(peer);
  }
};

/// One side of a network connection, in its rank's host arena.
struct DeviceProxy::Half {
  Link *link = nullptr;
  uint32_t channel = 0;
  char *buffers = nullptr;
  uint64_t *sizes = nullptr, *head = nullptr, *tail = nullptr;
  uint32_t slots = 0, slotBytes = 0;
  net::NetMemory *memory = nullptr;
  bool onDevice = false; ///< the slots are GPU memory (GPUDirect)
  /// Messages whose isend (irecv) was started, and completed.
  uint64_t started = 0, completed = 0;
  std::deque<net::NetRequest *> requests;
  std::string name() const {
    return link->name() + " on channel " + std::to_string(channel);
  }
};

Status DeviceProxy::create(std::unique_ptr<net::Net> net, int dev,
                           const LaunchLayout &layout,
                           const std::vector<char *> &hostArenas,
                           const std::string &what,
                           std::unique_ptr<DeviceProxy> *out,
                           const GpuDirectMemory &gpuDirect) {
  const std::vector<char *> &deviceArenas = gpuDirect.deviceArenas;
  std::unique_ptr<DeviceProxy> p(new DeviceProxy());
  p->what_ = what + ": device proxy";
  if (!net || dev < 0 || size_t(dev) >= net->devices().size())
    return Status(ErrorCode::InvalidArgument,
                  p->what_ + ": no Net device " + std::to_string(dev));
  p->net_ = std::move(net);
  p->dev_ = dev;
  p->layoutKey_ = layout.key();
  if (hostArenas.size() != size_t(layout.nranks()))
    return Status(ErrorCode::InvalidArgument,
                  p->what_ + ": " + std::to_string(hostArenas.size()) +
                      " host arenas for " + std::to_string(layout.nranks()) +
                      " ranks");
  const net::NetDeviceInfo &device = p->net_->devices()[size_t(dev)];
  if (layout.slotCapacity() > device.maxMessageBytes)
    return Status(ErrorCode::InvalidArgument,
                  p->what_ + ": device slots of " +
                      std::to_string(layout.slotCapacity()) +
                      " bytes exceed the largest message of " +
                      device.describe());
  // Register every launched rank's host arena.
  std::map<int32_t, net::NetMemory *> memory;
  for (int32_t r : layout.launched()) {
    uint64_t bytes = layout.arena(r).hostBytes;
    if (!bytes)
      continue;
    if (!hostArenas[size_t(r)])
      return Status(ErrorCode::InvalidArgument,
                    p->what_ + ": rank " + std::to_string(r) +
                        " has network connections but no host arena");
    std::unique_ptr<net::NetMemory> m;
    if (Status s = p->net_->regMr(dev, hostArenas[size_t(r)], bytes,
                                  net::NetMemoryKind::Host, &m);
        !s.ok())
      return withContext(s, p->what_ + ": registering rank " +
                                std::to_string(r) + "'s host arena");
    memory[r] = m.get();
    p->memory_.push_back(std::move(m));
  }
  // GPUDirect: the device arenas that hold slots, registered as GPU memory.
  std::map<int32_t, net::NetMemory *> deviceMemory;
  for (const LaunchLayout::Connection &c : layout.connections()) {
    if (!c.slotsOnDevice)
      continue;
    for (int32_t r : {c.from, c.to}) {
      if (!layout.launches(r) || deviceMemory.count(r))
        continue;
      if (size_t(r) >= deviceArenas.size() || !deviceArenas[size_t(r)])
        return Status(ErrorCode::InvalidArgument,
                      p->what_ + ": rank " + std::to_string(r) +
                          "'s network slots are in device memory "
                          "(GPUDirect) but its device arena was not given");
      if (!device.deviceMemory)
        return Status(ErrorCode::Unsupported,
                      p->what_ +
                          ": GPUDirect RDMA puts the network slots in "
                          "GPU memory, and " +
                          std::string(p->net_->name()) + " device " +
                          device.name +
                          " cannot register GPU memory: use --transport ib "
                          "(with nvidia-peermem or dma-buf), or leave "
                          "GPUDirect off");
      std::unique_ptr<net::NetMemory> m;
      if (Status s = p->registerDeviceArena(
              r, deviceArenas[size_t(r)], layout.arena(r).bytes, gpuDirect, &m);
          !s.ok())
        return s;
      deviceMemory[r] = m.get();
      p->memory_.push_back(std::move(m));
    }
  }
  p->flush_ = gpuDirect.flush;
  // The halves and the links they share.
  std::map<std::tuple<int32_t, int32_t, bool>, Link *> links;
  for (const LaunchLayout::Connection &c : layout.connections()) {
    if (!c.net)
      continue;
    for (bool sends : {true, false}) {
      int32_t r = sends ? c.from : c.to, peer = sends ? c.to : c.from;
      if (!layout.launches(r))
        continue;
      Link *&link = links[{r, peer, sends}];
      if (!link) {
        p->links_.emplace_back(new Link());
        link = p->links_.back().get();
        link->rank = r;
        link->peer = peer;
        link->sends = sends;
      }
      link->depth += layout.slots();
      char *base = hostArenas[size_t(r)];
      auto h = std::make_unique<Half>();
      h->link = link;
      h->channel = c.channel;
      h->slots = layout.slots();
      h->slotBytes = layout.slotCapacity();
      h->memory = c.slotsOnDevice ? deviceMemory[r] : memory[r];
      h->onDevice = c.slotsOnDevice;
      h->buffers = (c.slotsOnDevice ? deviceArenas[size_t(r)] : base) +
                   (sends ? c.sendBuffers : c.buffers);
      h->sizes =
          reinterpret_cast<uint64_t *>(base + (sends ? c.sendSizes : c.sizes));
      h->head =
          reinterpret_cast<uint64_t *>(base + (sends ? c.sendHead : c.head));
      h->tail =
          reinterpret_cast<uint64_t *>(base + (sends ? c.tail : c.recvTail));
      p->perLaunch_ += c.messagesPerTile * uint64_t(layout.tiles());
      p->halves_.push_back(std::move(h));
    }
  }
  for (auto &link : p->links_)
    if (link->depth > device.maxDepth)
      return Status(ErrorCode::InvalidArgument,
                    p->what_ + ": " + link->name() + " needs " +
                        std::to_string(link->depth) +
                        " outstanding receives, more than " + device.name +
                        " allows (" + std::to_string(device.maxDepth) +
                        "): use fewer channels or slots");
  if (Status s = p->net_->listen(dev, &p->handle_, &p->listen_); !s.ok())
    return withContext(s, p->what_);
  *out = std::move(p);
  return Status::success();
}

Status DeviceProxy::registerDeviceArena(int32_t rank, char *data,
                                        uint64_t bytes,
                                        const GpuDirectMemory &gpuDirect,
                                        std::unique_ptr<net::NetMemory> *m) {
  std::string arena = "rank " + std::to_string(rank) +
                      "'s device arena (GPUDirect RDMA, " +
                      std::to_string(bytes) + " bytes)";
  Registration how;
  how.rank = rank;
  switch (gpuDirect.registration) {
  case GpuMemoryRegistration::DmaBuf:
    if (Status s =
            registerDmaBuf(*net_, dev_, data, bytes, gpuDirect.exportDmaBuf, m);
        !s.ok())
      return withContext(s,
                         what_ + ": registering " + arena + " through dma-buf");
    how.dmaBuf = true;
    break;
  case GpuMemoryRegistration::PeerMem:
    if (Status s = net_->regMr(dev_, data, size_t(bytes),
                               net::NetMemoryKind::Device, m);
        !s.ok())
      return withContext(s, what_ + ": registering " + arena +
                                " through nvidia-peermem");
    how.why = "not tried: peermem was asked for";
    break;
  case GpuMemoryRegistration::Auto: {
    Status viaDmaBuf =
        registerDmaBuf(*net_, dev_, data, bytes, gpuDirect.exportDmaBuf, m);
    if (viaDmaBuf.ok()) {
      how.dmaBuf = true;
      break;
    }
    if (viaDmaBuf.code() != ErrorCode::Unsupported)
      return Status(viaDmaBuf.code(),
                    what_ + ": registering " + arena +
                        " through dma-buf: " + viaDmaBuf.message() +
                        " (a failure, not a lack of support, so "
                        "nvidia-peermem was not tried)");
    if (Status s = net_->regMr(dev_, data, size_t(bytes),
                               net::NetMemoryKind::Device, m);
        !s.ok())
      return withContext(s, what_ + ": " + arena +
                                ": GPU memory cannot be registered: dma-buf: " +
                                viaDmaBuf.message() + "; nvidia-peermem");
    how.why = viaDmaBuf.message();
    break;
  }
  }
  registrations_.push_back(how);
  return Status::success();
}

std::string DeviceProxy::gpuMemoryRegistration() const {
  auto text = [](const Registration &r) {
    return r.dmaBuf ? std::string("GPU memory registered through dma-buf")
                    : "GPU memory registered through nvidia-peermem "
                      "(dma-buf: " +
                          r.why + ")";
  };
  bool same = true;
  for (const Registration &r : registrations_)
    same = same && text(r) == text(registrations_[0]);
  if (registrations_.empty())
    return "";
  if (same)
    return text(registrations_[0]);
  std::string all;
  for (const Registration &r : registrations_)
    all += (all.empty() ? "" : "; ") + std::string("rank ") +
           std::to_string(r.rank) + ": " + text(r);
  return all;
}

DeviceProxy::~DeviceProxy() {
  if (thread_.joinable()) {
    // Leave at once: nobody waits for the messages any more (and the
    // launch's abort flag may be gone).
    abortFlag_.store(nullptr);
    abandon_.store(true); // no goodbye: as if the process died
    stopAt_.store(0);
    stopping_.store(true);
    wakeUp();
    thread_.join();
  }
  for (auto &h : halves_)
    h->requests.clear();
  links_.clear();
}

std::string DeviceProxy::describe() const {
  std::string registration = gpuMemoryRegistration();
  return std::string(net_->name()) + " " +
         net_->devices()[size_t(dev_)].describe() +
         (registration.empty() ? "" : "; " + registration);
}

Status DeviceProxy::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void DeviceProxy::fail(const Status &status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_.ok())
      error_ = status;
  }
  failed_.store(true, std::memory_order_release);
  if (int32_t *flag = abortFlag_.load()) {
    int32_t expected = wait::NoAbort;
    __atomic_compare_exchange_n(flag, &expected, int32_t(wait::HostAbort),
                                false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
}

Status DeviceProxy::start(const std::vector<std::string> &handles,
                          int32_t *abortFlag, double connectSeconds) {
  if (thread_.joinable())
    return Status(ErrorCode::InvalidArgument, what_ + ": already started");
  for (auto &link : links_)
    if (link->sends && (size_t(link->peer) >= handles.size() ||
                        handles[size_t(link->peer)].empty()))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": " + link->name() +
                        " needs the peer's proxy handle, and the table has "
                        "none for rank " +
                        std::to_string(link->peer));
  abortFlag_.store(abortFlag);
  try {
    thread_ = std::thread(&DeviceProxy::run, this, handles, connectSeconds);
  } catch (const std::system_error &e) {
    return Status(ErrorCode::SystemError,
                  what_ + ": could not start its thread: " + e.what());
  }
  return Status::success();
}

Status DeviceProxy::connectAll(const std::vector<std::string> &handles,
                               Deadline deadline) {
  for (auto &link : links_) {
    if (Status s = net_->regMr(dev_, link->hello, kHelloBytes,
                               net::NetMemoryKind::Host, &link->helloMemory);
        !s.ok())
      return withContext(s, what_);
    if (link->sends) {
      if (Status s = net_->connect(dev_, handles[size_t(link->peer)],
                                   link->depth, deadline, &link->connecting);
          !s.ok())
        return withContext(s, what_ + ": " + link->name());
      putWord(link->hello, kHelloMagic);
      putWord(link->hello + 8, uint64_t(link->rank));
      putWord(link->hello + 16, uint64_t(link->peer));
      putWord(link->hello + 24, layoutKey_);
    }
  }
  // Connections accepted whose hello has not arrived yet (a member: on a
  // failure they close only after fail() recorded it, so that a peer never
  // sees the hang-up before this proxy's error exists).
  std::vector<std::unique_ptr<Incoming>> &incoming = incoming_;
  exec::Backoff backoff;
  for (;;) {
    bool all = true, progressed = false;
    for (auto &link : links_) {
      if (link->ready || !link->sends)
        continue;
      all = false;
      if (!link->sendComm) {
        if (Status s = link->connecting->step(&link->sendComm); !s.ok())
          return withContext(s, what_ + ": " + link->name());
        if (!link->sendComm)
          continue;
        link->connecting.reset();
        progressed = true;
      }
      if (Status s = link->sendComm->progress(); !s.ok())
        return withContext(s, what_ + ": " + link->name());
      if (!link->helloRequest) {
        if (Status s =
                link->sendComm->isend(link->hello, kHelloBytes, kHelloTag,
                                      *link->helloMemory, &link->helloRequest);
            !s.ok())
          return withContext(s, what_ + ": " + link->name());
        if (!link->helloRequest)
          continue;
        progressed = true;
      }
      bool done = false;
      size_t bytes = 0;
      if (Status s = link->sendComm->test(link->helloRequest, &done, &bytes);
          !s.ok())
        return withContext(s, what_ + ": " + link->name());
      if (done) {
        link->helloRequest = nullptr;
        link->ready = true;
        progressed = true;
      }
    }
    for (auto &link : links_)
      if (!link->sends && !link->ready)
        all = false;
    if (all)
      return Status::success();
    // Accept, and read each newcomer's hello.
    std::unique_ptr<net::NetRecvComm> comm;
    if (Status s = listen_->accept(&comm); !s.ok())
      return withContext(s, what_ + ": accepting");
    if (comm) {
      auto in = std::make_unique<Incoming>();
      in->comm = std::move(comm);
      if (Status s = net_->regMr(dev_, in->hello, kHelloBytes,
                                 net::NetMemoryKind::Host, &in->memory);
          !s.ok())
        return withContext(s, what_);
      incoming.push_back(std::move(in));
      progressed = true;
    }
    for (size_t i = 0; i < incoming.size();) {
      Incoming &in = *incoming[i];
      if (Status s = in.comm->progress(); !s.ok())
        return withContext(s, what_ + ": a connection from " +
                                  in.comm->peerAddress() +
                                  " failed before its hello");
      if (!in.request) {
        if (Status s = in.comm->irecv(in.hello, kHelloBytes, kHelloTag,
                                      *in.memory, &in.request);
            !s.ok())
          return withContext(s, what_);
        if (!in.request) {
          ++i;
          continue;
        }
      }
      bool done = false;
      size_t bytes = 0;
      if (Status s = in.comm->test(in.request, &done, &bytes); !s.ok())
        return withContext(s, what_ + ": a connection from " +
                                  in.comm->peerAddress());
      if (!done) {
        ++i;
        continue;
      }
      progressed = true;
      int32_t from = int32_t(getWord(in.hello + 8)),
              to = int32_t(getWord(in.hello + 16));
      if (bytes != kHelloBytes || getWord(in.hello) != kHelloMagic)
        return Status(ErrorCode::PlanMismatch,
                      what_ + ": a connection from " + in.comm->peerAddress() +
                          " opened with a message that is not a device "
                          "proxy's hello (" +
                          std::to_string(bytes) +
                          " bytes): every process must run the same "
                          "collc-run");
      if (getWord(in.hello + 24) != layoutKey_)
        return Status(ErrorCode::PlanMismatch,
                      what_ + ": rank " + std::to_string(from) +
                          "'s proxy connected to rank " + std::to_string(to) +
                          " with another layout (key " +
                          std::to_string(getWord(in.hello + 24)) +
                          ", this process has " + std::to_string(layoutKey_) +
                          "): every process must run the same plan, "
                          "collective, count, slot bytes and slots");
      Link *match = nullptr;
      for (auto &link : links_)
        if (!link->sends && link->rank == to && link->peer == from)
          match = link.get();
      if (!match || match->recvComm)
        return Status(ErrorCode::PlanMismatch,
                      what_ + ": rank " + std::to_string(from) +
                          "'s proxy connected here for rank " +
                          std::to_string(to) + ", but " +
                          (match ? "that connection is up already"
                                 : "this proxy has no network connection "
                                   "from rank " +
                                       std::to_string(from) + " to rank " +
                                       std::to_string(to) +
                                       " (the table gave rank " +
                                       std::to_string(from) +
                                       " this proxy's handle as rank " +
                                       std::to_string(to) + "'s?)"));
      match->recvComm = std::move(in.comm);
      match->ready = true;
      incoming.erase(incoming.begin() + long(i));
    }
    if (deadline.expired()) {
      std::string missing;
      for (auto &link : links_)
        if (!link->ready)
          missing += (missing.empty() ? "" : "; ") + link->name();
      return Status(ErrorCode::Timeout,
                    what_ +
                        ": the network connections were not all up "
                        "within the connect deadline: " +
                        missing);
    }
    if (abandon_.load())
      return Status(ErrorCode::Timeout,
                    what_ + ": destroyed before the network connections "
                            "were up");
    if (stopExpired())
      return Status(ErrorCode::Timeout,
                    what_ + ": stopped before the network connections were "
                            "up");
    if (progressed)
      backoff = exec::Backoff();
    else
      backoff.pause();
  }
}

Status DeviceProxy::linkProgress(Link &link, bool *progressed) {
  if (link.peerLeft || !link.closed.ok())
    return Status::success();
  Status s = link.comm()->progress();
  if (!link.sends) {
    // The peer's goodbye, received before or with the hang-up.
    if (!link.byeRequest && s.ok()) {
      if (Status r = link.recvComm->irecv(link.hello, kHelloBytes, kHelloTag,
                                          *link.helloMemory, &link.byeRequest);
          !r.ok())
        return withContext(r, what_ + ": " + link.name());
    }
    return s.ok() ? checkGoodbye(link, Status::success(), progressed)
                  : checkGoodbye(link, s, progressed);
  }
  if (s.ok())
    return s;
  for (auto &h : halves_)
    if (h->link == &link &&
        (!h->requests.empty() || h->completed != loadAcquire(h->head)))
      return Status(ErrorCode::PeerFailure,
                    what_ + ": " + link.name() + ": " + s.message());
  link.closed = s; // nothing was lost; an error if a message comes
  return Status::success();
}

Status DeviceProxy::checkGoodbye(Link &link, const Status &failure,
                                 bool *progressed) {
  if (link.byeRequest) {
    bool done = false;
    size_t bytes = 0;
    if (link.recvComm->test(link.byeRequest, &done, &bytes).ok() && done) {
      link.byeRequest = nullptr;
      link.peerLeft = true;
      *progressed = true;
      return Status::success();
    }
  }
  if (failure.ok())
    return failure;
  if (stopping_.load(std::memory_order_acquire) && drained()) {
    // Stopping means every rank's kernels have ended (stop's contract), so
    // nothing more was due from the peer: its hang-up loses nothing, with
    // or without its goodbye (which it may have failed to send).
    link.peerLeft = true;
    *progressed = true;
    return Status::success();
  }
  return Status(ErrorCode::PeerFailure,
                what_ + ": " + link.name() +
                    " closed without a goodbye (its process failed, exited "
                    "early or was killed): " +
                    failure.message());
}

Status DeviceProxy::moveMessages(bool *progressed) {
  for (auto &link : links_)
    if (Status s = linkProgress(*link, progressed); !s.ok())
      return s;
  for (auto &hp : halves_) {
    Half &h = *hp;
    Link &link = *h.link;
    if (link.peerLeft) {
      // Its last messages arrived before its goodbye: complete them.
      while (!link.sends && !h.requests.empty()) {
        bool done = false;
        size_t bytes = 0;
        if (!link.comm()->test(h.requests.front(), &done, &bytes).ok() || !done)
          break;
        if (Status s = completeFront(h, bytes); !s.ok())
          return s;
        *progressed = true;
      }
      continue;
    }
    if (link.sends && !link.closed.ok()) {
      if (loadAcquire(h.head) != h.completed)
        return Status(ErrorCode::PeerFailure, what_ + ": " + h.name() +
                                                  ": a message to send after "
                                                  "the connection closed: " +
                                                  link.closed.message());
      continue;
    }
    if (link.sends) {
      // Start the isend of every message the kernel posted.
      uint64_t posted = loadAcquire(h.head);
      while (h.started < posted && h.started - h.completed < h.slots) {
        uint64_t slot = h.started % h.slots;
        uint64_t bytes = __atomic_load_n(&h.sizes[slot], __ATOMIC_RELAXED);
        if ((bytes & kLLBit) || bytes == 0 || bytes > h.slotBytes)
          return Status(ErrorCode::PlanMismatch,
                        what_ + ": " + h.name() + ": message " +
                            std::to_string(h.started + 1) + " has size word " +
                            std::to_string(bytes) +
                            ((bytes & kLLBit)
                                 ? " (an LL message: network connections "
                                   "take the simple protocol only)"
                                 : " (outside the slot of " +
                                       std::to_string(h.slotBytes) +
                                       " bytes)"));
        net::NetRequest *request = nullptr;
        if (Status s = link.sendComm->isend(h.buffers + slot * h.slotBytes,
                                            size_t(bytes), uint64_t(h.channel),
                                            *h.memory, &request);
            !s.ok())
          return withContext(s, what_ + ": " + h.name());
        if (!request)
          break; // the peer has not posted a receive yet
        h.requests.push_back(request);
        ++h.started;
        *progressed = true;
      }
    } else {
      // Post a receive into every slot the kernel has released.
      uint64_t released = loadAcquire(h.tail);
      while (h.started - released < h.slots) {
        uint64_t slot = h.started % h.slots;
        net::NetRequest *request = nullptr;
        if (Status s = link.recvComm->irecv(h.buffers + slot * h.slotBytes,
                                            h.slotBytes, uint64_t(h.channel),
                                            *h.memory, &request);
            !s.ok()) {
          // The connection failed: fine if the peer said goodbye.
          if (Status bye = checkGoodbye(link, s, progressed); !bye.ok())
            return bye;
          break;
        }
        if (!request)
          break;
        h.requests.push_back(request);
        ++h.started;
        *progressed = true;
      }
    }
    // Complete in order.
    while (!h.requests.empty()) {
      bool done = false;
      size_t bytes = 0;
      if (Status s = link.comm()->test(h.requests.front(), &done, &bytes);
          !s.ok()) {
        if (link.sends)
          return Status(ErrorCode::PeerFailure,
                        what_ + ": " + h.name() + ": " + s.message());
        // A receive the peer will not fill: fine if it said goodbye.
        if (Status bye = checkGoodbye(link, s, progressed); !bye.ok())
          return bye;
        break;
      }
      if (!done)
        break;
      if (Status s = completeFront(h, bytes); !s.ok())
        return s;
      *progressed = true;
    }
  }
  return Status::success();
}

Status DeviceProxy::completeFront(Half &h, size_t bytes) {
  h.requests.pop_front();
  uint64_t n = ++h.completed;
  if (h.link->sends) {
    storeRelease(h.tail, n); // the slot may be written again
    sent_.fetch_add(1, std::memory_order_relaxed);
    return Status::success();
  }
  if (h.onDevice && flush_)
    if (Status s = flush_(); !s.ok()) // the NIC's writes, visible
      return withContext(s, what_ + ": " + h.name());
  __atomic_store_n(&h.sizes[(n - 1) % h.slots], uint64_t(bytes),
                   __ATOMIC_RELAXED);
  storeRelease(h.head, n); // the kernel may read it
  received_.fetch_add(1, std::memory_order_relaxed);
  return Status::success();
}

Status DeviceProxy::sayGoodbye() {
  exec::Backoff backoff;
  for (;;) {
    bool all = true;
    for (auto &link : links_) {
      if (!link->closed.ok() || link->peerLeft)
        continue;
      if (!link->sends) {
        // Leave only once the peer has said its goodbye too (or hung up):
        // it says it when its own sends have completed, so this side's
        // hang-up never reaches a peer whose last completions it has not
        // yet polled (a sender whose socket closes with requests
        // outstanding reports a lost message).
        bool progressed = false;
        if (Status s = linkProgress(*link, &progressed); !s.ok())
          link->closed = s;
        else if (!link->peerLeft)
          all = false;
        continue;
      }
      if (Status s = link->sendComm->progress(); !s.ok()) {
        link->closed = s; // gone already: nothing was lost
        continue;
      }
      if (!link->byeRequest) {
        putWord(link->hello, kHelloMagic + 1);
        if (Status s =
                link->sendComm->isend(link->hello, kHelloBytes, kHelloTag,
                                      *link->helloMemory, &link->byeRequest);
            !s.ok()) {
          link->closed = s;
          continue;
        }
        if (!link->byeRequest) {
          all = false;
          continue;
        }
      }
      bool done = false;
      size_t bytes = 0;
      if (Status s = link->sendComm->test(link->byeRequest, &done, &bytes);
          !s.ok()) {
        link->closed = s;
        continue;
      }
      if (done)
        link->peerLeft = true; // finished with it
      else
        all = false;
    }
    if (all)
      return Status::success();
    if (Deadline::Clock::now().time_since_epoch().count() >=
        stopAt_.load(std::memory_order_acquire) +
            Deadline::Clock::duration(std::chrono::seconds(2)).count())
      return Status(
          ErrorCode::Timeout,
          what_ + ": the peers did not take or say the goodbye within 2 s "
                  "of the stop deadline");
    backoff.pause();
  }
}

bool DeviceProxy::drained() const {
  for (auto &h : halves_)
    if (h->link->sends &&
        (!h->requests.empty() || h->completed != loadAcquire(h->head)))
      return false;
  return true;
}

void DeviceProxy::run(std::vector<std::string> handles, double connectSeconds) {
  if (Status s = connectAll(handles, Deadline::after(connectSeconds));
      !s.ok()) {
    fail(s);
    return;
  }
  exec::Backoff backoff;
  for (;;) {
    if (failed_.load(std::memory_order_acquire) ||
        abandon_.load(std::memory_order_acquire))
      return;
    bool progressed = false;
    if (Status s = moveMessages(&progressed); !s.ok()) {
      fail(s);
      return;
    }
    if (stopping_.load(std::memory_order_acquire) && drained()) {
      if (abandon_.load(std::memory_order_acquire))
        return; // (the destructor: set before stopping_)
      if (Status s = sayGoodbye(); !s.ok())
        fail(s);
      return;
    }
    if (stopExpired()) {
      std::string left;
      for (auto &h : halves_)
        if (h->link->sends && h->completed != loadAcquire(h->head))
          left += (left.empty() ? "" : "; ") + h->name() + ": " +
                  std::to_string(loadAcquire(h->head) - h->completed) +
                  " message(s)";
      fail(Status(ErrorCode::Timeout,
                  what_ +
                      ": messages had not left when the proxy was "
                      "stopped: " +
                      left));
      return;
    }
    if (progressed) {
      backoff = exec::Backoff();
      idleAsleep_.store(false, std::memory_order_relaxed);
      if (polling_ == ProxyPolling::Launch) // (idle()'s clock)
        lastActive_ = std::chrono::steady_clock::now();
    } else {
      idle(backoff);
    }
  }
}

void DeviceProxy::requestStop(double seconds) {
  if (stopping_.load())
    return;
  stopAt_.store(Deadline::after(seconds).at().time_since_epoch().count(),
                std::memory_order_release);
  stopping_.store(true, std::memory_order_release);
  wakeUp();
}

void DeviceProxy::wakeUp() {
  // Taking the mutex after the change orders it before a sleeper's check
  // (which runs under the mutex) or after its wait began (which the
  // notification ends): no wake-up is lost.
  {
    std::lock_guard<std::mutex> lock(wakeMutex_);
  }
  wake_.notify_all();
}

void DeviceProxy::launched() {
  if (perLaunch_ == 0)
    return;
  expected_.fetch_add(perLaunch_, std::memory_order_acq_rel);
  if (polling_ == ProxyPolling::Launch)
    wakeUp();
}

uint64_t DeviceProxy::messagesDue() const {
  uint64_t moved = sent_.load(std::memory_order_acquire) +
                   received_.load(std::memory_order_acquire);
  uint64_t expected = expected_.load(std::memory_order_acquire);
  return expected > moved ? expected - moved : 0;
}

void DeviceProxy::idle(exec::Backoff &backoff) {
  if (polling_ == ProxyPolling::Sleep) {
    backoff.pause();
    return;
  }
  auto now = std::chrono::steady_clock::now();
  uint64_t expected = expected_.load(std::memory_order_acquire);
  if (expected != seenExpected_) { // a launch since the last round
    if (backoff.sleepsNext())
      wakeups_.fetch_add(1, std::memory_order_relaxed); // between sleeps
    seenExpected_ = expected;
    lastActive_ = now;
    backoff = exec::Backoff();
    idleAsleep_.store(false, std::memory_order_relaxed);
  }
  if (messagesDue() > 0 && now - lastActive_ < kAttentive) {
    // A launch's messages are due: the kernel may post one any moment.
    // Poll every few microseconds, sleeping in between rather than
    // spinning or yielding: a thread that yields to one that spins (a
    // host thread waiting for the GPU, an emulated kernel) may not run
    // again for a time slice, where a sleeper that wakes preempts it.
    exec::Backoff::preciseTimers();
    std::this_thread::sleep_for(std::chrono::microseconds(kAttentiveSleepUs));
    return;
  }
  if (!backoff.sleepsNext()) {
    backoff.pause();
    return;
  }
  exec::Backoff::preciseTimers();
  uint64_t seen = seenExpected_;
  idleAsleep_.store(true, std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(wakeMutex_);
  // A stop ends the sleep once (then the thread drains and leaves, sleeping
  // as usual in between).
  bool launch =
      wake_.wait_for(lock, std::chrono::microseconds(backoff.takeSleep()), [&] {
        return expected_.load(std::memory_order_acquire) != seen ||
               (!stopNoticed_ && stopping_.load(std::memory_order_acquire));
      });
  stopNoticed_ = stopNoticed_ || stopping_.load(std::memory_order_acquire);
  if (launch && expected_.load(std::memory_order_acquire) != seen) {
    wakeups_.fetch_add(1, std::memory_order_relaxed);
    backoff = exec::Backoff();
    idleAsleep_.store(false, std::memory_order_relaxed);
    seenExpected_ = expected_.load(std::memory_order_acquire);
    lastActive_ = std::chrono::steady_clock::now();
  }
}

Status DeviceProxy::stop(double seconds) {
  if (!thread_.joinable())
    return error();
  requestStop(seconds);
  // The thread leaves once everything posted has left, on a failure, or
  // at the deadline (a failure naming what had not left).
  thread_.join();
  links_.clear(); // closes the connections
  return error();
}

bool DeviceProxy::stopExpired() const {
  return stopping_.load(std::memory_order_acquire) &&
         Deadline::Clock::now().time_since_epoch().count() >=
             stopAt_.load(std::memory_order_acquire);
}

} // namespace dev
} // namespace collrt

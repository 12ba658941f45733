//===- NetTransport.cpp - the transport protocol over a Net: API side -----===//
//
// Creation, the control messages' format, connect() (exchange handles and
// specs through the bootstrap; on a new spec: return the last credits, let
// go of the old connections everywhere, then open and install new ones)
// and the lock-free trySend/tryRecv/releaseRecv. Opening connections is in
// NetConnect.cpp, the proxy thread in NetProxy.cpp.
//
//===----------------------------------------------------------------------===//
#include "NetTransport.h"

#include "Agreement.h"
#include "SpecCheck.h"

#include "net/Wire.h"

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>

namespace collrt {
namespace transport {

using net::getU32;
using net::getU64;
using net::putU32;
using net::putU64;

std::string encodeControl(const ControlMessage &message,
                          size_t *encodedCredits) {
  std::string out(8, '\0');
  putU32(&out[0], static_cast<uint32_t>(message.type));
  uint32_t count = 0;
  switch (message.type) {
  case ControlType::Hello: {
    char fixed[8];
    putU32(fixed, static_cast<uint32_t>(message.rank));
    putU32(fixed + 4, message.generation);
    out.append(fixed, 8);
    std::string id = message.runId.substr(0, kControlBytes - 16);
    out += id;
    count = static_cast<uint32_t>(id.size());
    break;
  }
  case ControlType::Credit:
    for (const auto &credit : message.credits) {
      if (out.size() + 12 > kControlBytes)
        break;
      char entry[12];
      putU32(entry, credit.first);
      putU64(entry + 4, credit.second);
      out.append(entry, 12);
      ++count;
    }
    if (encodedCredits)
      *encodedCredits = count;
    break;
  case ControlType::Bye:
    break;
  case ControlType::Abort: {
    std::string reason = message.reason.substr(0, kControlBytes - 8);
    out += reason;
    count = static_cast<uint32_t>(reason.size());
    break;
  }
  }
  putU32(&out[4], count);
  return out;
}

bool decodeControl(const char *data, size_t bytes, ControlMessage *message) {
  if (bytes < 8)
    return false;
  uint32_t type = getU32(data);
  uint32_t count = getU32(data + 4);
  *message = ControlMessage();
  switch (type) {
  case static_cast<uint32_t>(ControlType::Hello):
    if (bytes != 16 + size_t(count))
      return false;
    message->rank = static_cast<int32_t>(getU32(data + 8));
    message->generation = getU32(data + 12);
    message->runId.assign(data + 16, count);
    break;
  case static_cast<uint32_t>(ControlType::Credit):
    if (bytes != 8 + size_t(count) * 12)
      return false;
    for (uint32_t i = 0; i < count; ++i)
      message->credits.push_back(
          {getU32(data + 8 + 12 * i), getU64(data + 12 + 12 * i)});
    break;
  case static_cast<uint32_t>(ControlType::Bye):
    if (bytes != 8 || count != 0)
      return false;
    break;
  case static_cast<uint32_t>(ControlType::Abort):
    if (bytes != 8 + size_t(count))
      return false;
    message->reason.assign(data + 8, count);
    break;
  default:
    return false;
  }
  message->type = static_cast<ControlType>(type);
  return true;
}

MappedBuffer::~MappedBuffer() {
  if (data_)
    ::munmap(data_, bytes_);
}

MappedBuffer &MappedBuffer::operator=(MappedBuffer &&other) noexcept {
  if (this != &other) {
    if (data_)
      ::munmap(data_, bytes_);
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

Status MappedBuffer::allocate(size_t bytes, const std::string &what) {
  void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return net::sysError(ErrorCode::SystemError,
                         what + ": mapping " + std::to_string(bytes) +
                             " bytes of connection buffers",
                         errno);
  data_ = static_cast<char *>(p);
  bytes_ = bytes;
  return Status::success();
}

NetTransport::NetTransport(const char *kind, Bootstrap &bootstrap,
                           std::unique_ptr<net::Net> net, int dev,
                           std::string description)
    : kind_(kind), bootstrap_(bootstrap), net_(std::move(net)), dev_(dev),
      description_(std::move(description)), failures_(bootstrap.worldSize()) {
  std::random_device random;
  nonce_ = std::to_string(::getpid()) + "-" + std::to_string(random()) +
           std::to_string(random());
}

Status NetTransport::start() {
  if (Status s = net_->listen(dev_, &handle_, &listen_); !s.ok())
    return s;
  int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0)
    return net::sysError(ErrorCode::SystemError, here() + ": eventfd()", errno);
  wakeFd_.reset(fd);
  proxy_ = std::thread([this] { proxyLoop(); });
  return Status::success();
}

NetTransport::~NetTransport() {
  stop_.store(true);
  wake();
  if (proxy_.joinable())
    proxy_.join();
  // Connections before the Net (links_ and listen_ are declared after
  // net_), and registered memory before the Net too.
  links_.clear();
  listen_.reset();
  netMemory_.clear();
}

void NetTransport::wake() {
  uint64_t one = 1;
  (void)!::write(wakeFd_.get(), &one, sizeof(one));
}

Status NetTransport::abortedStatus() const {
  if (!aborted_.load(std::memory_order_acquire))
    return Status::success();
  std::lock_guard<std::mutex> lock(abortMutex_);
  return Status(ErrorCode::TransportError,
                here() + " was aborted: " + abortReason_);
}

Status NetTransport::peerStatus(int32_t peer) {
  if (anyFailure_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(failureMutex_);
    if (!failures_[peer].empty())
      return Status(ErrorCode::PeerFailure, failures_[peer]);
  }
  return bootstrap_.checkPeers();
}

Status NetTransport::unknown(const char *what, const ConnectionKey &key) const {
  return Status(ErrorCode::InvalidArgument,
                here() + ": " + what + " peer " + std::to_string(key.peer) +
                    " on channel " + std::to_string(key.channel) +
                    ", which the connected spec does not contain");
}

Status NetTransport::checkLocal(const ConnectionSpec &spec) const {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (Status s = checkSpec(name(), rank(), worldSize(), spec); !s.ok())
    return s;
  auto unreleased = [&](const ConnectionKey &key, uint64_t count) {
    return Status(ErrorCode::InvalidArgument,
                  here() + ": connect while " + std::to_string(count) +
                      " message(s) from peer " + std::to_string(key.peer) +
                      " on channel " + std::to_string(key.channel) +
                      " are not released");
  };
  for (const auto &entry : recvs_) {
    uint64_t count = entry.second->arrived.load() - entry.second->released;
    if (count > 0)
      return unreleased(entry.first, count);
  }
  for (const auto &entry : selfRings_)
    if (entry.second->occupied() > 0)
      return unreleased({rank(), entry.first}, entry.second->occupied());
  return Status::success();
}

Status NetTransport::drainCredits(Deadline deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::string waiting;
    for (const auto &entry : sends_) {
      const NetSendConnection &c = *entry.second;
      uint64_t credits = c.credits.load();
      if (credits < c.posted)
        waiting += (waiting.empty() ? "" : "; ") +
                   std::to_string(c.posted - credits) + " message(s) to rank " +
                   std::to_string(entry.first.peer) + " on channel " +
                   std::to_string(entry.first.channel) +
                   " were not released by it";
    }
    for (const auto &entry : links_) {
      const PeerLink &link = *entry.second;
      if (link.closed)
        continue;
      bool pending = link.controlDone < link.controlIssued;
      for (const NetRecvConnection *c : link.recvs)
        pending = pending || c->posted < c->released.load() + c->slots ||
                  c->credited + c->slots < c->posted;
      if (pending)
        waiting += (waiting.empty() ? "" : "; ") +
                   std::string("the last credits to rank ") +
                   std::to_string(link.rank) + " are not delivered";
    }
    if (waiting.empty())
      return Status::success();
    for (const auto &entry : links_)
      if (Status s = peerStatus(entry.first); !s.ok())
        return s;
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    here() +
                        ": connect timed out closing the previous "
                        "connections: " +
                        waiting);
    changed_.wait_until(lock,
                        std::min(deadline.at(), Deadline::after(0.01).at()));
  }
}

Status NetTransport::connect(const ConnectionSpec &spec, Deadline deadline) {
  std::string state;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    state = links_.empty() ? "n" : connectedSpecs_.empty() ? "b" : "c";
  }
  std::vector<ConnectionSpec> all;
  std::vector<std::string> extras;
  // "<nonce> <state> <handle>": rank 0's nonce names the run; the state
  // says whether this rank holds connections (c: of the spec connected
  // last, b: of a failed connect, n: none).
  if (Status s = gatherSpecs(bootstrap_, name(), spec, checkLocal(spec),
                             nonce_ + " " + state + " " + handle_, deadline,
                             &all, &extras);
      !s.ok())
    return s;
  std::vector<std::string> encoded, handles(extras.size());
  for (const ConnectionSpec &s : all)
    encoded.push_back(encodeSpec(s));
  bool anyLinks = false;
  for (size_t r = 0; r < extras.size(); ++r) {
    std::istringstream in(extras[r]);
    std::string nonce, theirs;
    in >> nonce >> theirs;
    std::getline(in >> std::ws, handles[r]);
    anyLinks = anyLinks || theirs != "n";
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    runId_ = extras[0].substr(0, extras[0].find(' '));
    // Every rank sees the same specs, so every rank decides alike.
    if (encoded == connectedSpecs_)
      return Status::success();
    connectedSpecs_.clear();
  }
  if (anyLinks) {
    // Return the last credits, then let go of the connections; once every
    // rank did (the agreement), they can be closed without a peer taking
    // the hang-up for a failure.
    Status local = state == "c" ? drainCredits(deadline) : Status::success();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      attached_ = false;
    }
    if (Status s = agreeOnOutcome(bootstrap_, name(), local, deadline); !s.ok())
      return s;
    std::map<int32_t, std::unique_ptr<PeerLink>> old;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      old.swap(links_);
    }
    old.clear();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
  }
  std::map<int32_t, std::unique_ptr<PeerLink>> links;
  Status local = openLinks(spec, handles, deadline, &links);
  if (local.ok())
    local = installLinks(spec, links);
  // Nobody sends before every rank installed its receives.
  Status outcome = agreeOnOutcome(bootstrap_, name(), local, deadline);
  if (outcome.ok()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      links_ = std::move(links);
      attached_ = true;
      connectedSpecs_ = std::move(encoded);
    }
    wake();
  }
  return outcome;
}

Status NetTransport::registerMemory(void *base, size_t bytes,
                                    MemoryRegion *region) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (Status s = memory_.add(name(), base, bytes, region); !s.ok())
    return s;
  if (bytes == 0)
    return Status::success();
  // Registered with the Net too: pinned and keyed for ibverbs, a range
  // for sockets.
  std::unique_ptr<net::NetMemory> m;
  if (Status s = net_->regMr(dev_, base, bytes, net::NetMemoryKind::Host, &m);
      !s.ok()) {
    (void)memory_.remove(name(), *region);
    return withContext(s, here() + ": registerMemory");
  }
  std::lock_guard<std::mutex> lock(netMemoryMutex_);
  netMemory_[region->key] = std::move(m);
  return Status::success();
}

Status NetTransport::deregisterMemory(const MemoryRegion &region) {
  if (Status s = memory_.remove(name(), region); !s.ok())
    return s;
  std::unique_ptr<net::NetMemory> m;
  {
    std::lock_guard<std::mutex> lock(netMemoryMutex_);
    auto it = netMemory_.find(region.key);
    if (it == netMemory_.end())
      return Status::success(); // an empty region
    m = std::move(it->second);
    netMemory_.erase(it);
  }
  if (Status s = net_->deregMr(std::move(m)); !s.ok())
    return withContext(s, here() + ": deregisterMemory");
  return Status::success();
}

Status NetTransport::trySend(const ConnectionKey &to, const void *data,
                             size_t bytes, bool *posted) {
  *posted = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  SlotRing *self = nullptr;
  NetSendConnection *c = nullptr;
  if (to.peer == rank()) {
    auto it = selfRings_.find(to.channel);
    if (it != selfRings_.end())
      self = it->second.get();
  } else {
    auto it = sends_.find(to);
    if (it != sends_.end())
      c = it->second.get();
  }
  if (!self && !c)
    return unknown("trySend to", to);
  if (bytes > spec_.slotBytes)
    return Status(
        ErrorCode::InvalidArgument,
        here() + ": trySend of " + std::to_string(bytes) + " bytes to peer " +
            std::to_string(to.peer) + " on channel " +
            std::to_string(to.channel) +
            " exceeds slotBytes = " + std::to_string(spec_.slotBytes));
  if (bytes > 0 && !data)
    return Status(ErrorCode::InvalidArgument, here() + ": trySend of " +
                                                  std::to_string(bytes) +
                                                  " bytes from a null pointer");
  if (self) {
    *posted = self->tryPush(data, bytes);
    return Status::success();
  }
  if (c->posted - c->credits.load(std::memory_order_acquire) >= c->slots)
    return peerStatus(to.peer);
  // The slot's previous message was released by the receiver, so its
  // isend no longer reads it.
  size_t slot = c->posted % c->slots;
  if (bytes)
    std::memcpy(c->buffer + slot * c->slotBytes, data, bytes);
  c->sizes[slot] = bytes;
  ++c->posted;
  c->published.store(c->posted, std::memory_order_release);
  *posted = true;
  wake();
  return Status::success();
}

Status NetTransport::tryRecv(const ConnectionKey &from, const void **data,
                             size_t *bytes, bool *ready) {
  *ready = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (from.peer == rank()) {
    auto it = selfRings_.find(from.channel);
    if (it == selfRings_.end())
      return unknown("tryRecv from", from);
    *ready = it->second->front(data, bytes);
    return Status::success();
  }
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("tryRecv from", from);
  NetRecvConnection &c = *it->second;
  uint64_t released = c.released.load(std::memory_order_relaxed);
  if (c.arrived.load(std::memory_order_acquire) > released) {
    size_t slot = released % c.slots;
    *data = c.buffer + slot * c.slotBytes;
    *bytes = c.sizes[slot];
    *ready = true;
    return Status::success();
  }
  return peerStatus(from.peer);
}

Status NetTransport::releaseRecv(const ConnectionKey &from) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto none = [&] {
    return Status(ErrorCode::InvalidArgument,
                  here() + ": releaseRecv from peer " +
                      std::to_string(from.peer) + " on channel " +
                      std::to_string(from.channel) +
                      " with no message received");
  };
  if (from.peer == rank()) {
    auto it = selfRings_.find(from.channel);
    if (it == selfRings_.end())
      return unknown("releaseRecv from", from);
    return it->second->pop() ? Status::success() : none();
  }
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("releaseRecv from", from);
  NetRecvConnection &c = *it->second;
  uint64_t released = c.released.load(std::memory_order_relaxed);
  if (c.arrived.load(std::memory_order_acquire) <= released)
    return none();
  c.released.store(released + 1, std::memory_order_release);
  wake();
  return Status::success();
}

Status NetTransport::checkPeers() {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (anyFailure_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(failureMutex_);
    for (const std::string &failure : failures_)
      if (!failure.empty())
        return Status(ErrorCode::PeerFailure, failure);
  }
  return bootstrap_.checkPeers();
}

void NetTransport::abort(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(abortMutex_);
    if (aborted_.load())
      return;
    abortReason_ = reason.empty() ? "aborted" : reason;
    aborted_.store(true, std::memory_order_release);
  }
  bootstrap_.announceFailure(reason.empty() ? "aborted" : reason);
  // The proxy sends the reason and closes the connections: peers see this
  // rank hang up at once.
  wake();
}

} // namespace transport
} // namespace collrt

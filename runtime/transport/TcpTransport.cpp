//===- TcpTransport.cpp - processes anywhere, over TCP --------------------===//
//
// The API side of the tcp transport: creation (the listener on the chosen
// interface), connect() (exchange addresses and specs through the
// bootstrap, open the sockets, install the rings) and the lock-free
// trySend/tryRecv/releaseRecv. The proxy thread is in TcpProxy.cpp.
//
//===----------------------------------------------------------------------===//
#include "TcpTransport.h"

#include "Agreement.h"
#include "SpecCheck.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <sstream>

namespace collrt {
namespace tcp {

static void putU32(char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}
static uint32_t getU32(const char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void encodeHeader(const Header &header, char out[kHeaderBytes]) {
  putU32(out, static_cast<uint32_t>(header.type));
  putU32(out + 4, header.channel);
  putU32(out + 8, header.generation);
  putU32(out + 12, 0);
  putU32(out + 16, static_cast<uint32_t>(header.size >> 32));
  putU32(out + 20, static_cast<uint32_t>(header.size));
}

bool decodeHeader(const char in[kHeaderBytes], Header *header) {
  uint32_t type = getU32(in);
  if (type < static_cast<uint32_t>(FrameType::Hello) ||
      type > static_cast<uint32_t>(FrameType::Abort))
    return false;
  header->type = static_cast<FrameType>(type);
  header->channel = getU32(in + 4);
  header->generation = getU32(in + 8);
  header->size =
      (static_cast<uint64_t>(getU32(in + 16)) << 32) | getU32(in + 20);
  return true;
}

TcpTransport::TcpTransport(Bootstrap &bootstrap, net::Fd listener,
                           std::string listenAt)
    : bootstrap_(bootstrap), listener_(std::move(listener)),
      listenAt_(std::move(listenAt)), peers_(bootstrap.worldSize()),
      failures_(bootstrap.worldSize()) {
  std::random_device random;
  nonce_ = std::to_string(::getpid()) + "-" + std::to_string(random()) +
           std::to_string(random());
}

Status TcpTransport::start() {
  int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0)
    return net::sysError(ErrorCode::SystemError, here() + ": eventfd()", errno);
  wakeFd_.reset(fd);
  proxy_ = std::thread([this] { proxyLoop(); });
  return Status::success();
}

TcpTransport::~TcpTransport() {
  stop_.store(true);
  wake();
  if (proxy_.joinable())
    proxy_.join();
}

void TcpTransport::wake() {
  uint64_t one = 1;
  (void)!::write(wakeFd_.get(), &one, sizeof(one));
}

Status TcpTransport::abortedStatus() const {
  if (!aborted_.load(std::memory_order_acquire))
    return Status::success();
  std::lock_guard<std::mutex> lock(abortMutex_);
  return Status(ErrorCode::TransportError,
                here() + " was aborted: " + abortReason_);
}

Status TcpTransport::peerStatus(int32_t peer) {
  if (anyFailure_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(failureMutex_);
    if (!failures_[peer].empty())
      return Status(ErrorCode::PeerFailure, failures_[peer]);
  }
  return bootstrap_.checkPeers();
}

Status TcpTransport::unknown(const char *what, const ConnectionKey &key) const {
  return Status(ErrorCode::InvalidArgument,
                here() + ": " + what + " peer " + std::to_string(key.peer) +
                    " on channel " + std::to_string(key.channel) +
                    ", which the connected spec does not contain");
}

Status TcpTransport::checkLocal(const ConnectionSpec &spec) const {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  if (Status s = transport::checkSpec(name(), rank(), worldSize(), spec);
      !s.ok())
    return s;
  for (const auto &entry : recvs_)
    if (entry.second->ring.occupied() > 0)
      return Status(ErrorCode::InvalidArgument,
                    here() + ": connect while " +
                        std::to_string(entry.second->ring.occupied()) +
                        " message(s) from peer " +
                        std::to_string(entry.first.peer) + " on channel " +
                        std::to_string(entry.first.channel) +
                        " are not released");
  return Status::success();
}

Status TcpTransport::openSockets(const ConnectionSpec &spec,
                                 Deadline deadline) {
  std::set<int32_t> needed;
  for (int dir = 0; dir < 2; ++dir)
    for (const ConnectionKey &key : dir == 0 ? spec.sendTo : spec.recvFrom)
      if (key.peer != rank())
        needed.insert(key.peer);
  // The lower rank of a pair connects.
  for (int32_t p : needed) {
    if (p < rank())
      continue;
    std::string address;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (peers_[p] && !peers_[p]->closed)
        continue;
      address = addresses_[p];
    }
    if (Status s = peerStatus(p); !s.ok())
      return s;
    std::istringstream in(address);
    std::string host;
    int32_t port = 0;
    in >> host >> port;
    net::Endpoint at;
    if (Status s = net::resolve(host, port, &at); !s.ok())
      return Status(ErrorCode::TransportError,
                    here() + ": rank " + std::to_string(p) +
                        " announced an unusable address: " + s.message());
    const std::string what = "rank " + std::to_string(p) + "'s tcp transport";
    net::Fd fd;
    if (Status s = net::connectWithRetry(at, what, deadline, &fd); !s.ok())
      return Status(s.code(), here() + ": " + s.message());
    char header[kHeaderBytes];
    encodeHeader(
        {FrameType::Hello, static_cast<uint32_t>(rank()), 0, runId_.size()},
        header);
    std::string hello = std::string(header, kHeaderBytes) + runId_;
    if (Status s =
            net::writeAll(fd.get(), hello.data(), hello.size(), deadline, what);
        !s.ok())
      return Status(s.code(), here() + ": " + s.message());
    auto peer = std::make_unique<Peer>();
    peer->rank = p;
    peer->address = at.toString();
    peer->fd = std::move(fd);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      peers_[p] = std::move(peer);
    }
    wake();
  }
  // The higher rank waits for the proxy to accept the lower's connection.
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::vector<int32_t> missing;
    for (int32_t p : needed)
      if (p < rank() && (!peers_[p] || peers_[p]->closed))
        missing.push_back(p);
    if (missing.empty())
      return Status::success();
    for (int32_t p : missing)
      if (Status s = peerStatus(p); !s.ok())
        return s;
    if (deadline.expired())
      return Status(ErrorCode::Timeout,
                    here() + ": connect timed out waiting for " +
                        transport::rankList(missing) +
                        " to open their connection to this rank (listening "
                        "on " +
                        listenAt_ + ")");
    changed_.wait_until(lock,
                        std::min(deadline.at(), Deadline::after(0.1).at()));
  }
}

void TcpTransport::install(const ConnectionSpec &spec) {
  std::map<ConnectionKey, std::unique_ptr<SendConnection>> sends;
  std::map<ConnectionKey, std::unique_ptr<RecvConnection>> recvs;
  for (const ConnectionKey &key : spec.recvFrom)
    recvs[key] = std::make_unique<RecvConnection>(spec.slots);
  for (const ConnectionKey &key : spec.sendTo) {
    auto send = std::make_unique<SendConnection>(spec.slots);
    if (key.peer == rank())
      send->self = recvs.at({rank(), key.channel}).get();
    sends[key] = std::move(send);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++generation_;
  for (auto &peer : peers_)
    if (peer) {
      // Cannot happen when every message was received and released (which
      // connect checked); if it does, the stream cannot be resumed.
      if (peer->current || peer->inTarget) {
        peerFailed(*peer, "a message was still in transfer when connect "
                          "replaced the connections");
        peer->current = nullptr;
        peer->inTarget = nullptr;
        peer->inPayload = nullptr;
      }
      peer->sends.clear();
      peer->recvs.clear();
      peer->nextSend = 0;
    }
  for (auto &entry : sends)
    if (entry.first.peer != rank())
      peers_[entry.first.peer]->sends.push_back(
          {entry.first.channel, entry.second.get()});
  for (auto &entry : recvs)
    if (entry.first.peer != rank())
      peers_[entry.first.peer]->recvs[entry.first.channel] = entry.second.get();
  sends_ = std::move(sends);
  recvs_ = std::move(recvs);
  spec_ = spec;
}

Status TcpTransport::connect(const ConnectionSpec &spec, Deadline deadline) {
  std::vector<ConnectionSpec> all;
  std::vector<std::string> extras;
  if (Status s = transport::gatherSpecs(
          bootstrap_, name(), spec, checkLocal(spec), nonce_ + " " + listenAt_,
          deadline, &all, &extras);
      !s.ok())
    return s;
  std::vector<std::string> encoded;
  for (const ConnectionSpec &s : all)
    encoded.push_back(transport::encodeSpec(s));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // "<nonce> <host> <port>"
    runId_ = extras[0].substr(0, extras[0].find(' '));
    addresses_.resize(extras.size());
    for (size_t r = 0; r < extras.size(); ++r)
      addresses_[r] = extras[r].substr(extras[r].find(' ') + 1);
    // Every rank sees the same specs, so every rank decides alike.
    if (encoded == connectedSpecs_)
      return Status::success();
    connectedSpecs_.clear();
    // Every message of the previous spec was released by its receiver
    // (gatherSpecs is a barrier after each rank's checkLocal), so every
    // send ring is empty and no message is half written.
    for (const auto &entry : sends_)
      if (entry.second->ring.occupied() > 0)
        return Status(ErrorCode::InvalidArgument,
                      here() + ": connect while " +
                          std::to_string(entry.second->ring.occupied()) +
                          " message(s) to peer " +
                          std::to_string(entry.first.peer) + " on channel " +
                          std::to_string(entry.first.channel) +
                          " were never received");
  }
  wake(); // the proxy may hold hellos that wait for the run id
  Status local = openSockets(spec, deadline);
  if (local.ok())
    install(spec);
  // Nobody sends before every rank installed its rings.
  Status outcome =
      transport::agreeOnOutcome(bootstrap_, name(), local, deadline);
  if (outcome.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    connectedSpecs_ = std::move(encoded);
  }
  return outcome;
}

Status TcpTransport::registerMemory(void *base, size_t bytes,
                                    MemoryRegion *region) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  return memory_.add(name(), base, bytes, region);
}

Status TcpTransport::deregisterMemory(const MemoryRegion &region) {
  return memory_.remove(name(), region);
}

Status TcpTransport::trySend(const ConnectionKey &to, const void *data,
                             size_t bytes, bool *posted) {
  *posted = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = sends_.find(to);
  if (it == sends_.end())
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
  SendConnection &c = *it->second;
  if (c.self) {
    *posted = c.self->ring.tryPush(data, bytes);
    return Status::success();
  }
  if (c.posted - c.credits.load(std::memory_order_acquire) >= spec_.slots)
    return peerStatus(to.peer);
  // Unreleased messages bound the ring's occupancy: this push succeeds.
  *posted = c.ring.tryPush(data, bytes);
  if (*posted) {
    ++c.posted;
    wake();
  }
  return Status::success();
}

Status TcpTransport::tryRecv(const ConnectionKey &from, const void **data,
                             size_t *bytes, bool *ready) {
  *ready = false;
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("tryRecv from", from);
  if (it->second->ring.front(data, bytes)) {
    *ready = true;
    return Status::success();
  }
  if (from.peer == rank())
    return Status::success();
  return peerStatus(from.peer);
}

Status TcpTransport::releaseRecv(const ConnectionKey &from) {
  if (Status s = abortedStatus(); !s.ok())
    return s;
  auto it = recvs_.find(from);
  if (it == recvs_.end())
    return unknown("releaseRecv from", from);
  RecvConnection &c = *it->second;
  if (!c.ring.pop())
    return Status(ErrorCode::InvalidArgument,
                  here() + ": releaseRecv from peer " +
                      std::to_string(from.peer) + " on channel " +
                      std::to_string(from.channel) +
                      " with no message received");
  if (from.peer != rank()) {
    c.released.fetch_add(1, std::memory_order_release);
    wake();
  }
  return Status::success();
}

Status TcpTransport::checkPeers() {
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

void TcpTransport::abort(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(abortMutex_);
    if (aborted_.load())
      return;
    abortReason_ = reason.empty() ? "aborted" : reason;
    aborted_.store(true, std::memory_order_release);
  }
  bootstrap_.announceFailure(reason.empty() ? "aborted" : reason);
  // The proxy shuts the sockets down: peers see this rank hang up at once.
  wake();
}

/// The local address to listen on for `interface`: a network interface's
/// name (its first IPv4 address, else IPv6), or an address or host name.
static Status listenAddress(const std::string &interface,
                            const std::string &fallback, int32_t rank,
                            std::string *host) {
  const std::string here = "tcp transport, rank " + std::to_string(rank);
  if (interface.empty()) {
    if (fallback.empty())
      return Status(ErrorCode::InvalidArgument,
                    here + ": the bootstrap has no local address; name an "
                           "interface");
    *host = fallback;
    return Status::success();
  }
  ifaddrs *list = nullptr;
  if (::getifaddrs(&list) == 0) {
    std::string v4, v6;
    std::vector<std::string> names;
    for (ifaddrs *a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || !a->ifa_name)
        continue;
      if (interface != a->ifa_name)
        continue;
      net::Endpoint e;
      if (a->ifa_addr->sa_family == AF_INET) {
        std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in));
        if (v4.empty())
          v4 = e.host();
      } else if (a->ifa_addr->sa_family == AF_INET6) {
        std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in6));
        if (v6.empty())
          v6 = e.host();
      }
    }
    ::freeifaddrs(list);
    if (!v4.empty() || !v6.empty()) {
      *host = v4.empty() ? v6 : v4;
      return Status::success();
    }
  }
  net::Endpoint e;
  if (Status s = net::resolve(interface, 0, &e); !s.ok())
    return Status(ErrorCode::InvalidArgument,
                  here + ": interface '" + interface +
                      "' is neither a network interface of this host nor an "
                      "address: " +
                      s.message());
  *host = e.host();
  return Status::success();
}

} // namespace tcp

Status createTcpTransport(Bootstrap &bootstrap, const std::string &interface,
                          std::unique_ptr<Transport> *transport) {
  const std::string here =
      "tcp transport, rank " + std::to_string(bootstrap.rank());
  std::string host;
  if (Status s = tcp::listenAddress(interface, bootstrap.localAddress(),
                                    bootstrap.rank(), &host);
      !s.ok())
    return s;
  net::Endpoint at;
  if (Status s = net::resolve(host, 0, &at); !s.ok())
    return Status(s.code(), here + ": " + s.message());
  net::Fd listener;
  net::Endpoint bound;
  if (Status s = net::listenOn(at, &listener, &bound); !s.ok())
    return Status(ErrorCode::TransportError,
                  here + ": " + s.message() +
                      (interface.empty() ? std::string()
                                         : " (is '" + interface +
                                               "' an address of this host?)"));
  auto result = std::make_unique<tcp::TcpTransport>(
      bootstrap, std::move(listener),
      bound.host() + " " + std::to_string(bound.port()));
  if (Status s = result->start(); !s.ok())
    return s;
  *transport = std::move(result);
  return Status::success();
}

} // namespace collrt

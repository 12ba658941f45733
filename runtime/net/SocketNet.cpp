//===- SocketNet.cpp - the Net interface over TCP sockets -----------------===//
//
// One non-blocking TCP socket per connection. The receiving end announces
// each posted receive with a clear-to-send frame (tag, sequence number,
// capacity); the sending end keeps them per tag and answers one with a data
// frame (tag, the receive's sequence number, size, payload). So a message
// only travels once a buffer waits for it, as with RDMA writes (IbvNet),
// and the two Nets behave alike for the transport above them.
//
// Frames: a 32-byte big-endian header (type, tag, sequence, size) and, for
// hello and data, a payload. The connecting side opens with a hello: magic,
// the listener's nonce (from the handle) and the depth it asks for.
//
//===----------------------------------------------------------------------===//
#include "Net.h"
#include "Sysfs.h"
#include "Wire.h"

#include "bootstrap/Socket.h"

#include <ifaddrs.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <sstream>
#include <unordered_map>

namespace collrt {
namespace net {

namespace {

constexpr size_t kHeaderBytes = 32;
constexpr char kMagic[] = "collc-net-socket-1";
constexpr uint32_t kMaxDepth = 1u << 20;
constexpr size_t kMaxHelloBytes = 256;

enum class Frame : uint32_t { Hello = 1, ClearToSend = 2, Data = 3 };

struct Header {
  Frame type = Frame::Data;
  uint64_t tag = 0;
  uint64_t seq = 0;
  uint64_t size = 0;
};

void encode(const Header &h, char out[kHeaderBytes]) {
  putU32(out, static_cast<uint32_t>(h.type));
  putU32(out + 4, 0);
  putU64(out + 8, h.tag);
  putU64(out + 16, h.seq);
  putU64(out + 24, h.size);
}

bool decode(const char in[kHeaderBytes], Header *h) {
  uint32_t type = getU32(in);
  if (type < 1 || type > 3 || getU32(in + 4) != 0)
    return false;
  h->type = static_cast<Frame>(type);
  h->tag = getU64(in + 8);
  h->seq = getU64(in + 16);
  h->size = getU64(in + 24);
  return true;
}

bool transient(int err) {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

Status connectionError(const std::string &peer, int err) {
  if (err == ECONNRESET || err == EPIPE)
    return Status(ErrorCode::PeerFailure, "the connection to " + peer +
                                              " was reset (" +
                                              std::strerror(err) + ")");
  return Status(ErrorCode::TransportError,
                "the connection to " + peer + " failed: " + std::strerror(err));
}

Status closedByPeer(const std::string &peer, const char *when) {
  return Status(ErrorCode::PeerFailure,
                "the connection to " + peer + " was closed by the peer" + when);
}

/// Closes a connection without losing what was written: FIN after the
/// queued bytes, then (bounded) until the peer's kernel acknowledged them,
/// reading whatever still arrives. Closing a socket with unread input
/// makes the kernel reset the connection and drop what it has not sent.
void closeGracefully(Fd &fd, bool failed) {
  if (!fd.valid())
    return;
  if (!failed) {
    ::shutdown(fd.get(), SHUT_WR);
    Deadline until = Deadline::after(0.5);
    for (;;) {
      char buf[4096];
      while (::recv(fd.get(), buf, sizeof(buf), MSG_DONTWAIT) > 0) {
      }
      int unacknowledged = 0;
      if (::ioctl(fd.get(), SIOCOUTQ, &unacknowledged) != 0 ||
          unacknowledged == 0 || until.expired())
        break;
      pollfd p{fd.get(), POLLIN, 0};
      ::poll(&p, 1, 5);
    }
  }
  fd.reset();
}

std::string randomNonce() {
  std::random_device random;
  std::ostringstream out;
  out << std::hex << random() << random() << random();
  return out.str();
}

/// Host memory "registered" with sockets: a range to check accesses
/// against.
class SocketMemory final : public NetMemory {
public:
  SocketMemory(void *base, size_t bytes)
      : NetMemory(base, bytes, NetMemoryKind::Host) {}
};

Status checkMemory(const char *op, const void *data, size_t bytes,
                   NetMemory &memory) {
  if (!dynamic_cast<SocketMemory *>(&memory))
    return Status(ErrorCode::InvalidArgument,
                  std::string("socket net: ") + op +
                      " with memory that another Net registered");
  if (!memory.contains(data, bytes))
    return Status(ErrorCode::InvalidArgument,
                  std::string("socket net: ") + op + " of " +
                      std::to_string(bytes) +
                      " bytes that do not lie inside the registered region "
                      "of " +
                      std::to_string(memory.bytes()) + " bytes");
  return Status::success();
}

struct SendRequest final : NetRequest {
  char header[kHeaderBytes];
  const char *data = nullptr;
  size_t bytes = 0;
  /// Header and payload bytes written so far.
  size_t sent = 0;
  bool done = false;
};

struct RecvRequest final : NetRequest {
  uint64_t tag = 0;
  uint64_t seq = 0;
  char *data = nullptr;
  size_t capacity = 0;
  size_t bytes = 0;
  bool done = false;
};

/// Reads one frame header at a time from a non-blocking socket.
struct HeaderReader {
  char bytes[kHeaderBytes];
  size_t got = 0;
};

class SocketSendComm final : public NetSendComm {
public:
  SocketSendComm(Fd fd, std::string peer)
      : fd_(std::move(fd)), peer_(std::move(peer)) {}
  ~SocketSendComm() override { closeGracefully(fd_, !failed_.ok()); }

  Status isend(const void *data, size_t bytes, uint64_t tag, NetMemory &memory,
               NetRequest **request) override {
    *request = nullptr;
    if (Status s = checkMemory("isend", data, bytes, memory); !s.ok())
      return s;
    if (Status s = progress(); !s.ok())
      return s;
    auto it = clear_.find(tag);
    if (it == clear_.end() || it->second.empty())
      return Status::success();
    ClearToSend cts = it->second.front();
    if (bytes > cts.capacity)
      return Status(ErrorCode::InvalidArgument,
                    "socket net: isend of " + std::to_string(bytes) +
                        " bytes with tag " + std::to_string(tag) + " to " +
                        peer_ + ", whose matching receive holds only " +
                        std::to_string(cts.capacity) + " bytes");
    it->second.pop_front();
    auto req = std::make_unique<SendRequest>();
    encode({Frame::Data, tag, cts.seq, bytes}, req->header);
    req->data = static_cast<const char *>(data);
    req->bytes = bytes;
    queue_.push_back(req.get());
    *request = req.get();
    live_[req.get()] = std::move(req);
    return progress();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    *done = false;
    auto it = live_.find(request);
    if (it == live_.end())
      return Status(ErrorCode::InvalidArgument,
                    "socket net: test of a request this send connection does "
                    "not have (already completed?)");
    Status s = progress();
    if (it->second->done) {
      *done = true;
      *bytes = it->second->bytes;
      live_.erase(it);
      --untested_;
      return Status::success();
    }
    return s;
  }

  Status progress() override {
    if (!failed_.ok())
      return failed_;
    if (Status s = readClearToSends(); !s.ok())
      return fail(s);
    if (Status s = writeQueued(); !s.ok())
      return fail(s);
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    // Work the socket will not announce: requests completed (or
    // clear-to-sends read) by calls made for other requests.
    bool ready = untested_ > 0 || freshClear_;
    freshClear_ = false;
    if (!failed_.ok())
      return ready;
    short events = POLLIN;
    if (!queue_.empty())
      events |= POLLOUT;
    fds->push_back({fd_.get(), events, 0});
    return ready;
  }

  const std::string &peerAddress() const override { return peer_; }

private:
  struct ClearToSend {
    uint64_t seq;
    uint64_t capacity;
  };

  Status fail(const Status &s) {
    failed_ = s;
    ::shutdown(fd_.get(), SHUT_RDWR);
    return s;
  }

  Status readClearToSends() {
    for (;;) {
      ssize_t n =
          ::recv(fd_.get(), in_.bytes + in_.got, kHeaderBytes - in_.got, 0);
      if (n == 0)
        return closedByPeer(peer_, "");
      if (n < 0)
        return transient(errno) ? Status::success()
                                : connectionError(peer_, errno);
      in_.got += static_cast<size_t>(n);
      if (in_.got < kHeaderBytes)
        continue;
      in_.got = 0;
      Header h;
      if (!decode(in_.bytes, &h) || h.type != Frame::ClearToSend)
        return Status(ErrorCode::TransportError,
                      "socket net: " + peer_ +
                          " sent bytes that are not a clear-to-send frame");
      clear_[h.tag].push_back({h.seq, h.size});
      freshClear_ = true;
    }
  }

  Status writeQueued() {
    while (!queue_.empty()) {
      SendRequest &req = *queue_.front();
      iovec parts[2];
      int count = 0;
      if (req.sent < kHeaderBytes)
        parts[count++] = {req.header + req.sent, kHeaderBytes - req.sent};
      size_t payloadSent =
          req.sent > kHeaderBytes ? req.sent - kHeaderBytes : 0;
      if (payloadSent < req.bytes)
        parts[count++] = {const_cast<char *>(req.data) + payloadSent,
                          req.bytes - payloadSent};
      msghdr msg{};
      msg.msg_iov = parts;
      msg.msg_iovlen = count;
      ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
      if (n < 0)
        return transient(errno) ? Status::success()
                                : connectionError(peer_, errno);
      req.sent += static_cast<size_t>(n);
      if (req.sent < kHeaderBytes + req.bytes)
        return Status::success();
      req.done = true;
      ++untested_;
      queue_.pop_front();
    }
    return Status::success();
  }

  Fd fd_;
  std::string peer_;
  Status failed_;
  HeaderReader in_;
  std::map<uint64_t, std::deque<ClearToSend>> clear_;
  std::deque<SendRequest *> queue_;
  std::unordered_map<NetRequest *, std::unique_ptr<SendRequest>> live_;
  /// Requests done but not yet reported by test; clear-to-sends read since
  /// the last pollFds.
  size_t untested_ = 0;
  bool freshClear_ = false;
};

class SocketRecvComm final : public NetRecvComm {
public:
  SocketRecvComm(Fd fd, std::string peer, uint32_t depth)
      : fd_(std::move(fd)), peer_(std::move(peer)), depth_(depth) {}
  ~SocketRecvComm() override { closeGracefully(fd_, !failed_.ok()); }

  Status irecv(void *data, size_t capacity, uint64_t tag, NetMemory &memory,
               NetRequest **request) override {
    *request = nullptr;
    if (Status s = checkMemory("irecv", data, capacity, memory); !s.ok())
      return s;
    if (!failed_.ok())
      return failed_;
    if (live_.size() >= depth_)
      return Status::success();
    auto req = std::make_unique<RecvRequest>();
    req->tag = tag;
    req->seq = nextSeq_++;
    req->data = static_cast<char *>(data);
    req->capacity = capacity;
    char header[kHeaderBytes];
    encode({Frame::ClearToSend, tag, req->seq, capacity}, header);
    out_.append(header, kHeaderBytes);
    posted_[req->seq] = req.get();
    *request = req.get();
    live_[req.get()] = std::move(req);
    return progress();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    *done = false;
    auto it = live_.find(request);
    if (it == live_.end())
      return Status(ErrorCode::InvalidArgument,
                    "socket net: test of a request this receive connection "
                    "does not have (already completed?)");
    Status s = progress();
    if (it->second->done) {
      *done = true;
      *bytes = it->second->bytes;
      live_.erase(it);
      --untested_;
      return Status::success();
    }
    return s;
  }

  Status progress() override {
    if (!failed_.ok())
      return failed_;
    if (Status s = writeClearToSends(); !s.ok())
      return fail(s);
    if (Status s = readData(); !s.ok())
      return fail(s);
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    // Receives completed by calls made for other requests.
    bool ready = untested_ > 0;
    if (!failed_.ok())
      return ready;
    short events = POLLIN;
    if (outSent_ < out_.size())
      events |= POLLOUT;
    fds->push_back({fd_.get(), events, 0});
    return ready;
  }

  const std::string &peerAddress() const override { return peer_; }
  uint32_t depth() const override { return depth_; }

private:
  Status fail(const Status &s) {
    failed_ = s;
    ::shutdown(fd_.get(), SHUT_RDWR);
    return s;
  }

  Status writeClearToSends() {
    while (outSent_ < out_.size()) {
      ssize_t n = ::send(fd_.get(), out_.data() + outSent_,
                         out_.size() - outSent_, MSG_NOSIGNAL);
      if (n < 0)
        return transient(errno) ? Status::success()
                                : connectionError(peer_, errno);
      outSent_ += static_cast<size_t>(n);
    }
    out_.clear();
    outSent_ = 0;
    return Status::success();
  }

  Status readData() {
    for (;;) {
      if (!current_) {
        ssize_t n =
            ::recv(fd_.get(), in_.bytes + in_.got, kHeaderBytes - in_.got, 0);
        if (n == 0)
          return closedByPeer(peer_, "");
        if (n < 0)
          return transient(errno) ? Status::success()
                                  : connectionError(peer_, errno);
        in_.got += static_cast<size_t>(n);
        if (in_.got < kHeaderBytes)
          continue;
        in_.got = 0;
        Header h;
        if (!decode(in_.bytes, &h) || h.type != Frame::Data)
          return Status(ErrorCode::TransportError,
                        "socket net: " + peer_ +
                            " sent bytes that are not a data frame");
        auto it = posted_.find(h.seq);
        if (it == posted_.end() || it->second->tag != h.tag ||
            h.size > it->second->capacity)
          return Status(ErrorCode::TransportError,
                        "socket net: " + peer_ + " sent " +
                            std::to_string(h.size) + " bytes with tag " +
                            std::to_string(h.tag) + " for receive " +
                            std::to_string(h.seq) +
                            ", which is not a posted receive of that tag and "
                            "size");
        current_ = it->second;
        posted_.erase(it);
        current_->bytes = h.size;
        got_ = 0;
      }
      if (got_ < current_->bytes) {
        ssize_t n =
            ::recv(fd_.get(), current_->data + got_, current_->bytes - got_, 0);
        if (n == 0)
          return closedByPeer(peer_, " in the middle of a message");
        if (n < 0)
          return transient(errno) ? Status::success()
                                  : connectionError(peer_, errno);
        got_ += static_cast<size_t>(n);
        if (got_ < current_->bytes)
          continue;
      }
      current_->done = true;
      ++untested_;
      current_ = nullptr;
    }
  }

  Fd fd_;
  std::string peer_;
  uint32_t depth_;
  Status failed_;
  uint64_t nextSeq_ = 0;
  std::string out_;
  size_t outSent_ = 0;
  HeaderReader in_;
  RecvRequest *current_ = nullptr;
  size_t got_ = 0;
  std::unordered_map<uint64_t, RecvRequest *> posted_;
  std::unordered_map<NetRequest *, std::unique_ptr<RecvRequest>> live_;
  /// Requests done but not yet reported by test.
  size_t untested_ = 0;
};

/// Writes the hello, then becomes a send connection.
class SocketConnecting final : public NetConnecting {
public:
  SocketConnecting(Fd fd, std::string peer, std::string hello)
      : fd_(std::move(fd)), peer_(std::move(peer)), hello_(std::move(hello)) {}

  Status step(std::unique_ptr<NetSendComm> *comm) override {
    while (sent_ < hello_.size()) {
      ssize_t n = ::send(fd_.get(), hello_.data() + sent_,
                         hello_.size() - sent_, MSG_NOSIGNAL);
      if (n < 0) {
        if (transient(errno))
          return Status::success();
        return connectionError(peer_, errno);
      }
      sent_ += static_cast<size_t>(n);
    }
    *comm = std::make_unique<SocketSendComm>(std::move(fd_), peer_);
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    fds->push_back({fd_.get(), POLLOUT, 0});
    return false;
  }

private:
  Fd fd_;
  std::string peer_;
  std::string hello_;
  size_t sent_ = 0;
};

class SocketListenComm final : public NetListenComm {
public:
  SocketListenComm(Fd fd, std::string nonce)
      : fd_(std::move(fd)), nonce_(std::move(nonce)) {}

  Status accept(std::unique_ptr<NetRecvComm> *comm) override {
    comm->reset();
    for (;;) {
      Pending p;
      Endpoint from;
      if (Status s = acceptOne(fd_.get(), &p.fd, &from); !s.ok())
        return s;
      if (!p.fd.valid())
        break;
      p.from = from.toString();
      pending_.push_back(std::move(p));
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
      Pending &p = pending_[i];
      uint32_t depth = 0;
      bool drop = false;
      if (!readHello(p, &depth, &drop) && !drop)
        continue;
      if (!drop)
        *comm =
            std::make_unique<SocketRecvComm>(std::move(p.fd), p.from, depth);
      // A stray connection (another run, a port scanner) is closed.
      pending_.erase(pending_.begin() + i);
      if (*comm)
        return Status::success();
      --i;
    }
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    fds->push_back({fd_.get(), POLLIN, 0});
    for (Pending &p : pending_)
      fds->push_back({p.fd.get(), POLLIN, 0});
    return false;
  }

private:
  struct Pending {
    Fd fd;
    std::string from;
    std::string bytes;
  };

  /// True once the whole hello arrived and is valid; *drop for anything
  /// that cannot become one.
  bool readHello(Pending &p, uint32_t *depth, bool *drop) {
    for (;;) {
      size_t want = kHeaderBytes;
      Header h;
      if (p.bytes.size() >= kHeaderBytes) {
        if (!decode(p.bytes.data(), &h) || h.type != Frame::Hello ||
            h.size > kMaxHelloBytes) {
          *drop = true;
          return false;
        }
        want += h.size;
        if (p.bytes.size() == want) {
          std::string expected = std::string(kMagic) + " " + nonce_;
          if (p.bytes.substr(kHeaderBytes) != expected || h.seq < 1 ||
              h.seq > kMaxDepth) {
            *drop = true;
            return false;
          }
          *depth = static_cast<uint32_t>(h.seq);
          return true;
        }
      }
      char buf[kHeaderBytes + kMaxHelloBytes];
      ssize_t n = ::recv(p.fd.get(), buf, want - p.bytes.size(), 0);
      if (n == 0 || (n < 0 && !transient(errno))) {
        *drop = true;
        return false;
      }
      if (n < 0)
        return false;
      p.bytes.append(buf, static_cast<size_t>(n));
    }
  }

  Fd fd_;
  std::string nonce_;
  std::vector<Pending> pending_;
};

/// The interface that holds `host`, if any.
std::string interfaceOf(const std::string &host) {
  ifaddrs *list = nullptr;
  if (::getifaddrs(&list) != 0)
    return "";
  std::string name;
  for (ifaddrs *a = list; a && name.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || !a->ifa_name)
      continue;
    Endpoint e;
    if (a->ifa_addr->sa_family == AF_INET)
      std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in));
    else if (a->ifa_addr->sa_family == AF_INET6)
      std::memcpy(&e.addr, a->ifa_addr, sizeof(sockaddr_in6));
    else
      continue;
    if (e.host() == host)
      name = a->ifa_name;
  }
  ::freeifaddrs(list);
  return name;
}

class SocketNet final : public Net {
public:
  SocketNet(std::string host, std::string what)
      : host_(std::move(host)), what_(std::move(what)) {
    NetDeviceInfo d;
    std::string ifname = interfaceOf(host_);
    d.name = ifname.empty() ? host_ : ifname;
    d.address = host_;
    if (!ifname.empty()) {
      std::string dir = "/sys/class/net/" + ifname;
      std::string speed = readSysfsLine(dir + "/speed");
      if (!speed.empty() && std::atof(speed.c_str()) > 0)
        d.speedMbps = std::atof(speed.c_str());
      d.pciPath = sysfsPciPath(dir);
      d.numa = sysfsNumaNode(dir);
    }
    d.maxDepth = kMaxDepth;
    d.maxMessageBytes = size_t(1) << 40;
    devices_.push_back(d);
  }

  const char *name() const override { return "socket"; }
  const std::vector<NetDeviceInfo> &devices() const override {
    return devices_;
  }

  Status listen(int dev, std::string *handle,
                std::unique_ptr<NetListenComm> *listen) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    Endpoint at;
    if (Status s = resolve(host_, 0, &at); !s.ok())
      return Status(s.code(), what_ + ": " + s.message());
    Fd fd;
    Endpoint bound;
    if (Status s = listenOn(at, &fd, &bound); !s.ok())
      return Status(ErrorCode::TransportError, what_ + ": " + s.message());
    std::string nonce = randomNonce();
    *handle = bound.host() + " " + std::to_string(bound.port()) + " " + nonce;
    *listen = std::make_unique<SocketListenComm>(std::move(fd), nonce);
    return Status::success();
  }

  Status connect(int dev, const std::string &handle, uint32_t depth,
                 Deadline deadline,
                 std::unique_ptr<NetConnecting> *connecting) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    if (depth < 1 || depth > kMaxDepth)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": a connection depth of " + std::to_string(depth) +
                        " is outside 1.." + std::to_string(kMaxDepth));
    std::istringstream in(handle);
    std::string host, nonce;
    int32_t port = -1;
    if (!(in >> host >> port >> nonce))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": '" + handle + "' is not a socket net handle");
    Endpoint to;
    if (Status s = resolve(host, port, &to); !s.ok())
      return Status(s.code(), what_ + ": " + s.message());
    Fd fd;
    if (Status s = connectWithRetry(to, "the listener at " + to.toString(),
                                    deadline, &fd);
        !s.ok())
      return Status(s.code(), what_ + ": " + s.message());
    std::string payload = std::string(kMagic) + " " + nonce;
    char header[kHeaderBytes];
    encode({Frame::Hello, 0, depth, payload.size()}, header);
    *connecting = std::make_unique<SocketConnecting>(
        std::move(fd), to.toString(),
        std::string(header, kHeaderBytes) + payload);
    return Status::success();
  }

  Status regMr(int dev, void *data, size_t bytes, NetMemoryKind kind,
               std::unique_ptr<NetMemory> *memory) override {
    if (Status s = checkDevice(dev); !s.ok())
      return s;
    if (kind == NetMemoryKind::Device)
      return Status(ErrorCode::Unsupported,
                    what_ + ": the socket net cannot send from or receive "
                            "into GPU memory");
    if (!data && bytes > 0)
      return Status(ErrorCode::InvalidArgument, what_ + ": regMr of " +
                                                    std::to_string(bytes) +
                                                    " bytes at a null address");
    *memory = std::make_unique<SocketMemory>(data, bytes);
    return Status::success();
  }

  Status regMrDmaBuf(int, void *, size_t, int, uint64_t,
                     std::unique_ptr<NetMemory> *) override {
    return Status(ErrorCode::Unsupported,
                  what_ + ": the socket net cannot register dma-buf (GPU) "
                          "memory");
  }

  Status deregMr(std::unique_ptr<NetMemory> memory) override {
    if (!memory || !dynamic_cast<SocketMemory *>(memory.get()))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": deregMr of memory the socket net did not "
                            "register");
    return Status::success();
  }

private:
  Status checkDevice(int dev) const {
    if (dev < 0 || dev >= static_cast<int>(devices_.size()))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": socket net device " + std::to_string(dev) +
                        " does not exist (it has " +
                        std::to_string(devices_.size()) + ")");
    return Status::success();
  }

  std::string host_;
  std::string what_;
  std::vector<NetDeviceInfo> devices_;
};

} // namespace

Status createSocketNet(const std::string &host, const std::string &what,
                       std::unique_ptr<Net> *net) {
  Endpoint e;
  if (Status s = resolve(host, 0, &e); !s.ok())
    return Status(s.code(), what + ": " + s.message());
  *net = std::make_unique<SocketNet>(e.host(), what);
  return Status::success();
}

} // namespace net
} // namespace collrt

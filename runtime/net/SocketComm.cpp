//===- SocketComm.cpp - SocketNet's send and receive communicators --------===//
//
// The receiving end announces each posted receive with a clear-to-send
// frame (tag, sequence number, capacity); the sending end keeps them per
// tag and answers one with a data frame (tag, the receive's sequence
// number, size, payload). So a message only travels once a buffer waits
// for it, as with RDMA writes (IbvNet).
//
//===----------------------------------------------------------------------===//
#include "SocketInternal.h"

#include "runtime/net/RequestTable.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>

namespace collrt {
namespace net {
namespace sock {

Status connectionError(const std::string &peer, int err) {
  if (err == ECONNRESET || err == EPIPE)
    return Status(ErrorCode::PeerFailure, "the connection to " + peer +
                                              " was reset (" +
                                              std::strerror(err) + ")");
  return Status(ErrorCode::TransportError,
                "the connection to " + peer + " failed: " + std::strerror(err));
}

namespace {

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
    *request = requests_.add(std::move(req));
    return progress();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    return requests_.test(
        request, done, bytes, [this] { return progress(); }, "socket net",
        "send");
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
    bool ready = requests_.untested() > 0 || freshClear_;
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
      requests_.complete(req);
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
  RequestTable<SendRequest> requests_;
  /// Clear-to-sends read since the last pollFds.
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
    if (requests_.size() >= depth_)
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
    *request = requests_.add(std::move(req));
    return progress();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    return requests_.test(
        request, done, bytes, [this] { return progress(); }, "socket net",
        "receive");
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
    bool ready = requests_.untested() > 0;
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
      requests_.complete(*current_);
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
  RequestTable<RecvRequest> requests_;
};

} // namespace

std::unique_ptr<NetSendComm> makeSendComm(Fd fd, std::string peer) {
  return std::make_unique<SocketSendComm>(std::move(fd), std::move(peer));
}

std::unique_ptr<NetRecvComm> makeRecvComm(Fd fd, std::string peer,
                                          uint32_t depth) {
  return std::make_unique<SocketRecvComm>(std::move(fd), std::move(peer),
                                          depth);
}

} // namespace sock
} // namespace net
} // namespace collrt

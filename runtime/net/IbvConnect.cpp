//===- IbvConnect.cpp - setting IbvNet's connections up ------------------===//
//
// A connection is one reliable-connected queue pair per end, with its own
// completion queue on the device's completion channel, set up over a TCP
// socket:
//
// Connector (send end)                 Acceptor (receive end)
//   QP to INIT, clear-to-send ring,
//   `depth` receive WRs posted
//   --- details (QpInfo) ------------>  QP to INIT, `depth` receive WRs,
//                                       RTR and RTS with the connector's
//   <-------------- details (QpInfo) ---
//   RTR, RTS
//   --- ready byte ------------------->  the receive comm is handed out
//
//===----------------------------------------------------------------------===//
#include "IbvQueuePair.h"
#include "Wire.h"

#if COLLRT_HAVE_VERBS_H

#include <sys/socket.h>

namespace collrt {
namespace net {
namespace ibv {

namespace {
constexpr uint32_t kMagic = 0x434c4942; // "CLIB"
constexpr uint32_t kVersion = 1;
constexpr size_t kNonceBytes = 32;
} // namespace

std::string encodeQpInfo(const QpInfo &info) {
  char out[kQpInfoBytes] = {};
  putU32(out, kMagic);
  putU32(out + 4, kVersion);
  putU32(out + 8, info.lid);
  putU32(out + 12, info.qpn);
  putU32(out + 16, info.psn);
  putU32(out + 20, info.mtu);
  putU32(out + 24, info.linkLayer);
  putU32(out + 28, info.depth);
  putU32(out + 32, info.fifoRkey);
  putU64(out + 40, info.fifoAddr);
  std::memcpy(out + 48, info.gid, 16);
  std::memcpy(out + 64, info.nonce.data(),
              std::min(info.nonce.size(), kNonceBytes));
  return std::string(out, kQpInfoBytes);
}

bool decodeQpInfo(const char *in, QpInfo *info) {
  if (getU32(in) != kMagic || getU32(in + 4) != kVersion)
    return false;
  info->lid = getU32(in + 8);
  info->qpn = getU32(in + 12);
  info->psn = getU32(in + 16);
  info->mtu = getU32(in + 20);
  info->linkLayer = getU32(in + 24);
  info->depth = getU32(in + 28);
  info->fifoRkey = getU32(in + 32);
  info->fifoAddr = getU64(in + 40);
  std::memcpy(info->gid, in + 48, 16);
  info->nonce.assign(in + 64, strnlen(in + 64, kNonceBytes));
  return true;
}

namespace {

/// Registers a zeroed ring of `depth` clear-to-send entries.
Status makeRing(const Port &port, uint32_t depth, const std::string &what,
                std::unique_ptr<PageBuffer> *ring,
                std::unique_ptr<Memory> *memory) {
  *ring = std::make_unique<PageBuffer>(size_t(depth) * sizeof(FifoEntry));
  if (!(*ring)->data())
    return sysError(ErrorCode::SystemError,
                    what + ": mmap of a clear-to-send ring", errno);
  return registerMemory(port, (*ring)->data(), (*ring)->bytes(),
                        NetMemoryKind::Host, what, memory);
}

/// Non-blocking: writes `out` from `*sent` on.
Status writeSome(int fd, const std::string &out, size_t *sent,
                 const std::string &peer, const std::string &what) {
  while (*sent < out.size()) {
    ssize_t n =
        ::send(fd, out.data() + *sent, out.size() - *sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (transient(errno))
        return Status::success();
      return sysError(ErrorCode::PeerFailure,
                      what + ": setting up the connection to " + peer, errno);
    }
    *sent += static_cast<size_t>(n);
  }
  return Status::success();
}

/// Non-blocking: reads until `in` holds `want` bytes.
Status readSome(int fd, std::string *in, size_t want, const std::string &peer,
                const std::string &what) {
  while (in->size() < want) {
    char buf[kQpInfoBytes];
    ssize_t n = ::recv(fd, buf, std::min(sizeof(buf), want - in->size()), 0);
    if (n == 0)
      return Status(ErrorCode::PeerFailure,
                    what + ": " + peer +
                        " closed the connection while setting it up");
    if (n < 0) {
      if (transient(errno))
        return Status::success();
      return sysError(ErrorCode::PeerFailure,
                      what + ": setting up the connection to " + peer, errno);
    }
    in->append(buf, static_cast<size_t>(n));
  }
  return Status::success();
}

class Connecting final : public NetConnecting {
public:
  Connecting(const Port &port, Fd socket, std::string peer, std::string what,
             uint32_t depth)
      : port_(port), socket_(std::move(socket)), peer_(std::move(peer)),
        what_(std::move(what)), depth_(depth) {}

  Status start(const std::string &nonce) {
    qp_ = std::make_unique<QueuePair>(port_, what_);
    if (Status s = qp_->create(depth_); !s.ok())
      return s;
    if (Status s = makeRing(port_, depth_, what_, &fifo_, &fifoMemory_);
        !s.ok())
      return s;
    QpInfo info = qp_->local();
    info.depth = depth_;
    info.fifoAddr = reinterpret_cast<uintptr_t>(fifo_->data());
    info.fifoRkey = fifoMemory_->mr()->rkey;
    info.nonce = nonce;
    out_ = encodeQpInfo(info);
    return Status::success();
  }

  Status step(std::unique_ptr<NetSendComm> *comm) override {
    if (Status s = writeSome(socket_.get(), out_, &sent_, peer_, what_);
        !s.ok() || sent_ < out_.size())
      return s;
    if (!connected_) {
      if (Status s = readSome(socket_.get(), &in_, kQpInfoBytes, peer_, what_);
          !s.ok() || in_.size() < kQpInfoBytes)
        return s;
      QpInfo remote;
      if (!decodeQpInfo(in_.data(), &remote))
        return Status(ErrorCode::TransportError,
                      what_ + ": " + peer_ +
                          " answered with something that is not an ib "
                          "connection reply");
      if (Status s = qp_->connectTo(remote); !s.ok())
        return s;
      connected_ = true;
      out_ += 'R'; // ready: the receive end may now announce receives
      if (Status s = writeSome(socket_.get(), out_, &sent_, peer_, what_);
          !s.ok() || sent_ < out_.size())
        return s;
    }
    *comm = makeSendComm(std::move(qp_), std::move(socket_), peer_, what_,
                         std::move(fifo_), std::move(fifoMemory_), depth_);
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    fds->push_back({socket_.get(),
                    static_cast<short>(sent_ < out_.size() ? POLLOUT : POLLIN),
                    0});
    return false;
  }

private:
  const Port &port_;
  Fd socket_;
  std::string peer_;
  std::string what_;
  uint32_t depth_;
  std::unique_ptr<QueuePair> qp_;
  std::unique_ptr<PageBuffer> fifo_;
  std::unique_ptr<Memory> fifoMemory_;
  std::string out_;
  size_t sent_ = 0;
  std::string in_;
  bool connected_ = false;
};

class ListenComm final : public NetListenComm {
public:
  ListenComm(const Port &port, Fd listener, std::string nonce,
             uint32_t maxDepth, std::string what)
      : port_(port), listener_(std::move(listener)), nonce_(std::move(nonce)),
        maxDepth_(maxDepth), what_(std::move(what)) {}

  Status accept(std::unique_ptr<NetRecvComm> *comm) override {
    comm->reset();
    for (;;) {
      Pending p;
      collrt::net::Endpoint from;
      if (Status s = acceptOne(listener_.get(), &p.socket, &from); !s.ok())
        return withContext(s, what_);
      if (!p.socket.valid())
        break;
      p.peer = from.toString();
      pending_.push_back(std::move(p));
    }
    for (size_t i = 0; i < pending_.size();) {
      Status s = advance(pending_[i], comm);
      // A failed set-up (a stray connection, a peer that went away) is
      // dropped: the peer's own connect reports it.
      if (!s.ok() || *comm) {
        pending_.erase(pending_.begin() + static_cast<long>(i));
        if (*comm)
          return Status::success();
        continue;
      }
      ++i;
    }
    return Status::success();
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    fds->push_back({listener_.get(), POLLIN, 0});
    for (Pending &p : pending_)
      fds->push_back(
          {p.socket.get(),
           static_cast<short>(p.sent < p.out.size() ? POLLOUT : POLLIN), 0});
    return false;
  }

private:
  struct Pending {
    Fd socket;
    std::string peer;
    std::string in;
    QpInfo remote;
    std::unique_ptr<QueuePair> qp;
    std::unique_ptr<PageBuffer> staging;
    std::unique_ptr<Memory> stagingMemory;
    std::string out;
    size_t sent = 0;
  };

  Status advance(Pending &p, std::unique_ptr<NetRecvComm> *comm) {
    if (!p.qp) {
      if (Status s =
              readSome(p.socket.get(), &p.in, kQpInfoBytes, p.peer, what_);
          !s.ok() || p.in.size() < kQpInfoBytes)
        return s;
      if (!decodeQpInfo(p.in.data(), &p.remote) || p.remote.nonce != nonce_ ||
          p.remote.depth < 1 || p.remote.depth > maxDepth_)
        return Status(ErrorCode::TransportError,
                      what_ + ": " + p.peer +
                          " is not an ib connection of this run");
      p.in.clear();
      p.qp = std::make_unique<QueuePair>(port_, what_);
      if (Status s = p.qp->create(p.remote.depth); !s.ok())
        return s;
      if (Status s = makeRing(port_, p.remote.depth, what_, &p.staging,
                              &p.stagingMemory);
          !s.ok())
        return s;
      if (Status s = p.qp->connectTo(p.remote); !s.ok())
        return s;
      p.out = encodeQpInfo(p.qp->local());
    }
    if (Status s = writeSome(p.socket.get(), p.out, &p.sent, p.peer, what_);
        !s.ok() || p.sent < p.out.size())
      return s;
    if (Status s = readSome(p.socket.get(), &p.in, 1, p.peer, what_);
        !s.ok() || p.in.empty())
      return s;
    if (p.in[0] != 'R')
      return Status(ErrorCode::TransportError,
                    what_ + ": " + p.peer + " sent no ready byte");
    *comm = makeRecvComm(std::move(p.qp), std::move(p.socket), p.peer, what_,
                         std::move(p.staging), std::move(p.stagingMemory),
                         p.remote);
    return Status::success();
  }

  const Port &port_;
  Fd listener_;
  std::string nonce_;
  uint32_t maxDepth_;
  std::string what_;
  std::vector<Pending> pending_;
};

} // namespace

Status startConnect(const Port &port, Fd socket, std::string peer,
                    const std::string &nonce, uint32_t depth,
                    const std::string &what,
                    std::unique_ptr<NetConnecting> *connecting) {
  auto c = std::make_unique<Connecting>(port, std::move(socket),
                                        std::move(peer), what, depth);
  if (Status s = c->start(nonce); !s.ok())
    return s;
  *connecting = std::move(c);
  return Status::success();
}

std::unique_ptr<NetListenComm> makeListenComm(const Port &port, Fd listener,
                                              std::string nonce,
                                              uint32_t maxDepth,
                                              std::string what) {
  return std::make_unique<ListenComm>(
      port, std::move(listener), std::move(nonce), maxDepth, std::move(what));
}

} // namespace ibv
} // namespace net
} // namespace collrt

#endif

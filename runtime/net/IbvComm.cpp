//===- IbvComm.cpp - IbvNet's send and receive communicators --------------===//
//
// Data path: irecv writes a FifoEntry into the sender's ring with an RDMA
// write with immediate (immediate = the receive's sequence number, which
// also raises a completion at the sender); isend takes the oldest entry of
// its tag and RDMA-writes the payload with immediate = that sequence number
// into the receive buffer; the receiver's completion gives the size. The
// set-up socket stays open, so that a peer that dies is noticed at once
// (its socket closes) instead of after the RC retry timeout.
//
//===----------------------------------------------------------------------===//
#include "IbvQueuePair.h"
#include "runtime/net/RequestTable.h"

#if COLLRT_HAVE_VERBS_H

#include <sys/socket.h>

#include <map>
#include <unordered_map>

namespace collrt {
namespace net {
namespace ibv {

namespace {

/// What both communicators share: the queue pair, the set-up socket as a
/// liveness check, the failure.
class ConnectionEnd {
public:
  ConnectionEnd(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
                std::string what)
      : qp_(std::move(qp)), socket_(std::move(socket)), peer_(std::move(peer)),
        what_(std::move(what)) {}

protected:
  Status fail(const Status &s) {
    if (failed_.ok())
      failed_ = s;
    return failed_;
  }

  /// The peer closed the set-up socket: it exited or crashed.
  Status checkSocket() {
    char byte;
    ssize_t n = ::recv(socket_.get(), &byte, 1, MSG_DONTWAIT);
    if (n == 0)
      return Status(ErrorCode::PeerFailure,
                    what_ + ": the connection to " + peer_ +
                        " was closed by the peer (its set-up socket closed)");
    if (n < 0 && !transient(errno))
      return sysError(ErrorCode::PeerFailure,
                      what_ + ": the set-up socket of the connection to " +
                          peer_ + " failed",
                      errno);
    return Status::success();
  }

  /// Takes the completions (`handle`), then checks the set-up socket. A
  /// peer hangs up only after its last writes completed, which the
  /// completions of this end may reach a moment later than the hang-up
  /// reaches the socket: when the socket has closed, the queue is polled
  /// once more, so that what arrived before (a goodbye) is not lost.
  template <typename Handle> Status pollThenCheck(Handle &&handle) {
    Status s = qp_->poll(handle);
    if (s.ok()) {
      s = checkSocket();
      if (!s.ok())
        if (Status again = qp_->poll(handle); !again.ok())
          s = again;
    }
    return s.ok() ? s : fail(s);
  }

  bool armAndPoll(std::vector<pollfd> *fds) {
    if (!failed_.ok())
      return false;
    bool ready = qp_->arm(fds);
    fds->push_back({socket_.get(), POLLIN, 0});
    return ready;
  }

  std::unique_ptr<QueuePair> qp_;
  Fd socket_;
  std::string peer_;
  std::string what_;
  Status failed_;
};

struct SendRequest final : NetRequest {
  size_t bytes = 0;
  bool done = false;
};

class SendComm final : public NetSendComm, private ConnectionEnd {
public:
  SendComm(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
           std::string what, std::unique_ptr<PageBuffer> fifo,
           std::unique_ptr<Memory> fifoMemory, uint32_t depth)
      : ConnectionEnd(std::move(qp), std::move(socket), std::move(peer),
                      std::move(what)),
        fifo_(std::move(fifo)), fifoMemory_(std::move(fifoMemory)),
        depth_(depth) {}

  ~SendComm() override {
    // The queue pair goes first: no write may land in a freed ring.
    qp_.reset();
  }

  Status isend(const void *data, size_t bytes, uint64_t tag, NetMemory &memory,
               NetRequest **request) override {
    *request = nullptr;
    auto *m = dynamic_cast<Memory *>(&memory);
    if (!m || !memory.contains(data, bytes))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": isend of " + std::to_string(bytes) +
                        " bytes outside the registered memory passed");
    if (Status s = progress(); !s.ok())
      return s;
    auto it = clear_.find(tag);
    if (it == clear_.end() || it->second.empty())
      return Status::success();
    const FifoEntry cts = it->second.front();
    if (bytes > cts.capacity)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": isend of " + std::to_string(bytes) +
                        " bytes with tag " + std::to_string(tag) + " to " +
                        peer_ + ", whose matching receive holds only " +
                        std::to_string(cts.capacity) + " bytes");
    if (bytes > qp_->port().info.maxMessageBytes)
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": isend of " + std::to_string(bytes) +
                        " bytes exceeds " + qp_->port().info.name +
                        "'s largest message");
    auto req = std::make_unique<SendRequest>();
    req->bytes = bytes;
    if (Status s = qp_->postWrite(reinterpret_cast<uintptr_t>(req.get()), data,
                                  bytes, m->mr()->lkey, cts.addr, cts.rkey,
                                  static_cast<uint32_t>(cts.seqPlusOne - 1));
        !s.ok())
      return fail(s);
    it->second.pop_front();
    *request = requests_.add(std::move(req));
    return Status::success();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    return requests_.test(
        request, done, bytes, [this] { return progress(); }, what_, "send");
  }

  Status progress() override {
    if (!failed_.ok())
      return failed_;
    return pollThenCheck([&](const ibv_wc &wc) -> Status {
      if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM)
        return takeClearToSend(ntohl(wc.imm_data));
      if (wc.opcode == IBV_WC_RDMA_WRITE) {
        if (SendRequest *req =
                requests_.find(reinterpret_cast<NetRequest *>(wc.wr_id)))
          requests_.complete(*req);
      }
      return Status::success();
    });
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    // Work no event will announce: requests completed (or clear-to-sends
    // taken) by calls made for other requests.
    bool ready = requests_.untested() > 0 || freshClear_;
    freshClear_ = false;
    return armAndPoll(fds) || ready;
  }
  const std::string &peerAddress() const override { return peer_; }

private:
  /// The entry the receiver just wrote (its completion guarantees the
  /// write landed).
  Status takeClearToSend(uint32_t seq) {
    if (seq != static_cast<uint32_t>(next_))
      return Status(ErrorCode::TransportError,
                    what_ + ": " + peer_ + " announced receive " +
                        std::to_string(seq) + " where " +
                        std::to_string(next_) + " was due");
    const auto *ring = static_cast<const FifoEntry *>(fifo_->data());
    FifoEntry entry = ring[next_ % depth_];
    if (entry.seqPlusOne != next_ + 1)
      return Status(ErrorCode::TransportError,
                    what_ + ": the clear-to-send entry " +
                        std::to_string(next_) + " from " + peer_ +
                        " is not there");
    clear_[entry.tag].push_back(entry);
    freshClear_ = true;
    ++next_;
    return qp_->postReceive();
  }

  std::unique_ptr<PageBuffer> fifo_;
  std::unique_ptr<Memory> fifoMemory_;
  uint32_t depth_;
  uint64_t next_ = 0;
  std::map<uint64_t, std::deque<FifoEntry>> clear_;
  RequestTable<SendRequest> requests_;
  bool freshClear_ = false;
};

struct RecvRequest final : NetRequest {
  uint64_t seq = 0;
  size_t capacity = 0;
  size_t bytes = 0;
  bool done = false;
};

class RecvComm final : public NetRecvComm, private ConnectionEnd {
public:
  RecvComm(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
           std::string what, std::unique_ptr<PageBuffer> staging,
           std::unique_ptr<Memory> stagingMemory, const QpInfo &remote)
      : ConnectionEnd(std::move(qp), std::move(socket), std::move(peer),
                      std::move(what)),
        staging_(std::move(staging)), stagingMemory_(std::move(stagingMemory)),
        depth_(remote.depth), fifoAddr_(remote.fifoAddr),
        fifoRkey_(remote.fifoRkey) {}

  ~RecvComm() override { qp_.reset(); }

  Status irecv(void *data, size_t capacity, uint64_t tag, NetMemory &memory,
               NetRequest **request) override {
    *request = nullptr;
    auto *m = dynamic_cast<Memory *>(&memory);
    if (!m || !memory.contains(data, capacity))
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": irecv of " + std::to_string(capacity) +
                        " bytes outside the registered memory passed");
    if (!failed_.ok())
      return failed_;
    if (requests_.size() >= depth_)
      return Status::success();
    uint64_t seq = nextSeq_;
    auto *ring = static_cast<FifoEntry *>(staging_->data());
    FifoEntry &entry = ring[seq % depth_];
    entry = FifoEntry{};
    entry.addr = reinterpret_cast<uintptr_t>(data);
    entry.capacity = capacity;
    entry.tag = tag;
    entry.rkey = m->mr()->rkey;
    entry.seqPlusOne = seq + 1;
    if (Status s = qp_->postWrite(
            kClearToSendWr, &entry, sizeof(entry), stagingMemory_->mr()->lkey,
            fifoAddr_ + (seq % depth_) * sizeof(FifoEntry), fifoRkey_,
            static_cast<uint32_t>(seq));
        !s.ok())
      return fail(s);
    ++nextSeq_;
    auto req = std::make_unique<RecvRequest>();
    req->seq = seq;
    req->capacity = capacity;
    posted_[static_cast<uint32_t>(seq)] = req.get();
    *request = requests_.add(std::move(req));
    return Status::success();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    return requests_.test(
        request, done, bytes, [this] { return progress(); }, what_, "receive");
  }

  Status progress() override {
    if (!failed_.ok())
      return failed_;
    return pollThenCheck([&](const ibv_wc &wc) -> Status {
      if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM)
        return Status::success(); // a clear-to-send write completed
      auto it = posted_.find(ntohl(wc.imm_data));
      if (it == posted_.end() || wc.byte_len > it->second->capacity)
        return Status(ErrorCode::TransportError,
                      what_ + ": " + peer_ + " wrote " +
                          std::to_string(wc.byte_len) +
                          " bytes for a receive that is not posted or "
                          "smaller");
      it->second->bytes = wc.byte_len;
      requests_.complete(*it->second);
      posted_.erase(it);
      return qp_->postReceive();
    });
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    return armAndPoll(fds) || requests_.untested() > 0;
  }
  const std::string &peerAddress() const override { return peer_; }
  uint32_t depth() const override { return depth_; }

private:
  std::unique_ptr<PageBuffer> staging_;
  std::unique_ptr<Memory> stagingMemory_;
  uint32_t depth_;
  uint64_t fifoAddr_;
  uint32_t fifoRkey_;
  uint64_t nextSeq_ = 0;
  std::unordered_map<uint32_t, RecvRequest *> posted_;
  RequestTable<RecvRequest> requests_;
};

} // namespace

std::unique_ptr<NetSendComm>
makeSendComm(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
             std::string what, std::unique_ptr<PageBuffer> fifo,
             std::unique_ptr<Memory> fifoMemory, uint32_t depth) {
  return std::make_unique<SendComm>(
      std::move(qp), std::move(socket), std::move(peer), std::move(what),
      std::move(fifo), std::move(fifoMemory), depth);
}

std::unique_ptr<NetRecvComm>
makeRecvComm(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
             std::string what, std::unique_ptr<PageBuffer> staging,
             std::unique_ptr<Memory> stagingMemory, const QpInfo &remote) {
  return std::make_unique<RecvComm>(
      std::move(qp), std::move(socket), std::move(peer), std::move(what),
      std::move(staging), std::move(stagingMemory), remote);
}

} // namespace ibv
} // namespace net
} // namespace collrt

#endif

//===- IbvComm.cpp - IbvNet's queue pairs and communicators ---------------===//
//
// A connection is one reliable-connected queue pair per end, its own
// completion queue on the device's completion channel, and the set-up
// socket, kept open so that a peer that dies is noticed at once (its
// socket closes) instead of after the RC retry timeout.
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
// Data path: irecv writes a FifoEntry into the sender's ring with an RDMA
// write with immediate (immediate = the receive's sequence number, which
// also raises a completion at the sender); isend takes the oldest entry of
// its tag and RDMA-writes the payload with immediate = that sequence
// number into the receive buffer; the receiver's completion gives the
// size.
//
//===----------------------------------------------------------------------===//
#include "IbvInternal.h"
#include "Wire.h"

#if COLLRT_HAVE_VERBS_H

#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <unordered_map>

namespace collrt {
namespace net {
namespace ibv {

namespace {
constexpr uint32_t kMagic = 0x434c4942; // "CLIB"
constexpr uint32_t kVersion = 1;
constexpr size_t kNonceBytes = 32;
/// The RC transport's ack timeout (4.096 us * 2^18 = ~1 s) and retries,
/// as NCCL's defaults.
constexpr uint8_t kAckTimeout = 18;
constexpr uint8_t kRetries = 7;
/// wr_id of clear-to-send writes (data writes carry their request).
constexpr uint64_t kClearToSendWr = 1;
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

bool transient(int err) {
  return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

/// Page-aligned, zeroed memory for the clear-to-send rings.
class PageBuffer {
public:
  explicit PageBuffer(size_t bytes) : bytes_(bytes) {
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : p;
  }
  ~PageBuffer() {
    if (data_)
      ::munmap(data_, bytes_);
  }
  PageBuffer(const PageBuffer &) = delete;
  PageBuffer &operator=(const PageBuffer &) = delete;
  void *data() const { return data_; }
  size_t bytes() const { return bytes_; }

private:
  void *data_;
  size_t bytes_;
};

/// A queue pair, its completion queue, and the set-up socket.
class QueuePair {
public:
  QueuePair(const Port &port, std::string what)
      : port_(port), what_(std::move(what)) {}
  ~QueuePair() {
    const IbvApi &api = port_.context->api();
    if (qp_)
      api.destroyQp(qp_);
    if (cq_)
      api.destroyCq(cq_);
  }
  QueuePair(const QueuePair &) = delete;
  QueuePair &operator=(const QueuePair &) = delete;

  /// Creates the CQ and the QP and moves it to INIT; posts `recvs`
  /// receive WRs (they absorb incoming writes with immediate).
  Status create(uint32_t depth) {
    const IbvApi &api = port_.context->api();
    ibv_comp_channel *channel = nullptr;
    if (Status s = port_.context->completionChannel(&channel); !s.ok())
      return s;
    ibv_pd *pd = nullptr;
    if (Status s = port_.context->protectionDomain(&pd); !s.ok())
      return s;
    errno = 0;
    // Room for every receive and for twice `depth` writes: a write's slot
    // is free only once its completion was polled, which may come after
    // the work it enabled.
    const int entries = static_cast<int>(3 * depth + 2);
    cq_ = api.createCq(port_.context->get(), entries, nullptr, channel, 0);
    if (!cq_)
      return sysError(ErrorCode::TransportError,
                      what_ + ": ibv_create_cq of " + std::to_string(entries) +
                          " entries on " + port_.info.name,
                      errno ? errno : ENOMEM);
    ibv_qp_init_attr init{};
    init.send_cq = cq_;
    init.recv_cq = cq_;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = 2 * depth;
    init.cap.max_recv_wr = depth;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    errno = 0;
    qp_ = api.createQp(pd, &init);
    if (!qp_)
      return sysError(ErrorCode::TransportError,
                      what_ + ": ibv_create_qp (RC, " + std::to_string(depth) +
                          " work requests) on " + port_.info.name,
                      errno ? errno : ENOMEM);
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = port_.number;
    attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                           IBV_ACCESS_REMOTE_READ;
    if (int rc = api.modifyQp(qp_, &attr,
                              IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                  IBV_QP_ACCESS_FLAGS))
      return sysError(ErrorCode::TransportError,
                      what_ + ": moving a queue pair on " + port_.info.name +
                          " to INIT (ibv_modify_qp)",
                      rc);
    std::random_device random;
    psn_ = random() & 0xffffff;
    for (uint32_t i = 0; i < depth; ++i)
      if (Status s = postReceive(); !s.ok())
        return s;
    return Status::success();
  }

  QpInfo local() const {
    QpInfo info;
    info.lid = port_.attr.lid;
    info.qpn = qp_->qp_num;
    info.psn = psn_;
    info.mtu = port_.attr.active_mtu;
    info.linkLayer = port_.attr.link_layer;
    std::memcpy(info.gid, port_.gid.raw, 16);
    return info;
  }

  /// RTR then RTS towards `remote`.
  Status connectTo(const QpInfo &remote) {
    const IbvApi &api = port_.context->api();
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = static_cast<ibv_mtu>(
        std::min<uint32_t>(port_.attr.active_mtu, remote.mtu));
    attr.dest_qp_num = remote.qpn;
    attr.rq_psn = remote.psn;
    attr.max_dest_rd_atomic = 1;
    attr.min_rnr_timer = 12;
    attr.ah_attr.port_num = port_.number;
    if (port_.attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
      attr.ah_attr.is_global = 1;
      std::memcpy(attr.ah_attr.grh.dgid.raw, remote.gid, 16);
      attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(port_.gidIndex);
      attr.ah_attr.grh.hop_limit = 255;
    } else {
      attr.ah_attr.dlid = static_cast<uint16_t>(remote.lid);
    }
    if (int rc =
            api.modifyQp(qp_, &attr,
                         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                             IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
      return sysError(ErrorCode::TransportError,
                      what_ + ": moving a queue pair on " + port_.info.name +
                          " to RTR towards QP " + std::to_string(remote.qpn) +
                          " (ibv_modify_qp)",
                      rc);
    attr = ibv_qp_attr{};
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = kAckTimeout;
    attr.retry_cnt = kRetries;
    attr.rnr_retry = 7; // infinite
    attr.sq_psn = psn_;
    attr.max_rd_atomic = 1;
    if (int rc = api.modifyQp(qp_, &attr,
                              IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                  IBV_QP_MAX_QP_RD_ATOMIC))
      return sysError(ErrorCode::TransportError,
                      what_ + ": moving a queue pair on " + port_.info.name +
                          " to RTS (ibv_modify_qp)",
                      rc);
    return Status::success();
  }

  Status postReceive() {
    ibv_recv_wr wr{};
    ibv_recv_wr *bad = nullptr;
    wr.wr_id = 0;
    wr.num_sge = 0; // writes with immediate carry no receive payload
    if (int rc = ibv_post_recv(qp_, &wr, &bad))
      return sysError(ErrorCode::TransportError,
                      what_ + ": ibv_post_recv on " + port_.info.name, rc);
    return Status::success();
  }

  Status postWrite(uint64_t wrId, const void *data, size_t bytes, uint32_t lkey,
                   uint64_t remoteAddr, uint32_t rkey, uint32_t immediate) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uintptr_t>(data);
    sge.length = static_cast<uint32_t>(bytes);
    sge.lkey = lkey;
    ibv_send_wr wr{};
    ibv_send_wr *bad = nullptr;
    wr.wr_id = wrId;
    wr.sg_list = bytes ? &sge : nullptr;
    wr.num_sge = bytes ? 1 : 0;
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = htonl(immediate);
    wr.wr.rdma.remote_addr = remoteAddr;
    wr.wr.rdma.rkey = rkey;
    if (int rc = ibv_post_send(qp_, &wr, &bad))
      return sysError(ErrorCode::TransportError,
                      what_ +
                          ": ibv_post_send (RDMA write with immediate) "
                          "on " +
                          port_.info.name,
                      rc);
    return Status::success();
  }

  /// Completions: those pollFds set aside first, then the CQ's.
  template <typename Handle> Status poll(Handle &&handle) {
    while (!stashed_.empty()) {
      ibv_wc wc = stashed_.front();
      stashed_.pop_front();
      if (Status s = check(wc); !s.ok())
        return s;
      if (Status s = handle(wc); !s.ok())
        return s;
    }
    for (;;) {
      ibv_wc wcs[16];
      int n = ibv_poll_cq(cq_, 16, wcs);
      if (n < 0)
        return Status(ErrorCode::TransportError, what_ + ": ibv_poll_cq on " +
                                                     port_.info.name +
                                                     " failed");
      for (int i = 0; i < n; ++i) {
        if (Status s = check(wcs[i]); !s.ok())
          return s;
        if (Status s = handle(wcs[i]); !s.ok())
          return s;
      }
      if (n < 16)
        return Status::success();
    }
  }

  /// Arms the CQ's event and adds the channel's descriptor; true when a
  /// completion is already there (it is set aside for poll()).
  bool arm(std::vector<pollfd> *fds) {
    port_.context->drainEvents();
    ibv_req_notify_cq(cq_, 0);
    // A completion that arrived before arming raises no event: look again.
    ibv_wc wcs[16];
    int n = ibv_poll_cq(cq_, 16, wcs);
    for (int i = 0; i < n; ++i)
      stashed_.push_back(wcs[i]);
    ibv_comp_channel *channel = nullptr;
    if (port_.context->completionChannel(&channel).ok())
      fds->push_back({channel->fd, POLLIN, 0});
    return n > 0;
  }

  const Port &port() const { return port_; }

private:
  Status check(const ibv_wc &wc) const {
    if (wc.status == IBV_WC_SUCCESS)
      return Status::success();
    ErrorCode code = wc.status == IBV_WC_RETRY_EXC_ERR ||
                             wc.status == IBV_WC_RNR_RETRY_EXC_ERR ||
                             wc.status == IBV_WC_REM_ABORT_ERR
                         ? ErrorCode::PeerFailure
                         : ErrorCode::TransportError;
    char vendor[32];
    std::snprintf(vendor, sizeof(vendor), "0x%x", wc.vendor_err);
    return Status(
        code, what_ + ": a work request on " + port_.info.name + " failed: " +
                  port_.context->api().wcStatusStr(wc.status) + " (status " +
                  std::to_string(wc.status) + ", vendor error " + vendor + ")");
  }

  const Port &port_;
  std::string what_;
  ibv_cq *cq_ = nullptr;
  ibv_qp *qp_ = nullptr;
  uint32_t psn_ = 0;
  std::deque<ibv_wc> stashed_;
};

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
    *request = req.get();
    live_[req.get()] = std::move(req);
    return Status::success();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    *done = false;
    auto it = live_.find(request);
    if (it == live_.end())
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": test of a request this send connection does "
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
    Status s = qp_->poll([&](const ibv_wc &wc) -> Status {
      if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM)
        return takeClearToSend(ntohl(wc.imm_data));
      if (wc.opcode == IBV_WC_RDMA_WRITE) {
        auto it = live_.find(reinterpret_cast<NetRequest *>(wc.wr_id));
        if (it != live_.end()) {
          it->second->done = true;
          ++untested_;
        }
      }
      return Status::success();
    });
    if (s.ok())
      s = checkSocket();
    return s.ok() ? s : fail(s);
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    // Work no event will announce: requests completed (or clear-to-sends
    // taken) by calls made for other requests.
    bool ready = untested_ > 0 || freshClear_;
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
  std::unordered_map<NetRequest *, std::unique_ptr<SendRequest>> live_;
  size_t untested_ = 0;
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
    if (live_.size() >= depth_)
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
    *request = req.get();
    live_[req.get()] = std::move(req);
    return Status::success();
  }

  Status test(NetRequest *request, bool *done, size_t *bytes) override {
    *done = false;
    auto it = live_.find(request);
    if (it == live_.end())
      return Status(ErrorCode::InvalidArgument,
                    what_ + ": test of a request this receive connection "
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
    Status s = qp_->poll([&](const ibv_wc &wc) -> Status {
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
      it->second->done = true;
      ++untested_;
      posted_.erase(it);
      return qp_->postReceive();
    });
    if (s.ok())
      s = checkSocket();
    return s.ok() ? s : fail(s);
  }

  bool pollFds(std::vector<pollfd> *fds) override {
    return armAndPoll(fds) || untested_ > 0;
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
  std::unordered_map<NetRequest *, std::unique_ptr<RecvRequest>> live_;
  size_t untested_ = 0;
};

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
    *comm = std::make_unique<SendComm>(std::move(qp_), std::move(socket_),
                                       peer_, what_, std::move(fifo_),
                                       std::move(fifoMemory_), depth_);
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
        return Status(s.code(), what_ + ": " + s.message());
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
    *comm = std::make_unique<RecvComm>(std::move(p.qp), std::move(p.socket),
                                       p.peer, what_, std::move(p.staging),
                                       std::move(p.stagingMemory), p.remote);
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

//===- IbvQueuePair.h - RC queue pair and completion queue ------*- C++ -*-===//
//
// Internal to CollRtNet (IbvComm.cpp, IbvConnect.cpp); only built with
// <infiniband/verbs.h>.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_IBVQUEUEPAIR_H
#define COLLRT_NET_IBVQUEUEPAIR_H

#include "IbvInternal.h"

#if COLLRT_HAVE_VERBS_H

#include <arpa/inet.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <random>

namespace collrt {
namespace net {
namespace ibv {

/// The RC transport's ack timeout (4.096 us * 2^18 = ~1 s) and retries,
/// as NCCL's defaults.
constexpr uint8_t kAckTimeout = 18;
constexpr uint8_t kRetries = 7;
/// wr_id of clear-to-send writes (data writes carry their request).
constexpr uint64_t kClearToSendWr = 1;

inline bool transient(int err) {
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

/// The two communicators, made from a queue pair whose set-up finished
/// (IbvComm.cpp).
std::unique_ptr<NetSendComm>
makeSendComm(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
             std::string what, std::unique_ptr<PageBuffer> fifo,
             std::unique_ptr<Memory> fifoMemory, uint32_t depth);
std::unique_ptr<NetRecvComm>
makeRecvComm(std::unique_ptr<QueuePair> qp, Fd socket, std::string peer,
             std::string what, std::unique_ptr<PageBuffer> staging,
             std::unique_ptr<Memory> stagingMemory, const QpInfo &remote);

} // namespace ibv
} // namespace net
} // namespace collrt

#endif

#endif

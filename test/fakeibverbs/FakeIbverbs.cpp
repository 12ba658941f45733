//===- FakeIbverbs.cpp - libibverbs emulated over Unix sockets ------------===//
//
// A libibverbs.so.1 for hosts without RDMA hardware, so that IbvNet's queue
// pairs, completion queues, clear-to-send rings and GPUDirect registration
// run in CI (as test/fakecuda does for the CUDA driver). It emulates what
// IbvNet uses of the verbs: devices with one active InfiniBand port, PDs,
// MRs (ibv_reg_mr, ibv_reg_dmabuf_mr), CQs with a completion channel, RC
// QPs that move through RESET, INIT, RTR and RTS, and RDMA writes (with or
// without immediate) between QPs of any processes on this host.
//
// Every process is one "port": its LID names an abstract Unix socket
// ("collc-fake-ibverbs-LID") that a service thread accepts on. A QP that
// goes to RTR connects to its destination's LID, says which QP it wants,
// and sends its writes down that stream; the destination's service thread
// checks the rkey and the range against the MRs of its process, copies the
// payload there, consumes a posted receive for a write with immediate
// (waiting while none is posted: RNR retry without end, as rnr_retry = 7),
// completes it on the receive CQ and acknowledges; the acknowledgement
// completes the write on the sender's CQ. A stream that closes with
// writes unacknowledged completes the first with
// IBV_WC_RETRY_EXC_ERR and flushes the rest, as the RC timeout would (at
// once here); the QP goes to the error state and flushes its receives.
//
// It is strict where real hardware is and a test should fail: posting
// beyond max_send_wr or max_recv_wr (ENOMEM), a CQ overrun (poll_cq
// fails and says so on stderr), an lkey or rkey that does not cover the
// range (IBV_WC_LOC_PROT_ERR / IBV_WC_REM_ACCESS_ERR), QP transitions out
// of order (EINVAL), destroying a CQ, PD or channel still in use (EBUSY),
// a dma-buf fd that does not back the registered address (EINVAL).
//
// Environment (for tests):
//   FAKE_IBVERBS_DEVICES   comma-separated device names (default fake_ib0)
//   FAKE_IBVERBS_NO_PEERMEM=1   ibv_reg_mr refuses the fake CUDA driver's
//                          device memory (EFAULT), as without nvidia-peermem
//   FAKE_IBVERBS_NO_DMABUF=1    no ibv_reg_dmabuf_mr behaviour: it fails
//                          with EOPNOTSUPP (the symbol stays)
//   FAKE_IBVERBS_LINK=ethernet  RoCE ports: the link layer is Ethernet,
//                          LID 0, and a QP reaches its destination by the
//                          GID (which holds the emulation's port number)
//
//===----------------------------------------------------------------------===//
#include <infiniband/verbs.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint32_t kMagic = 0x46494256; // "FIBV"
enum FrameType : uint32_t { kHello = 1, kWrite = 2, kAck = 3 };

struct Header {
  uint32_t magic;
  uint32_t type;
  uint64_t seq;     // write / ack: the write's number on its stream
  uint64_t addr;    // write: remote address; hello: source LID
  uint32_t rkey;    // write; hello: source QPN
  uint32_t bytes;   // write: payload bytes; hello: destination QPN
  uint32_t imm;     // write: immediate (network order); ack: wc status
  uint32_t withImm; // write: 1 = with immediate
};

struct FakeDevice {
  ibv_device device;
};

struct FakeContext {
  ibv_context context; // first: the library's pointer is ours
};

struct FakeChannel {
  ibv_comp_channel channel;
  int writeFd = -1;
  int cqs = 0;
};

struct FakeCq {
  ibv_cq cq;
  std::deque<ibv_wc> wcs;
  bool armed = false;
  bool overrun = false;
  int qps = 0;
};

struct FakePd {
  ibv_pd pd;
  int users = 0;
};

struct FakeMr {
  ibv_mr mr;
  int access = 0;
};

struct SendWr {
  uint64_t wrId;
  bool signaled;
  uint64_t seq;
  uint32_t bytes;
  bool withImm;
};

struct FakeQp {
  ibv_qp qp;
  uint32_t maxSend = 0, maxRecv = 0;
  uint32_t destLid = 0, destQpn = 0;
  // The stream this QP writes on (and reads acknowledgements from).
  int outFd = -1;
  std::string outBuf, ackIn;
  std::deque<SendWr> unacked;
  uint64_t nextSeq = 0;
  bool peerGone = false;
  // The stream the destination writes on (payloads in, acknowledgements
  // out).
  int inFd = -1;
  std::string inBuf, ackOut;
  std::deque<uint64_t> recvs;
};

struct Pending {
  int fd;
  std::string in;
};

struct State {
  std::mutex mutex;
  bool started = false;
  uint32_t lid = 0;
  int listenFd = -1;
  int wake[2] = {-1, -1};
  uint32_t nextQpn = 0x100;
  uint32_t nextKey = 0x1000;
  std::map<uint32_t, FakeQp *> qps;
  std::map<uint32_t, FakeMr *> mrs; // by lkey (= rkey)
  std::vector<Pending> pending;
};

// Never destroyed: the service thread may run until the process ends.
State *state() {
  static State *s = new State();
  return s;
}

std::vector<FakeDevice *> &devices() {
  static auto *list = new std::vector<FakeDevice *>();
  return *list;
}

bool ethernet() {
  const char *link = std::getenv("FAKE_IBVERBS_LINK");
  return link && std::string(link) == "ethernet";
}

void setNonBlocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

sockaddr_un lidAddress(uint32_t lid, socklen_t *length) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  int n = std::snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
                        "collc-fake-ibverbs-%u", lid);
  *length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(n));
  return a;
}

void wakeService(State *s) {
  char byte = 1;
  (void)!::write(s->wake[1], &byte, 1);
}

void pushWc(FakeCq *cq, const ibv_wc &wc) {
  if (int(cq->wcs.size()) >= cq->cq.cqe) {
    if (!cq->overrun)
      std::fprintf(stderr,
                   "fake ibverbs: completion queue overrun: a completion "
                   "arrived with all %d entries full\n",
                   cq->cq.cqe);
    cq->overrun = true;
    return;
  }
  cq->wcs.push_back(wc);
  if (cq->armed && cq->cq.channel) {
    cq->armed = false;
    auto *ch = reinterpret_cast<FakeChannel *>(cq->cq.channel);
    ibv_cq *p = &cq->cq;
    (void)!::write(ch->writeFd, &p, sizeof p);
  }
}

ibv_wc makeWc(FakeQp *qp, uint64_t wrId, ibv_wc_status status,
              ibv_wc_opcode opcode) {
  ibv_wc wc{};
  wc.wr_id = wrId;
  wc.status = status;
  wc.opcode = opcode;
  wc.qp_num = qp->qp.qp_num;
  return wc;
}

/// The QP enters the error state: every outstanding work request completes
/// (the first send with `first`, the rest flushed), receives flushed.
void failQp(FakeQp *qp, ibv_wc_status first) {
  qp->qp.state = IBV_QPS_ERR;
  auto *sendCq = reinterpret_cast<FakeCq *>(qp->qp.send_cq);
  auto *recvCq = reinterpret_cast<FakeCq *>(qp->qp.recv_cq);
  bool firstDone = false;
  for (const SendWr &w : qp->unacked) {
    pushWc(sendCq, makeWc(qp, w.wrId, firstDone ? IBV_WC_WR_FLUSH_ERR : first,
                          IBV_WC_RDMA_WRITE));
    firstDone = true;
  }
  qp->unacked.clear();
  for (uint64_t id : qp->recvs)
    pushWc(recvCq, makeWc(qp, id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV));
  qp->recvs.clear();
  qp->outBuf.clear();
}

void closeFd(int *fd) {
  if (*fd >= 0)
    ::close(*fd);
  *fd = -1;
}

/// Reads what is there; false when the stream closed or failed.
bool readInto(int fd, std::string *in) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      in->append(buf, size_t(n));
      continue;
    }
    if (n == 0)
      return false;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  }
}

/// Writes what it can; false when the stream failed.
bool writeFrom(int fd, std::string *out) {
  while (!out->empty()) {
    ssize_t n = ::send(fd, out->data(), out->size(), MSG_NOSIGNAL);
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    out->erase(0, size_t(n));
  }
  return true;
}

FakeMr *findMr(State *s, uint32_t key, uint64_t addr, uint64_t bytes) {
  auto it = s->mrs.find(key);
  if (it == s->mrs.end())
    return nullptr;
  auto base = reinterpret_cast<uintptr_t>(it->second->mr.addr);
  if (addr < base || addr + bytes > base + it->second->mr.length)
    return nullptr;
  return it->second;
}

/// Payloads that arrived for `qp`, in order; stops at a write with
/// immediate while no receive is posted.
void deliver(State *s, FakeQp *qp) {
  if (qp->qp.state != IBV_QPS_RTR && qp->qp.state != IBV_QPS_RTS)
    return;
  while (qp->inBuf.size() >= sizeof(Header)) {
    Header h;
    std::memcpy(&h, qp->inBuf.data(), sizeof h);
    if (h.magic != kMagic || h.type != kWrite) {
      std::fprintf(stderr, "fake ibverbs: QP %u: a malformed frame\n",
                   qp->qp.qp_num);
      closeFd(&qp->inFd);
      qp->inBuf.clear();
      return;
    }
    if (qp->inBuf.size() < sizeof h + h.bytes)
      return;
    if (h.withImm && qp->recvs.empty())
      return; // receiver not ready: the sender retries
    ibv_wc_status status = IBV_WC_SUCCESS;
    if (h.bytes) {
      FakeMr *mr = findMr(s, h.rkey, h.addr, h.bytes);
      if (!mr || !(mr->access & IBV_ACCESS_REMOTE_WRITE))
        status = IBV_WC_REM_ACCESS_ERR;
      else
        std::memcpy(reinterpret_cast<void *>(uintptr_t(h.addr)),
                    qp->inBuf.data() + sizeof h, h.bytes);
    }
    qp->inBuf.erase(0, sizeof h + h.bytes);
    Header ack{kMagic, kAck, h.seq, 0, 0, 0, uint32_t(status), 0};
    qp->ackOut.append(reinterpret_cast<const char *>(&ack), sizeof ack);
    if (status != IBV_WC_SUCCESS) {
      failQp(qp, IBV_WC_REM_ACCESS_ERR);
      qp->inBuf.clear();
      return;
    }
    if (h.withImm) {
      ibv_wc wc = makeWc(qp, qp->recvs.front(), IBV_WC_SUCCESS,
                         IBV_WC_RECV_RDMA_WITH_IMM);
      qp->recvs.pop_front();
      wc.byte_len = h.bytes;
      wc.imm_data = h.imm;
      wc.wc_flags = IBV_WC_WITH_IMM;
      wc.src_qp = qp->destQpn;
      pushWc(reinterpret_cast<FakeCq *>(qp->qp.recv_cq), wc);
    }
  }
}

/// Acknowledgements of `qp`'s writes.
void acknowledge(FakeQp *qp) {
  while (qp->ackIn.size() >= sizeof(Header)) {
    Header h;
    std::memcpy(&h, qp->ackIn.data(), sizeof h);
    qp->ackIn.erase(0, sizeof h);
    if (qp->unacked.empty() || qp->unacked.front().seq != h.seq) {
      std::fprintf(stderr,
                   "fake ibverbs: QP %u: an acknowledgement out of order\n",
                   qp->qp.qp_num);
      continue;
    }
    SendWr w = qp->unacked.front();
    qp->unacked.pop_front();
    auto status = static_cast<ibv_wc_status>(h.imm);
    if (status != IBV_WC_SUCCESS) {
      qp->unacked.push_front(w);
      failQp(qp, status);
      return;
    }
    if (w.signaled) {
      ibv_wc wc = makeWc(qp, w.wrId, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
      pushWc(reinterpret_cast<FakeCq *>(qp->qp.send_cq), wc);
    }
  }
}

void *serve(void *) {
  State *s = state();
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    {
      std::lock_guard<std::mutex> lock(s->mutex);
      fds.push_back({s->wake[0], POLLIN, 0});
      fds.push_back({s->listenFd, POLLIN, 0});
      for (Pending &p : s->pending)
        fds.push_back({p.fd, POLLIN, 0});
      for (auto &[qpn, qp] : s->qps) {
        (void)qpn;
        if (qp->outFd >= 0)
          fds.push_back({qp->outFd,
                         short(POLLIN | (qp->outBuf.empty() ? 0 : POLLOUT)),
                         0});
        if (qp->inFd >= 0)
          fds.push_back({qp->inFd,
                         short(POLLIN | (qp->ackOut.empty() ? 0 : POLLOUT)),
                         0});
      }
    }
    ::poll(fds.data(), fds.size(), 200);
    std::lock_guard<std::mutex> lock(s->mutex);
    char drain[256];
    while (::read(s->wake[0], drain, sizeof drain) > 0) {
    }
    for (;;) {
      int fd = ::accept4(s->listenFd, nullptr, nullptr,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0)
        break;
      s->pending.push_back({fd, {}});
    }
    // Streams that said which QP they are for.
    for (size_t i = 0; i < s->pending.size();) {
      Pending &p = s->pending[i];
      bool open = readInto(p.fd, &p.in);
      if (p.in.size() >= sizeof(Header)) {
        Header h;
        std::memcpy(&h, p.in.data(), sizeof h);
        auto it = s->qps.find(h.bytes);
        if (h.magic == kMagic && h.type == kHello && it != s->qps.end() &&
            it->second->inFd < 0) {
          FakeQp *qp = it->second;
          qp->inFd = p.fd;
          qp->inBuf = p.in.substr(sizeof h);
        } else {
          ::close(p.fd); // no such QP: the sender's stream closes
        }
        s->pending.erase(s->pending.begin() + long(i));
        continue;
      }
      if (!open) {
        ::close(p.fd);
        s->pending.erase(s->pending.begin() + long(i));
        continue;
      }
      ++i;
    }
    for (auto &[qpn, qp] : s->qps) {
      (void)qpn;
      if (qp->inFd >= 0) {
        bool open = readInto(qp->inFd, &qp->inBuf);
        deliver(s, qp);
        if (!writeFrom(qp->inFd, &qp->ackOut) || !open) {
          closeFd(&qp->inFd);
          qp->ackOut.clear();
        }
      }
      if (qp->outFd >= 0) {
        bool open = writeFrom(qp->outFd, &qp->outBuf);
        open = readInto(qp->outFd, &qp->ackIn) && open;
        acknowledge(qp);
        if (!open) {
          closeFd(&qp->outFd);
          qp->peerGone = true;
          if (!qp->unacked.empty())
            failQp(qp, IBV_WC_RETRY_EXC_ERR);
        }
      }
    }
  }
  return nullptr;
}

void resetInChild();

/// Binds this process's LID and starts the service thread, once.
int start(State *s) {
  if (s->started)
    return 0;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return errno;
  uint32_t first = 1 + uint32_t(::getpid()) % 60000;
  uint32_t lid = 0;
  for (uint32_t i = 0; i < 60000 && !lid; ++i) {
    uint32_t candidate = 1 + (first - 1 + i) % 60000;
    socklen_t length;
    sockaddr_un a = lidAddress(candidate, &length);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&a), length) == 0)
      lid = candidate;
  }
  if (!lid || ::listen(fd, 128) != 0) {
    ::close(fd);
    return EADDRINUSE;
  }
  if (::pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
    ::close(fd);
    return errno;
  }
  s->listenFd = fd;
  s->lid = lid;
  pthread_t thread;
  if (int rc = pthread_create(&thread, nullptr, serve, nullptr)) {
    ::close(fd);
    return rc;
  }
  pthread_detach(thread);
  s->started = true;
  return 0;
}

// fork(): the child has none of the parent's threads; it starts its own
// port (a new LID) on its first ibv_open_device and forgets the parent's
// queue pairs, whose descriptors it closes so that the parent's peers see
// the parent's streams only.
void prepareFork() { state()->mutex.lock(); }
void parentAfterFork() { state()->mutex.unlock(); }
void resetInChild() {
  State *s = state();
  for (auto &[qpn, qp] : s->qps) {
    (void)qpn;
    closeFd(&qp->inFd);
    closeFd(&qp->outFd);
  }
  for (Pending &p : s->pending)
    ::close(p.fd);
  closeFd(&s->listenFd);
  closeFd(&s->wake[0]);
  closeFd(&s->wake[1]);
  new (&s->mutex) std::mutex();
  s->qps.clear();
  s->pending.clear();
  s->started = false;
  s->lid = 0;
}

__attribute__((constructor)) void registerForkHandlers() {
  pthread_atfork(prepareFork, parentAfterFork, resetInChild);
}

int postSend(ibv_qp *ibqp, ibv_send_wr *wr, ibv_send_wr **bad) {
  State *s = state();
  auto *qp = reinterpret_cast<FakeQp *>(ibqp);
  std::lock_guard<std::mutex> lock(s->mutex);
  for (; wr; wr = wr->next) {
    *bad = wr;
    if (qp->qp.state != IBV_QPS_RTS && qp->qp.state != IBV_QPS_ERR)
      return EINVAL;
    if (wr->opcode != IBV_WR_RDMA_WRITE &&
        wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM)
      return EINVAL;
    if (qp->unacked.size() >= qp->maxSend)
      return ENOMEM;
    if (wr->num_sge < 0 || wr->num_sge > 1)
      return EINVAL;
    bool signaled = wr->send_flags & IBV_SEND_SIGNALED;
    SendWr w{wr->wr_id, signaled, qp->nextSeq++, 0,
             wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM};
    if (qp->qp.state == IBV_QPS_ERR) {
      pushWc(reinterpret_cast<FakeCq *>(qp->qp.send_cq),
             makeWc(qp, w.wrId, IBV_WC_WR_FLUSH_ERR, IBV_WC_RDMA_WRITE));
      continue;
    }
    const char *data = nullptr;
    if (wr->num_sge == 1) {
      const ibv_sge &sge = wr->sg_list[0];
      if (sge.length && !findMr(s, sge.lkey, sge.addr, sge.length)) {
        qp->unacked.push_back(w);
        failQp(qp, IBV_WC_LOC_PROT_ERR);
        continue;
      }
      w.bytes = sge.length;
      data = reinterpret_cast<const char *>(uintptr_t(sge.addr));
    }
    if (qp->peerGone || qp->outFd < 0) {
      qp->unacked.push_back(w);
      failQp(qp, IBV_WC_RETRY_EXC_ERR);
      continue;
    }
    Header h{kMagic,
             kWrite,
             w.seq,
             wr->wr.rdma.remote_addr,
             wr->wr.rdma.rkey,
             w.bytes,
             w.withImm ? uint32_t(wr->imm_data) : 0,
             w.withImm ? 1u : 0u};
    qp->outBuf.append(reinterpret_cast<const char *>(&h), sizeof h);
    if (w.bytes)
      qp->outBuf.append(data, w.bytes);
    qp->unacked.push_back(w);
  }
  *bad = nullptr;
  wakeService(s);
  return 0;
}

int postRecv(ibv_qp *ibqp, ibv_recv_wr *wr, ibv_recv_wr **bad) {
  State *s = state();
  auto *qp = reinterpret_cast<FakeQp *>(ibqp);
  std::lock_guard<std::mutex> lock(s->mutex);
  for (; wr; wr = wr->next) {
    *bad = wr;
    if (qp->qp.state == IBV_QPS_RESET)
      return EINVAL;
    if (qp->recvs.size() >= qp->maxRecv)
      return ENOMEM;
    if (qp->qp.state == IBV_QPS_ERR) {
      pushWc(reinterpret_cast<FakeCq *>(qp->qp.recv_cq),
             makeWc(qp, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV));
      continue;
    }
    qp->recvs.push_back(wr->wr_id);
  }
  *bad = nullptr;
  wakeService(s);
  return 0;
}

int pollCq(ibv_cq *ibcq, int n, ibv_wc *wc) {
  State *s = state();
  auto *cq = reinterpret_cast<FakeCq *>(ibcq);
  std::lock_guard<std::mutex> lock(s->mutex);
  if (cq->overrun)
    return -1;
  int i = 0;
  for (; i < n && !cq->wcs.empty(); ++i) {
    wc[i] = cq->wcs.front();
    cq->wcs.pop_front();
  }
  return i;
}

int reqNotifyCq(ibv_cq *ibcq, int) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  reinterpret_cast<FakeCq *>(ibcq)->armed = true;
  return 0;
}

/// The mapping of this process that holds `address`: its first address,
/// file offset, device and inode, and path.
bool findMapping(uintptr_t address, uintptr_t *start, uint64_t *offset,
                 dev_t *device, ino_t *inode, std::string *path) {
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return false;
  char line[4096];
  bool found = false;
  while (!found && std::fgets(line, sizeof line, maps)) {
    uintptr_t from = 0, to = 0;
    unsigned long long off = 0, ino = 0;
    unsigned major = 0, minor = 0;
    int consumed = 0;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %llx %x:%x %llu %n",
                    &from, &to, &off, &major, &minor, &ino, &consumed) < 6)
      continue;
    if (address < from || address >= to)
      continue;
    found = true;
    *start = from;
    *offset = off;
    *device = makedev(major, minor);
    *inode = ino_t(ino);
    std::string rest = line + consumed;
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' '))
      rest.pop_back();
    *path = rest;
  }
  std::fclose(maps);
  return found;
}

ibv_mr *newMr(ibv_pd *pd, void *addr, size_t length, int access) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *mr = new FakeMr();
  mr->mr.context = pd->context;
  mr->mr.pd = pd;
  mr->mr.addr = addr;
  mr->mr.length = length;
  mr->mr.lkey = mr->mr.rkey = s->nextKey++;
  mr->mr.handle = mr->mr.lkey;
  mr->access = access;
  s->mrs[mr->mr.lkey] = mr;
  reinterpret_cast<FakePd *>(pd)->users++;
  return &mr->mr;
}

const char *kStatusNames[] = {
    "success",
    "local length error",
    "local QP operation error",
    "local EE context operation error",
    "local protection error",
    "Work Request Flushed Error",
    "memory management operation error",
    "bad response error",
    "local access error",
    "remote invalid request error",
    "remote access error",
    "remote operation error",
    "transport retry counter exceeded",
    "RNR retry counter exceeded",
    "local RDD violation error",
    "remote invalid RD request",
    "aborted error",
    "invalid EE context number",
    "invalid EE context state",
    "fatal error",
    "response timeout error",
    "general error",
};

} // namespace

FAKE_EXPORT ibv_device **(ibv_get_device_list)(int *count) {
  std::vector<FakeDevice *> &list = devices();
  if (list.empty()) {
    const char *env = std::getenv("FAKE_IBVERBS_DEVICES");
    std::string names = env && *env ? env : "fake_ib0";
    size_t at = 0;
    while (at <= names.size()) {
      size_t comma = names.find(',', at);
      std::string name = names.substr(
          at, comma == std::string::npos ? std::string::npos : comma - at);
      if (!name.empty()) {
        auto *d = new FakeDevice();
        d->device.node_type = IBV_NODE_CA;
        d->device.transport_type = IBV_TRANSPORT_IB;
        std::snprintf(d->device.name, sizeof d->device.name, "%s",
                      name.c_str());
        std::snprintf(d->device.dev_name, sizeof d->device.dev_name,
                      "uverbs%zu", list.size());
        list.push_back(d);
      }
      if (comma == std::string::npos)
        break;
      at = comma + 1;
    }
  }
  auto **out = static_cast<ibv_device **>(
      std::calloc(list.size() + 1, sizeof(ibv_device *)));
  for (size_t i = 0; i < list.size(); ++i)
    out[i] = &list[i]->device;
  if (count)
    *count = int(list.size());
  return out;
}

FAKE_EXPORT void ibv_free_device_list(ibv_device **list) { std::free(list); }

FAKE_EXPORT const char *ibv_get_device_name(ibv_device *device) {
  return device->name;
}

FAKE_EXPORT ibv_context *ibv_open_device(ibv_device *device) {
  State *s = state();
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    if (int rc = start(s)) {
      errno = rc;
      return nullptr;
    }
  }
  auto *c = new FakeContext();
  c->context.device = device;
  c->context.cmd_fd = -1;
  c->context.async_fd = -1;
  c->context.num_comp_vectors = 1;
  c->context.ops.post_send = postSend;
  c->context.ops.post_recv = postRecv;
  c->context.ops.poll_cq = pollCq;
  c->context.ops.req_notify_cq = reqNotifyCq;
  return &c->context;
}

FAKE_EXPORT int ibv_close_device(ibv_context *context) {
  delete reinterpret_cast<FakeContext *>(context);
  return 0;
}

FAKE_EXPORT int ibv_query_device(ibv_context *, ibv_device_attr *attr) {
  std::memset(attr, 0, sizeof *attr);
  std::snprintf(attr->fw_ver, sizeof attr->fw_ver, "collc-fake-ibverbs");
  attr->max_mr_size = uint64_t(1) << 40;
  attr->page_size_cap = 4096;
  attr->vendor_id = 0x02c9;
  attr->max_qp = 65536;
  attr->max_qp_wr = 32768;
  attr->max_sge = 30;
  attr->max_cq = 65536;
  attr->max_cqe = 4194303;
  attr->max_mr = 1 << 24;
  attr->max_pd = 1 << 24;
  attr->max_qp_rd_atom = 16;
  attr->max_qp_init_rd_atom = 16;
  attr->phys_port_cnt = 1;
  return 0;
}

FAKE_EXPORT int(ibv_query_port)(ibv_context *, uint8_t port,
                                _compat_ibv_port_attr *compat) {
  if (port != 1)
    return EINVAL;
  // IbvApi::queryPort passes a zeroed ibv_port_attr.
  auto *attr = reinterpret_cast<ibv_port_attr *>(compat);
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  attr->state = IBV_PORT_ACTIVE;
  attr->max_mtu = IBV_MTU_4096;
  attr->active_mtu = IBV_MTU_4096;
  attr->gid_tbl_len = 1;
  attr->max_msg_sz = uint32_t(1) << 30;
  attr->pkey_tbl_len = 1;
  attr->lid = ethernet() ? 0 : uint16_t(s->lid);
  attr->max_vl_num = 1;
  attr->active_width = 2;   // 4x
  attr->active_speed = 128; // NDR: 400 Gbit/s
  attr->phys_state = 5;     // LinkUp
  attr->link_layer =
      ethernet() ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
  return 0;
}

FAKE_EXPORT int ibv_query_gid(ibv_context *, uint8_t port, int index,
                              ibv_gid *gid) {
  if (port != 1 || index != 0)
    return EINVAL;
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  std::memset(gid, 0, sizeof *gid);
  if (ethernet()) { // ::ffff:10.0.x.y, a RoCE v2 GID holding an IPv4 address
    gid->raw[10] = gid->raw[11] = 0xff;
    gid->raw[12] = 10;
  } else {
    gid->raw[0] = 0xfe;
    gid->raw[1] = 0x80;
  }
  gid->raw[14] = uint8_t(s->lid >> 8);
  gid->raw[15] = uint8_t(s->lid);
  return 0;
}

FAKE_EXPORT ibv_pd *ibv_alloc_pd(ibv_context *context) {
  auto *pd = new FakePd();
  pd->pd.context = context;
  return &pd->pd;
}

FAKE_EXPORT int ibv_dealloc_pd(ibv_pd *ibpd) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *pd = reinterpret_cast<FakePd *>(ibpd);
  if (pd->users)
    return EBUSY;
  delete pd;
  return 0;
}

FAKE_EXPORT ibv_mr *(ibv_reg_mr)(ibv_pd *pd, void *addr, size_t length,
                                 int access) {
  if (!addr || !length) {
    errno = EINVAL;
    return nullptr;
  }
  uintptr_t start = 0;
  uint64_t offset = 0;
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;
  if (!findMapping(uintptr_t(addr), &start, &offset, &device, &inode, &path)) {
    errno = EFAULT; // not mapped: ib_umem_get cannot pin it
    return nullptr;
  }
  const char *noPeermem = std::getenv("FAKE_IBVERBS_NO_PEERMEM");
  if (noPeermem && *noPeermem == '1' &&
      path.find("collc-fake-cuda") != std::string::npos) {
    errno = EFAULT; // GPU memory without nvidia-peermem
    return nullptr;
  }
  return newMr(pd, addr, length, access);
}

FAKE_EXPORT ibv_mr *ibv_reg_dmabuf_mr(ibv_pd *pd, uint64_t offset,
                                      size_t length, uint64_t iova, int fd,
                                      int access) {
  const char *none = std::getenv("FAKE_IBVERBS_NO_DMABUF");
  if (none && *none == '1') {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  struct stat st;
  if (!length || ::fstat(fd, &st) != 0) {
    errno = EINVAL;
    return nullptr;
  }
  // The NIC reaches the dma-buf's pages; the emulation writes through
  // this process's mapping of them, which must be at iova.
  uintptr_t start = 0;
  uint64_t fileOffset = 0;
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;
  if (!findMapping(uintptr_t(iova), &start, &fileOffset, &device, &inode,
                   &path) ||
      device != st.st_dev || inode != st.st_ino ||
      fileOffset + (iova - start) != offset) {
    std::fprintf(stderr,
                 "fake ibverbs: ibv_reg_dmabuf_mr: dma-buf fd %d at offset "
                 "%" PRIu64 " does not back address 0x%" PRIx64 "\n",
                 fd, offset, iova);
    errno = EINVAL;
    return nullptr;
  }
  return newMr(pd, reinterpret_cast<void *>(uintptr_t(iova)), length, access);
}

FAKE_EXPORT int ibv_dereg_mr(ibv_mr *ibmr) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *mr = reinterpret_cast<FakeMr *>(ibmr);
  s->mrs.erase(mr->mr.lkey);
  reinterpret_cast<FakePd *>(mr->mr.pd)->users--;
  delete mr;
  return 0;
}

FAKE_EXPORT ibv_comp_channel *ibv_create_comp_channel(ibv_context *context) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return nullptr;
  setNonBlocking(fds[1]);
  auto *ch = new FakeChannel();
  ch->channel.context = context;
  ch->channel.fd = fds[0];
  ch->writeFd = fds[1];
  return &ch->channel;
}

FAKE_EXPORT int ibv_destroy_comp_channel(ibv_comp_channel *channel) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *ch = reinterpret_cast<FakeChannel *>(channel);
  if (ch->cqs)
    return EBUSY;
  ::close(ch->channel.fd);
  ::close(ch->writeFd);
  delete ch;
  return 0;
}

FAKE_EXPORT ibv_cq *ibv_create_cq(ibv_context *context, int cqe,
                                  void *cqContext, ibv_comp_channel *channel,
                                  int) {
  if (cqe < 1 || cqe > 4194303) {
    errno = EINVAL;
    return nullptr;
  }
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *cq = new FakeCq();
  cq->cq.context = context;
  cq->cq.channel = channel;
  cq->cq.cq_context = cqContext;
  cq->cq.cqe = cqe;
  if (channel)
    reinterpret_cast<FakeChannel *>(channel)->cqs++;
  return &cq->cq;
}

FAKE_EXPORT int ibv_destroy_cq(ibv_cq *ibcq) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *cq = reinterpret_cast<FakeCq *>(ibcq);
  if (cq->qps)
    return EBUSY;
  if (cq->cq.channel)
    reinterpret_cast<FakeChannel *>(cq->cq.channel)->cqs--;
  delete cq;
  return 0;
}

FAKE_EXPORT int ibv_get_cq_event(ibv_comp_channel *channel, ibv_cq **cq,
                                 void **cqContext) {
  ibv_cq *p = nullptr;
  ssize_t n = ::read(channel->fd, &p, sizeof p);
  if (n != ssize_t(sizeof p))
    return -1;
  *cq = p;
  *cqContext = p->cq_context;
  return 0;
}

FAKE_EXPORT void ibv_ack_cq_events(ibv_cq *, unsigned int) {}

FAKE_EXPORT ibv_qp *ibv_create_qp(ibv_pd *pd, ibv_qp_init_attr *init) {
  if (init->qp_type != IBV_QPT_RC || !init->send_cq || !init->recv_cq ||
      init->srq || init->cap.max_send_wr < 1 || init->cap.max_send_wr > 32768 ||
      init->cap.max_recv_wr > 32768 || init->cap.max_send_sge > 30 ||
      init->cap.max_recv_sge > 30) {
    errno = EINVAL;
    return nullptr;
  }
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *qp = new FakeQp();
  qp->qp.context = pd->context;
  qp->qp.qp_context = init->qp_context;
  qp->qp.pd = pd;
  qp->qp.send_cq = init->send_cq;
  qp->qp.recv_cq = init->recv_cq;
  qp->qp.qp_num = s->nextQpn++ & 0xffffff;
  qp->qp.handle = qp->qp.qp_num;
  qp->qp.state = IBV_QPS_RESET;
  qp->qp.qp_type = IBV_QPT_RC;
  qp->maxSend = init->cap.max_send_wr;
  qp->maxRecv = init->cap.max_recv_wr;
  reinterpret_cast<FakeCq *>(init->send_cq)->qps++;
  reinterpret_cast<FakeCq *>(init->recv_cq)->qps++;
  reinterpret_cast<FakePd *>(pd)->users++;
  s->qps[qp->qp.qp_num] = qp;
  return &qp->qp;
}

FAKE_EXPORT int ibv_modify_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int mask) {
  State *s = state();
  auto *qp = reinterpret_cast<FakeQp *>(ibqp);
  if (!(mask & IBV_QP_STATE))
    return EINVAL;
  std::lock_guard<std::mutex> lock(s->mutex);
  ibv_qp_state from = qp->qp.state, to = attr->qp_state;
  switch (to) {
  case IBV_QPS_INIT:
    if (from != IBV_QPS_RESET && from != IBV_QPS_INIT)
      return EINVAL;
    if ((mask & (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) !=
            (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ||
        attr->port_num != 1)
      return EINVAL;
    break;
  case IBV_QPS_RTR: {
    const int needed = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                       IBV_QP_MIN_RNR_TIMER;
    if (from != IBV_QPS_INIT || (mask & needed) != needed ||
        attr->ah_attr.port_num != 1)
      return EINVAL;
    // InfiniBand routes by LID; RoCE needs the GRH (the GID).
    if (ethernet()) {
      if (!attr->ah_attr.is_global || attr->ah_attr.grh.sgid_index != 0)
        return EINVAL;
      qp->destLid = uint32_t(attr->ah_attr.grh.dgid.raw[14]) << 8 |
                    attr->ah_attr.grh.dgid.raw[15];
    } else {
      if (attr->ah_attr.dlid == 0)
        return EINVAL;
      qp->destLid = attr->ah_attr.dlid;
    }
    qp->destQpn = attr->dest_qp_num;
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t length;
    sockaddr_un a = lidAddress(qp->destLid, &length);
    if (fd >= 0 &&
        ::connect(fd, reinterpret_cast<sockaddr *>(&a), length) == 0) {
      setNonBlocking(fd);
      qp->outFd = fd;
      Header hello{kMagic, kHello, 0, s->lid, qp->qp.qp_num, qp->destQpn, 0, 0};
      qp->outBuf.insert(0, reinterpret_cast<const char *>(&hello),
                        sizeof hello);
    } else {
      // No port with that LID: the writes will time out.
      if (fd >= 0)
        ::close(fd);
      qp->peerGone = true;
    }
    break;
  }
  case IBV_QPS_RTS: {
    const int needed = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
    if (from != IBV_QPS_RTR || (mask & needed) != needed)
      return EINVAL;
    break;
  }
  case IBV_QPS_ERR:
    failQp(qp, IBV_WC_WR_FLUSH_ERR);
    break;
  case IBV_QPS_RESET:
    closeFd(&qp->outFd);
    closeFd(&qp->inFd);
    qp->unacked.clear();
    qp->recvs.clear();
    break;
  default:
    return EINVAL;
  }
  qp->qp.state = to;
  wakeService(s);
  return 0;
}

FAKE_EXPORT int ibv_destroy_qp(ibv_qp *ibqp) {
  State *s = state();
  std::lock_guard<std::mutex> lock(s->mutex);
  auto *qp = reinterpret_cast<FakeQp *>(ibqp);
  closeFd(&qp->outFd);
  closeFd(&qp->inFd);
  s->qps.erase(qp->qp.qp_num);
  reinterpret_cast<FakeCq *>(qp->qp.send_cq)->qps--;
  reinterpret_cast<FakeCq *>(qp->qp.recv_cq)->qps--;
  reinterpret_cast<FakePd *>(qp->qp.pd)->users--;
  delete qp;
  return 0;
}

FAKE_EXPORT const char *ibv_wc_status_str(ibv_wc_status status) {
  if (unsigned(status) < sizeof kStatusNames / sizeof kStatusNames[0])
    return kStatusNames[status];
  return "unknown";
}

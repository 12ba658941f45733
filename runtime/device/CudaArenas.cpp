//===- CudaArenas.cpp - a launch's memory and its links -------------------===//
#include "runtime/device/CudaExecutor.h"

#include "collrt/collrt.h"
#include "collrt/device/Channel.h"
#include "runtime/transport/HostBuffers.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace collrt {
namespace dev {

CudaCollective::~CudaCollective() {
  if (!d_)
    return;
  if (context_)
    d_->cuCtxSetCurrent(context_);
  if (graphExec_)
    d_->cuGraphExecDestroy(graphExec_);
  if (graph_)
    d_->cuGraphDestroy(graph_);
  if (done_)
    d_->cuEventDestroy(done_);
  for (const Mark &m : marks_)
    d_->cuEventDestroy(m.event);
  for (cu::Event e : spareMarks_)
    d_->cuEventDestroy(e);
  // The memory a kernel may still write is leaked on purpose
  // (keepsMemoryInUse): a launch that never ended (the GPU ignored the
  // abort), or, when this launch of some ranks failed, a peer process's
  // kernel writing into this process's arena (the process is about to
  // report and exit).
  const bool inUse = keepsMemoryInUse();
  proxy_.reset(); // before the host arenas it moves messages in
  for (cu::DevicePtr p : opened_)
    d_->cuIpcCloseMemHandle(p);
  if (arena_ && !inUse)
    d_->cuMemFree(arena_);
  for (const auto &peer : peerHostArenas_)
    if (d_->cuMemHostUnregister(const_cast<char *>(peer->data())) !=
        cu::kSuccess)
      leakPinnedMapping(peer);
  peerHostArenas_.clear();
  for (char *h : hostArenaHost_)
    if (h && !inUse && d_->cuMemHostUnregister(h) == cu::kSuccess)
      (void)freeHostBuffer(h); // a destructor: nothing to report to
  if (abortHost_ && !inUse)
    d_->cuMemFreeHost(const_cast<int32_t *>(abortHost_));
}

bool CudaCollective::keepsMemoryInUse() const {
  return launchNeverEnded_ || (failed_ && !layout_.launchesEveryRank());
}

void CudaCollective::leakPinnedMapping(
    std::shared_ptr<const transport::PeerHostBuffer> mapping) {
  // Never deleted, on purpose: the mapping stays for the process's life.
  new std::shared_ptr<const transport::PeerHostBuffer>(std::move(mapping));
}

namespace {
std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0)
    return "?";
  return name;
}

} // namespace

Status exportDmaBuf(int ordinal, cu::DevicePtr base, uint64_t allocated,
                    void *data, size_t bytes, int *fd, uint64_t *offset) {
  const CudaDriver *d = nullptr;
  if (Status s = loadCudaDriver(ordinal, &d); !s.ok())
    return s;
  std::string device = "CUDA device " + std::to_string(ordinal);
  if (!d->cuMemGetHandleForAddressRange)
    return Status(ErrorCode::Unsupported,
                  "the CUDA driver lacks cuMemGetHandleForAddressRange "
                  "(exporting GPU memory as a dma-buf needs CUDA 11.7 / "
                  "driver 515 or newer)");
  cu::Device handle = 0;
  if (cu::Result r = d->cuDeviceGet(&handle, ordinal); r != cu::kSuccess)
    return d->fail(device, "cuDeviceGet", r);
  int supported = 0;
  if (cu::Result r =
          d->cuDeviceGetAttribute(&supported, cu::kAttrDmaBufSupported, handle);
      r != cu::kSuccess)
    return d->fail(device + ": asking whether it exports dma-bufs "
                            "(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)",
                   "cuDeviceGetAttribute", r, ErrorCode::Unsupported);
  if (!supported)
    return Status(ErrorCode::Unsupported,
                  device +
                      " cannot export its memory as a dma-buf "
                      "(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0; it needs "
                      "the NVIDIA open kernel modules, driver 515 or newer, "
                      "on Linux 5.12 or newer)");
  uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  uint64_t at = uint64_t(uintptr_t(data));
  if (at < base || bytes > allocated || at - base > allocated - bytes)
    return Status(
        ErrorCode::InvalidArgument,
        device + ": " + std::to_string(bytes) + " bytes at " + hexAddress(at) +
            " to export as a dma-buf are not "
            "inside the allocation of " +
            std::to_string(allocated) + " bytes at " + hexAddress(base));
  if (base % page != 0 || allocated % page != 0)
    return Status(ErrorCode::Unsupported,
                  device + ": the allocation of " + std::to_string(allocated) +
                      " bytes at " + hexAddress(base) +
                      " is not whole host pages of " + std::to_string(page) +
                      " bytes, which a dma-buf export needs "
                      "(cuMemGetHandleForAddressRange)");
  int handleFd = -1;
  if (cu::Result r =
          d->cuMemGetHandleForAddressRange(&handleFd, base, size_t(allocated),
                                           cu::kMemRangeHandleTypeDmaBufFd, 0);
      r != cu::kSuccess)
    return d->fail(device + ": exporting its allocation of " +
                       std::to_string(allocated) + " bytes at " +
                       hexAddress(base) + " as a dma-buf",
                   "cuMemGetHandleForAddressRange", r,
                   r == cu::kNotSupported ? ErrorCode::Unsupported
                                          : ErrorCode::TransportError);
  *fd = handleFd;
  *offset = at - base;
  return Status::success();
}

Status CudaCollective::startNetwork(std::unique_ptr<net::Net> net, int dev) {
  const LaunchLayout &l = layout_;
  if (failed_)
    return failure_;
  if (!l.usesNet())
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": startNetwork: no rank of " + launchName() +
                      " has a network connection");
  if (proxy_)
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": startNetwork called twice");
  // GPUDirect RDMA: the network slots are in the device arenas, and
  // every receive into them is flushed before the kernel may read it.
  GpuDirectMemory gpuDirect;
  gpuDirect.deviceArenas.assign(size_t(l.nranks()), nullptr);
  std::function<Status()> &flush = gpuDirect.flush;
  if (options_.gpuDirect) {
    for (int32_t r : l.launched())
      gpuDirect.deviceArenas[size_t(r)] =
          reinterpret_cast<char *>(uintptr_t(arenas_[size_t(r)]));
    if (!d_->cuFlushGPUDirectRDMAWrites)
      return failWith(
          Status(ErrorCode::Unsupported,
                 l.name() + ": GPUDirect RDMA needs cuFlushGPUDirectRDMAWrites "
                            "(CUDA 11.3 or newer), which this driver lacks"),
          nullptr);
    const CudaDriver *d = d_;
    cu::Context context = context_;
    std::string what = l.name() + " on " + launchName();
    flush = [d, context, what]() -> Status {
      if (cu::Result r = d->cuCtxSetCurrent(context); r != cu::kSuccess)
        return d->fail(what, "cuCtxSetCurrent", r);
      if (cu::Result r = d->cuFlushGPUDirectRDMAWrites(
              cu::kFlushTargetCurrentCtx, cu::kFlushToOwner);
          r != cu::kSuccess)
        return d->fail(what + ": making the NIC's writes visible",
                       "cuFlushGPUDirectRDMAWrites", r);
      return Status::success();
    };
    gpuDirect.registration = options_.gpuMemoryRegistration;
    gpuDirect.exportDmaBuf = [ordinal = options_.device, base = arena_,
                              allocated = arenaBytes_](void *data, size_t bytes,
                                                       int *fd,
                                                       uint64_t *offset) {
      return exportDmaBuf(ordinal, base, allocated, data, bytes, fd, offset);
    };
  }
  if (Status s = DeviceProxy::create(std::move(net), dev, l, hostArenaHost_,
                                     l.name() + " on " + launchName(), &proxy_,
                                     gpuDirect);
      !s.ok())
    return failWith(s, nullptr);
  proxy_->setPolling(options_.proxyPolling);
  return Status::success();
}

std::string CudaCollective::gpuMemoryRegistration() const {
  return proxy_ ? proxy_->gpuMemoryRegistration() : std::string();
}

Status CudaCollective::stopNetwork(double seconds) {
  if (!proxy_)
    return Status::success();
  if (Status s = proxy_->stop(seconds); !s.ok())
    return failWith(s, nullptr);
  return Status::success();
}

std::string CudaCollective::networkDescription() const {
  return proxy_ ? proxy_->describe() : std::string();
}

std::vector<ArenaEntry> CudaCollective::localEntries() const {
  std::vector<ArenaEntry> entries;
  std::string host = hostName();
  for (int32_t r : layout_.launched()) {
    ArenaEntry e;
    e.rank = r;
    e.layoutKey = layout_.key();
    e.arenaBytes = layout_.arena(r).bytes;
    e.process = int64_t(getpid());
    e.host = host;
    e.device = options_.device;
    e.address = arenas_[size_t(r)];
    e.offset = layout_.arenaOffset(r);
    if (proxy_)
      e.netHandle = proxy_->handle();
    e.hostAddress = hostArenas_[size_t(r)];
    uint64_t offset = 0;
    if (hostArenaHost_[size_t(r)])
      transport::findHostBuffer(hostArenaHost_[size_t(r)], 1, &e.hostKey,
                                &offset);
    entries.push_back(e);
  }
  return entries;
}

Status CudaCollective::exportArenas(std::vector<ArenaEntry> *entries) const {
  entries->clear();
  if (failed_)
    return failure_;
  if (Status s = makeCurrent(); !s.ok())
    return s;
  cu::IpcMemHandle handle;
  std::memset(&handle, 0, sizeof handle);
  if (cu::Result r = d_->cuIpcGetMemHandle(&handle, arena_); r != cu::kSuccess)
    return d_->fail(layout_.name() + ": exporting the arena of rank " +
                        std::to_string(layout_.launched()[0]) +
                        " for its peers' processes (CUDA IPC)",
                    "cuIpcGetMemHandle", r);
  *entries = localEntries();
  for (ArenaEntry &e : *entries) {
    static_assert(sizeof e.handle == sizeof handle, "CUipcMemHandle");
    std::memcpy(e.handle, &handle, sizeof handle);
  }
  return Status::success();
}

Status CudaCollective::connect(const std::vector<ArenaEntry> &table) {
  const LaunchLayout &l = layout_;
  if (failed_)
    return failure_;
  if (connected_ && l.launchesEveryRank())
    return Status::success();
  if (connected_)
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": connect called twice");
  if (Status s = l.checkPeerTable(table); !s.ok())
    return failWith(s, nullptr);
  if (l.usesNet() && !proxy_)
    return failWith(
        Status(ErrorCode::InvalidArgument,
               l.name() + ": " + launchName() +
                   " has network connections (ranks on other hosts) and no "
                   "proxy to move them: call startNetwork first"),
        nullptr);
  if (Status s = makeCurrent(); !s.ok())
    return s;
  std::string host = hostName();
  int64_t self = int64_t(getpid());
  std::vector<uint64_t> arenas = l.localArenas(arena_);
  std::vector<uint64_t> hostArenas = hostArenas_;
  // One mapping per exported allocation (a process may hold several
  // ranks' arenas in one).
  std::vector<std::pair<std::string, cu::DevicePtr>> mapped;
  for (int32_t r : l.launched())
    for (int32_t p : l.peersOf(r)) {
      if (arenas[size_t(p)] || l.acrossHosts(r, p))
        continue; // (across hosts: the proxy's)
      const ArenaEntry &e = table[size_t(p)];
      std::string head = l.name() + ": rank " + std::to_string(r) +
                         " (process " + std::to_string(self) + " on " + host +
                         ", CUDA device " + std::to_string(options_.device) +
                         ") and its peer " + std::to_string(p) + " (process " +
                         std::to_string(e.process) + " on " + e.host +
                         ", CUDA device " + std::to_string(e.device) + "): ";
      if (e.host != host)
        return failWith(
            Status(ErrorCode::Unsupported,
                   head + "different hosts: CUDA IPC reaches the GPUs of one "
                          "node only, and no network path for the GPU "
                          "backend is built"),
            nullptr);
      if (l.viaHost(r, p)) {
        // Through pinned host memory: the peer's host arena; another
        // process's is mapped from its memfd and pinned here too.
        if (e.process == self) {
          hostArenas[size_t(p)] = e.hostAddress;
          continue;
        }
        std::shared_ptr<const transport::PeerHostBuffer> mapped;
        if (Status s = transport::mapPeerHostBuffer(e.process, e.hostKey,
                                                    &mapped, true);
            !s.ok())
          return failWith(
              withContext(s, head + "their connections go through host memory, "
                                    "and the peer's host arena"),
              nullptr);
        char *data = const_cast<char *>(mapped->data());
        if (cu::Result res = d_->cuMemHostRegister(
                data, mapped->bytes(),
                cu::kMemHostRegisterPortable | cu::kMemHostRegisterDeviceMap);
            res != cu::kSuccess)
          return failWith(d_->fail(head + "pinning the peer's host arena",
                                   "cuMemHostRegister", res),
                          nullptr);
        peerHostArenas_.push_back(mapped);
        cu::DevicePtr device = 0;
        if (cu::Result res = d_->cuMemHostGetDevicePointer(&device, data, 0);
            res != cu::kSuccess)
          return failWith(d_->fail(head + "the peer's host arena",
                                   "cuMemHostGetDevicePointer", res),
                          nullptr);
        hostArenas[size_t(p)] = device;
        continue;
      }
      if (e.process == self) {
        // The same process: the pointer itself (a launch of another
        // CudaCollective, on this device or, with peer access, another).
        if (e.device != options_.device)
          if (Status s = enablePeerAccess(
                  options_.device, e.device,
                  l.name() + ": rank " + std::to_string(r) +
                      " on CUDA device " + std::to_string(options_.device) +
                      " and its peer " + std::to_string(p) +
                      " on CUDA device " + std::to_string(e.device) +
                      " (ranks of this process that exchange messages)");
              !s.ok())
            return failWith(s, nullptr);
        arenas[size_t(p)] = e.address;
        continue;
      }
      std::string key(reinterpret_cast<const char *>(e.handle),
                      sizeof e.handle);
      key += std::to_string(e.process);
      cu::DevicePtr base = 0;
      for (const auto &[k, b] : mapped)
        if (k == key)
          base = b;
      if (!base) {
        cu::IpcMemHandle handle;
        std::memcpy(&handle, e.handle, sizeof handle);
        if (cu::Result res = d_->cuIpcOpenMemHandle(
                &base, handle, cu::kIpcMemLazyEnablePeerAccess);
            res != cu::kSuccess)
          return failWith(
              d_->fail(head + "cannot map the peer's arena (CUDA IPC needs "
                              "the peer's GPU to be this one or reachable "
                              "from it by peer access over NVLink or PCIe)",
                       "cuIpcOpenMemHandle", res, ErrorCode::Unsupported),
              nullptr);
        opened_.push_back(base);
        mapped.emplace_back(key, base);
      }
      arenas[size_t(p)] = base + e.offset;
    }
  if (proxy_) {
    std::vector<std::string> handles;
    for (const ArenaEntry &e : table)
      handles.push_back(e.netHandle);
    if (Status s = proxy_->start(handles, const_cast<int32_t *>(abortHost_),
                                 options_.connectSeconds);
        !s.ok())
      return failWith(s, nullptr);
  }
  arenas_ = arenas;
  hostArenas_ = hostArenas;
  connected_ = true;
  return Status::success();
}

Status linkLaunches(const std::vector<CudaCollective *> &launches) {
  if (launches.empty())
    return Status(ErrorCode::InvalidArgument, "linkLaunches: no launches");
  if (launches.size() == 1 && launches[0]->layout().launchesEveryRank() &&
      !launches[0]->layout().usesHostArenas())
    return Status::success();
  const LaunchLayout &first = launches[0]->layout();
  std::vector<ArenaEntry> table(size_t(first.nranks()));
  for (CudaCollective *c : launches) {
    if (c->layout().nranks() != first.nranks() ||
        c->layout().key() != first.key())
      return Status(ErrorCode::InvalidArgument,
                    first.name() + ": the launch of " + c->launchName() +
                        " was laid out for another collective, count or "
                        "options than the launch of " +
                        launches[0]->launchName());
    for (const ArenaEntry &e : c->localEntries()) {
      if (table[size_t(e.rank)].rank >= 0)
        return Status(ErrorCode::InvalidArgument,
                      first.name() + ": rank " + std::to_string(e.rank) +
                          " is in two launches (on CUDA devices " +
                          std::to_string(table[size_t(e.rank)].device) +
                          " and " + std::to_string(e.device) +
                          "): each rank runs in exactly one");
      table[size_t(e.rank)] = e;
    }
  }
  for (CudaCollective *c : launches)
    if (Status s = c->connect(table); !s.ok())
      return s;
  if (launches.size() > 1)
    for (size_t i = 0; i < launches.size(); ++i)
      launches[i]->setPeerCheck([launches, i]() -> Status {
        for (size_t j = 0; j < launches.size(); ++j)
          if (j != i && launches[j]->aborted())
            return Status(ErrorCode::PeerFailure,
                          "the linked launch of " + launches[j]->launchName() +
                              " was aborted (its own report says why)");
        return Status::success();
      });
  return Status::success();
}

} // namespace dev
} // namespace collrt

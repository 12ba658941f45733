//===- CudaExecutor.cpp - collectives as kernels on one GPU ---------------===//
#include "runtime/device/CudaExecutor.h"

#include "runtime/transport/HostBuffers.h"
#include "runtime/transport/NetOpen.h"

#include "common/Topology/Topology.h"
#include "runtime/device/GpuLinks.h"

#include "collrt/collrt.h"
#include "collrt/device/Channel.h"
#include "collrt/device/WaitState.h"
#include "runtime/check/Reference.h"
#include "runtime/check/TestData.h"
#include "runtime/device/WaitReport.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace collrt {
namespace dev {

// The runtime's own kernels (RuntimeKernels.cu: avg's division), embedded
// when the build found a CUDA compiler; empty otherwise.
extern const unsigned char collrtRuntimeKernels[];
extern const size_t collrtRuntimeKernelsSize;

using collc::sched::Buffer;
using collc::sched::Instruction;
using collc::sched::Opcode;

//===----------------------------------------------------------------------===//
// CudaModule
//===----------------------------------------------------------------------===//

CudaModule::~CudaModule() {
  if (module_ && context_)
    driver_->cuCtxSetCurrent(context_);
  if (module_)
    driver_->cuModuleUnload(module_);
}

Status CudaModule::loadImage(const std::string &image, const std::string &name,
                             int device, std::unique_ptr<CudaModule> *out) {
  const CudaDriver *d = nullptr;
  cu::Context context = nullptr;
  if (Status s = loadCudaDriver(device, &d, &context); !s.ok())
    return s;
  std::unique_ptr<CudaModule> m(new CudaModule);
  m->driver_ = d;
  m->context_ = context;
  m->name_ = name;
  // PTX must be NUL-terminated; a copy with one more byte serves all.
  std::string data = image;
  data.push_back('\0');
  if (cu::Result r = d->cuModuleLoadData(&m->module_, data.data());
      r != cu::kSuccess)
    return d->fail(name + ": loading the module (built for another GPU "
                          "architecture, or not a fatbin/cubin/PTX?)",
                   "cuModuleLoadData", r, ErrorCode::InvalidArgument);
  *out = std::move(m);
  return Status::success();
}

Status CudaModule::loadFile(const std::string &path, int device,
                            std::unique_ptr<CudaModule> *out) {
  // Without a GPU that is the error, whatever the file.
  const CudaDriver *d = nullptr;
  if (Status s = loadCudaDriver(device, &d); !s.ok())
    return s;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status(ErrorCode::SystemError,
                  path +
                      ": cannot open the kernel file: " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return loadImage(bytes.str(), path, device, out);
}

Status CudaModule::function(const std::string &name,
                            cu::Function *function) const {
  if (cu::Result r =
          driver_->cuModuleGetFunction(function, module_, name.c_str());
      r != cu::kSuccess) {
    std::string known;
    for (const std::string &n : functionNames())
      known += (known.empty() ? "" : ", ") + n;
    return driver_->fail(name_ + ": no kernel '" + name + "'" +
                             (known.empty() ? "" : " (it has " + known + ")"),
                         "cuModuleGetFunction", r, ErrorCode::InvalidArgument);
  }
  return Status::success();
}

std::vector<std::string> CudaModule::functionNames(std::string *why) const {
  std::vector<std::string> names;
  std::string failure;
  unsigned count = 0;
  if (!driver_->cuModuleGetFunctionCount ||
      !driver_->cuModuleEnumerateFunctions || !driver_->cuFuncGetName) {
    failure = "the driver has no cuModuleEnumerateFunctions, CUDA < 12.4";
  } else if (cu::Result r = driver_->cuModuleGetFunctionCount(&count, module_);
             r != cu::kSuccess) {
    failure = driver_->error("cuModuleGetFunctionCount", r);
  } else {
    std::vector<cu::Function> functions(count);
    if (cu::Result r = driver_->cuModuleEnumerateFunctions(functions.data(),
                                                           count, module_);
        r != cu::kSuccess) {
      failure = driver_->error("cuModuleEnumerateFunctions", r);
    } else {
      for (cu::Function f : functions) {
        const char *name = nullptr;
        if (cu::Result r = driver_->cuFuncGetName(&name, f);
            r != cu::kSuccess || !name) {
          failure = driver_->error("cuFuncGetName", r);
          names.clear();
          break;
        }
        names.push_back(name);
      }
    }
  }
  if (why)
    *why = failure;
  std::sort(names.begin(), names.end());
  return names;
}

Status CudaModule::findPlanKernel(size_t index, const std::string &prefix,
                                  std::string *name) const {
  std::string start = prefix + "_k" + std::to_string(index) + "_";
  std::string why;
  std::vector<std::string> names = functionNames(&why), found;
  for (const std::string &n : names)
    if (n.compare(0, start.size(), start) == 0)
      found.push_back(n);
  if (found.size() == 1) {
    *name = found[0];
    return Status::success();
  }
  std::string known;
  for (const std::string &n : names)
    known += (known.empty() ? "" : ", ") + n;
  if (names.empty())
    return Status(ErrorCode::InvalidArgument,
                  name_ + ": cannot list its kernels (" +
                      (why.empty() ? "it has none" : why) +
                      "); name the kernel of collective " +
                      std::to_string(index) + " (" + start + "...)");
  return Status(ErrorCode::InvalidArgument,
                name_ + ": " + std::to_string(found.size()) +
                    " kernels start with '" + start +
                    "' (want exactly one): " + known);
}

//===----------------------------------------------------------------------===//
// CudaCollective
//===----------------------------------------------------------------------===//

namespace {

const char *divideKernelName(DataType type) {
  switch (type) {
  case DataType::F64:
    return "collrt_divide_f64";
  case DataType::F32:
    return "collrt_divide_f32";
  case DataType::F16:
    return "collrt_divide_f16";
  case DataType::BF16:
    return "collrt_divide_bf16";
  case DataType::F8E4M3FN:
    return "collrt_divide_f8e4m3";
  case DataType::F8E5M2:
    return "collrt_divide_f8e5m2";
  case DataType::I64:
    return "collrt_divide_i64";
  case DataType::I32:
    return "collrt_divide_i32";
  case DataType::I8:
    return "collrt_divide_i8";
  }
  return "";
}

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

} // namespace

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
  // A launch that never ended (the GPU ignored the abort) may still use
  // the arena: leak it rather than free memory a kernel writes.
  bool running =
      failed_ && failure_.message().find("did not end") != std::string::npos;
  // A peer's kernel may still write into this process's arena when this
  // one failed: keep it (the process is about to report and exit).
  if (failed_ && !layout_.launchesEveryRank())
    running = true;
  proxy_.reset(); // before the host arenas it moves messages in
  for (cu::DevicePtr p : opened_)
    d_->cuIpcCloseMemHandle(p);
  if (arena_ && !running)
    d_->cuMemFree(arena_);
  // Host memory the driver still holds pinned (its unregistration failed)
  // is never unmapped: a later buffer at the same address could not be
  // pinned, and the driver may still use the pages.
  for (const auto &peer : peerHostArenas_)
    if (d_->cuMemHostUnregister(const_cast<char *>(peer->data())) !=
        cu::kSuccess)
      new std::shared_ptr<const transport::PeerHostBuffer>(peer); // kept
  peerHostArenas_.clear();
  for (char *h : hostArenaHost_)
    if (h && !running && d_->cuMemHostUnregister(h) == cu::kSuccess)
      (void)freeHostBuffer(h); // a destructor: nothing to report to
  if (abortHost_ && !running)
    d_->cuMemFreeHost(const_cast<int32_t *>(abortHost_));
}

Status CudaCollective::create(const PlanCollective &collective, size_t index,
                              int64_t count, const CudaModule &module,
                              const std::string &kernel,
                              const CudaOptions &options,
                              std::unique_ptr<CudaCollective> *out) {
  std::unique_ptr<CudaCollective> c(new CudaCollective);
  const CudaDriver *d = nullptr;
  if (Status s = loadCudaDriver(options.device, &d, &c->context_); !s.ok())
    return s;
  c->options_ = options;
  if (Status s =
          LaunchLayout::create(collective, index, count, options, &c->layout_);
      !s.ok())
    return s;
  const LaunchLayout &l = c->layout_;
  std::string what = l.name() + " on " + c->launchName();
  if (Status s = module.function(kernel, &c->kernel_); !s.ok())
    return s;
  c->kernelName_ = kernel;

  int maxThreads = 0, regs = 0, local = 0, sms = 0, perSm = 0;
  for (auto [value, attribute] :
       {std::pair<int *, int>{&maxThreads, cu::kFuncMaxThreadsPerBlock},
        {&regs, cu::kFuncNumRegs},
        {&local, cu::kFuncLocalSizeBytes}})
    if (cu::Result r = d->cuFuncGetAttribute(value, attribute, c->kernel_);
        r != cu::kSuccess)
      return d->fail(what + ": kernel '" + kernel + "'", "cuFuncGetAttribute",
                     r);
  cu::Device device = 0;
  if (cu::Result r = d->cuDeviceGet(&device, options.device); r != cu::kSuccess)
    return d->fail(what, "cuDeviceGet", r);
  if (cu::Result r =
          d->cuDeviceGetAttribute(&sms, cu::kAttrMultiprocessorCount, device);
      r != cu::kSuccess)
    return d->fail(what, "cuDeviceGetAttribute", r);
  unsigned threads =
      options.blockThreads ? options.blockThreads : unsigned(maxThreads);
  threads = std::min<unsigned>(threads, 1024);
  if (threads == 0 || threads > unsigned(maxThreads) || threads % 32 != 0)
    return Status(ErrorCode::InvalidArgument,
                  what + ": blockThreads = " + std::to_string(threads) +
                      " must be a multiple of 32 up to the kernel's " +
                      std::to_string(maxThreads));
  c->threads_ = threads;
  c->registers_ = regs;
  if (cu::Result r = d->cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &perSm, c->kernel_, int(threads), 0);
      r != cu::kSuccess)
    return d->fail(what, "cuOccupancyMaxActiveBlocksPerMultiprocessor", r);
  uint64_t resident = uint64_t(perSm) * uint64_t(sms);
  c->resident_ = resident;
  c->residency_ = std::to_string(sms) + " SMs x " + std::to_string(perSm) +
                  (perSm == 1 ? " block" : " blocks") + " of " +
                  std::to_string(threads) + " threads (" +
                  std::to_string(regs) + " registers, " +
                  std::to_string(local) +
                  " bytes of local "
                  "memory a thread)";
  if (c->gridBlocks() > resident)
    return Status(ErrorCode::Unsupported,
                  what + ": the launch needs all " +
                      std::to_string(c->gridBlocks()) +
                      " blocks (one per rank and channel) resident at once, "
                      "since they wait for each other, but kernel '" +
                      kernel + "' fits " + std::to_string(resident) + " (" +
                      c->residency_ +
                      "): use fewer ranks or channels, or fewer threads per "
                      "block");

  if (collective.reduction == ReduceOp::Avg) {
    if (collrtRuntimeKernelsSize == 0)
      return Status(ErrorCode::Unsupported,
                    what + ": avg needs the runtime's division kernel, and "
                           "this libcollrt was built without a CUDA compiler "
                           "(configure where nvcc is found)");
    if (Status s = CudaModule::loadImage(
            std::string(reinterpret_cast<const char *>(collrtRuntimeKernels),
                        collrtRuntimeKernelsSize),
            "libcollrt's runtime kernels", options.device, &c->runtimeKernels_);
        !s.ok())
      return s;
    if (Status s = c->runtimeKernels_->function(
            divideKernelName(collective.dtype), &c->divide_);
        !s.ok())
      return s;
  }

  c->d_ = d;
  void *host = nullptr;
  if (cu::Result r = d->cuMemHostAlloc(
          &host, 64, cu::kMemHostAllocDeviceMap | cu::kMemHostAllocPortable);
      r != cu::kSuccess)
    return d->fail(what + ": the abort flag", "cuMemHostAlloc", r,
                   ErrorCode::SystemError);
  c->abortHost_ = static_cast<volatile int32_t *>(host);
  *c->abortHost_ = wait::NoAbort;
  if (cu::Result r = d->cuMemHostGetDevicePointer(&c->abortDevice_, host, 0);
      r != cu::kSuccess)
    return d->fail(what + ": the abort flag", "cuMemHostGetDevicePointer", r);
  // Whole pages (GPUDirect: 2 MiB, the GPU's large page, so that the
  // allocation starts on a host page too): GPUDirect's dma-buf export
  // (exportDmaBuf) takes whole host pages. The layout's offsets stay.
  uint64_t granule = uint64_t(sysconf(_SC_PAGESIZE));
  if (options.gpuDirect)
    granule = std::max<uint64_t>(granule, uint64_t(2) << 20);
  c->arenaBytes_ = (l.launchBytes() + granule - 1) / granule * granule;
  if (cu::Result r = d->cuMemAlloc(&c->arena_, c->arenaBytes_);
      r != cu::kSuccess)
    return d->fail(what + ": " + std::to_string(c->arenaBytes_) +
                       " bytes for slots, scratch and contexts",
                   "cuMemAlloc", r, ErrorCode::SystemError);
  // Synchronous: the arenas are zero before any peer can learn of them.
  if (cu::Result r = d->cuMemsetD8(c->arena_, 0, c->arenaBytes_);
      r != cu::kSuccess)
    return d->fail(what, "cuMemsetD8", r);
  c->hostArenas_.assign(size_t(l.nranks()), 0);
  c->hostArenaHost_.assign(size_t(l.nranks()), nullptr);
  for (int32_t r : l.launched()) {
    // Network connections' halves and host-memory connections: a host
    // buffer (memfd, which other processes of the host map), pinned for
    // every context of the process (PORTABLE | DEVICEMAP).
    uint64_t bytes = l.arena(r).hostBytes;
    if (!bytes)
      continue;
    void *h = nullptr;
    if (Status s = allocateHostBuffer(bytes, &h); !s.ok())
      return Status(s.code(), what + ": rank " + std::to_string(r) +
                                  "'s host arena: " + s.message());
    std::memset(h, 0, bytes);
    if (cu::Result res = d->cuMemHostRegister(
            h, bytes,
            cu::kMemHostRegisterPortable | cu::kMemHostRegisterDeviceMap);
        res != cu::kSuccess) {
      (void)freeHostBuffer(h); // the registration's failure is the error
      return d->fail(what + ": pinning rank " + std::to_string(r) +
                         "'s host arena (" + std::to_string(bytes) + " bytes)",
                     "cuMemHostRegister", res, ErrorCode::SystemError);
    }
    c->hostArenaHost_[size_t(r)] = static_cast<char *>(h);
    cu::DevicePtr device = 0;
    if (cu::Result res = d->cuMemHostGetDevicePointer(&device, h, 0);
        res != cu::kSuccess)
      return d->fail(what + ": rank " + std::to_string(r) + "'s host arena",
                     "cuMemHostGetDevicePointer", res);
    c->hostArenas_[size_t(r)] = device;
  }
  c->arenas_ = l.localArenas(c->arena_);
  c->connected_ = l.launchesEveryRank() && !l.usesHostArenas();
  if (cu::Result r = d->cuEventCreate(&c->done_, cu::kEventDefault);
      r != cu::kSuccess)
    return d->fail(what, "cuEventCreate", r);
  *out = std::move(c);
  return Status::success();
}

std::string CudaCollective::launchName() const {
  const LaunchLayout &l = layout_;
  std::string ranks;
  if (l.launchesEveryRank()) {
    ranks = std::to_string(l.nranks()) + " ranks";
  } else {
    ranks = l.launched().size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < l.launched().size(); ++i)
      ranks += (i ? ", " : "") + std::to_string(l.launched()[i]);
    ranks += " of " + std::to_string(l.nranks());
  }
  return ranks + " on CUDA device " + std::to_string(options_.device);
}

Status CudaCollective::makeCurrent() const {
  if (cu::Result r = d_->cuCtxSetCurrent(context_); r != cu::kSuccess)
    return d_->fail(layout_.name() + " on " + launchName(), "cuCtxSetCurrent",
                    r);
  return Status::success();
}

void CudaCollective::abort() {
  if (abortHost_)
    *abortHost_ = wait::HostAbort;
}

bool CudaCollective::aborted() const {
  return abortHost_ && *abortHost_ != wait::NoAbort;
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
          return failWith(Status(s.code(), head +
                                               "their connections go "
                                               "through host memory, and "
                                               "the peer's host arena: " +
                                               s.message()),
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

Status CudaCollective::setBuffers(const std::vector<cu::DevicePtr> &inputs,
                                  const std::vector<cu::DevicePtr> &outputs) {
  const LaunchLayout &l = layout_;
  if (failed_)
    return failure_;
  if (inputs.size() != size_t(l.nranks()) ||
      outputs.size() != size_t(l.nranks()))
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": " + std::to_string(inputs.size()) +
                      " inputs and " + std::to_string(outputs.size()) +
                      " outputs given for " + std::to_string(l.nranks()) +
                      " ranks");
  for (int32_t r : l.launched())
    if ((!inputs[size_t(r)] && l.inputElements(r) > 0) ||
        (!outputs[size_t(r)] && l.outputElements(r) > 0))
      return Status(ErrorCode::InvalidArgument,
                    l.name() + ": rank " + std::to_string(r) +
                        " has a null device buffer");
  if (!connected_)
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": setBuffers before connect: the launch runs " +
                      std::to_string(l.launched().size()) + " of " +
                      std::to_string(l.nranks()) +
                      " ranks, and its connections point into the peers' "
                      "arenas");
  if (Status s = makeCurrent(); !s.ok())
    return s;
  std::vector<uint64_t> in(inputs.begin(), inputs.end()),
      out(outputs.begin(), outputs.end());
  if (haveBuffers_) {
    std::vector<uint8_t> image = l.contextImage(arenas_, in, out, abortDevice_);
    if (cu::Result r = d_->cuMemcpyHtoD(arena_ + l.contextsOffset(),
                                        image.data(), image.size());
        r != cu::kSuccess)
      return d_->fail(l.name(), "cuMemcpyHtoD", r);
  } else {
    std::vector<uint8_t> header = l.headerImage(arenas_, in, out, abortDevice_);
    if (cu::Result r = d_->cuMemcpyHtoD(arena_, header.data(), header.size());
        r != cu::kSuccess)
      return d_->fail(l.name(), "cuMemcpyHtoD", r);
    for (int32_t rank : l.launched()) {
      std::vector<uint8_t> control;
      if (Status s = l.rankControlImage(rank, arenas_, &control, hostArenas_);
          !s.ok())
        return s;
      if (cu::Result r = d_->cuMemcpyHtoD(arena_ + l.arenaOffset(rank),
                                          control.data(), control.size());
          r != cu::kSuccess)
        return d_->fail(l.name(), "cuMemcpyHtoD", r);
    }
  }
  // The copies have landed before any kernel (of this launch, on another
  // stream, or of a linked launch on another device) can read or write
  // these words: a copy from pageable memory may return before its DMA.
  if (cu::Result r = d_->cuStreamSynchronize(nullptr); r != cu::kSuccess)
    return d_->fail(l.name(), "cuStreamSynchronize", r);
  inputs_ = inputs;
  outputs_ = outputs;
  haveBuffers_ = true;
  if (graphExec_) {
    d_->cuGraphExecDestroy(graphExec_);
    graphExec_ = nullptr;
  }
  if (graph_) {
    d_->cuGraphDestroy(graph_);
    graph_ = nullptr;
  }
  return Status::success();
}

Status CudaCollective::enqueue(cu::Stream stream) {
  if (Status s = launchKernels(stream); !s.ok())
    return s;
  ++launchesPending_;
  if (proxy_)
    proxy_->launched(); // its messages are due
  return Status::success();
}

Status CudaCollective::launchKernels(cu::Stream stream) {
  const LaunchLayout &l = layout_;
  if (failed_)
    return failure_;
  if (!haveBuffers_)
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": enqueue before setBuffers");
  if (Status s = makeCurrent(); !s.ok())
    return s;
  for (int32_t r : l.launched())
    if (l.copiesInput(r) && l.inputElements(r) > 0)
      if (cu::Result res = d_->cuMemcpyDtoDAsync(
              arenas_[size_t(r)] + l.arena(r).inputCopy, inputs_[size_t(r)],
              size_t(l.inputElements(r)) * l.elementSize(), stream);
          res != cu::kSuccess)
        return d_->fail(l.name() + ": rank " + std::to_string(r) +
                            "'s private input copy",
                        "cuMemcpyDtoDAsync", res);
  LaunchArgs args;
  args.ranks = reinterpret_cast<const RankContext *>(
      uintptr_t(arena_ + l.contextsOffset()));
  args.blockRank = reinterpret_cast<const int32_t *>(
      uintptr_t(arena_ + l.blockRankOffset()));
  args.blockChannel = reinterpret_cast<const int32_t *>(
      uintptr_t(arena_ + l.blockChannelOffset()));
  void *params[] = {&args};
  if (cu::Result r = d_->cuLaunchKernel(kernel_, gridBlocks(), 1, 1, threads_,
                                        1, 1, 0, stream, params, nullptr);
      r != cu::kSuccess)
    return d_->fail(l.name() + ": launching '" + kernelName_ + "' (" +
                        std::to_string(gridBlocks()) + " blocks of " +
                        std::to_string(threads_) + " threads)",
                    "cuLaunchKernel", r);
  if (divide_)
    for (int32_t r : l.launched()) {
      if (!l.holdsReduction(r) || l.outputElements(r) == 0)
        continue;
      cu::DevicePtr data = outputs_[size_t(r)];
      int64_t n = l.outputElements(r), divisor = l.nranks();
      void *p[] = {&data, &n, &divisor};
      unsigned blocks = unsigned(std::min<int64_t>((n + 255) / 256, 1024));
      if (cu::Result res = d_->cuLaunchKernel(divide_, blocks, 1, 1, 256, 1, 1,
                                              0, stream, p, nullptr);
          res != cu::kSuccess)
        return d_->fail(l.name() + ": avg's division", "cuLaunchKernel", res);
    }
  return Status::success();
}

Status CudaCollective::enqueueGraph(cu::Stream stream) {
  if (Status s = prepareGraph(stream); !s.ok())
    return s;
  if (cu::Result r = d_->cuGraphLaunch(graphExec_, stream); r != cu::kSuccess)
    return d_->fail(layout_.name(), "cuGraphLaunch", r);
  ++launchesPending_;
  if (proxy_)
    proxy_->launched();
  return Status::success();
}

Status CudaCollective::prepareGraph(cu::Stream stream) {
  if (failed_)
    return failure_;
  if (Status st = makeCurrent(); !st.ok())
    return st;
  if (!graphExec_) {
    if (cu::Result r =
            d_->cuStreamBeginCapture(stream, cu::kStreamCaptureModeRelaxed);
        r != cu::kSuccess)
      return d_->fail(layout_.name() + ": capturing a graph (the stream must "
                                       "not be the NULL stream)",
                      "cuStreamBeginCapture", r);
    Status s = launchKernels(stream); // captured, not run
    cu::Result r = d_->cuStreamEndCapture(stream, &graph_);
    if (!s.ok())
      return s;
    if (r != cu::kSuccess)
      return d_->fail(layout_.name(), "cuStreamEndCapture", r);
    if (cu::Result r2 = d_->cuGraphInstantiate(&graphExec_, graph_, 0);
        r2 != cu::kSuccess)
      return d_->fail(layout_.name(), "cuGraphInstantiate", r2);
  }
  return Status::success();
}

Status CudaCollective::snapshot(LaunchSnapshot *s) const {
  const LaunchLayout &l = layout_;
  if (Status st = makeCurrent(); !st.ok())
    return st;
  std::vector<std::vector<uint64_t>> copies(size_t(l.nranks()));
  std::vector<const char *> controls(size_t(l.nranks()), nullptr);
  for (int32_t rank : l.launched()) {
    std::vector<uint64_t> &copy = copies[size_t(rank)];
    copy.resize(l.arena(rank).controlBytes / 8 + 1);
    if (cu::Result r = d_->cuMemcpyDtoH(copy.data(), arenas_[size_t(rank)],
                                        l.arena(rank).controlBytes);
        r != cu::kSuccess)
      return d_->fail(l.name() + ": reading the blocks' states back",
                      "cuMemcpyDtoH", r);
    controls[size_t(rank)] = reinterpret_cast<const char *>(copy.data());
  }
  std::vector<const char *> hosts(hostArenaHost_.begin(), hostArenaHost_.end());
  *s = readSnapshot(l, controls, hosts);
  uint64_t tiles = uint64_t(l.tiles());
  for (size_t i = 0; i < l.connections().size(); ++i) {
    uint64_t before =
        launchesDone_ * l.connections()[i].messagesPerTile * tiles;
    s->sentBefore[i] = before;
    s->receivedBefore[i] = before;
  }
  s->epochBefore = launchesDone_ * tiles;
  // The launches not known to be done: the blocks stopped in one of them.
  s->launchUnknown = launchesPending_ > 1;
  return Status::success();
}

Status CudaCollective::failWith(const Status &status, const LaunchSnapshot *s) {
  std::string message = status.message();
  if (s)
    message += "\nwhat each block was doing:\n" + blockReport(layout_, *s);
  failed_ = true;
  failure_ = Status(status.code(), message);
  return failure_;
}

Status CudaCollective::throttle(cu::Stream stream) {
  if (failed_)
    return failure_;
  uint64_t enqueued = launchesDone_ + launchesPending_;
  if (enqueued % kMarkEvery != 0)
    return Status::success();
  if (Status st = makeCurrent(); !st.ok())
    return failWith(st, nullptr);
  cu::Event event = nullptr;
  if (!spareMarks_.empty()) {
    event = spareMarks_.back();
    spareMarks_.pop_back();
  } else if (cu::Result r = d_->cuEventCreate(&event, cu::kEventDefault);
             r != cu::kSuccess) {
    return failWith(d_->fail(layout_.name(), "cuEventCreate", r), nullptr);
  }
  if (cu::Result r = d_->cuEventRecord(event, stream); r != cu::kSuccess) {
    spareMarks_.push_back(event);
    return failWith(d_->fail(layout_.name(), "cuEventRecord", r), nullptr);
  }
  marks_.push_back({event, enqueued});
  if (marks_.size() <= kMarksInFlight)
    return Status::success();
  Mark oldest = marks_.front();
  marks_.pop_front();
  Status s = waitFor(oldest.event);
  spareMarks_.push_back(oldest.event);
  if (!s.ok())
    return s;
  launchesPending_ -= oldest.launches - launchesDone_;
  launchesDone_ = oldest.launches;
  return Status::success();
}

Status CudaCollective::wait(cu::Stream stream) {
  if (failed_)
    return failure_;
  if (Status st = makeCurrent(); !st.ok())
    return failWith(st, nullptr);
  if (cu::Result r = d_->cuEventRecord(done_, stream); r != cu::kSuccess)
    return failWith(
        d_->fail(layout_.name() + " on " + launchName(), "cuEventRecord", r),
        nullptr);
  if (Status s = waitFor(done_); !s.ok())
    return s;
  launchesDone_ += launchesPending_;
  launchesPending_ = 0;
  for (const Mark &m : marks_) // all reached before done_
    spareMarks_.push_back(m.event);
  marks_.clear();
  return Status::success();
}

Status CudaCollective::waitFor(cu::Event event) {
  const LaunchLayout &l = layout_;
  std::string what =
      l.name() + " on " + launchName() + " (kernel '" + kernelName_ + "')";
  using Clock = std::chrono::steady_clock;
  Status peerFailure;
  Clock::time_point nextCheck = Clock::now();
  // checkPeers: only while the launch runs normally (not while waiting for
  // it to end after an abort).
  auto poll = [&](Clock::time_point until, bool *finished,
                  bool checkPeers = false) -> Status {
    *finished = false;
    for (;;) {
      if (checkPeers && proxy_ && peerFailure.ok() && proxy_->failed()) {
        peerFailure = proxy_->error(); // it raised abortFlag already
        // A connection that closed may be a peer that stopped because a
        // third rank failed: where the peer check knows of a failure, that
        // is the cause, named first.
        if (peerCheck_)
          if (Status cause = peerCheck_(); !cause.ok())
            peerFailure = Status(cause.code(), cause.message() +
                                                   "; the device proxy "
                                                   "saw: " +
                                                   peerFailure.message());
        return Status::success();
      }
      if (checkPeers && peerCheck_ && peerFailure.ok() &&
          Clock::now() >= nextCheck) {
        peerFailure = peerCheck_();
        nextCheck = Clock::now() + std::chrono::milliseconds(100);
        if (!peerFailure.ok())
          return Status::success(); // the caller aborts the launch
      }
      cu::Result r = d_->cuEventQuery(event);
      if (r == cu::kSuccess) {
        *finished = true;
        return Status::success();
      }
      if (r != cu::kNotReady)
        return d_->fail(what, "the launch", r);
      if (Clock::now() >= until)
        return Status::success();
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  };
  bool finished = false;
  auto deadline = Clock::now() +
                  std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(options_.timeoutSeconds));
  if (Status s = poll(deadline, &finished, true); !s.ok())
    return failWith(s, nullptr);
  if (!finished && !peerFailure.ok()) {
    // A peer process failed: its messages will never come.
    *abortHost_ = wait::HostAbort;
    if (Status s = poll(Clock::now() + std::chrono::seconds(10), &finished);
        !s.ok())
      return failWith(s, nullptr);
    if (!finished)
      return failWith(Status(ErrorCode::PeerFailure,
                             what + ": " + peerFailure.message() +
                                 "; the launch did not end 10 s after "
                                 "abortFlag was set: the GPU context is "
                                 "unusable"),
                      nullptr);
    LaunchSnapshot s;
    if (Status st = snapshot(&s); !st.ok())
      return failWith(st, nullptr);
    return failWith(Status(ErrorCode::PeerFailure,
                           what + ": stopped because a peer failed (" +
                               peerFailure.message() + ")"),
                    &s);
  }
  if (!finished) {
    *abortHost_ = wait::HostAbort;
    if (Status s = poll(Clock::now() + std::chrono::seconds(10), &finished);
        !s.ok())
      return failWith(s, nullptr);
    if (!finished)
      return failWith(
          Status(ErrorCode::Timeout,
                 what + " did not finish within " +
                     seconds(options_.timeoutSeconds) +
                     " s and did not end 10 s after abortFlag was set: the "
                     "GPU context is unusable"),
          nullptr);
    LaunchSnapshot s;
    if (Status st = snapshot(&s); !st.ok())
      return failWith(st, nullptr);
    if (Status error = blockError(l, s); !error.ok())
      return failWith(error, &s);
    return failWith(
        Status(ErrorCode::Timeout, what + " did not finish within " +
                                       seconds(options_.timeoutSeconds) +
                                       " s (timeoutSeconds); the watchdog set "
                                       "abortFlag"),
        &s);
  }
  if (*abortHost_ != wait::NoAbort) {
    LaunchSnapshot s;
    if (Status st = snapshot(&s); !st.ok())
      return failWith(st, nullptr);
    Status error = blockError(l, s);
    return failWith(error.ok() ? Status(ErrorCode::TransportError,
                                        what + ": a block raised abortFlag "
                                               "without recording why")
                               : error,
                    &s);
  }
  return Status::success();
}

Status CudaCollective::waitAndCheck(cu::Stream stream) {
  uint64_t before = launchesDone_, pending = launchesPending_;
  if (Status s = wait(stream); !s.ok())
    return s;
  LaunchSnapshot s;
  launchesDone_ = before;
  Status st = snapshot(&s);
  launchesDone_ = before + pending;
  if (!st.ok())
    return failWith(st, nullptr);
  // Counts over every launch since `before`.
  const LaunchLayout &l = layout_;
  for (size_t i = 0; i < l.connections().size(); ++i) {
    const LaunchLayout::Connection &c = l.connections()[i];
    uint64_t expected = pending * c.messagesPerTile * uint64_t(l.tiles());
    uint64_t sent = s.sent[i] - s.sentBefore[i];
    uint64_t received = s.received[i] - s.receivedBefore[i];
    if ((l.launches(c.from) && sent != expected) ||
        (l.launches(c.to) && received != expected))
      return failWith(
          Status(ErrorCode::PlanMismatch,
                 l.name() + ": on the connection from rank " +
                     std::to_string(c.from) + " to rank " +
                     std::to_string(c.to) + " channel " +
                     std::to_string(c.channel) + " the kernel sent " +
                     std::to_string(sent) + " and received " +
                     std::to_string(received) + " messages in " +
                     std::to_string(pending) + " launches; the program sends " +
                     std::to_string(expected) +
                     ": the kernel does not run the plan's schedule"),
          &s);
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Traffic and runPlanOnOneGpu
//===----------------------------------------------------------------------===//

double memoryTraffic(const LaunchLayout &layout) {
  const collc::sched::Program &p = layout.program();
  double bytes = 0;
  int64_t T = layout.tileElements();
  auto slice = [&](int64_t length, int64_t t) {
    int64_t left = length - t * T;
    return left <= 0 ? 0 : std::min(left, T);
  };
  for (int32_t r : layout.launched()) {
    const exec::RunLayout &rl = layout.rank(r);
    for (const auto &channel : p.ranks[size_t(r)].channels)
      for (const Instruction &in : channel.instructions) {
        const collc::sched::ChunkRange &range =
            in.opcode == Opcode::Send || in.opcode == Opcode::RecvReduceSend
                ? in.src
                : in.dst;
        double elements = 0;
        for (int64_t t = 0; t < layout.tiles(); ++t)
          for (uint32_t j = 0; j < range.count; ++j) {
            int64_t length =
                range.buffer == Buffer::Scratch
                    ? rl.scratchCapacity
                    : rl.chunkElements(range.buffer, range.index + j);
            elements += double(slice(length, t));
          }
        int factor = 0;
        switch (in.opcode) {
        case Opcode::Send:
        case Opcode::Recv:
        case Opcode::Copy:
          factor = 2;
          break;
        case Opcode::Reduce:
          // dst read and written, fanin source ranges read.
          factor = 2 + int(collc::sched::reduceFanin(in));
          break;
        case Opcode::RecvReduceSend:
        case Opcode::RecvCopySend:
        case Opcode::RecvReduceCopy:
          factor = 3;
          break;
        case Opcode::RecvReduceCopySend:
          factor = 4;
          break;
        }
        bytes += elements * double(layout.elementSize()) * factor;
      }
  }
  return bytes;
}

namespace {

/// Device buffers by rank (each on its launch's device) and a stream and
/// timing events per launch.
struct DeviceBuffers {
  const CudaDriver *d = nullptr;
  std::vector<CudaCollective *> launches;
  /// By rank: the launch whose device holds its buffers (null: none).
  std::vector<CudaCollective *> owner;
  std::vector<cu::DevicePtr> inputs, outputs;
  /// By launch.
  std::vector<cu::Stream> streams;
  std::vector<cu::Event> start, stop;
  ~DeviceBuffers() {
    for (size_t r = 0; r < owner.size(); ++r) {
      if (!owner[r])
        continue;
      (void)owner[r]->makeCurrent();
      if (inputs[r])
        d->cuMemFree(inputs[r]);
      if (outputs[r])
        d->cuMemFree(outputs[r]);
    }
    for (size_t g = 0; g < launches.size(); ++g) {
      (void)launches[g]->makeCurrent();
      if (g < start.size() && start[g])
        d->cuEventDestroy(start[g]);
      if (g < stop.size() && stop[g])
        d->cuEventDestroy(stop[g]);
      if (g < streams.size() && streams[g])
        d->cuStreamDestroy(streams[g]);
    }
  }
};

Status checkOutputs(const CudaDriver &d, const CudaCollective &c,
                    const check::TestData &data, int64_t count,
                    const DeviceBuffers &b, const char *when,
                    GpuRunResult *result) {
  const LaunchLayout &l = c.layout();
  size_t e = l.elementSize();
  if (Status s = c.makeCurrent(); !s.ok())
    return s;
  for (int32_t r : l.launched()) {
    int64_t in = l.inputElements(r), out = l.outputElements(r);
    std::vector<uint64_t> input(size_t(in) * e / 8 + 1),
        output(size_t(out) * e / 8 + 1);
    if (in)
      if (cu::Result res =
              d.cuMemcpyDtoH(input.data(), b.inputs[size_t(r)], size_t(in) * e);
          res != cu::kSuccess)
        return d.fail(l.name(), "cuMemcpyDtoH", res);
    if (out)
      if (cu::Result res = d.cuMemcpyDtoH(output.data(), b.outputs[size_t(r)],
                                          size_t(out) * e);
          res != cu::kSuccess)
        return d.fail(l.name(), "cuMemcpyDtoH", res);
    check::CheckResult c =
        check::checkRank(data, r, count, input.data(), in, output.data(), out);
    result->checked += c.checked;
    result->wrong += c.wrong;
    for (const check::ElementError &error : c.examples)
      if (result->examples.size() < 8)
        result->examples.push_back(std::string(when) + ": " + error.describe());
  }
  return Status::success();
}

/// waitAndCheck of every launch, none skipped (a failed launch's linked
/// peers are stopped by their peer checks and must be waited for too):
/// the first failure that is not a linked launch's PeerFailure (the cause),
/// with the other launches' reports after it.
Status waitAll(const DeviceBuffers &b) {
  std::vector<Status> failures;
  for (size_t g = 0; g < b.launches.size(); ++g)
    if (Status s = b.launches[g]->waitAndCheck(b.streams[g]); !s.ok())
      failures.push_back(s);
  if (failures.empty())
    return Status::success();
  size_t cause = 0;
  for (size_t i = 0; i < failures.size(); ++i)
    if (failures[i].code() != ErrorCode::PeerFailure) {
      cause = i;
      break;
    }
  std::string message = failures[cause].message();
  for (size_t i = 0; i < failures.size(); ++i)
    if (i != cause)
      message +=
          "\nand another launch of this collective: " + failures[i].message();
  return Status(failures[cause].code(), message);
}

Status checkRunOptions(const Plan &plan, size_t index,
                       const GpuRunOptions &options) {
  if (index >= plan.collectives.size())
    return Status(ErrorCode::InvalidArgument,
                  "collective index " + std::to_string(index) +
                      " is out of range: the plan has " +
                      std::to_string(plan.collectives.size()) +
                      " collective(s)");
  if (options.iterations < 0 || options.warmup < 0)
    return Status(ErrorCode::InvalidArgument,
                  "iterations and warmup must not be negative");
  return Status::success();
}

Status loadKernel(size_t index, const std::string &kernelFile,
                  const GpuRunOptions &options,
                  std::unique_ptr<CudaModule> *module, std::string *kernel) {
  if (Status s = CudaModule::loadFile(kernelFile, options.device, module);
      !s.ok())
    return s;
  *kernel = options.kernel;
  if (kernel->empty())
    if (Status s =
            (*module)->findPlanKernel(index, options.kernelPrefix, kernel);
        !s.ok())
      return s;
  return Status::success();
}

/// What runPlanOnOneGpu, runPlanOnDevices and runPlanOnRank share: device
/// buffers for the launches' ranks (each on its launch's device; inputs
/// from TestData, outputs poisoned), setBuffers of every launch, `ready`
/// (the per-rank path: every process's arenas written), one checked run
/// (every launch enqueued on its own stream before any is waited for),
/// then timed runs and the outputs checked again.
Status runLaunches(const PlanCollective &collective,
                   const std::vector<CudaCollective *> &launches,
                   const CudaDriver &d, const std::string &kernel,
                   const GpuRunOptions &options,
                   const std::function<Status()> &ready, GpuRunResult *result) {
  const LaunchLayout &first = launches[0]->layout();
  size_t e = first.elementSize();
  result->kernel = kernel;
  result->ranks = 0;
  result->blocks = 0;
  result->memoryBytes = 0;
  for (CudaCollective *c : launches) {
    result->ranks += int32_t(c->layout().launched().size());
    result->blocks += c->gridBlocks();
    result->memoryBytes += memoryTraffic(c->layout());
  }
  result->launches = int32_t(launches.size());
  result->count = options.count;
  result->threads = launches[0]->blockThreads();
  result->tiles = first.tiles();
  result->tileElements = first.tileElements();
  result->ll =
      first.llBytes() && uint64_t(first.largestSlice()) * e <= first.llBytes();
  result->inputBytes = double(options.count) * double(e);

  DeviceBuffers b;
  b.d = &d;
  b.launches = launches;
  b.owner.assign(size_t(first.nranks()), nullptr);
  b.inputs.assign(size_t(first.nranks()), 0);
  b.outputs.assign(size_t(first.nranks()), 0);
  b.streams.assign(launches.size(), nullptr);
  b.start.assign(launches.size(), nullptr);
  b.stop.assign(launches.size(), nullptr);
  check::TestData data(first.program(), collective.dtype, collective.reduction,
                       0);
  for (size_t g = 0; g < launches.size(); ++g) {
    CudaCollective &c = *launches[g];
    const LaunchLayout &l = c.layout();
    if (Status s = c.makeCurrent(); !s.ok())
      return s;
    for (int32_t r : l.launched()) {
      int64_t in = l.inputElements(r), out = l.outputElements(r);
      std::string whose = l.name() + ": rank " + std::to_string(r) + "'s ";
      b.owner[size_t(r)] = &c;
      cu::DevicePtr pin = 0, pout = 0;
      if (cu::Result res = d.cuMemAlloc(&pin, size_t(in) * e + 16);
          res != cu::kSuccess)
        return d.fail(whose + "input (" + std::to_string(size_t(in) * e) +
                          " bytes) on " + c.launchName(),
                      "cuMemAlloc", res, ErrorCode::SystemError);
      b.inputs[size_t(r)] = pin;
      if (cu::Result res = d.cuMemAlloc(&pout, size_t(out) * e + 16);
          res != cu::kSuccess)
        return d.fail(whose + "output (" + std::to_string(size_t(out) * e) +
                          " bytes) on " + c.launchName(),
                      "cuMemAlloc", res, ErrorCode::SystemError);
      b.outputs[size_t(r)] = pout;
      std::vector<uint64_t> host(size_t(std::max(in, out)) * e / 8 + 1);
      if (in) {
        data.fillInput(r, host.data(), in);
        if (cu::Result res = d.cuMemcpyHtoD(pin, host.data(), size_t(in) * e);
            res != cu::kSuccess)
          return d.fail(l.name(), "cuMemcpyHtoD", res);
      }
      if (out) {
        check::TestData::poison(collective.dtype, host.data(), out);
        if (cu::Result res = d.cuMemcpyHtoD(pout, host.data(), size_t(out) * e);
            res != cu::kSuccess)
          return d.fail(l.name(), "cuMemcpyHtoD", res);
      }
    }
    if (cu::Result res =
            d.cuStreamCreate(&b.streams[g], cu::kStreamNonBlocking);
        res != cu::kSuccess)
      return d.fail(l.name() + " on " + c.launchName(), "cuStreamCreate", res);
  }
  // Every launch's control parts are written before any kernel starts.
  for (CudaCollective *c : launches)
    if (Status s = c->setBuffers(b.inputs, b.outputs); !s.ok())
      return s;
  if (ready)
    if (Status s = ready(); !s.ok())
      return s;
  bool graph = options.graph == 1 ||
               (options.graph < 0 &&
                result->inputBytes <= double(options.graphBelowBytes));
  result->graph = graph;
  // Every launch's graph is captured and instantiated before any kernel
  // runs (nothing that might wait for the device while a launch spins).
  if (graph)
    for (size_t g = 0; g < launches.size(); ++g)
      if (Status s = launches[g]->prepareGraph(b.streams[g]); !s.ok())
        return s;
  // One run: every launch enqueued before any is waited for (producers and
  // consumers on different devices spin on each other).
  // Each launch's throttle bounds its launches in flight (a GPU whose
  // launch queue is full blocks the enqueuing thread, and a kernel that
  // waits for a dead peer would then never let the watchdog run).
  auto launch = [&]() -> Status {
    for (size_t g = 0; g < launches.size(); ++g)
      if (Status s = graph ? launches[g]->enqueueGraph(b.streams[g])
                           : launches[g]->enqueue(b.streams[g]);
          !s.ok())
        return s;
    for (size_t g = 0; g < launches.size(); ++g)
      if (Status s = launches[g]->throttle(b.streams[g]); !s.ok())
        return s;
    return Status::success();
  };
  auto checkAll = [&](const char *when) -> Status {
    for (CudaCollective *c : launches)
      if (Status s = checkOutputs(d, *c, data, options.count, b, when, result);
          !s.ok())
        return s;
    return Status::success();
  };

  // One checked run. A launch that fails to enqueue after others were
  // enqueued: wait for those (their watchdogs end them).
  if (Status s = launch(); !s.ok()) {
    for (CudaCollective *c : launches)
      c->abort();
    (void)waitAll(b);
    return s;
  }
  if (Status s = waitAll(b); !s.ok())
    return s;
  if (options.check)
    if (Status s = checkAll("first run"); !s.ok())
      return s;

  // Timed runs: events on every launch's stream; the slowest launch's time.
  if (options.iterations > 0) {
    for (size_t g = 0; g < launches.size(); ++g) {
      if (Status s = launches[g]->makeCurrent(); !s.ok())
        return s;
      if (cu::Result res = d.cuEventCreate(&b.start[g], cu::kEventDefault);
          res != cu::kSuccess)
        return d.fail(first.name(), "cuEventCreate", res);
      if (cu::Result res = d.cuEventCreate(&b.stop[g], cu::kEventDefault);
          res != cu::kSuccess)
        return d.fail(first.name(), "cuEventCreate", res);
    }
    auto record = [&](std::vector<cu::Event> &events) -> Status {
      for (size_t g = 0; g < launches.size(); ++g) {
        if (Status s = launches[g]->makeCurrent(); !s.ok())
          return s;
        if (cu::Result res = d.cuEventRecord(events[g], b.streams[g]);
            res != cu::kSuccess)
          return d.fail(first.name(), "cuEventRecord", res);
      }
      return Status::success();
    };
    Status enqueued;
    for (int i = 0; i < options.warmup && enqueued.ok(); ++i)
      enqueued = launch();
    if (enqueued.ok())
      enqueued = record(b.start);
    for (int i = 0; i < options.iterations && enqueued.ok(); ++i)
      enqueued = launch();
    if (enqueued.ok())
      enqueued = record(b.stop);
    if (!enqueued.ok())
      for (CudaCollective *c : launches)
        c->abort();
    Status waited = waitAll(b);
    if (!enqueued.ok())
      return enqueued;
    if (!waited.ok())
      return waited;
    double slowest = 0;
    for (size_t g = 0; g < launches.size(); ++g) {
      float ms = 0;
      if (Status s = launches[g]->makeCurrent(); !s.ok())
        return s;
      if (cu::Result res = d.cuEventElapsedTime(&ms, b.start[g], b.stop[g]);
          res != cu::kSuccess)
        return d.fail(first.name(), "cuEventElapsedTime", res);
      slowest = std::max(slowest, double(ms));
    }
    result->microseconds = slowest * 1000.0 / options.iterations;
    // The repeated runs left the same outputs: check them again.
    if (options.check)
      if (Status s = checkAll("after the timed runs"); !s.ok())
        return s;
  }
  return Status::success();
}

} // namespace

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

namespace {
/// --p2p off: every pair of ranks of one host that exchange messages.
std::vector<std::pair<int32_t, int32_t>> everyLocalPair(const LaunchLayout &l) {
  std::vector<std::pair<int32_t, int32_t>> pairs;
  for (int32_t r = 0; r < l.nranks(); ++r)
    for (int32_t p : l.peersOf(r))
      if (p > r && !l.acrossHosts(r, p))
        pairs.emplace_back(r, p);
  return pairs;
}
} // namespace

Status runPlanOnOneGpu(const Plan &plan, size_t index,
                       const std::string &kernelFile,
                       const GpuRunOptions &options, GpuRunResult *result) {
  GpuRunOptions one = options;
  one.devices = {int32_t(options.device)};
  return runPlanOnDevices(plan, index, kernelFile, one, result);
}

Status runPlanOnDevices(const Plan &plan, size_t index,
                        const std::string &kernelFile,
                        const GpuRunOptions &options, GpuRunResult *result) {
  *result = GpuRunResult();
  if (Status s = checkRunOptions(plan, index, options); !s.ok())
    return s;
  const PlanCollective &collective = plan.collectives[index];
  std::vector<int32_t> devices = options.devices;
  if (devices.empty())
    devices = {int32_t(options.device)};
  int32_t n = collective.program.numRanks;
  if (devices.size() > size_t(std::max(n, 1)))
    return Status(ErrorCode::InvalidArgument,
                  "collective " + std::to_string(index) + " runs on " +
                      std::to_string(n) +
                      " ranks: " + std::to_string(devices.size()) +
                      " devices would leave some without a rank (rank r runs "
                      "on devices[r % devices])");
  // One module per distinct device; the kernel's name from the first.
  std::vector<std::pair<int32_t, std::unique_ptr<CudaModule>>> modules;
  std::string kernel;
  auto moduleFor = [&](int32_t device, const CudaModule **module) -> Status {
    for (auto &[d, m] : modules)
      if (d == device) {
        *module = m.get();
        return Status::success();
      }
    GpuRunOptions o = options;
    o.device = device;
    std::unique_ptr<CudaModule> m;
    std::string name;
    if (Status s = loadKernel(index, kernelFile, o, &m, &name); !s.ok())
      return s;
    if (kernel.empty())
      kernel = name;
    *module = m.get();
    modules.emplace_back(device, std::move(m));
    return Status::success();
  };
  std::vector<std::vector<int32_t>> groups =
      devices.size() == 1 ? std::vector<std::vector<int32_t>>{{}}
                          : dealRanks(n, int32_t(devices.size()));
  // Which pairs of devices exchange messages through host memory: the
  // topology's paths, else the driver's peer access (GpuLinks.h).
  GpuRunOptions linked = options;
  LaunchLayout probe; // every rank: who exchanges messages with whom
  if (options.hostLinks.empty() &&
      (!options.peerToPeer || devices.size() > 1)) {
    DeviceOptions all = options;
    all.ranks.clear();
    if (Status s =
            LaunchLayout::create(collective, index, options.count, all, &probe);
        !s.ok())
      return s;
  }
  if (!options.peerToPeer && options.hostLinks.empty()) {
    linked.hostLinks = everyLocalPair(probe);
    result->links = {"every pair of ranks: host memory (peer-to-peer off)"};
  } else if (devices.size() > 1 && options.hostLinks.empty()) {
    // The driver and the kernel first: without them nothing is decided.
    const CudaModule *first = nullptr;
    if (Status s = moduleFor(devices[0], &first); !s.ok())
      return s;
    std::unique_ptr<collc::topo::Topology> topology;
    if (!options.topologyFile.empty()) {
      collc::topo::LoadResult loaded =
          collc::topo::loadTopologyFile(options.topologyFile);
      if (!loaded.topology)
        return Status(ErrorCode::InvalidArgument,
                      "the topology for the GPU links: " + loaded.error);
      topology = std::move(loaded.topology);
    }
    GpuLinkChoice choice;
    if (Status s = chooseGpuLinks(probe, devices, topology.get(), canAccessPeer,
                                  &choice);
        !s.ok())
      return s;
    linked.hostLinks = choice.hostLinks;
    result->links = choice.lines;
  }
  std::vector<std::unique_ptr<CudaCollective>> owned;
  std::vector<CudaCollective *> launches;
  for (size_t g = 0; g < devices.size(); ++g) {
    const CudaModule *module = nullptr;
    if (Status s = moduleFor(devices[g], &module); !s.ok())
      return s;
    GpuRunOptions o = linked;
    o.device = devices[g];
    o.ranks = groups[g];
    std::unique_ptr<CudaCollective> c;
    if (Status s = CudaCollective::create(collective, index, options.count,
                                          *module, kernel, o, &c);
        !s.ok())
      return s;
    launches.push_back(c.get());
    owned.push_back(std::move(c));
  }
  // Launches that share a device: all their blocks resident at once.
  for (size_t g = 0; g < launches.size(); ++g) {
    uint64_t blocks = 0;
    std::string which;
    size_t sharing = 0;
    for (CudaCollective *c : launches)
      if (c->device() == launches[g]->device()) {
        blocks += c->gridBlocks();
        which += (which.empty() ? "" : "; ") + c->launchName() + ": " +
                 std::to_string(c->gridBlocks()) + " blocks";
        ++sharing;
      }
    if (sharing > 1 && blocks > launches[g]->residentBlocks())
      return Status(
          ErrorCode::Unsupported,
          collective.program.algorithm + ": " + std::to_string(sharing) +
              " launches share CUDA device " +
              std::to_string(launches[g]->device()) + " (" + which +
              "), and their " + std::to_string(blocks) +
              " blocks wait for each other, but kernel '" + kernel +
              "' keeps " + std::to_string(launches[g]->residentBlocks()) +
              " resident (" + launches[g]->residency() +
              "): use fewer ranks, channels or launches there");
  }
  if (Status s = linkLaunches(launches); !s.ok())
    return s;
  GpuRunOptions every = options;
  every.ranks.clear();
  return runLaunches(collective, launches, modules[0].second->driver(), kernel,
                     every, {}, result);
}

Status runPlanOnRank(const Plan &plan, size_t index,
                     const std::string &kernelFile,
                     const GpuRunOptions &options, Bootstrap &bootstrap,
                     GpuRunResult *result) {
  *result = GpuRunResult();
  const int32_t world = bootstrap.rank();
  Deadline deadline = Deadline::after(options.timeoutSeconds);
  std::string who = "rank " + std::to_string(world);
  auto fail = [&](const Status &s) {
    Status named(s.code(), who + ": " + s.message());
    bootstrap.announceFailure(named.message());
    return named;
  };
  if (Status s = checkRunOptions(plan, index, options); !s.ok())
    return fail(s);
  const PlanCollective &collective = plan.collectives[index];
  int32_t group = -1, rank = -1;
  for (size_t g = 0; g < collective.groups.size() && rank < 0; ++g)
    for (size_t i = 0; i < collective.groups[g].size(); ++i)
      if (collective.groups[g][i] == world) {
        group = int32_t(g);
        rank = int32_t(i);
      }
  if (rank < 0) {
    // Not in the collective: take part in the exchanges only.
    std::vector<std::string> all;
    if (options.hostLinks.empty() && options.peerToPeer &&
        !options.topologyFile.empty())
      if (Status s = bootstrap.allGather("-1", &all, deadline); !s.ok())
        return Status(s.code(), who + ": " + s.message());
    if (Status s = bootstrap.allGather("", &all, deadline); !s.ok())
      return Status(s.code(), who + ": " + s.message());
    if (Status s = bootstrap.barrier(deadline); !s.ok())
      return Status(s.code(), who + ": " + s.message());
    return bootstrap.barrier(Deadline::after(options.timeoutSeconds));
  }
  if (rank != world)
    who += " (group rank " + std::to_string(rank) + ")";
  std::unique_ptr<CudaModule> module;
  std::string kernel;
  if (Status s = loadKernel(index, kernelFile, options, &module, &kernel);
      !s.ok())
    return fail(s);
  GpuRunOptions mine = options;
  mine.ranks = {rank};
  // The hosts of the group's ranks (the bootstrap's host names): ranks on
  // different hosts talk through network connections.
  const std::vector<int32_t> &members = collective.groups[size_t(group)];
  std::vector<std::string> hostNames;
  for (int32_t w : members) {
    if (w < 0 || size_t(w) >= bootstrap.hosts().size())
      return fail(Status(ErrorCode::InvalidPlan,
                         "group " + std::to_string(group) +
                             " names world rank " + std::to_string(w) +
                             ", outside the world of " +
                             std::to_string(bootstrap.hosts().size())));
    const std::string &name = bootstrap.hosts()[size_t(w)];
    int32_t h = int32_t(std::find(hostNames.begin(), hostNames.end(), name) -
                        hostNames.begin());
    if (size_t(h) == hostNames.size())
      hostNames.push_back(name);
    mine.hosts.push_back(h);
  }
  // Host-memory links between the processes of this host: all of them
  // (peer-to-peer off), or where the topology's path between their GPUs
  // crosses a CPU (the devices exchanged first).
  if (options.hostLinks.empty() &&
      (!options.peerToPeer || !options.topologyFile.empty())) {
    LaunchLayout probe;
    DeviceOptions all = mine;
    all.ranks.clear();
    if (Status s =
            LaunchLayout::create(collective, index, options.count, all, &probe);
        !s.ok())
      return fail(s);
    if (!options.peerToPeer) {
      mine.hostLinks = everyLocalPair(probe);
      result->links = {"every pair of ranks of a host: host memory "
                       "(peer-to-peer off)"};
    } else {
      collc::topo::LoadResult loaded =
          collc::topo::loadTopologyFile(options.topologyFile);
      if (!loaded.topology)
        return fail(Status(ErrorCode::InvalidArgument,
                           "the topology for the GPU links: " + loaded.error));
      std::vector<std::string> devices;
      if (Status s = bootstrap.allGather(std::to_string(options.device),
                                         &devices, deadline);
          !s.ok())
        return fail(s);
      std::vector<int32_t> byRank;
      for (size_t i = 0; i < members.size(); ++i)
        byRank.push_back(probe.acrossHosts(rank, int32_t(i))
                             ? -1
                             : std::atoi(devices[size_t(members[i])].c_str()));
      GpuLinkChoice choice;
      if (Status s = chooseGpuLinks(probe, byRank, loaded.topology.get(),
                                    canAccessPeer, &choice);
          !s.ok())
        return fail(s);
      mine.hostLinks = choice.hostLinks;
      result->links = choice.lines;
    }
  }
  std::unique_ptr<CudaCollective> c;
  if (Status s = CudaCollective::create(collective, index, options.count,
                                        *module, kernel, mine, &c);
      !s.ok())
    return fail(s);
  if (c->layout().usesNet()) {
    int32_t peer = -1;
    for (int32_t p : c->layout().peersOf(rank))
      if (peer < 0 && c->layout().acrossHosts(rank, p))
        peer = p;
    std::string pair = "group rank " + std::to_string(rank) + " (on " +
                       bootstrap.hosts()[size_t(world)] + ") and its peer " +
                       std::to_string(peer) + " (world rank " +
                       std::to_string(members[size_t(peer)]) + ", on " +
                       bootstrap.hosts()[size_t(members[size_t(peer)])] + ")";
    if (options.network.empty())
      return fail(Status(ErrorCode::Unsupported,
                         pair + " are on different hosts, so their "
                                "connections go over the network, and no "
                                "network was chosen: give "
                                "GpuRunOptions::network (collc-run "
                                "--transport tcp or ib)"));
    transport::OpenedNet opened;
    if (Status s = transport::openNet(
            bootstrap, options.network, options.netInterface, options.ib,
            "GPU network connections (" + options.network + "), " + who,
            &opened);
        !s.ok())
      return fail(s);
    result->network = options.network + ": " + opened.description;
    if (Status s = c->startNetwork(std::move(opened.net), opened.device);
        !s.ok())
      return fail(s);
    // GPUDirect: which way the GPU memory was registered, and why.
    if (std::string how = c->gpuMemoryRegistration(); !how.empty())
      result->network += "; " + how;
  }

  // The exchange: every process's entries, by world rank.
  std::vector<ArenaEntry> exported;
  if (Status s = c->exportArenas(&exported); !s.ok())
    return fail(s);
  std::vector<std::string> all;
  if (Status s =
          bootstrap.allGather(encodeArenaEntry(exported.at(0)), &all, deadline);
      !s.ok())
    return fail(s);
  std::vector<ArenaEntry> table(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    int32_t w = members[i];
    if (w < 0 || size_t(w) >= all.size())
      return fail(Status(ErrorCode::InvalidPlan,
                         "group " + std::to_string(group) +
                             " names world rank " + std::to_string(w) +
                             ", outside the world of " +
                             std::to_string(all.size())));
    if (Status s = decodeArenaEntry(all[size_t(w)], w, &table[i]); !s.ok())
      return fail(s);
  }
  if (Status s = c->connect(table); !s.ok())
    return fail(s);
  c->setPeerCheck([&bootstrap] { return bootstrap.checkPeers(); });
  // After setBuffers wrote this process's arenas, and before any launch:
  // no kernel writes into an arena whose control part is not written yet.
  auto ready = [&]() -> Status {
    return bootstrap.barrier(Deadline::after(options.timeoutSeconds));
  };
  if (Status s = runLaunches(collective, {c.get()}, module->driver(), kernel,
                             mine, ready, result);
      !s.ok())
    return fail(s);
  // The closing barrier: a peer's kernel may still write into this
  // process's arena (the tail of a message it consumed last) until every
  // process has waited for its launches.
  if (Status s = bootstrap.barrier(Deadline::after(options.timeoutSeconds));
      !s.ok())
    return Status(s.code(), who + ": " + s.message());
  // Every rank's kernels have ended: what the proxy still holds has left or
  // is in flight to a peer that has received it all.
  if (Status s = c->stopNetwork(5); !s.ok())
    return Status(s.code(), who + ": " + s.message());
  return Status::success();
}

} // namespace dev
} // namespace collrt

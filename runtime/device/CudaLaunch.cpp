//===- CudaLaunch.cpp - a launch: kernel, buffers, enqueues ---------------===//
#include "runtime/device/CudaExecutor.h"

#include "collrt/collrt.h"
#include "collrt/device/Channel.h"
#include "collrt/device/WaitState.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace collrt {
namespace dev {

using collc::sched::Buffer;
using collc::sched::Instruction;
using collc::sched::Opcode;

// The runtime's own kernels (RuntimeKernels.cu: avg's division), embedded
// when the build found a CUDA compiler; empty otherwise.
extern const unsigned char collrtRuntimeKernels[];
extern const size_t collrtRuntimeKernelsSize;

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

} // namespace

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
      return withContext(s, what + ": rank " + std::to_string(r) +
                                "'s host arena");
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

} // namespace dev
} // namespace collrt

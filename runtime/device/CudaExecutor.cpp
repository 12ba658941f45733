//===- CudaExecutor.cpp - collectives as kernels on one GPU ---------------===//
#include "runtime/device/CudaExecutor.h"

#include "collrt/collrt.h"
#include "collrt/device/Channel.h"
#include "collrt/device/WaitState.h"
#include "runtime/check/Reference.h"
#include "runtime/check/TestData.h"
#include "runtime/device/WaitReport.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

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
  if (module_)
    driver_->cuModuleUnload(module_);
}

Status CudaModule::loadImage(const std::string &image, const std::string &name,
                             int device, std::unique_ptr<CudaModule> *out) {
  const CudaDriver *d = nullptr;
  if (Status s = loadCudaDriver(device, &d); !s.ok())
    return s;
  std::unique_ptr<CudaModule> m(new CudaModule);
  m->driver_ = d;
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

std::vector<std::string> CudaModule::functionNames() const {
  std::vector<std::string> names;
  unsigned count = 0;
  if (!driver_->cuModuleGetFunctionCount ||
      !driver_->cuModuleEnumerateFunctions || !driver_->cuFuncGetName ||
      driver_->cuModuleGetFunctionCount(&count, module_) != cu::kSuccess)
    return names;
  std::vector<cu::Function> functions(count);
  if (driver_->cuModuleEnumerateFunctions(functions.data(), count, module_) !=
      cu::kSuccess)
    return names;
  for (cu::Function f : functions) {
    const char *name = nullptr;
    if (driver_->cuFuncGetName(&name, f) == cu::kSuccess && name)
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Status CudaModule::findPlanKernel(size_t index, const std::string &prefix,
                                  std::string *name) const {
  std::string start = prefix + "_k" + std::to_string(index) + "_";
  std::vector<std::string> names = functionNames(), found;
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
                  name_ +
                      ": cannot list its kernels (the driver has no "
                      "cuModuleEnumerateFunctions, CUDA < 12.4); name the "
                      "kernel of collective " +
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
  if (graphExec_)
    d_->cuGraphExecDestroy(graphExec_);
  if (graph_)
    d_->cuGraphDestroy(graph_);
  if (done_)
    d_->cuEventDestroy(done_);
  // A launch that never ended (the GPU ignored the abort) may still use
  // the arena: leak it rather than free memory a kernel writes.
  bool running =
      failed_ && failure_.message().find("did not end") != std::string::npos;
  if (arena_ && !running)
    d_->cuMemFree(arena_);
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
  if (Status s = loadCudaDriver(options.device, &d); !s.ok())
    return s;
  c->options_ = options;
  if (Status s =
          LaunchLayout::create(collective, index, count, options, &c->layout_);
      !s.ok())
    return s;
  const LaunchLayout &l = c->layout_;
  std::string what = l.name() + " on " + std::to_string(l.nranks()) +
                     " ranks of CUDA device " + std::to_string(options.device);
  if (Status s = module.function(kernel, &c->kernel_); !s.ok())
    return s;
  c->kernelName_ = kernel;

  int maxThreads = 0, regs = 0, local = 0, sms = 0, perSm = 0;
  d->cuFuncGetAttribute(&maxThreads, cu::kFuncMaxThreadsPerBlock, c->kernel_);
  d->cuFuncGetAttribute(&regs, cu::kFuncNumRegs, c->kernel_);
  d->cuFuncGetAttribute(&local, cu::kFuncLocalSizeBytes, c->kernel_);
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
  if (cu::Result r = d->cuMemAlloc(&c->arena_, l.arenaBytes());
      r != cu::kSuccess)
    return d->fail(what + ": " + std::to_string(l.arenaBytes()) +
                       " bytes for slots, scratch and contexts",
                   "cuMemAlloc", r, ErrorCode::SystemError);
  if (cu::Result r = d->cuMemsetD8(c->arena_, 0, l.arenaBytes());
      r != cu::kSuccess)
    return d->fail(what, "cuMemsetD8", r);
  if (cu::Result r = d->cuEventCreate(&c->done_, cu::kEventDefault);
      r != cu::kSuccess)
    return d->fail(what, "cuEventCreate", r);
  *out = std::move(c);
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
  for (int32_t r = 0; r < l.nranks(); ++r)
    if ((!inputs[size_t(r)] && l.inputElements(r) > 0) ||
        (!outputs[size_t(r)] && l.outputElements(r) > 0))
      return Status(ErrorCode::InvalidArgument,
                    l.name() + ": rank " + std::to_string(r) +
                        " has a null device buffer");
  std::vector<uint64_t> in(inputs.begin(), inputs.end()),
      out(outputs.begin(), outputs.end());
  std::vector<uint8_t> image =
      haveBuffers_ ? l.contextImage(arena_, in, out, abortDevice_)
                   : l.controlImage(arena_, in, out, abortDevice_);
  cu::DevicePtr at = haveBuffers_ ? arena_ + l.contextsOffset() : arena_;
  if (cu::Result r = d_->cuMemcpyHtoD(at, image.data(), image.size());
      r != cu::kSuccess)
    return d_->fail(l.name(), "cuMemcpyHtoD", r);
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
  const LaunchLayout &l = layout_;
  if (failed_)
    return failure_;
  if (!haveBuffers_)
    return Status(ErrorCode::InvalidArgument,
                  l.name() + ": enqueue before setBuffers");
  for (int32_t r = 0; r < l.nranks(); ++r)
    if (l.copiesInput(r) && l.inputElements(r) > 0)
      if (cu::Result res = d_->cuMemcpyDtoDAsync(
              arena_ + l.arena(r).inputCopy, inputs_[size_t(r)],
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
    for (int32_t r = 0; r < l.nranks(); ++r) {
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
  ++launchesPending_;
  return Status::success();
}

Status CudaCollective::enqueueGraph(cu::Stream stream) {
  if (failed_)
    return failure_;
  if (!graphExec_) {
    if (cu::Result r =
            d_->cuStreamBeginCapture(stream, cu::kStreamCaptureModeRelaxed);
        r != cu::kSuccess)
      return d_->fail(layout_.name() + ": capturing a graph (the stream must "
                                       "not be the NULL stream)",
                      "cuStreamBeginCapture", r);
    Status s = enqueue(stream);
    --launchesPending_; // captured, not run
    cu::Result r = d_->cuStreamEndCapture(stream, &graph_);
    if (!s.ok())
      return s;
    if (r != cu::kSuccess)
      return d_->fail(layout_.name(), "cuStreamEndCapture", r);
    if (cu::Result r2 = d_->cuGraphInstantiate(&graphExec_, graph_, 0);
        r2 != cu::kSuccess)
      return d_->fail(layout_.name(), "cuGraphInstantiate", r2);
  }
  if (cu::Result r = d_->cuGraphLaunch(graphExec_, stream); r != cu::kSuccess)
    return d_->fail(layout_.name(), "cuGraphLaunch", r);
  ++launchesPending_;
  return Status::success();
}

Status CudaCollective::snapshot(LaunchSnapshot *s) const {
  const LaunchLayout &l = layout_;
  std::vector<char> control(l.controlBytes());
  if (cu::Result r = d_->cuMemcpyDtoH(control.data(), arena_, control.size());
      r != cu::kSuccess)
    return d_->fail(l.name() + ": reading the blocks' states back",
                    "cuMemcpyDtoH", r);
  *s = readSnapshot(l, control.data());
  uint64_t tiles = uint64_t(l.tiles());
  for (size_t i = 0; i < l.connections().size(); ++i) {
    uint64_t before =
        launchesDone_ * l.connections()[i].messagesPerTile * tiles;
    s->sentBefore[i] = before;
    s->receivedBefore[i] = before;
  }
  s->epochBefore = launchesDone_ * tiles;
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

Status CudaCollective::wait(cu::Stream stream) {
  const LaunchLayout &l = layout_;
  if (failed_)
    return failure_;
  std::string what = l.name() + " on " + std::to_string(l.nranks()) +
                     " ranks of CUDA device " +
                     std::to_string(options_.device) + " (kernel '" +
                     kernelName_ + "')";
  if (cu::Result r = d_->cuEventRecord(done_, stream); r != cu::kSuccess)
    return failWith(d_->fail(what, "cuEventRecord", r), nullptr);
  using Clock = std::chrono::steady_clock;
  auto poll = [&](Clock::time_point until, bool *finished) -> Status {
    *finished = false;
    for (;;) {
      cu::Result r = d_->cuEventQuery(done_);
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
  if (Status s = poll(deadline, &finished); !s.ok())
    return failWith(s, nullptr);
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
  launchesDone_ += launchesPending_;
  launchesPending_ = 0;
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
    if (sent != expected || received != expected)
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
  for (int32_t r = 0; r < p.numRanks; ++r) {
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

struct DeviceBuffers {
  const CudaDriver *d = nullptr;
  std::vector<cu::DevicePtr> inputs, outputs;
  cu::Stream stream = nullptr;
  cu::Event start = nullptr, stop = nullptr;
  ~DeviceBuffers() {
    for (cu::DevicePtr p : inputs)
      if (p)
        d->cuMemFree(p);
    for (cu::DevicePtr p : outputs)
      if (p)
        d->cuMemFree(p);
    if (start)
      d->cuEventDestroy(start);
    if (stop)
      d->cuEventDestroy(stop);
    if (stream)
      d->cuStreamDestroy(stream);
  }
};

Status checkOutputs(const CudaDriver &d, const LaunchLayout &l,
                    const check::TestData &data, int64_t count,
                    const DeviceBuffers &b, const char *when,
                    GpuRunResult *result) {
  size_t e = l.elementSize();
  for (int32_t r = 0; r < l.nranks(); ++r) {
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

} // namespace

Status runPlanOnOneGpu(const Plan &plan, size_t index,
                       const std::string &kernelFile,
                       const GpuRunOptions &options, GpuRunResult *result) {
  *result = GpuRunResult();
  if (index >= plan.collectives.size())
    return Status(ErrorCode::InvalidArgument,
                  "collective index " + std::to_string(index) +
                      " is out of range: the plan has " +
                      std::to_string(plan.collectives.size()) +
                      " collective(s)");
  if (options.iterations < 0 || options.warmup < 0)
    return Status(ErrorCode::InvalidArgument,
                  "iterations and warmup must not be negative");
  const PlanCollective &collective = plan.collectives[index];
  std::unique_ptr<CudaModule> module;
  if (Status s = CudaModule::loadFile(kernelFile, options.device, &module);
      !s.ok())
    return s;
  std::string kernel = options.kernel;
  if (kernel.empty())
    if (Status s = module->findPlanKernel(index, options.kernelPrefix, &kernel);
        !s.ok())
      return s;
  std::unique_ptr<CudaCollective> c;
  if (Status s = CudaCollective::create(collective, index, options.count,
                                        *module, kernel, options, &c);
      !s.ok())
    return s;
  const LaunchLayout &l = c->layout();
  const CudaDriver &d = module->driver();
  size_t e = l.elementSize();
  result->kernel = kernel;
  result->ranks = l.nranks();
  result->count = options.count;
  result->blocks = c->gridBlocks();
  result->threads = c->blockThreads();
  result->tiles = l.tiles();
  result->tileElements = l.tileElements();
  result->ll = l.llBytes() && uint64_t(l.largestSlice()) * e <= l.llBytes();
  result->inputBytes = double(options.count) * double(e);
  result->memoryBytes = memoryTraffic(l);

  DeviceBuffers b;
  b.d = &d;
  check::TestData data(l.program(), collective.dtype, collective.reduction, 0);
  for (int32_t r = 0; r < l.nranks(); ++r) {
    int64_t in = l.inputElements(r), out = l.outputElements(r);
    cu::DevicePtr pin = 0, pout = 0;
    if (cu::Result res = d.cuMemAlloc(&pin, size_t(in) * e + 16);
        res != cu::kSuccess)
      return d.fail(l.name() + ": rank " + std::to_string(r) + "'s input",
                    "cuMemAlloc", res, ErrorCode::SystemError);
    b.inputs.push_back(pin);
    if (cu::Result res = d.cuMemAlloc(&pout, size_t(out) * e + 16);
        res != cu::kSuccess)
      return d.fail(l.name() + ": rank " + std::to_string(r) + "'s output",
                    "cuMemAlloc", res, ErrorCode::SystemError);
    b.outputs.push_back(pout);
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
  if (cu::Result res = d.cuStreamCreate(&b.stream, cu::kStreamNonBlocking);
      res != cu::kSuccess)
    return d.fail(l.name(), "cuStreamCreate", res);
  if (Status s = c->setBuffers(b.inputs, b.outputs); !s.ok())
    return s;
  bool graph = options.graph == 1 ||
               (options.graph < 0 &&
                result->inputBytes <= double(options.graphBelowBytes));
  result->graph = graph;
  auto launch = [&]() {
    return graph ? c->enqueueGraph(b.stream) : c->enqueue(b.stream);
  };

  // One checked run.
  if (Status s = launch(); !s.ok())
    return s;
  if (Status s = c->waitAndCheck(b.stream); !s.ok())
    return s;
  if (options.check)
    if (Status s =
            checkOutputs(d, l, data, options.count, b, "first run", result);
        !s.ok())
      return s;

  // Timed runs.
  if (options.iterations > 0) {
    if (cu::Result res = d.cuEventCreate(&b.start, cu::kEventDefault);
        res != cu::kSuccess)
      return d.fail(l.name(), "cuEventCreate", res);
    if (cu::Result res = d.cuEventCreate(&b.stop, cu::kEventDefault);
        res != cu::kSuccess)
      return d.fail(l.name(), "cuEventCreate", res);
    for (int i = 0; i < options.warmup; ++i)
      if (Status s = launch(); !s.ok())
        return s;
    if (cu::Result res = d.cuEventRecord(b.start, b.stream);
        res != cu::kSuccess)
      return d.fail(l.name(), "cuEventRecord", res);
    for (int i = 0; i < options.iterations; ++i)
      if (Status s = launch(); !s.ok())
        return s;
    if (cu::Result res = d.cuEventRecord(b.stop, b.stream); res != cu::kSuccess)
      return d.fail(l.name(), "cuEventRecord", res);
    if (Status s = c->waitAndCheck(b.stream); !s.ok())
      return s;
    float ms = 0;
    if (cu::Result res = d.cuEventElapsedTime(&ms, b.start, b.stop);
        res != cu::kSuccess)
      return d.fail(l.name(), "cuEventElapsedTime", res);
    result->microseconds = double(ms) * 1000.0 / options.iterations;
    // The repeated runs left the same outputs: check them again.
    if (options.check)
      if (Status s = checkOutputs(d, l, data, options.count, b,
                                  "after the timed runs", result);
          !s.ok())
        return s;
  }
  return Status::success();
}

} // namespace dev
} // namespace collrt

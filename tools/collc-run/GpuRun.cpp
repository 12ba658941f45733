//===- GpuRun.cpp - plans on the N ranks of one GPU: shared front end -----===//
#include "tools/collc-run/GpuRun.h"

#include "collrt/collrt.h"
#include "runtime/check/Reference.h"
#include "tools/collc-run/Iterations.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <utility>

namespace collcgpu {

using collrt::ErrorCode;
using collrt::Status;
namespace cu = collrt::dev::cu;
namespace check = collrt::check;

namespace {

/// Device buffers by rank (each on its launch's device) and a stream and
/// timing events per launch, freed at the end.
struct DeviceBuffers {
  const collrt::dev::CudaDriver *d = nullptr;
  collrt::GpuCommunicator *comm = nullptr;
  /// By rank: the launch whose device holds its buffers (-1: none).
  std::vector<int32_t> owner;
  std::vector<cu::DevicePtr> inputs, outputs;
  /// By launch.
  std::vector<cu::Stream> streams;
  std::vector<cu::Event> start, stop;
  ~DeviceBuffers() {
    for (size_t r = 0; r < owner.size(); ++r) {
      if (owner[r] < 0)
        continue;
      (void)comm->makeCurrent(size_t(owner[r]));
      if (inputs[r])
        d->cuMemFree(inputs[r]);
      if (outputs[r])
        d->cuMemFree(outputs[r]);
    }
    for (size_t g = 0; g < streams.size(); ++g) {
      (void)comm->makeCurrent(g);
      if (g < start.size() && start[g])
        d->cuEventDestroy(start[g]);
      if (g < stop.size() && stop[g])
        d->cuEventDestroy(stop[g]);
      if (streams[g])
        d->cuStreamDestroy(streams[g]);
    }
  }
};

Status checkRunOptions(const collrt::Plan &plan, size_t index,
                       const GpuRunOptions &options) {
  COLLRT_RETURN_IF_ERROR(collrt::checkCollectiveIndex(plan, index));
  if (options.iterations < 0 || options.warmup < 0)
    return Status(ErrorCode::InvalidArgument,
                  "iterations and warmup must not be negative");
  return Status::success();
}

/// The ranks of launch `g`, in order.
std::vector<int32_t> ranksOf(const collrt::GpuCommunicator &comm, size_t g) {
  std::vector<int32_t> ranks;
  for (int32_t r : comm.ranks())
    if (comm.launchOf(r) == int32_t(g))
      ranks.push_back(r);
  return ranks;
}

/// The generated kernels as runIterations' target: the ranks of a
/// GpuCommunicator's launches with their device buffers, a run launched on
/// every launch's stream, timed by events on each (the slowest stream's
/// time). Its own failures get `own` (named, announced to the peers).
class GpuTarget : public collcrun::RunTarget {
public:
  GpuTarget(const collrt::dev::CudaDriver &d, collrt::GpuCommunicator &comm,
            const collrt::PlanCollective &collective, size_t index,
            int64_t count, DeviceBuffers &b,
            std::function<Status(const Status &)> own)
      : d_(d), comm_(comm), index_(index), count_(count),
        e_(collrt::dataTypeSize(collective.dtype)), b_(b), own_(std::move(own)),
        name_(comm.collectiveName()), dtype_(collective.dtype),
        op_(collective.reduction) {
    const size_t nranks = b.owner.size();
    for (size_t r = 0; r < nranks; ++r)
      if (b.owner[r] >= 0)
        ranks_.push_back(int32_t(r));
    sends_.resize(nranks);
    recvs_.resize(nranks);
    for (size_t r = 0; r < nranks; ++r) {
      sends_[r] = reinterpret_cast<const void *>(uintptr_t(b.inputs[r]));
      recvs_[r] = reinterpret_cast<void *>(uintptr_t(b.outputs[r]));
    }
    streams_.assign(b.streams.begin(), b.streams.end());
  }

  const std::vector<int32_t> &ranks() const override { return ranks_; }
  int64_t inputElements(int32_t r) const override {
    return comm_.inputElements(r);
  }
  int64_t outputElements(int32_t r) const override {
    return comm_.outputElements(r);
  }
  Status storeInput(int32_t r, const void *host) override {
    return copyIn(r, b_.inputs[size_t(r)], host, inputElements(r));
  }
  Status storeOutput(int32_t r, const void *host) override {
    return copyIn(r, b_.outputs[size_t(r)], host, outputElements(r));
  }
  Status loadInput(int32_t r, void *host) override {
    return copyOut(r, host, b_.inputs[size_t(r)], inputElements(r));
  }
  Status loadOutput(int32_t r, void *host) override {
    return copyOut(r, host, b_.outputs[size_t(r)], outputElements(r));
  }
  Status launch() override {
    return comm_.run(index_, sends_, recvs_, count_, dtype_, op_, streams_);
  }
  Status wait() override { return comm_.wait(); }
  Status startTimer() override {
    if (Status s = createEvents(); !s.ok())
      return own_(s);
    if (Status s = record(b_.start); !s.ok())
      return own_(s);
    return Status::success();
  }
  Status stopTimer(double *seconds) override {
    if (Status s = record(b_.stop); !s.ok())
      return own_(s);
    COLLRT_RETURN_IF_ERROR(comm_.wait());
    double slowest = 0;
    for (size_t g = 0; g < b_.streams.size(); ++g) {
      float ms = 0;
      if (Status s = comm_.makeCurrent(g); !s.ok())
        return own_(s);
      if (cu::Result res = d_.cuEventElapsedTime(&ms, b_.start[g], b_.stop[g]);
          res != cu::kSuccess)
        return own_(d_.fail(name_, "cuEventElapsedTime", res));
      slowest = std::max(slowest, double(ms));
    }
    *seconds = slowest * 1e-3;
    return Status::success();
  }

private:
  Status copyIn(int32_t r, cu::DevicePtr to, const void *host,
                int64_t elements) {
    if (Status s = comm_.makeCurrent(size_t(b_.owner[size_t(r)])); !s.ok())
      return own_(s);
    if (cu::Result res = d_.cuMemcpyHtoD(to, host, size_t(elements) * e_);
        res != cu::kSuccess)
      return own_(d_.fail(name_, "cuMemcpyHtoD", res));
    return Status::success();
  }
  Status copyOut(int32_t r, void *host, cu::DevicePtr from, int64_t elements) {
    if (Status s = comm_.makeCurrent(size_t(b_.owner[size_t(r)])); !s.ok())
      return own_(s);
    if (cu::Result res = d_.cuMemcpyDtoH(host, from, size_t(elements) * e_);
        res != cu::kSuccess)
      return own_(d_.fail(name_, "cuMemcpyDtoH", res));
    return Status::success();
  }
  /// The timing events of every launch, created once.
  Status createEvents() {
    for (size_t g = 0; g < b_.streams.size(); ++g) {
      if (b_.start[g])
        continue;
      COLLRT_RETURN_IF_ERROR(comm_.makeCurrent(g));
      if (cu::Result res = d_.cuEventCreate(&b_.start[g], cu::kEventDefault);
          res != cu::kSuccess)
        return d_.fail(name_, "cuEventCreate", res);
      if (cu::Result res = d_.cuEventCreate(&b_.stop[g], cu::kEventDefault);
          res != cu::kSuccess)
        return d_.fail(name_, "cuEventCreate", res);
    }
    return Status::success();
  }
  Status record(std::vector<cu::Event> &events) {
    for (size_t g = 0; g < b_.streams.size(); ++g) {
      COLLRT_RETURN_IF_ERROR(comm_.makeCurrent(g));
      if (cu::Result res = d_.cuEventRecord(events[g], b_.streams[g]);
          res != cu::kSuccess)
        return d_.fail(name_, "cuEventRecord", res);
    }
    return Status::success();
  }

  const collrt::dev::CudaDriver &d_;
  collrt::GpuCommunicator &comm_;
  size_t index_;
  int64_t count_;
  size_t e_;
  DeviceBuffers &b_;
  std::function<Status(const Status &)> own_;
  std::string name_;
  collrt::DataType dtype_;
  collrt::ReduceOp op_;
  std::vector<int32_t> ranks_;
  std::vector<const void *> sends_;
  std::vector<void *> recvs_;
  std::vector<collrt::GpuStream> streams_;
};

/// The harness around a GpuCommunicator: device buffers for its ranks
/// (each on its launch's device), a stream per launch, then collc-run's one
/// loop (runIterations over a GpuTarget) fills, runs, times and checks.
/// The communicator's failures arrive named (and announced); the harness's
/// own get `who` in front and are announced through comm.abort.
Status runHarness(const collrt::Plan &plan, size_t index,
                  collrt::GpuCommunicator &comm, const GpuRunOptions &options,
                  const std::string &who, GpuRunResult *result) {
  const collrt::PlanCollective &collective = plan.collectives[index];
  COLLRT_RETURN_IF_ERROR(comm.prepare(index, options.count));
  auto own = [&](const Status &s) {
    Status named = who.empty() ? s : collrt::withContext(s, who);
    comm.abort(named.message());
    return named;
  };
  const collrt::GpuLaunchInfo &info = comm.launchInfo();
  result->links = info.links;
  result->network = info.network;
  if (comm.launchCount() == 0) {
    // Outside the collective: the exchanges only.
    COLLRT_RETURN_IF_ERROR(comm.run(index, {}, {}, options.count,
                                    collective.dtype, collective.reduction,
                                    {}));
    return comm.release();
  }
  const size_t e = collrt::dataTypeSize(collective.dtype);
  result->kernel = info.kernel;
  result->ranks = info.ranks;
  result->blocks = info.blocks;
  result->memoryBytes = info.memoryBytes;
  result->launches = info.launches;
  result->count = options.count;
  result->threads = info.threads;
  result->tiles = info.tiles;
  result->tileElements = info.tileElements;
  result->ll = info.ll;
  result->inputBytes = double(options.count) * double(e);
  result->graph = info.graph;

  const collrt::dev::CudaDriver *dp = nullptr;
  if (Status s = collrt::dev::loadCudaDriver(comm.launchDevice(0), &dp);
      !s.ok())
    return own(s);
  const collrt::dev::CudaDriver &d = *dp;
  const size_t launches = comm.launchCount();
  const size_t nranks = size_t(collective.program.numRanks);
  {
    DeviceBuffers b;
    b.d = &d;
    b.comm = &comm;
    b.owner.assign(nranks, -1);
    b.inputs.assign(nranks, 0);
    b.outputs.assign(nranks, 0);
    b.streams.assign(launches, nullptr);
    b.start.assign(launches, nullptr);
    b.stop.assign(launches, nullptr);
    const std::string name = comm.collectiveName();
    for (size_t g = 0; g < launches; ++g) {
      if (Status s = comm.makeCurrent(g); !s.ok())
        return own(s);
      for (int32_t r : ranksOf(comm, g)) {
        int64_t in = comm.inputElements(r), out = comm.outputElements(r);
        std::string whose = name + ": rank " + std::to_string(r) + "'s ";
        b.owner[size_t(r)] = int32_t(g);
        cu::DevicePtr pin = 0, pout = 0;
        if (cu::Result res = d.cuMemAlloc(&pin, size_t(in) * e + 16);
            res != cu::kSuccess)
          return own(d.fail(whose + "input (" + std::to_string(size_t(in) * e) +
                                " bytes) on " + comm.launchName(g),
                            "cuMemAlloc", res, ErrorCode::SystemError));
        b.inputs[size_t(r)] = pin;
        if (cu::Result res = d.cuMemAlloc(&pout, size_t(out) * e + 16);
            res != cu::kSuccess)
          return own(d.fail(whose + "output (" +
                                std::to_string(size_t(out) * e) +
                                " bytes) on " + comm.launchName(g),
                            "cuMemAlloc", res, ErrorCode::SystemError));
        b.outputs[size_t(r)] = pout;
      }
      if (cu::Result res =
              d.cuStreamCreate(&b.streams[g], cu::kStreamNonBlocking);
          res != cu::kSuccess)
        return own(
            d.fail(name + " on " + comm.launchName(g), "cuStreamCreate", res));
    }
    GpuTarget target(d, comm, collective, index, options.count, b, own);
    collcrun::IterationOptions loop;
    loop.warmup = options.warmup;
    loop.iterations = options.iterations;
    loop.check = options.check;
    loop.count = options.count;
    collcrun::IterationResult run;
    COLLRT_RETURN_IF_ERROR(
        collcrun::runIterations(target, collective.program, collective.dtype,
                                collective.reduction, loop, &run));
    result->microseconds = run.seconds * 1e6;
    result->checked = run.checked;
    result->wrong = run.wrong;
    for (const check::ElementError &error : run.firstExamples)
      result->examples.push_back("iteration " +
                                 std::to_string(run.firstWrongIteration) +
                                 ": " + error.describe());
  }
  return comm.release();
}

} // namespace

Status runPlanOnDevices(const collrt::Plan &plan, size_t index,
                        const GpuRunOptions &options, GpuRunResult *result) {
  *result = GpuRunResult();
  COLLRT_RETURN_IF_ERROR(checkRunOptions(plan, index, options));
  std::unique_ptr<collrt::GpuCommunicator> comm;
  COLLRT_RETURN_IF_ERROR(
      collrt::GpuCommunicator::createInProcess(plan, options, &comm));
  return runHarness(plan, index, *comm, options, "", result);
}

Status runPlanOnOneGpu(const collrt::Plan &plan, size_t index,
                       const GpuRunOptions &options, GpuRunResult *result) {
  GpuRunOptions one = options;
  one.devices = {int32_t(options.device)};
  return runPlanOnDevices(plan, index, one, result);
}

Status runPlanOnRank(const collrt::Plan &plan, size_t index,
                     const GpuRunOptions &options, collrt::Bootstrap &bootstrap,
                     GpuRunResult *result) {
  *result = GpuRunResult();
  std::string who = "rank " + std::to_string(bootstrap.rank());
  if (Status s = checkRunOptions(plan, index, options); !s.ok()) {
    Status named = collrt::withContext(s, who);
    bootstrap.announceFailure(named.message());
    return named;
  }
  int32_t rank = collrt::groupRankOf(plan.collectives[index], bootstrap.rank());
  if (rank >= 0 && rank != bootstrap.rank())
    who += " (group rank " + std::to_string(rank) + ")";
  std::unique_ptr<collrt::GpuCommunicator> comm;
  COLLRT_RETURN_IF_ERROR(
      collrt::GpuCommunicator::createForRank(plan, options, bootstrap, &comm));
  return runHarness(plan, index, *comm, options, who, result);
}

Status describeGpu(int device, std::string *description) {
  const collrt::dev::CudaDriver *d = nullptr;
  if (Status s = collrt::dev::loadCudaDriver(device, &d); !s.ok())
    return s;
  cu::Device handle = 0;
  char name[256] = "?";
  int sms = 0, major = 0, minor = 0, version = 0;
  std::string what = "GPU " + std::to_string(device);
  if (cu::Result r = d->cuDeviceGet(&handle, device); r != cu::kSuccess)
    return d->fail(what, "cuDeviceGet", r);
  if (cu::Result r = d->cuDeviceGetName(name, sizeof name, handle);
      r != cu::kSuccess)
    return d->fail(what, "cuDeviceGetName", r);
  for (auto [value, attribute] :
       {std::pair<int *, int>{&sms, cu::kAttrMultiprocessorCount},
        {&major, cu::kAttrComputeCapabilityMajor},
        {&minor, cu::kAttrComputeCapabilityMinor}})
    if (cu::Result r = d->cuDeviceGetAttribute(value, attribute, handle);
        r != cu::kSuccess)
      return d->fail(what, "cuDeviceGetAttribute", r);
  if (cu::Result r = d->cuDriverGetVersion(&version); r != cu::kSuccess)
    return d->fail(what, "cuDriverGetVersion", r);
  *description = std::string(name) + ", " + std::to_string(sms) + " SMs, sm_" +
                 std::to_string(major) + std::to_string(minor) + ", driver " +
                 std::to_string(version);
  return Status::success();
}

int64_t countForBytes(const collrt::PlanCollective &collective,
                      int64_t bytesPerRank) {
  if (collective.program.collective == collc::sched::Collective::AllToAllV)
    return 0;
  return bytesPerRank / int64_t(collrt::dataTypeSize(collective.dtype));
}

std::string describeLaunch(const GpuRunResult &r) {
  return "kernel " + r.kernel + ": " + std::to_string(r.blocks) + " blocks x " +
         std::to_string(r.threads) + " threads" +
         (r.launches > 1 ? " in " + std::to_string(r.launches) +
                               " launches (one per --devices entry, the "
                               "slowest launch's time)"
                         : std::string()) +
         ", " + (r.graph ? "graph-launched" : "stream-launched (no graph)") +
         ", " + std::to_string(r.tiles) + (r.tiles == 1 ? " tile" : " tiles") +
         " of " + std::to_string(r.tileElements) + " elements, protocol " +
         (r.ll ? "LL" : "simple");
}

Status deviceForLocalRank(int32_t localRank, int *device, int *devices) {
  if (Status s = collrt::dev::cudaDeviceCount(devices); !s.ok())
    return s;
  *device = localRank >= 0 ? localRank % *devices : 0;
  return Status::success();
}

std::string encodeRankResult(const GpuRunResult &r) {
  char text[160];
  std::snprintf(text, sizeof text, "collc-run-gpu %.17g %lld %lld %d",
                r.microseconds, static_cast<long long>(r.checked),
                static_cast<long long>(r.wrong), r.ranks);
  return text;
}

bool decodeRankResult(const std::string &text, GpuRunResult *r) {
  long long checked = 0, wrong = 0;
  int ranks = 0;
  double microseconds = 0;
  if (std::sscanf(text.c_str(), "collc-run-gpu %lg %lld %lld %d", &microseconds,
                  &checked, &wrong, &ranks) != 4)
    return false;
  *r = GpuRunResult();
  r->microseconds = microseconds;
  r->checked = checked;
  r->wrong = wrong;
  r->ranks = ranks;
  return true;
}

} // namespace collcgpu

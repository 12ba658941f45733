//===- GpuRun.cpp - plans on the N ranks of one GPU: shared front end -----===//
#include "tools/collc-run/GpuRun.h"

#include "collrt/collrt.h"
#include "runtime/check/Reference.h"
#include "runtime/check/TestData.h"

#include <algorithm>
#include <cstdio>
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

Status checkOutputs(const collrt::dev::CudaDriver &d,
                    const collrt::GpuCommunicator &comm, size_t g,
                    const check::TestData &data, int64_t count,
                    size_t elementSize, const DeviceBuffers &b,
                    const char *when, GpuRunResult *result) {
  const size_t e = elementSize;
  COLLRT_RETURN_IF_ERROR(comm.makeCurrent(g));
  for (int32_t r : ranksOf(comm, g)) {
    int64_t in = comm.inputElements(r), out = comm.outputElements(r);
    std::vector<uint64_t> input(size_t(in) * e / 8 + 1),
        output(size_t(out) * e / 8 + 1);
    if (in)
      if (cu::Result res =
              d.cuMemcpyDtoH(input.data(), b.inputs[size_t(r)], size_t(in) * e);
          res != cu::kSuccess)
        return d.fail(comm.collectiveName(), "cuMemcpyDtoH", res);
    if (out)
      if (cu::Result res = d.cuMemcpyDtoH(output.data(), b.outputs[size_t(r)],
                                          size_t(out) * e);
          res != cu::kSuccess)
        return d.fail(comm.collectiveName(), "cuMemcpyDtoH", res);
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

/// The harness around a GpuCommunicator: device buffers for its ranks
/// (each on its launch's device; inputs from TestData, outputs poisoned),
/// one checked run, then the timed runs and the outputs checked again.
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
    check::TestData data(collective.program, collective.dtype,
                         collective.reduction, 0);
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
        std::vector<uint64_t> host(size_t(std::max(in, out)) * e / 8 + 1);
        if (in) {
          data.fillInput(r, host.data(), in);
          if (cu::Result res = d.cuMemcpyHtoD(pin, host.data(), size_t(in) * e);
              res != cu::kSuccess)
            return own(d.fail(name, "cuMemcpyHtoD", res));
        }
        if (out) {
          check::TestData::poison(collective.dtype, host.data(), out);
          if (cu::Result res =
                  d.cuMemcpyHtoD(pout, host.data(), size_t(out) * e);
              res != cu::kSuccess)
            return own(d.fail(name, "cuMemcpyHtoD", res));
        }
      }
      if (cu::Result res =
              d.cuStreamCreate(&b.streams[g], cu::kStreamNonBlocking);
          res != cu::kSuccess)
        return own(
            d.fail(name + " on " + comm.launchName(g), "cuStreamCreate", res));
    }
    std::vector<const void *> sends(nranks);
    std::vector<void *> recvs(nranks);
    for (size_t r = 0; r < nranks; ++r) {
      sends[r] = reinterpret_cast<const void *>(uintptr_t(b.inputs[r]));
      recvs[r] = reinterpret_cast<void *>(uintptr_t(b.outputs[r]));
    }
    std::vector<collrt::GpuStream> streams(b.streams.begin(), b.streams.end());
    auto launch = [&]() -> Status {
      return comm.run(index, sends, recvs, options.count, collective.dtype,
                      collective.reduction, streams);
    };
    auto checkAll = [&](const char *when) -> Status {
      for (size_t g = 0; g < launches; ++g)
        if (Status s = checkOutputs(d, comm, g, data, options.count, e, b, when,
                                    result);
            !s.ok())
          return s;
      return Status::success();
    };

    // One checked run.
    COLLRT_RETURN_IF_ERROR(launch());
    COLLRT_RETURN_IF_ERROR(comm.wait());
    if (options.check)
      if (Status s = checkAll("first run"); !s.ok())
        return own(s);

    // Timed runs: events on every launch's stream; the slowest launch's
    // time.
    if (options.iterations > 0) {
      for (size_t g = 0; g < launches; ++g) {
        if (Status s = comm.makeCurrent(g); !s.ok())
          return own(s);
        if (cu::Result res = d.cuEventCreate(&b.start[g], cu::kEventDefault);
            res != cu::kSuccess)
          return own(d.fail(name, "cuEventCreate", res));
        if (cu::Result res = d.cuEventCreate(&b.stop[g], cu::kEventDefault);
            res != cu::kSuccess)
          return own(d.fail(name, "cuEventCreate", res));
      }
      auto record = [&](std::vector<cu::Event> &events) -> Status {
        for (size_t g = 0; g < launches; ++g) {
          COLLRT_RETURN_IF_ERROR(comm.makeCurrent(g));
          if (cu::Result res = d.cuEventRecord(events[g], b.streams[g]);
              res != cu::kSuccess)
            return d.fail(name, "cuEventRecord", res);
        }
        return Status::success();
      };
      for (int i = 0; i < options.warmup; ++i)
        COLLRT_RETURN_IF_ERROR(launch());
      if (Status s = record(b.start); !s.ok())
        return own(s);
      for (int i = 0; i < options.iterations; ++i)
        COLLRT_RETURN_IF_ERROR(launch());
      if (Status s = record(b.stop); !s.ok())
        return own(s);
      COLLRT_RETURN_IF_ERROR(comm.wait());
      double slowest = 0;
      for (size_t g = 0; g < launches; ++g) {
        float ms = 0;
        if (Status s = comm.makeCurrent(g); !s.ok())
          return own(s);
        if (cu::Result res = d.cuEventElapsedTime(&ms, b.start[g], b.stop[g]);
            res != cu::kSuccess)
          return own(d.fail(name, "cuEventElapsedTime", res));
        slowest = std::max(slowest, double(ms));
      }
      result->microseconds = slowest * 1000.0 / options.iterations;
      // The repeated runs left the same outputs: check them again.
      if (options.check)
        if (Status s = checkAll("after the timed runs"); !s.ok())
          return own(s);
    }
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

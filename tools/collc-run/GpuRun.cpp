//===- GpuRun.cpp - plans on the N ranks of one GPU: shared front end -----===//
#include "tools/collc-run/GpuRun.h"

#include "collrt/collrt.h"

#include <cstdio>
#include <utility>

namespace collcgpu {

using collrt::Status;
namespace cu = collrt::dev::cu;

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

std::string describeLaunch(const collrt::dev::GpuRunResult &r) {
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

std::string encodeRankResult(const collrt::dev::GpuRunResult &r) {
  char text[160];
  std::snprintf(text, sizeof text, "collc-run-gpu %.17g %lld %lld %d",
                r.microseconds, static_cast<long long>(r.checked),
                static_cast<long long>(r.wrong), r.ranks);
  return text;
}

bool decodeRankResult(const std::string &text, collrt::dev::GpuRunResult *r) {
  long long checked = 0, wrong = 0;
  int ranks = 0;
  double microseconds = 0;
  if (std::sscanf(text.c_str(), "collc-run-gpu %lg %lld %lld %d", &microseconds,
                  &checked, &wrong, &ranks) != 4)
    return false;
  *r = collrt::dev::GpuRunResult();
  r->microseconds = microseconds;
  r->checked = checked;
  r->wrong = wrong;
  r->ranks = ranks;
  return true;
}

} // namespace collcgpu

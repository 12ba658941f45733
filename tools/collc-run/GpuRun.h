//===- GpuRun.h - plans on N ranks of one GPU: shared code ----*- C++ -*-===//
//
// What collc-run --backend cuda and bench/gpu's gpu-check share around
// collrt::dev::runPlanOnOneGpu (runtime/device/CudaExecutor.h): the line
// that names the GPU (or why there is none), the element count of a run of
// B bytes per rank, and the line that says how a run was launched. Library
// CollcGpuRun (tools/collc-run/CMakeLists.txt); like CollRtDevice it needs
// no CUDA toolkit or GPU to build (the driver is dlopen()ed).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_RUN_GPURUN_H
#define COLLC_TOOLS_COLLC_RUN_GPURUN_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "runtime/device/CudaExecutor.h"

#include <cstdint>
#include <string>

namespace collcgpu {

/// "NVIDIA H200, 132 SMs, sm_90, driver 13000" for CUDA device `device`;
/// else the driver's Unsupported status with the reason ("no CUDA driver:
/// dlopen(\"libcuda.so.1\") failed: ...", "no CUDA device: ...").
collrt::Status describeGpu(int device, std::string *description);

/// The input elements per rank of a run of `bytesPerRank` bytes per rank
/// (GpuRunOptions::count): bytes / element size; 0 for all_to_all_v, whose
/// compiled send counts fix every rank's sizes.
int64_t countForBytes(const collrt::PlanCollective &collective,
                      int64_t bytesPerRank);

/// "kernel collc_k0_...: 8 blocks x 512 threads, graph-launched, 1 tile of
/// 1024 elements, protocol LL" (several launches: "8 blocks x 512 threads in
/// 2 launches (...)").
std::string describeLaunch(const collrt::dev::GpuRunResult &result);

/// One process per rank (collrt::dev::runPlanOnRank): the CUDA device of a
/// process of local rank `localRank` (LOCAL_RANK % the devices it sees),
/// or the driver's Unsupported status.
collrt::Status deviceForLocalRank(int32_t localRank, int *device, int *devices);

/// A rank's result as the processes all-gather it (time, elements checked
/// and wrong, whether it ran a rank), and back; false on a string this
/// collc-run did not write.
std::string encodeRankResult(const collrt::dev::GpuRunResult &result);
bool decodeRankResult(const std::string &text,
                      collrt::dev::GpuRunResult *result);

} // namespace collcgpu

#endif

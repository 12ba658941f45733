//===- GpuRun.h - plans on N ranks of one GPU: shared code ----*- C++ -*-===//
//
// What collc-run --backend cuda and bench/gpu's gpu-check share: the
// harness that runs a plan's collective through the public GPU interface
// (collrt/GpuCommunicator.h) on test buffers, checks its outputs and times
// its iterations (runPlanOnDevices, runPlanOnRank), the line that names the
// GPU (or why there is none), the element count of a run of B bytes per
// rank, and the line that says how a run was launched. Library
// CollcGpuRun (tools/collc-run/CMakeLists.txt); like CollRtDevice it needs
// no CUDA toolkit or GPU to build (the driver is dlopen()ed).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_RUN_GPURUN_H
#define COLLC_TOOLS_COLLC_RUN_GPURUN_H

#include "collrt/Bootstrap.h"
#include "collrt/GpuCommunicator.h"
#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "runtime/device/CudaExecutor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collcgpu {

/// What a run of runPlanOnOneGpu, runPlanOnDevices or runPlanOnRank
/// measured.
struct GpuRunResult {
  std::string kernel;
  /// Ranks run by this process (runPlanOnRank: 1, or 0 for a process
  /// outside the collective).
  int32_t ranks = 0;
  /// Launches (runPlanOnDevices: one per device; otherwise 1).
  int32_t launches = 1;
  int64_t count = 0;
  unsigned blocks = 0, threads = 0;
  int64_t tiles = 0, tileElements = 0;
  bool ll = false; ///< whether any message used the LL protocol
  /// Elements compared and wrong (every output element of every rank, and
  /// the inputs, over the iterations), the first few differences of the
  /// first iteration that had any ("iteration 3: rank 1 output[0]: ...").
  int64_t checked = 0, wrong = 0;
  std::vector<std::string> examples;
  /// Per iteration (cudaEvent timing of the `iterations` timed launches;
  /// several launches: the slowest device's), microseconds; whether
  /// launched as a graph.
  double microseconds = 0;
  bool graph = false;
  /// Bytes per rank of input (count x element size) and the bytes the
  /// schedule reads and writes in memory per run over this process's ranks
  /// (GpuLaunchInfo::memoryBytes).
  double inputBytes = 0, memoryBytes = 0;
  /// runPlanOnRank with ranks on other hosts: the network and its device;
  /// "" where every peer is on this host.
  std::string network;
  /// How each pair of devices is linked, a line each; empty with one.
  std::vector<std::string> links;
};

/// The harness's options: the communicator's, and the run's size, check
/// and iterations.
struct GpuRunOptions : collrt::GpuOptions {
  int64_t count = 1 << 20;
  /// Check every element (poisoned outputs, position-dependent inputs).
  bool check = true;
  int iterations = 20, warmup = 5;
};

/// Collective `index` of `plan` on its N ranks of this process
/// (collrt::GpuCommunicator::createInProcess: options.devices, or one GPU)
/// with the kernels of options.kernelFile: device buffers per rank, then
/// collc-run's one loop (Iterations.h, runIterations, as on the CPU): with
/// options.check, every iteration's inputs from runtime/check's TestData,
/// outputs poisoned, every element compared with the collective's
/// definition after each launch; `warmup` untimed and `iterations` timed
/// launches (CUDA events on every launch's stream). The run's failures are
/// the Status; wrong elements are in result.
collrt::Status runPlanOnDevices(const collrt::Plan &plan, size_t index,
                                const GpuRunOptions &options,
                                GpuRunResult *result);
/// The same on options.device alone.
collrt::Status runPlanOnOneGpu(const collrt::Plan &plan, size_t index,
                               const GpuRunOptions &options,
                               GpuRunResult *result);
/// The same with one rank per process (createForRank over `bootstrap`):
/// this rank's elements checked, its own launches timed. Every process of
/// the world calls it with the same plan and options; a failure is
/// announced through the bootstrap.
collrt::Status runPlanOnRank(const collrt::Plan &plan, size_t index,
                             const GpuRunOptions &options,
                             collrt::Bootstrap &bootstrap,
                             GpuRunResult *result);

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
std::string describeLaunch(const GpuRunResult &result);

/// One process per rank (runPlanOnRank): the CUDA device of a
/// process of local rank `localRank` (LOCAL_RANK % the devices it sees),
/// or the driver's Unsupported status.
collrt::Status deviceForLocalRank(int32_t localRank, int *device, int *devices);

/// A rank's result as the processes all-gather it (time, elements checked
/// and wrong, whether it ran a rank), and back; false on a string this
/// collc-run did not write.
std::string encodeRankResult(const GpuRunResult &result);
bool decodeRankResult(const std::string &text, GpuRunResult *result);

} // namespace collcgpu

#endif

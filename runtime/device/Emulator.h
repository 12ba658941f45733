//===- Emulator.h - run a kernel's blocks as host threads -------*- C++ -*-===//
//
// Runs a kernel written against collrt/device/Channel.h (a generated one,
// compiled for the host, or a hand-written one) on N ranks of a collective
// at once, each block (rank, channel) on its own host thread, with every
// rank's buffers in host memory: what "N ranks on one GPU" does on a GPU,
// so that generated kernels and the device protocols are tested on machines
// without one.
//
//   collrt::dev::DeviceOptions options;     // slotBytes, LL threshold, ...
//   collrt::Status s = collrt::dev::emulate(plan.collectives[0], 0,
//       &collc_ring_all_reduce, count, inputs, outputs, options);
//
// inputs[r] holds rank r's count input elements (all_to_all_v: its send
// counts' row sum), outputs[r] its output (LaunchLayout::outputElements
// elements); buffers must be aligned to the element size; an input is never
// written (a rank whose schedule writes its input works on a copy). avg
// divides the reduced outputs afterwards, as the CPU executor does.
//
// Errors: invalid-argument (buffer lists, options), invalid-plan /
// plan-mismatch (the layout, RunLayout's checks), plan-mismatch (a block
// found a message or chunk range that does not fit its instruction, or the
// kernel's message counts differ from the program's), timeout (the
// watchdog set abortFlag after options.timeoutSeconds), each with one line
// per block saying what it was doing (WaitReport.h).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_EMULATOR_H
#define COLLRT_DEVICE_EMULATOR_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/device/Channel.h"
#include "runtime/device/DeviceProxy.h"
#include "runtime/device/LaunchLayout.h"

#include <functional>
#include <string>
#include <vector>

namespace collrt {
namespace dev {

/// A kernel as the host emulation compiles it (COLLRT_KERNEL's signature).
using KernelFunction = void (*)(LaunchArgs);

Status emulate(const PlanCollective &collective, size_t index,
               KernelFunction kernel, int64_t count,
               const std::vector<const void *> &inputs,
               const std::vector<void *> &outputs,
               const DeviceOptions &options = DeviceOptions());

/// The same, with every rank laid out as one process per rank lays it out
/// (docs/gpu-runtime.md, "One process per rank"): N launches of one rank
/// each, each in its own host allocation, which reach each other only
/// through the table of arena entries (ArenaEntry, encoded as the
/// processes exchange them, by rank). `editTable`, when given, may change
/// the table before the ranks use it (tests: a missing or mismatched
/// entry). Each launch has its own abortFlag; a block's error in one
/// launch stops the others, as the peer check does between processes.
Status emulatePerRank(
    const PlanCollective &collective, size_t index, KernelFunction kernel,
    int64_t count, const std::vector<const void *> &inputs,
    const std::vector<void *> &outputs,
    const DeviceOptions &options = DeviceOptions(),
    const std::function<void(std::vector<std::string> *)> &editTable = {});

/// What a test may change and learn of emulateAcrossHosts' network, with
/// GPUDirect (DeviceOptions::gpuDirect, gpuMemoryRegistration): the
/// emulator's device memory is host memory (a memfd host buffer), its
/// SocketNet registers it as GPU memory, and its dma-buf exporter gives a
/// descriptor of that memfd and the arena's offset in it (which
/// SocketNet's regMrDmaBuf checks really backs the arena).
struct EmulatedNetwork {
  /// Stands in for the dma-buf exporter; `real` is the emulator's.
  std::function<Status(const DmaBufExporter &real, void *data, size_t bytes,
                       int *fd, uint64_t *offset)>
      exportDmaBuf;
  /// When given: each launch's DeviceProxy::gpuMemoryRegistration() ("" for
  /// a launch without a proxy or GPUDirect), by launch.
  std::vector<std::string> *registrations = nullptr;
};

/// The same (one process per rank), with rank r on host hosts[r]
/// (DeviceOptions::hosts; docs/gpu-runtime.md, "Across hosts"): the
/// connections between ranks of different hosts are network connections,
/// each launch's moved by its own DeviceProxy over TCP on 127.0.0.1 (the
/// tcp transport's SocketNet), whose handles travel in the table. A proxy's
/// failure stops every launch and is the error returned. `launchPerHost`:
/// one launch (process) per host with all of its ranks instead, whose
/// proxy serves all of them.
Status emulateAcrossHosts(
    const PlanCollective &collective, size_t index, KernelFunction kernel,
    int64_t count, const std::vector<const void *> &inputs,
    const std::vector<void *> &outputs, const std::vector<int32_t> &hosts,
    const DeviceOptions &options = DeviceOptions(),
    const std::function<void(std::vector<std::string> *)> &editTable = {},
    bool launchPerHost = false, const EmulatedNetwork &network = {});

/// The same, laid out as one process with its ranks on several devices
/// lays them out (docs/gpu-runtime.md, "Several GPUs in one process"):
/// launch g runs dealRanks(N, devices.size())[g] (rank r in launch
/// r % devices.size()) in its own host allocation, as if on device
/// devices[g] (repeats allowed: two launches on one device); the table's
/// entries are of one process, with the arenas' addresses used directly.
/// Each launch has its own abortFlag; a block's error in one stops the
/// others, as the CUDA executor's linked launches do.
Status emulateOnDevices(const PlanCollective &collective, size_t index,
                        KernelFunction kernel, int64_t count,
                        const std::vector<const void *> &inputs,
                        const std::vector<void *> &outputs,
                        const std::vector<int32_t> &devices,
                        const DeviceOptions &options = DeviceOptions());

} // namespace dev
} // namespace collrt

#endif

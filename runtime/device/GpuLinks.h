//===- GpuLinks.h - which path each pair of GPUs takes ----------*- C++ -*-===//
//
// Ranks of one process on different GPUs exchange messages either through
// each other's memory (peer access over NVLink or PCIe) or, where the GPUs
// have no peer-to-peer path, through pinned host memory both map
// (DeviceOptions::hostLinks; docs/gpu-runtime.md, "Links"). Which it is:
//
// - with a topology (docs/topology.md; CUDA device d is GPU d of its first
//   node): the topology's least-latency path between the two GPUs. Through
//   NVLink, NVSwitches and PCIe switches: peer-to-peer, and the driver
//   must agree (otherwise an error naming both GPUs and the path); through
//   a CPU (a PCIe host bridge, the link between sockets): host memory, as
//   NCCL does by default (its P2P level stops short of the host bridge);
// - without one: the driver's answer (cuDeviceCanAccessPeer).
//
// Every choice comes with a line that says why, which collc-run prints.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_GPULINKS_H
#define COLLRT_DEVICE_GPULINKS_H

#include "collrt/Status.h"
#include "runtime/device/LaunchLayout.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace collc {
namespace topo {
class Topology;
} // namespace topo
} // namespace collc

namespace collrt {
namespace dev {

/// Whether CUDA device a's kernels can access device b's memory (the
/// driver's cuDeviceCanAccessPeer; tests pass their own).
using PeerAccessQuery = std::function<Status(int a, int b, bool *can)>;

struct GpuLinkChoice {
  /// Pairs of ranks whose connections go through host memory.
  std::vector<std::pair<int32_t, int32_t>> hostLinks;
  /// One line per pair of devices whose ranks exchange messages: "GPU 0 -
  /// GPU 1: peer access (topology: node0/gpu0 -> node0/nvswitch ->
  /// node0/gpu1)".
  std::vector<std::string> lines;
};

/// For the ranks of `layout` with rank r on devices[r % devices.size()]:
/// how every pair of different devices whose ranks exchange messages is
/// linked (above). A negative device is not on this host: its pairs are
/// left alone. `topology` may be null.
Status chooseGpuLinks(const LaunchLayout &layout,
                      const std::vector<int32_t> &devices,
                      const collc::topo::Topology *topology,
                      const PeerAccessQuery &canAccess, GpuLinkChoice *choice);

} // namespace dev
} // namespace collrt

#endif

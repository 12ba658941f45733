//===- NicChoice.h - which NIC a rank uses ----------------------*- C++ -*-===//
//
// The topology (common/Topology) says which NIC serves each GPU (its
// GPU-NIC affinity, "nics[].gpus" in the file) and on which NUMA node it
// sits; the ib transport follows it when picking among the host's RDMA
// devices, and reports what it picked and why.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_NET_NICCHOICE_H
#define COLLRT_NET_NICCHOICE_H

#include "Net.h"

#include "collrt/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {
namespace topo {
class Topology;
}
} // namespace collc

namespace collrt {
namespace net {

/// The NIC the topology gives a rank's GPU.
struct NicAffinity {
  std::string topology;
  int32_t rank = -1;
  /// "node0/gpu3", "node0/nic3".
  std::string gpu;
  std::string nic;
  /// The NIC's own name in its node ("nic3"), its position among the
  /// node's NICs (file order) and their number.
  std::string nicName;
  int32_t node = -1;
  int32_t position = -1;
  int32_t nicsInNode = 0;
  /// NUMA nodes of the NIC and of the GPU (-1 = not given).
  int32_t numa = -1;
  int32_t gpuNuma = -1;
};

/// The NIC of `rank`'s GPU. InvalidArgument when the rank is not a GPU of
/// the topology or its GPU has no NIC (a one-node topology without "nics").
Status nicAffinity(const collc::topo::Topology &topology, int32_t rank,
                   NicAffinity *affinity);

struct NicSelection {
  /// Index into the devices passed to chooseNic.
  size_t device = 0;
  /// Why this one, for the report ("the topology dgx8x8 gives GPU 3 ...").
  std::string reason;
};

/// Picks one of `devices` (this host's RDMA ports, sorted by name and
/// port), in this order:
/// 1. `requested` ("mlx5_0" or "mlx5_0:1") when not empty;
/// 2. with `affinity`: the device named as the topology's NIC (a topology
///    may name its NICs after the devices); else, when the host has as many
///    devices as the NIC's node has NICs, the one at the NIC's position;
///    else an error that lists both and says how to choose;
/// 3. without: the device at `localRank` modulo their number.
Status chooseNic(const std::vector<NetDeviceInfo> &devices,
                 const std::string &requested, const NicAffinity *affinity,
                 int32_t localRank, NicSelection *selection);

} // namespace net
} // namespace collrt

#endif

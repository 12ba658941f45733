//===- Routes.h - the links a transfer between two GPUs takes --*- C++ -*-===//
//
// Routes every transfer along the least-latency path (ties broken by fewer
// links, then lower link ids) that respects GPU-NIC affinity: data leaves a
// node through a NIC only from that NIC's own GPU, as NCCL does (a GPU
// whose NIC is on another rail first hands its data over NVLink to the GPU
// of the destination's rail: NCCL's PXN). Without the rule, GPUs sharing a
// PCIe switch would share one NIC and leave the other idle.
//
// Trees are computed per source over (device, last GPU visited) states and
// kept for the most recent sources, so routing the N^2 transfers of a
// 1024-rank all-to-all costs N tree builds, not N^2 searches.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_ROUTING_ROUTES_H
#define COLLC_COMPILER_ROUTING_ROUTES_H

#include "common/Topology/Topology.h"

#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <tuple>
#include <vector>

namespace collc {

class Routes {
public:
  explicit Routes(const topo::Topology &topology);

  /// The links from `from` to `to`, in order; empty when from == to.
  /// The reference stays valid until the next call.
  const std::vector<topo::LinkId> &path(topo::DeviceId from, topo::DeviceId to);

  const topo::Topology &topology() const { return topology_; }

private:
  /// The shortest-path tree of one source over states, grown only as far
  /// as the targets asked for so far (the search stops once a target is
  /// settled and resumes from where it stopped for the next one, so the
  /// tree is the same as a full search's).
  struct Tree {
    using Key = std::tuple<double, int, int32_t, int32_t>; // .., link, state
    topo::DeviceId source = -1;
    std::vector<int32_t> viaLink;   ///< per state: the link into it, or -1
    std::vector<int32_t> prevState; ///< per state: the state it came from
    std::vector<int32_t> best;      ///< per device: its first settled state
    std::vector<double> latency;    ///< per state: best known, -1 unknown
    std::vector<int> hops;          ///< per state: links of that path
    std::vector<bool> done;         ///< per state: settled
    std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  };
  /// The tree of `from`, grown until `to` is settled.
  const Tree &tree(topo::DeviceId from, topo::DeviceId to);
  int32_t state(topo::DeviceId device, int lastGpuLocal) const {
    return device * stride_ + lastGpuLocal;
  }

  const topo::Topology &topology_;
  int stride_;
  /// The most recent trees (a tree of a 1024-GPU topology is a few hundred
  /// KiB, so not every source's is kept).
  std::deque<std::unique_ptr<Tree>> trees_;
  std::vector<topo::LinkId> scratch_;
};

} // namespace collc

#endif

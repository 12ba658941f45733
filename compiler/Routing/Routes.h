//===- Routes.h - the links a transfer between two GPUs takes --*- C++ -*-===//
//
// Routes every transfer the way libcollrt moves it:
//  - Between GPUs of different nodes whose NICs the file gives (GPU-NIC
//    affinity): from the source GPU to its own NIC inside its node, through
//    the network (network switches only) to the destination GPU's NIC, and
//    from there to the destination GPU. The ib transport opens each rank's
//    own NIC (runtime/net NicChoice) and connects it to the peer's, so data
//    never enters a node through another GPU's NIC, and never hops through
//    a third node. Where the network offers several paths of equal cost,
//    the pair's path is one of them chosen by a hash of the (source,
//    destination) pair, the same every time, as a switch's ECMP hashing
//    spreads flows.
//  - Within a node: the path that relays through the fewest other GPUs
//    (CUDA peer access between two GPUs without a direct link crosses
//    PCIe, not a third GPU; a relay is the schedule's to make explicit),
//    then the least latency, then fewer links, then lower link ids.
//  - Between nodes where the network alone cannot join the two GPUs' NICs
//    (rails without a spine): the source hands the data inside its node to
//    the nearest GPU whose NIC the network joins to the destination's NIC
//    (NCCL's PXN, implicit here: libcollrt does not relay, and
//    relays(from, to) counts it), which sends it NIC to NIC.
//  - Where the file gives no GPU-NIC affinity, or none of that applies:
//    the least-latency path.
//  Data leaves a node through a NIC only from that NIC's own GPU.
//
// Trees are computed per source over (device, last GPU visited) states and
// kept for the most recent sources, so routing the N^2 transfers of a
// 1024-rank all-to-all costs N tree builds, not N^2 searches; the network
// trees are kept per source NIC and the in-node pieces per GPU.
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

  /// GPUs other than `from` and `to` that path(from, to) passes through
  /// (0 wherever the topology joins them without one).
  int relays(topo::DeviceId from, topo::DeviceId to);

  const topo::Topology &topology() const { return topology_; }

private:
  /// The shortest-path tree of one source over states, grown only as far
  /// as the targets asked for so far (the search stops once a target is
  /// settled and resumes from where it stopped for the next one, so the
  /// tree is the same as a full search's). Cost: (GPU relays, latency,
  /// hops, link id), or without the relays (`relayFirst` false).
  struct Tree {
    using Key = std::tuple<int, double, int, int32_t, int32_t>;
    topo::DeviceId source = -1;
    bool relayFirst = true;
    std::vector<int32_t> viaLink;   ///< per state: the link into it, or -1
    std::vector<int32_t> prevState; ///< per state: the state it came from
    std::vector<int32_t> best;      ///< per device: its first settled state
    std::vector<double> latency;    ///< per state: best known, -1 unknown
    std::vector<int> relays;        ///< per state: GPUs passed through
    std::vector<int> hops;          ///< per state: links of that path
    std::vector<bool> done;         ///< per state: settled
    std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  };
  /// The tree of `from`, grown until `to` is settled.
  const Tree &tree(topo::DeviceId from, topo::DeviceId to, bool relayFirst);
  int32_t state(topo::DeviceId device, int lastGpuLocal) const {
    return device * stride_ + lastGpuLocal;
  }
  /// The general search's path (appended to `out`); false if none.
  bool searched(topo::DeviceId from, topo::DeviceId to, bool relayFirst,
                std::vector<topo::LinkId> &out);

  /// Network distances from one NIC: Dijkstra over network switches only
  /// (a NIC is reached but not passed through), in whole picoseconds and
  /// hops, so that equal-cost paths compare equal.
  struct NetworkTree {
    std::vector<int64_t> picoseconds; ///< per device; -1 unreached
    std::vector<int32_t> hops;
  };
  const NetworkTree &networkTree(topo::DeviceId nic);
  /// The network path from NIC `from` to NIC `to` (appended), one of the
  /// equal-cost ones picked by `hash`; false if the network cannot join
  /// them.
  bool networkPath(topo::DeviceId from, topo::DeviceId to, uint64_t hash,
                   std::vector<topo::LinkId> &out);
  /// GPU -> its NIC and NIC -> its GPU inside the node, remembered per GPU
  /// (empty with `known` false until computed; `ok` false: no such path
  /// without a relay).
  struct Local {
    bool known = false, ok = false;
    std::vector<topo::LinkId> links;
  };
  const Local &nicLeg(topo::DeviceId gpu, bool out);
  const Local &toNic(topo::DeviceId gpu) { return nicLeg(gpu, true); }
  const Local &fromNic(topo::DeviceId gpu) { return nicLeg(gpu, false); }
  /// Rails the network does not join: `from` hands the data to the
  /// nearest GPU of its node whose NIC reaches the destination's NIC (NCCL's
  /// PXN, implicit here), which sends it NIC to NIC. False if none does.
  bool pxn(topo::DeviceId from, topo::DeviceId to,
           std::vector<topo::LinkId> &out);

  const topo::Topology &topology_;
  int stride_;
  /// The most recent trees (a tree of a 1024-GPU topology is a few hundred
  /// KiB, so not every source's is kept).
  std::deque<std::unique_ptr<Tree>> trees_;
  std::vector<std::unique_ptr<NetworkTree>> networkTrees_; ///< per device
  std::vector<Local> toNic_, fromNic_;                     ///< per device
  std::vector<topo::LinkId> scratch_;
};

} // namespace collc

#endif

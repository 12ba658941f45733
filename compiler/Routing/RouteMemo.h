//===- RouteMemo.h - routes remembered across simulations -------*- C++ -*-===//
//
// Selection simulates every candidate algorithm and chunk count of a
// collective, then the report and the baselines simulate again; each
// simulation used to route its transfers from scratch, and at 1024 ranks
// building the shortest-path trees was most of the time. A RouteMemo keeps
// the links of every (from, to) GPU pair asked for, for one topology, so the
// trees of a source are built once per compile (or sweep), not once per
// simulation. Routes are the topology's (compiler/Routing/Routes.h); link
// latency overrides change only what a route costs, which the simulator
// adds up itself. Not thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_ROUTING_ROUTEMEMO_H
#define COLLC_COMPILER_ROUTING_ROUTEMEMO_H

#include "compiler/Routing/Routes.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace collc {

class RouteMemo {
public:
  explicit RouteMemo(const topo::Topology &topology) : routes_(topology) {}

  const topo::Topology &topology() const { return routes_.topology(); }

  struct Path {
    const topo::LinkId *links = nullptr;
    uint32_t count = 0;
  };
  /// The links from `from` to `to`, in order (none when from == to); valid
  /// until the next call.
  Path path(topo::DeviceId from, topo::DeviceId to);

  /// Pairs remembered, and how many of them had to be routed.
  size_t size() const { return index_.size(); }
  size_t routed() const { return routed_; }

private:
  Routes routes_;
  /// (from, to) -> (first link in links_, count).
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> index_;
  std::vector<topo::LinkId> links_;
  size_t routed_ = 0;
};

} // namespace collc

#endif

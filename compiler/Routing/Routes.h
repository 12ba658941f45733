//===- Routes.h - the links a transfer between two GPUs takes --*- C++ -*-===//
//
// Routes every transfer along the topology's least-latency path (ties broken
// by fewer links), as Topology::shortestPath does, but computes one
// shortest-path tree per source device and caches it, so routing the N^2
// transfers of a 1024-rank all-to-all costs N tree builds, not N^2 searches.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_ROUTING_ROUTES_H
#define COLLC_COMPILER_ROUTING_ROUTES_H

#include "compiler/Topology/Topology.h"

#include <memory>
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
  /// For a source: the link by which each device is reached (-1: none).
  const std::vector<topo::LinkId> &tree(topo::DeviceId from);

  const topo::Topology &topology_;
  std::vector<std::unique_ptr<std::vector<topo::LinkId>>> trees_;
  std::vector<topo::LinkId> scratch_;
};

} // namespace collc

#endif

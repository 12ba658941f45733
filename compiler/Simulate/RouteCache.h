//===- RouteCache.h - the routes of a group's transfers ---------*- C++ -*-===//
//
// Internal: the route (links and total latency) between the GPUs of two
// group ranks, from Routes (least latency, trees cached per source). A
// rank that keeps sending to one peer (a ring) reuses its last route; a
// rank that sends to many (an all-to-all) gets the routes to every group
// rank at once while its shortest-path tree is in cache, because walking
// the trees of 1024 sources in turn is a cache miss per hop.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_ROUTECACHE_H
#define COLLC_COMPILER_SIMULATE_ROUTECACHE_H

#include "compiler/Routing/RouteMemo.h"
#include "compiler/Routing/Routes.h"

#include <cstdint>
#include <vector>

namespace collc::sim {

class RouteCache {
public:
  /// `device[r]`: the GPU device of group rank r; `linkLatency`: seconds
  /// per link, after overrides; `memo`: routes shared with other
  /// simulations of `topology` (may be null).
  RouteCache(const topo::Topology &topology,
             const std::vector<topo::DeviceId> &device,
             const std::vector<double> &linkLatency, RouteMemo *memo);

  struct Route {
    const uint32_t *links = nullptr; ///< LinkIds, in order
    uint32_t count = 0;              ///< 0 when both ranks share a GPU
    double latency = 0;
  };
  /// Valid until the next call with the same `from`.
  Route route(uint32_t from, uint32_t to);

private:
  /// Distinct peers a rank looks up before all its routes are computed.
  static constexpr uint32_t kBulkAfter = 4;

  struct Source {
    uint32_t lastTo = UINT32_MAX;
    uint32_t misses = 0;
    std::vector<uint32_t> last; ///< the route to lastTo
    double lastLatency = 0;
    /// After kBulkAfter misses: routes to every rank, flat.
    std::vector<uint32_t> begin; ///< size N + 1 into links
    std::vector<uint32_t> links;
    std::vector<double> latency;
  };

  void walk(uint32_t from, uint32_t to, std::vector<uint32_t> &links,
            double &latency);
  void buildAll(Source &source, uint32_t from);

  Routes routes_;
  RouteMemo *memo_;
  const std::vector<topo::DeviceId> &device_;
  const std::vector<double> &linkLatency_;
  std::vector<Source> sources_;
};

} // namespace collc::sim

#endif

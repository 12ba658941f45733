//===- Routes.cpp - the links a transfer between two GPUs takes -----------===//
#include "compiler/Routing/Routes.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace collc {

Routes::Routes(const topo::Topology &topology)
    : topology_(topology), trees_(topology.devices().size()) {}

const std::vector<topo::LinkId> &Routes::tree(topo::DeviceId from) {
  std::unique_ptr<std::vector<topo::LinkId>> &slot = trees_[from];
  if (slot)
    return *slot;
  size_t n = topology_.devices().size();
  // Dijkstra on (latency, hops, link id): the same order as
  // Topology::shortestPath.
  using Key = std::tuple<double, int, topo::LinkId, topo::DeviceId>;
  std::vector<double> latency(n, -1);
  std::vector<int> hops(n, 0);
  auto via = std::make_unique<std::vector<topo::LinkId>>(n, -1);
  std::vector<bool> done(n, false);
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  latency[from] = 0;
  queue.emplace(0.0, 0, -1, from);
  while (!queue.empty()) {
    auto [lat, hop, link, device] = queue.top();
    queue.pop();
    if (done[device])
      continue;
    done[device] = true;
    (*via)[device] = link;
    for (topo::LinkId out : topology_.linksFrom(device)) {
      const topo::Link &l = topology_.link(out);
      if (done[l.dst])
        continue;
      double candidate = lat + l.latency;
      if (latency[l.dst] < 0 || candidate < latency[l.dst] ||
          (candidate == latency[l.dst] && hop + 1 <= hops[l.dst])) {
        latency[l.dst] = candidate;
        hops[l.dst] = hop + 1;
        queue.emplace(candidate, hop + 1, out, l.dst);
      }
    }
  }
  slot = std::move(via);
  return *slot;
}

const std::vector<topo::LinkId> &Routes::path(topo::DeviceId from,
                                              topo::DeviceId to) {
  scratch_.clear();
  if (from == to)
    return scratch_;
  const std::vector<topo::LinkId> &via = tree(from);
  for (topo::DeviceId at = to; at != from;) {
    topo::LinkId link = via[at];
    if (link < 0) { // unreachable: the loader rejects such topologies
      scratch_.clear();
      return scratch_;
    }
    scratch_.push_back(link);
    at = topology_.link(link).src;
  }
  std::reverse(scratch_.begin(), scratch_.end());
  return scratch_;
}

} // namespace collc

//===- LatencyTree.cpp - a least-latency tree for small messages ----------===//
#include "lowering/Synthesis/LatencyTree.h"

#include "compiler/Routing/RouteMemo.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace collc::synth {

std::vector<int32_t> latencyTree(const topo::Topology &topology,
                                 RouteMemo &routes,
                                 const std::vector<topo::DeviceId> &gpus,
                                 int32_t root, TreeDirection direction,
                                 double bytes, int maxChildren,
                                 std::string *error, double *arrival) {
  const int32_t n = int32_t(gpus.size());
  if (n < 1 || root < 0 || root >= n) {
    *error = "a latency tree needs a root inside the group";
    return {};
  }
  // Every pair's route, as the data moves (child -> parent for a reduce).
  std::vector<std::vector<topo::LinkId>> route(size_t(n) * size_t(n));
  std::vector<double> latency(size_t(n) * size_t(n), 0);
  for (int32_t u = 0; u < n; ++u)
    for (int32_t v = 0; v < n; ++v) {
      if (u == v)
        continue;
      RouteMemo::Path path =
          direction == TreeDirection::FromRoot
              ? routes.path(gpus[size_t(u)], gpus[size_t(v)])
              : routes.path(gpus[size_t(v)], gpus[size_t(u)]);
      if (path.count == 0) {
        *error = "no route between " + topology.device(gpus[size_t(u)]).name +
                 " and " + topology.device(gpus[size_t(v)]).name;
        return {};
      }
      auto &links = route[size_t(u) * size_t(n) + size_t(v)];
      links.assign(path.links, path.links + path.count);
      for (topo::LinkId l : links)
        latency[size_t(u) * size_t(n) + size_t(v)] += topology.link(l).latency;
    }
  std::unordered_map<topo::LinkId, int> load;
  std::vector<int32_t> parent(size_t(n), -1);
  std::vector<double> at(size_t(n), 0);
  std::vector<bool> in(size_t(n), false);
  std::vector<int> children(size_t(n), 0);
  in[size_t(root)] = true;
  double last = 0;
  for (int32_t added = 1; added < n; ++added) {
    double best = std::numeric_limits<double>::infinity();
    int32_t bu = -1, bv = -1;
    for (int32_t u = 0; u < n; ++u) {
      if (!in[size_t(u)] || children[size_t(u)] >= maxChildren)
        continue;
      for (int32_t v = 0; v < n; ++v) {
        if (in[size_t(v)])
          continue;
        double busiest = 0;
        for (topo::LinkId l : route[size_t(u) * size_t(n) + size_t(v)]) {
          auto it = load.find(l);
          int edges = it == load.end() ? 0 : it->second;
          busiest = std::max(busiest,
                             bytes * (edges + 1) / topology.link(l).bandwidth);
        }
        double t = at[size_t(u)] + kLatencyTreeFixedCost +
                   latency[size_t(u) * size_t(n) + size_t(v)] + busiest;
        if (t < best) {
          best = t;
          bu = u;
          bv = v;
        }
      }
    }
    if (bu < 0) {
      *error = "every rank of the tree already has " +
               std::to_string(maxChildren) + " children";
      return {};
    }
    parent[size_t(bv)] = bu;
    at[size_t(bv)] = best;
    in[size_t(bv)] = true;
    ++children[size_t(bu)];
    for (topo::LinkId l : route[size_t(bu) * size_t(n) + size_t(bv)])
      ++load[l];
    last = std::max(last, best);
  }
  if (arrival)
    *arrival = last;
  return parent;
}

bool isStar(const std::vector<int32_t> &parent, int32_t root) {
  for (size_t v = 0; v < parent.size(); ++v)
    if (int32_t(v) != root && parent[v] != root)
      return false;
  return true;
}

} // namespace collc::synth

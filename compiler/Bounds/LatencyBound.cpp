//===- LatencyBound.cpp - the hops information must take ------------------===//
//
// Under the single-port model a rank sends one message per step, so the
// number of ranks that hold (a contribution of) a given rank's data at most
// doubles per step: ceil(log2 N) steps, each at least one hop between two
// members. The smallest member-to-member latency comes from one
// multi-source Dijkstra (every link has a reverse twin with the same
// latency, so the graph is undirected): the closest pair of sources meets
// on a link whose ends were reached from different sources.
//
//===----------------------------------------------------------------------===//
#include "compiler/Bounds/Bounds.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

namespace collc::bounds {

namespace {

/// The smallest path latency between the GPUs of two different group ranks
/// (0 when two share a GPU), and the names of the pair.
double closestPair(const topo::Topology &topology, const std::vector<int> &gpus,
                   std::string &pair) {
  size_t devices = topology.devices().size();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> distance(devices, inf);
  std::vector<int> source(devices, -1);
  using Entry = std::pair<double, topo::DeviceId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (int gpu : gpus) {
    topo::DeviceId device = topology.gpu(gpu);
    if (source[size_t(device)] >= 0) {
      pair = topology.device(device).name + " (shared by two ranks)";
      return 0;
    }
    source[size_t(device)] = int(device);
    distance[size_t(device)] = 0;
    queue.emplace(0.0, device);
  }
  while (!queue.empty()) {
    auto [d, device] = queue.top();
    queue.pop();
    if (d > distance[size_t(device)])
      continue;
    for (topo::LinkId id : topology.linksFrom(device)) {
      const topo::Link &link = topology.link(id);
      double candidate = d + link.latency;
      if (candidate < distance[size_t(link.dst)]) {
        distance[size_t(link.dst)] = candidate;
        source[size_t(link.dst)] = source[size_t(device)];
        queue.emplace(candidate, link.dst);
      }
    }
  }
  double best = inf;
  for (const topo::Link &link : topology.links()) {
    int a = source[size_t(link.src)], b = source[size_t(link.dst)];
    if (a < 0 || b < 0 || a == b)
      continue;
    double total =
        distance[size_t(link.src)] + link.latency + distance[size_t(link.dst)];
    if (total < best) {
      best = total;
      pair = topology.device(std::min(a, b)).name + " and " +
             topology.device(std::max(a, b)).name;
    }
  }
  return best;
}

} // namespace

BoundTerm latencyBound(const CollectiveSpec &spec,
                       const topo::Topology &topology,
                       const BoundOptions &options) {
  BoundTerm term;
  term.name = "latency";
  size_t n = spec.gpus.size();
  if (n < 2) {
    term.reason = "latency: a group of one rank moves nothing";
    return term;
  }
  double hop;
  int hops;
  std::string pair, why;
  if (spec.collective == sched::Collective::SendRecv) {
    topo::DeviceId from = topology.gpu(spec.gpus[size_t(spec.root)]);
    topo::DeviceId to = topology.gpu(spec.gpus[size_t(spec.peer)]);
    hop = topology.pathLatency(topology.shortestPath(from, to));
    hops = 1;
    pair = topology.device(from).name + " to " + topology.device(to).name;
    why = "1 hop";
  } else {
    hop = closestPair(topology, spec.gpus, pair);
    hops = 1;
    while (options.singlePort && (size_t(1) << hops) < n)
      ++hops;
    why = options.singlePort ? "ceil(log2 " + std::to_string(n) +
                                   ") = " + std::to_string(hops) + " hops"
                             : "1 hop (multi-port)";
  }
  term.seconds = hops * (hop + options.perHopOverhead);
  term.reason = "latency: " + why + " of " + formatSeconds(hop) +
                (options.perHopOverhead > 0
                     ? " + " + formatSeconds(options.perHopOverhead)
                     : std::string()) +
                " (" + pair + ")";
  return term;
}

} // namespace collc::bounds

//===- LatencyBound.cpp - the hops information must take ------------------===//
//
// Any schedule (the default): a rank that needs another rank's data waits
// at least for the cheapest path between their GPUs (relaying through other
// ranks only adds links), plus two fixed costs: the instruction that sends
// the data pays one before any byte moves, and the instruction that
// receives it starts when it has arrived and pays one before it completes. The
// bound is the largest such path over the pairs the collective needs: every
// ordered pair for the all-to-all-dependent collectives, root to every rank for
// broadcast and scatter, every rank to the root for reduce and gather. Paths
// come from a Dijkstra per source GPU over link latencies.
//
// Under the single-port model (a rank sends one message per step, as one
// channel does) the number of ranks holding (a contribution of) a given
// rank's data at most doubles per step: ceil(log2 N) steps, each at least
// one hop between two members. The smallest member-to-member latency comes
// from one multi-source Dijkstra (every link has a reverse twin with the
// same latency, so the graph is undirected): the closest pair of sources
// meets on a link whose ends were reached from different sources. That
// bound holds only for single-port schedules; a schedule that sends to
// every peer at once on several channels can beat it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Bounds/Bounds.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <tuple>

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

/// The cheapest path latency from `source` to every device.
std::vector<double> latenciesFrom(const topo::Topology &topology,
                                  topo::DeviceId source) {
  std::vector<double> distance(topology.devices().size(),
                               std::numeric_limits<double>::infinity());
  using Entry = std::pair<double, topo::DeviceId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  distance[size_t(source)] = 0;
  queue.emplace(0.0, source);
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
        queue.emplace(candidate, link.dst);
      }
    }
  }
  return distance;
}

/// The farthest pair (by cheapest path latency) among the (source, target)
/// group-rank pairs the collective needs, with its names. Paths are
/// symmetric (every link has a reverse twin), so a rooted collective needs
/// one search from the root.
struct FarthestPair {
  double latency = 0;
  int from = -1, to = -1;
};

FarthestPair farthestNeededPair(const CollectiveSpec &spec,
                                const topo::Topology &topology) {
  // Sweeps ask for the same group at every size: remember the answer.
  using Key = std::tuple<const topo::Topology *, int, int, int,
                         std::vector<int>, std::vector<bool>>;
  static std::map<Key, FarthestPair> cache;
  size_t n = spec.gpus.size();
  using sched::Collective;
  bool rooted = spec.collective == Collective::Broadcast ||
                spec.collective == Collective::Scatter ||
                spec.collective == Collective::Reduce ||
                spec.collective == Collective::Gather;
  std::vector<bool> needed; // all_to_all_v: the pairs with data
  if (spec.collective == Collective::AllToAllV &&
      spec.sendBytes.size() == n * n)
    for (double b : spec.sendBytes)
      needed.push_back(b > 0);
  Key key{&topology,
          int(spec.collective),
          rooted ? spec.root : -1,
          int(topology.devices().size()),
          spec.gpus,
          needed};
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  FarthestPair best;
  auto consider = [&](int s, int r, double latency) {
    if (s != r && latency > best.latency) {
      best.latency = latency;
      best.from = s;
      best.to = r;
    }
  };
  if (rooted) {
    std::vector<double> d =
        latenciesFrom(topology, topology.gpu(spec.gpus[size_t(spec.root)]));
    bool toRoot = spec.collective == Collective::Reduce ||
                  spec.collective == Collective::Gather;
    for (size_t r = 0; r < n; ++r) {
      double latency = d[size_t(topology.gpu(spec.gpus[r]))];
      if (toRoot)
        consider(int(r), spec.root, latency);
      else
        consider(spec.root, int(r), latency);
    }
  } else {
    // One search per distinct GPU.
    std::map<int, std::vector<double>> searched;
    for (size_t s = 0; s < n; ++s) {
      auto [it, fresh] = searched.try_emplace(spec.gpus[s]);
      if (fresh)
        it->second = latenciesFrom(topology, topology.gpu(spec.gpus[s]));
      const std::vector<double> &d = it->second;
      for (size_t r = 0; r < n; ++r)
        if (needed.empty() || needed[s * n + r])
          consider(int(s), int(r), d[size_t(topology.gpu(spec.gpus[r]))]);
    }
  }
  cache.emplace(std::move(key), best);
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
  } else if (options.singlePort) {
    hop = closestPair(topology, spec.gpus, pair);
    hops = 1;
    while ((size_t(1) << hops) < n)
      ++hops;
    why = "single-port, ceil(log2 " + std::to_string(n) +
          ") = " + std::to_string(hops) + " hops";
  } else {
    FarthestPair far = farthestNeededPair(spec, topology);
    hop = far.latency;
    hops = 1;
    if (far.from >= 0)
      pair = topology.device(topology.gpu(spec.gpus[size_t(far.from)])).name +
             " to " +
             topology.device(topology.gpu(spec.gpus[size_t(far.to)])).name;
    else
      pair = "all ranks share one GPU";
    why = "the farthest pair that must communicate, 1 hop";
  }
  // Every hop is a sending instruction's fixed cost and the path; the
  // last receiving instruction pays one more fixed cost after the arrival
  // (a forwarding instruction pays one for its receive and its send).
  term.seconds = hops * (hop + options.perHopOverhead) + options.perHopOverhead;
  term.reason =
      "latency: " + why + " of " + formatSeconds(hop) +
      (options.perHopOverhead > 0
           ? " + " + formatSeconds(options.perHopOverhead) + " fixed cost, + " +
                 formatSeconds(options.perHopOverhead) +
                 " for the receiving instruction"
           : std::string()) +
      " (" + pair + ")";
  return term;
}

} // namespace collc::bounds

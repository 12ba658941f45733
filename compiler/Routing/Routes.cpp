//===- Routes.cpp - the links a transfer between two GPUs takes -----------===//
#include "compiler/Routing/Routes.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace collc {

namespace {
/// Trees kept at once.
constexpr size_t kCachedTrees = 64;
} // namespace

Routes::Routes(const topo::Topology &topology)
    : topology_(topology), stride_(std::max(1, topology.gpusPerNode())) {}

const Routes::Tree &Routes::tree(topo::DeviceId from) {
  for (const std::unique_ptr<Tree> &t : trees_)
    if (t->source == from)
      return *t;
  size_t devices = topology_.devices().size();
  size_t states = devices * stride_;
  auto t = std::make_unique<Tree>();
  t->source = from;
  t->viaLink.assign(states, -1);
  t->prevState.assign(states, -1);
  t->best.assign(devices, -1);
  std::vector<double> latency(states, -1);
  std::vector<int> hops(states, 0);
  std::vector<bool> done(states, false);

  const topo::Device &source = topology_.device(from);
  int startLocal = source.kind == topo::DeviceKind::Gpu ? source.index : 0;
  // Dijkstra on (latency, hops, link id): the order of
  // Topology::shortestPath.
  using Key = std::tuple<double, int, int32_t, int32_t>; // .., link, state
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  int32_t start = state(from, startLocal);
  latency[start] = 0;
  queue.emplace(0.0, 0, -1, start);
  while (!queue.empty()) {
    auto [lat, hop, link, s] = queue.top();
    queue.pop();
    if (done[s])
      continue;
    done[s] = true;
    topo::DeviceId device = s / stride_;
    int lastGpu = s % stride_;
    if (t->best[device] < 0)
      t->best[device] = s;
    const topo::Device &here = topology_.device(device);
    for (topo::LinkId out : topology_.linksFrom(device)) {
      const topo::Link &l = topology_.link(out);
      const topo::Device &next = topology_.device(l.dst);
      // A NIC is entered from inside its node only with data from its own
      // GPU (when the file gives the affinity).
      if (next.kind == topo::DeviceKind::Nic &&
          here.kind != topo::DeviceKind::NetworkSwitch && here.node >= 0) {
        const topo::Node &node = topology_.node(here.node);
        if (lastGpu < static_cast<int>(node.gpus.size())) {
          topo::DeviceId gpu = node.gpus[lastGpu];
          topo::DeviceId affine = topology_.device(gpu).nic;
          if (affine >= 0 && affine != l.dst)
            continue;
        }
      }
      int nextLocal = next.kind == topo::DeviceKind::Gpu ? next.index : lastGpu;
      int32_t ns = state(l.dst, nextLocal);
      if (done[ns])
        continue;
      double candidate = lat + l.latency;
      if (latency[ns] < 0 || candidate < latency[ns] ||
          (candidate == latency[ns] && hop + 1 <= hops[ns])) {
        latency[ns] = candidate;
        hops[ns] = hop + 1;
        t->viaLink[ns] = out;
        t->prevState[ns] = s;
        queue.emplace(candidate, hop + 1, out, ns);
      }
    }
  }
  if (trees_.size() == kCachedTrees)
    trees_.pop_front();
  trees_.push_back(std::move(t));
  return *trees_.back();
}

const std::vector<topo::LinkId> &Routes::path(topo::DeviceId from,
                                              topo::DeviceId to) {
  scratch_.clear();
  if (from == to)
    return scratch_;
  const Tree &t = tree(from);
  int32_t s = t.best[to];
  if (s < 0) // unreachable: the loader rejects such topologies
    return scratch_;
  while (t.viaLink[s] >= 0) {
    scratch_.push_back(t.viaLink[s]);
    s = t.prevState[s];
  }
  std::reverse(scratch_.begin(), scratch_.end());
  return scratch_;
}

} // namespace collc

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

const Routes::Tree &Routes::tree(topo::DeviceId from, topo::DeviceId to) {
  Tree *t = nullptr;
  for (const std::unique_ptr<Tree> &cached : trees_)
    if (cached->source == from)
      t = cached.get();
  if (!t) {
    size_t devices = topology_.devices().size();
    size_t states = devices * stride_;
    auto fresh = std::make_unique<Tree>();
    fresh->source = from;
    fresh->viaLink.assign(states, -1);
    fresh->prevState.assign(states, -1);
    fresh->best.assign(devices, -1);
    fresh->latency.assign(states, -1);
    fresh->hops.assign(states, 0);
    fresh->done.assign(states, false);
    const topo::Device &source = topology_.device(from);
    int startLocal = source.kind == topo::DeviceKind::Gpu ? source.index : 0;
    int32_t start = state(from, startLocal);
    fresh->latency[start] = 0;
    fresh->queue.emplace(0.0, 0, -1, start);
    if (trees_.size() == kCachedTrees)
      trees_.pop_front();
    trees_.push_back(std::move(fresh));
    t = trees_.back().get();
  }
  // Dijkstra on (latency, hops, link id): the order of
  // Topology::shortestPath. It stops as soon as `to` is settled; states are
  // settled in the same order whether or not it stopped before.
  while (t->best[to] < 0 && !t->queue.empty()) {
    auto [lat, hop, link, s] = t->queue.top();
    t->queue.pop();
    if (t->done[s])
      continue;
    t->done[s] = true;
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
      if (t->done[ns])
        continue;
      double candidate = lat + l.latency;
      if (t->latency[ns] < 0 || candidate < t->latency[ns] ||
          (candidate == t->latency[ns] && hop + 1 <= t->hops[ns])) {
        t->latency[ns] = candidate;
        t->hops[ns] = hop + 1;
        t->viaLink[ns] = out;
        t->prevState[ns] = s;
        t->queue.emplace(candidate, hop + 1, out, ns);
      }
    }
  }
  return *t;
}

const std::vector<topo::LinkId> &Routes::path(topo::DeviceId from,
                                              topo::DeviceId to) {
  scratch_.clear();
  if (from == to)
    return scratch_;
  const Tree &t = tree(from, to);
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

//===- Routes.cpp - the links a transfer between two GPUs takes -----------===//
#include "compiler/Routing/Routes.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

namespace collc {

namespace {
/// Trees kept at once.
constexpr size_t kCachedTrees = 64;

/// splitmix64's finalizer: the ECMP hash.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

int64_t picoseconds(double seconds) { return std::llround(seconds * 1e12); }
} // namespace

Routes::Routes(const topo::Topology &topology)
    : topology_(topology), stride_(std::max(1, topology.gpusPerNode())),
      networkTrees_(topology.devices().size()),
      toNic_(topology.devices().size()), fromNic_(topology.devices().size()) {}

const Routes::Tree &Routes::tree(topo::DeviceId from, topo::DeviceId to,
                                 bool relayFirst) {
  Tree *t = nullptr;
  for (const std::unique_ptr<Tree> &cached : trees_)
    if (cached->source == from && cached->relayFirst == relayFirst)
      t = cached.get();
  if (!t) {
    size_t devices = topology_.devices().size();
    size_t states = devices * stride_;
    auto fresh = std::make_unique<Tree>();
    fresh->source = from;
    fresh->relayFirst = relayFirst;
    fresh->viaLink.assign(states, -1);
    fresh->prevState.assign(states, -1);
    fresh->best.assign(devices, -1);
    fresh->latency.assign(states, -1);
    fresh->relays.assign(states, 0);
    fresh->hops.assign(states, 0);
    fresh->done.assign(states, false);
    const topo::Device &source = topology_.device(from);
    int startLocal = source.kind == topo::DeviceKind::Gpu ? source.index : 0;
    int32_t start = state(from, startLocal);
    fresh->latency[start] = 0;
    fresh->queue.emplace(0, 0.0, 0, -1, start);
    if (trees_.size() == kCachedTrees)
      trees_.pop_front();
    trees_.push_back(std::move(fresh));
    t = trees_.back().get();
  }
  // Dijkstra on (relays, latency, hops, link id). It stops as soon as `to`
  // is settled; states are settled in the same order whether or not it
  // stopped before.
  while (t->best[to] < 0 && !t->queue.empty()) {
    auto [relay, lat, hop, link, s] = t->queue.top();
    t->queue.pop();
    if (t->done[s])
      continue;
    t->done[s] = true;
    topo::DeviceId device = s / stride_;
    int lastGpu = s % stride_;
    if (t->best[device] < 0)
      t->best[device] = s;
    const topo::Device &here = topology_.device(device);
    // Leaving a GPU that is not the source passes through it.
    int nextRelay = t->relayFirst
                        ? relay + (here.kind == topo::DeviceKind::Gpu &&
                                   device != t->source)
                        : 0;
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
      bool better = t->latency[ns] < 0 || nextRelay < t->relays[ns] ||
                    (nextRelay == t->relays[ns] &&
                     (candidate < t->latency[ns] ||
                      (candidate == t->latency[ns] && hop + 1 <= t->hops[ns])));
      if (better) {
        t->latency[ns] = candidate;
        t->relays[ns] = nextRelay;
        t->hops[ns] = hop + 1;
        t->viaLink[ns] = out;
        t->prevState[ns] = s;
        t->queue.emplace(nextRelay, candidate, hop + 1, out, ns);
      }
    }
  }
  return *t;
}

bool Routes::searched(topo::DeviceId from, topo::DeviceId to, bool relayFirst,
                      std::vector<topo::LinkId> &out) {
  const Tree &t = tree(from, to, relayFirst);
  int32_t s = t.best[to];
  if (s < 0) // unreachable: the loader rejects such topologies
    return false;
  size_t begin = out.size();
  while (t.viaLink[s] >= 0) {
    out.push_back(t.viaLink[s]);
    s = t.prevState[s];
  }
  std::reverse(out.begin() + begin, out.end());
  return true;
}

const Routes::NetworkTree &Routes::networkTree(topo::DeviceId nic) {
  std::unique_ptr<NetworkTree> &slot = networkTrees_[size_t(nic)];
  if (slot)
    return *slot;
  slot = std::make_unique<NetworkTree>();
  NetworkTree &t = *slot;
  size_t devices = topology_.devices().size();
  t.picoseconds.assign(devices, -1);
  t.hops.assign(devices, 0);
  using Entry = std::tuple<int64_t, int32_t, topo::DeviceId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  t.picoseconds[size_t(nic)] = 0;
  queue.emplace(0, 0, nic);
  while (!queue.empty()) {
    auto [ps, hops, device] = queue.top();
    queue.pop();
    if (ps != t.picoseconds[size_t(device)] || hops != t.hops[size_t(device)])
      continue;
    // Only the source NIC and network switches forward.
    if (device != nic &&
        topology_.device(device).kind != topo::DeviceKind::NetworkSwitch)
      continue;
    for (topo::LinkId out : topology_.linksFrom(device)) {
      const topo::Link &l = topology_.link(out);
      topo::DeviceKind kind = topology_.device(l.dst).kind;
      if (kind != topo::DeviceKind::NetworkSwitch &&
          kind != topo::DeviceKind::Nic)
        continue;
      int64_t next = ps + picoseconds(l.latency);
      int64_t &known = t.picoseconds[size_t(l.dst)];
      int32_t &knownHops = t.hops[size_t(l.dst)];
      if (known < 0 || next < known ||
          (next == known && hops + 1 < knownHops)) {
        known = next;
        knownHops = hops + 1;
        queue.emplace(next, hops + 1, l.dst);
      }
    }
  }
  return t;
}

bool Routes::networkPath(topo::DeviceId from, topo::DeviceId to, uint64_t hash,
                         std::vector<topo::LinkId> &out) {
  const NetworkTree &t = networkTree(from);
  if (t.picoseconds[size_t(to)] < 0)
    return false;
  // Back from `to`: at each device, the links into it that lie on a
  // least-cost path, one picked by the pair's hash and the device.
  std::vector<topo::LinkId> back;
  std::vector<topo::LinkId> candidates;
  for (topo::DeviceId v = to; v != from;) {
    candidates.clear();
    for (topo::LinkId r : topology_.linksFrom(v)) {
      topo::LinkId in = topology_.link(r).reverse;
      const topo::Link &l = topology_.link(in);
      topo::DeviceId u = l.src;
      if (u != from &&
          topology_.device(u).kind != topo::DeviceKind::NetworkSwitch)
        continue;
      if (t.picoseconds[size_t(u)] < 0 ||
          t.picoseconds[size_t(u)] + picoseconds(l.latency) !=
              t.picoseconds[size_t(v)] ||
          t.hops[size_t(u)] + 1 != t.hops[size_t(v)])
        continue;
      candidates.push_back(in);
    }
    if (candidates.empty()) // cannot happen on a settled tree
      return false;
    std::sort(candidates.begin(), candidates.end());
    topo::LinkId pick =
        candidates[size_t(mix(hash ^ uint64_t(v)) % candidates.size())];
    back.push_back(pick);
    v = topology_.link(pick).src;
  }
  out.insert(out.end(), back.rbegin(), back.rend());
  return true;
}

namespace {
/// Whether `links` stay inside node `node` and pass through no GPU.
bool inNodeWithoutRelay(const topo::Topology &topology,
                        const std::vector<topo::LinkId> &links, int node) {
  for (size_t i = 0; i < links.size(); ++i) {
    const topo::Device &d = topology.device(topology.link(links[i]).dst);
    if (d.node != node)
      return false;
    if (i + 1 < links.size() && d.kind == topo::DeviceKind::Gpu)
      return false;
  }
  return true;
}
} // namespace

const Routes::Local &Routes::nicLeg(topo::DeviceId gpu, bool out) {
  Local &local = (out ? toNic_ : fromNic_)[size_t(gpu)];
  if (local.known)
    return local;
  local.known = true;
  if (!out) {
    // Every link has a reverse twin with the same figures: the way in is
    // the way out backwards (no search from the NIC).
    const Local &way = nicLeg(gpu, true);
    local.ok = way.ok;
    for (auto l = way.links.rbegin(); l != way.links.rend(); ++l)
      local.links.push_back(topology_.link(*l).reverse);
    return local;
  }
  const topo::Device &g = topology_.device(gpu);
  local.ok = searched(gpu, g.nic, true, local.links) &&
             inNodeWithoutRelay(topology_, local.links, g.node);
  return local;
}

const std::vector<topo::LinkId> &Routes::path(topo::DeviceId from,
                                              topo::DeviceId to) {
  scratch_.clear();
  if (from == to)
    return scratch_;
  const topo::Device &a = topology_.device(from);
  const topo::Device &b = topology_.device(to);
  if (a.kind == topo::DeviceKind::Gpu && b.kind == topo::DeviceKind::Gpu &&
      a.node != b.node && a.nic >= 0 && b.nic >= 0) {
    // NIC to NIC, as the ib transport connects them.
    const Local &up = toNic(from);
    const Local &down = fromNic(to);
    if (up.ok && down.ok) {
      scratch_ = up.links;
      uint64_t pair = (uint64_t(uint32_t(from)) << 32) | uint32_t(to);
      if (networkPath(a.nic, b.nic, mix(pair), scratch_)) {
        scratch_.insert(scratch_.end(), down.links.begin(), down.links.end());
        return scratch_;
      }
      scratch_.clear();
    }
    if (down.ok && pxn(from, to, scratch_))
      return scratch_;
    scratch_.clear();
  }
  // Within a node (or between non-GPU devices): fewest relays first.
  bool sameNode = a.node >= 0 && a.node == b.node;
  (void)searched(from, to, sameNode, scratch_);
  return scratch_;
}

bool Routes::pxn(topo::DeviceId from, topo::DeviceId to,
                 std::vector<topo::LinkId> &out) {
  const topo::Device &a = topology_.device(from);
  const topo::Device &b = topology_.device(to);
  uint64_t pair = (uint64_t(uint32_t(from)) << 32) | uint32_t(to);
  // The GPU of the source's node nearest to it whose NIC the network joins
  // to the destination's.
  topo::DeviceId relay = -1;
  double nearest = 0;
  std::vector<topo::LinkId> hop;
  for (topo::DeviceId g : topology_.node(a.node).gpus) {
    const topo::Device &candidate = topology_.device(g);
    if (g == from || candidate.nic < 0 ||
        networkTree(candidate.nic).picoseconds[size_t(b.nic)] < 0 ||
        !toNic(g).ok)
      continue;
    hop.clear();
    if (!searched(from, g, true, hop) ||
        !inNodeWithoutRelay(topology_, hop, a.node))
      continue;
    double latency = 0;
    for (topo::LinkId l : hop)
      latency += topology_.link(l).latency;
    if (relay < 0 || latency < nearest) {
      relay = g;
      nearest = latency;
    }
  }
  if (relay < 0)
    return false;
  out.clear();
  (void)searched(from, relay, true, out);
  const Local &up = toNic(relay);
  out.insert(out.end(), up.links.begin(), up.links.end());
  if (!networkPath(topology_.device(relay).nic, b.nic, mix(pair), out))
    return false;
  const Local &down = fromNic(to);
  out.insert(out.end(), down.links.begin(), down.links.end());
  return true;
}

int Routes::relays(topo::DeviceId from, topo::DeviceId to) {
  const std::vector<topo::LinkId> &links = path(from, to);
  int count = 0;
  for (size_t i = 0; i + 1 < links.size(); ++i)
    count += topology_.device(topology_.link(links[i]).dst).kind ==
             topo::DeviceKind::Gpu;
  return count;
}

} // namespace collc

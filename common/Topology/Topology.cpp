//===- Topology.cpp - queries on the device/link graph --------------------===//
#include "common/Topology/Topology.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <tuple>

namespace collc::topo {

const char *deviceKindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Gpu:
    return "GPU";
  case DeviceKind::NvSwitch:
    return "NVSwitch";
  case DeviceKind::PcieSwitch:
    return "PCIe switch";
  case DeviceKind::Cpu:
    return "CPU";
  case DeviceKind::Nic:
    return "NIC";
  case DeviceKind::NetworkSwitch:
    return "network switch";
  }
  return "device";
}

const char *linkKindName(LinkKind kind) {
  switch (kind) {
  case LinkKind::Fabric:
    return "fabric";
  case LinkKind::Pcie:
    return "PCIe";
  case LinkKind::InterSocket:
    return "inter-socket";
  case LinkKind::Network:
    return "network";
  }
  return "link";
}

DeviceId Topology::gpu(int rank) const {
  assert(rank >= 0 && rank < numGpus() && "rank out of range");
  return gpuByRank_[rank];
}

int Topology::nodeOf(int rank) const { return devices_[gpu(rank)].node; }

const Device &Topology::device(DeviceId device) const {
  assert(device >= 0 && device < static_cast<int>(devices_.size()));
  return devices_[device];
}

const Link &Topology::link(LinkId link) const {
  assert(link >= 0 && link < static_cast<int>(links_.size()));
  return links_[link];
}

const std::vector<LinkId> &Topology::linksFrom(DeviceId device) const {
  assert(device >= 0 && device < static_cast<int>(devices_.size()));
  return linksFrom_[device];
}

const Node &Topology::node(int node) const {
  assert(node >= 0 && node < numNodes());
  return nodes_[node];
}

std::vector<LinkId> Topology::shortestPath(DeviceId from, DeviceId to) const {
  assert(from >= 0 && from < static_cast<int>(devices_.size()));
  assert(to >= 0 && to < static_cast<int>(devices_.size()));
  if (from == to)
    return {};
  // Dijkstra on (latency in whole picoseconds, hops): integer sums make
  // equal-latency paths compare equal, so the hop tie-break is exact.
  using Cost = std::pair<int64_t, int64_t>;
  const Cost unreached{std::numeric_limits<int64_t>::max(), 0};
  std::vector<Cost> best(devices_.size(), unreached);
  std::vector<LinkId> via(devices_.size(), -1);
  using Entry = std::tuple<int64_t, int64_t, DeviceId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  best[from] = {0, 0};
  queue.emplace(0, 0, from);
  while (!queue.empty()) {
    auto [latency, hops, device] = queue.top();
    queue.pop();
    if (Cost{latency, hops} != best[device])
      continue;
    if (device == to)
      break;
    for (LinkId id : linksFrom_[device]) {
      const Link &l = links_[id];
      Cost next{latency + std::llround(l.latency * 1e12), hops + 1};
      if (next < best[l.dst]) {
        best[l.dst] = next;
        via[l.dst] = id;
        queue.emplace(next.first, next.second, l.dst);
      }
    }
  }
  if (via[to] < 0)
    return {};
  std::vector<LinkId> path;
  for (DeviceId device = to; device != from; device = links_[via[device]].src)
    path.push_back(via[device]);
  return std::vector<LinkId>(path.rbegin(), path.rend());
}

double Topology::pathLatency(const std::vector<LinkId> &path) const {
  double latency = 0;
  for (LinkId id : path)
    latency += link(id).latency;
  return latency;
}

double Topology::bottleneckBandwidth(DeviceId from, DeviceId to) const {
  assert(from >= 0 && from < static_cast<int>(devices_.size()));
  assert(to >= 0 && to < static_cast<int>(devices_.size()));
  if (from == to)
    return std::numeric_limits<double>::infinity();
  // Widest path: Dijkstra that maximizes the smallest bandwidth so far.
  std::vector<double> widest(devices_.size(), 0);
  std::priority_queue<std::pair<double, DeviceId>> queue;
  widest[from] = std::numeric_limits<double>::infinity();
  queue.emplace(widest[from], from);
  while (!queue.empty()) {
    auto [width, device] = queue.top();
    queue.pop();
    if (width != widest[device])
      continue;
    if (device == to)
      return width;
    for (LinkId id : linksFrom_[device]) {
      const Link &l = links_[id];
      double next = std::min(width, l.bandwidth);
      if (next > widest[l.dst]) {
        widest[l.dst] = next;
        queue.emplace(next, l.dst);
      }
    }
  }
  return 0;
}

double Topology::egressBandwidth(int node) const {
  assert(node >= 0 && node < numNodes());
  double total = 0;
  for (DeviceId device : nodes_[node].devices)
    for (LinkId id : linksFrom_[device])
      if (devices_[links_[id].dst].node != node)
        total += links_[id].bandwidth;
  return total;
}

double Topology::cutBandwidth(const std::vector<DeviceId> &set) const {
  std::vector<bool> inside(devices_.size(), false);
  for (DeviceId device : set) {
    assert(device >= 0 && device < static_cast<int>(devices_.size()));
    inside[device] = true;
  }
  double total = 0;
  for (const Link &l : links_)
    if (inside[l.src] && !inside[l.dst])
      total += l.bandwidth;
  return total;
}

std::optional<DeviceId> Topology::nicOf(int rank) const {
  DeviceId nic = devices_[gpu(rank)].nic;
  if (nic < 0)
    return std::nullopt;
  return nic;
}

int Topology::gpuNuma(int rank) const { return devices_[gpu(rank)].numa; }

const GpuModel &Topology::gpuModel(int rank) const {
  return gpuModels_[devices_[gpu(rank)].gpuModel];
}

std::optional<double> Topology::gpuPeakFlops(int rank,
                                             const std::string &dtype) const {
  const GpuModel &model = gpuModel(rank);
  auto it = model.peakFlops.find(dtype);
  if (it == model.peakFlops.end())
    return std::nullopt;
  return it->second;
}

double Topology::gpuMemoryBandwidth(int rank) const {
  return gpuModel(rank).memoryBandwidth;
}

} // namespace collc::topo

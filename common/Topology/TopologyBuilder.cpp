//===- TopologyBuilder.cpp - expand a checked spec into the graph ---------===//
//
// Drives the expansion of a TopologySpec into devices and directed links
// (every link with its reverse twin), and checks the rules that need the
// whole topology: sizes, equal GPU counts, a way out of every node,
// connectivity.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/TopologyBuilder.h"
#include "common/Topology/JsonAccess.h"

namespace collc::topo {

using detail::fail;
using detail::formatNumber;
using detail::quote;

void TopologyBuilder::checkSizes() const {
  int64_t gpus = 0, devices = 0, links = 0;
  for (const detail::NodeInstance &node : spec_.nodes) {
    const detail::NodeSpec &spec = spec_.nodeSpecs[node.spec];
    int64_t pcieDevices =
        spec.pcie.present ? spec.numaNodes + spec.pcie.switches.size() : 0;
    gpus += spec.gpuCount;
    devices += spec.gpuCount + 1 + pcieDevices + spec.nics.size();
    links +=
        2 * (spec.gpuCount * int64_t(spec.fabric.dims.size() + 1) +
             spec.fabric.mesh.size() + pcieDevices + spec.gpuCount +
             spec.nics.size() * 2 + int64_t(spec.numaNodes) * spec.numaNodes);
  }
  auto check = [&](int64_t value, int64_t max, const char *what) {
    if (value > max)
      fail(spec_.nodesPath, "the topology has " + std::to_string(value) + " " +
                                what + "; at most " + std::to_string(max) +
                                " are supported");
  };
  check(gpus, detail::kMaxGpus, "GPUs");
  check(devices, detail::kMaxDevices, "devices");
  check(links, detail::kMaxLinks, "links (estimated)");
}

void TopologyBuilder::checkNodesAgree() const {
  const detail::NodeInstance &first = spec_.nodes[0];
  for (std::size_t i = 1; i < spec_.nodes.size(); ++i) {
    const detail::NodeInstance &node = spec_.nodes[i];
    int gpus = specOf(i).gpuCount, firstGpus = specOf(0).gpuCount;
    if (gpus != firstGpus)
      fail(node.path, "node " + quote(node.name) + " has " +
                          std::to_string(gpus) + " GPUs but node " +
                          quote(first.name) + " has " +
                          std::to_string(firstGpus) +
                          "; every node must have the same number of GPUs");
  }
  const detail::NetworkSpec &network = spec_.network;
  if (network.kind == NetworkKind::None && spec_.nodes.size() > 1)
    fail(network.path, "network type \"none\" allows only 1 node, but there "
                       "are " +
                           std::to_string(spec_.nodes.size()));
  if (network.kind == NetworkKind::None)
    return;
  std::string type =
      network.kind == NetworkKind::RailOptimized ? "rail" : "fat_tree";
  for (std::size_t i = 0; i < spec_.nodes.size(); ++i) {
    const detail::NodeSpec &spec = specOf(i);
    if (spec.nics.empty())
      fail(spec.nicsPath, "network type " + quote(type) +
                              " needs NICs, but node " +
                              quote(spec_.nodes[i].name) + " has none");
    if (network.kind == NetworkKind::RailOptimized &&
        spec.nics.size() != specOf(0).nics.size())
      fail(spec_.nodes[i].path,
           "node " + quote(spec_.nodes[i].name) + " has " +
               std::to_string(spec.nics.size()) + " NICs but node " +
               quote(first.name) + " has " +
               std::to_string(specOf(0).nics.size()) +
               "; a rail network needs the same number of NICs in every "
               "node (NIC i of every node is on rail i)");
  }
}

void TopologyBuilder::checkWayOut() const {
  if (spec_.nodes.size() < 2)
    return;
  for (const detail::NodeInstance &node : spec_.nodes) {
    const detail::NodeSpec &spec = spec_.nodeSpecs[node.spec];
    std::vector<bool> hasNic(spec.gpuCount, false);
    for (const detail::NicSpec &nic : spec.nics)
      for (int gpu : nic.gpus)
        hasNic[gpu] = true;
    for (int gpu = 0; gpu < spec.gpuCount; ++gpu)
      if (!hasNic[gpu])
        fail(spec.nicsPath,
             "GPU " + std::to_string(gpu) +
                 " has no NIC, so it has no way out of its node in a "
                 "multi-node topology; list it in the \"gpus\" of a NIC");
  }
}

DeviceId TopologyBuilder::addDevice(Device device) {
  topo_->devices_.push_back(std::move(device));
  topo_->linksFrom_.emplace_back();
  return static_cast<DeviceId>(topo_->devices_.size()) - 1;
}

void TopologyBuilder::addLinkPair(DeviceId a, DeviceId b, LinkKind kind,
                                  detail::LinkRef ref, double bandwidth) {
  const LinkType &type = topo_->linkTypes_[ref.type];
  Link link;
  link.kind = kind;
  link.type = ref.type;
  link.lanes = ref.lanes;
  link.bandwidth = bandwidth > 0 ? bandwidth : type.bandwidth * ref.lanes;
  link.latency = type.latency;
  LinkId forward = static_cast<LinkId>(topo_->links_.size());
  for (auto [src, dst] : {std::make_pair(a, b), std::make_pair(b, a)}) {
    link.src = src;
    link.dst = dst;
    link.reverse = src == a ? forward + 1 : forward;
    topo_->linksFrom_[src].push_back(static_cast<LinkId>(topo_->links_.size()));
    topo_->links_.push_back(link);
  }
}

void TopologyBuilder::checkConnected() const {
  const std::vector<Device> &devices = topo_->devices_;
  std::vector<bool> reached(devices.size(), false);
  DeviceId start = topo_->gpuByRank_[0];
  std::vector<DeviceId> work = {start};
  reached[start] = true;
  while (!work.empty()) {
    DeviceId device = work.back();
    work.pop_back();
    for (LinkId link : topo_->linksFrom_[device]) {
      DeviceId next = topo_->links_[link].dst;
      if (!reached[next]) {
        reached[next] = true;
        work.push_back(next);
      }
    }
  }
  // The cut that no link crosses: the GPUs reached from the first one
  // against the others (at most 4 of each named).
  auto names = [&](bool side) {
    std::string out;
    size_t count = 0;
    for (DeviceId gpu : topo_->gpuByRank_)
      if (reached[gpu] == side && count++ < 4)
        out += (out.empty() ? "" : ", ") + devices[gpu].name;
    if (count > 4)
      out += ", ... (" + std::to_string(count) + " GPUs)";
    return "{" + out + "}";
  };
  for (DeviceId gpu : topo_->gpuByRank_)
    if (!reached[gpu])
      fail(specOf(devices[gpu].node).fabric.path,
           "GPU " + devices[gpu].name + " cannot reach GPU " +
               devices[start].name +
               "; the graph is disconnected: no link crosses the cut " +
               names(true) + " | " + names(false) +
               ", so no schedule can move data across it");
  for (std::size_t d = 0; d < devices.size(); ++d)
    if (!reached[d])
      fail(spec_.nodesPath, std::string(deviceKindName(devices[d].kind)) + " " +
                                devices[d].name + " cannot reach GPU " +
                                devices[start].name +
                                "; the graph is disconnected");
}

std::unique_ptr<Topology> TopologyBuilder::build() {
  checkSizes();
  checkNodesAgree();
  checkWayOut();
  topo_.reset(new Topology());
  topo_->name_ = spec_.name;
  topo_->description_ = spec_.description;
  topo_->linkTypes_ = spec_.linkTypes;
  topo_->gpuModels_ = spec_.gpuModels;
  topo_->gpusPerNode_ = specOf(0).gpuCount;
  for (std::size_t n = 0; n < spec_.nodes.size(); ++n)
    addNode(static_cast<int>(n));
  addNetwork();
  checkConnected();
  return std::move(topo_);
}

namespace detail {
std::unique_ptr<Topology> buildTopology(const TopologySpec &spec) {
  return TopologyBuilder(spec).build();
}
} // namespace detail

} // namespace collc::topo

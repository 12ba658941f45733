//===- TopologyBuilder.cpp - expand a checked spec into the graph ---------===//
//
// Turns node bodies and the network description into explicit devices and
// directed links (every link with its reverse twin), and checks the rules
// that need the whole topology: sizes, equal GPU counts, a way out of every
// node, connectivity.
//
//===----------------------------------------------------------------------===//
#include "compiler/Topology/JsonAccess.h"
#include "compiler/Topology/TopologySpec.h"

#include <map>

namespace collc::topo {

using detail::fail;
using detail::formatNumber;
using detail::quote;

/// Builds a Topology from a TopologySpec; a friend of Topology.
class TopologyBuilder {
public:
  explicit TopologyBuilder(const detail::TopologySpec &spec) : spec_(spec) {}
  std::unique_ptr<Topology> build();

private:
  const detail::NodeSpec &specOf(int node) const {
    return spec_.nodeSpecs[spec_.nodes[node].spec];
  }
  void checkSizes() const;
  void checkNodesAgree() const;
  void checkWayOut() const;
  void addNode(int node);
  void addFabric(int node);
  void addPcie(int node);
  void addNetwork();
  void addRails();
  void addFatTree();
  void checkConnected() const;
  std::string fabricSummary(const detail::NodeSpec &spec) const;

  DeviceId addDevice(Device device);
  void addLinkPair(DeviceId a, DeviceId b, LinkKind kind, detail::LinkRef ref,
                   double bandwidth = 0);

  const detail::TopologySpec &spec_;
  std::unique_ptr<Topology> topo_;
};

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

std::string TopologyBuilder::fabricSummary(const detail::NodeSpec &spec) const {
  const detail::FabricSpec &fabric = spec.fabric;
  if (fabric.kind == FabricKind::Pcie)
    return "PCIe only";
  const LinkType &type = topo_->linkTypes_[fabric.link.type];
  std::string lanes = " x" + std::to_string(fabric.link.lanes);
  if (fabric.kind == FabricKind::NvSwitch)
    return "nvswitch, " + type.name + lanes + " per GPU (" +
           formatNumber(type.bandwidth * fabric.link.lanes / 1e9) +
           " GB/s per direction)";
  if (fabric.kind == FabricKind::Mesh) {
    std::vector<int> perGpu(spec.gpuCount, 0);
    for (const detail::MeshLinkSpec &link : fabric.mesh) {
      perGpu[link.a] += link.lanes;
      perGpu[link.b] += link.lanes;
    }
    int least = perGpu[0], most = perGpu[0];
    for (int lanesOfGpu : perGpu) {
      least = std::min(least, lanesOfGpu);
      most = std::max(most, lanesOfGpu);
    }
    return "mesh of " + type.name + ", " + std::to_string(fabric.mesh.size()) +
           " GPU pairs, " + std::to_string(least) +
           (least == most ? "" : "-" + std::to_string(most)) + " lanes per GPU";
  }
  std::string shape, wrapped;
  bool all = true, none = true;
  for (std::size_t d = 0; d < fabric.dims.size(); ++d) {
    shape += (d ? "x" : "") + std::to_string(fabric.dims[d]);
    all = all && fabric.wraparound[d];
    none = none && !fabric.wraparound[d];
    if (fabric.wraparound[d])
      wrapped += (wrapped.empty() ? "" : ", ") + std::to_string(d);
  }
  return shape + " torus of " + type.name + lanes + ", " +
         (all    ? std::string("wraparound")
          : none ? std::string("no wraparound")
                 : "wraparound in dims " + wrapped);
}

void TopologyBuilder::addNode(int index) {
  const detail::NodeSpec &spec = specOf(index);
  const std::string &name = spec_.nodes[index].name;
  Node node;
  node.name = name;
  node.fabric = spec.fabric.kind;
  node.fabricSummary = fabricSummary(spec);
  node.numaNodes = spec.numaNodes;
  auto make = [&](DeviceKind kind, const std::string &local, int localIndex,
                  int numa) {
    Device device;
    device.kind = kind;
    device.name = name + "/" + local;
    device.node = index;
    device.index = localIndex;
    device.numa = numa;
    return device;
  };
  for (int g = 0; g < spec.gpuCount; ++g) {
    Device gpu =
        make(DeviceKind::Gpu, "gpu" + std::to_string(g), g, spec.gpuNuma[g]);
    gpu.rank = static_cast<int>(topo_->gpuByRank_.size());
    gpu.gpuModel = spec.gpuModel;
    node.gpus.push_back(addDevice(std::move(gpu)));
    topo_->gpuByRank_.push_back(node.gpus.back());
  }
  if (spec.fabric.kind == FabricKind::NvSwitch)
    node.nvSwitch = addDevice(make(DeviceKind::NvSwitch, "nvswitch", 0, -1));
  if (spec.pcie.present)
    for (int c = 0; c < spec.numaNodes; ++c)
      node.cpus.push_back(
          addDevice(make(DeviceKind::Cpu, "cpu" + std::to_string(c), c, c)));
  for (std::size_t s = 0; s < spec.pcie.switches.size(); ++s) {
    const detail::PcieSwitchSpec &sw = spec.pcie.switches[s];
    node.pcieSwitches.push_back(addDevice(
        make(DeviceKind::PcieSwitch, sw.name, static_cast<int>(s), sw.numa)));
  }
  for (std::size_t n = 0; n < spec.nics.size(); ++n) {
    const detail::NicSpec &nic = spec.nics[n];
    Device device =
        make(DeviceKind::Nic, nic.name, static_cast<int>(n), nic.numa);
    device.portType = nic.linkType;
    DeviceId id = addDevice(std::move(device));
    node.nics.push_back(id);
    for (int gpu : nic.gpus)
      topo_->devices_[node.gpus[gpu]].nic = id;
  }
  for (DeviceId id = node.gpus.front();
       id < static_cast<DeviceId>(topo_->devices_.size()); ++id)
    node.devices.push_back(id);
  topo_->nodes_.push_back(std::move(node));
  addFabric(index);
  addPcie(index);
}

void TopologyBuilder::addFabric(int index) {
  const detail::FabricSpec &fabric = specOf(index).fabric;
  const Node &node = topo_->nodes_[index];
  switch (fabric.kind) {
  case FabricKind::Pcie:
    return;
  case FabricKind::NvSwitch:
    for (DeviceId gpu : node.gpus)
      addLinkPair(gpu, node.nvSwitch, LinkKind::Fabric, fabric.link);
    return;
  case FabricKind::Mesh:
    for (const detail::MeshLinkSpec &link : fabric.mesh)
      addLinkPair(node.gpus[link.a], node.gpus[link.b], LinkKind::Fabric,
                  {fabric.link.type, link.lanes});
    return;
  case FabricKind::Torus:
    break;
  }
  // Torus: local index = row-major coordinates (the last dim varies
  // fastest). Each GPU links to its +1 neighbour in every dim; with
  // wraparound the last wraps to the first (not for a dim of 2, whose two
  // GPUs are already neighbours).
  int stride = 1;
  for (std::size_t d = fabric.dims.size(); d-- > 0;) {
    int dim = fabric.dims[d];
    for (std::size_t g = 0; g < node.gpus.size(); ++g) {
      int coordinate = (static_cast<int>(g) / stride) % dim;
      int neighbour;
      if (coordinate + 1 < dim)
        neighbour = static_cast<int>(g) + stride;
      else if (fabric.wraparound[d] && dim > 2)
        neighbour = static_cast<int>(g) - coordinate * stride;
      else
        continue;
      addLinkPair(node.gpus[g], node.gpus[neighbour], LinkKind::Fabric,
                  fabric.link);
    }
    stride *= dim;
  }
}

void TopologyBuilder::addPcie(int index) {
  const detail::NodeSpec &spec = specOf(index);
  const Node &node = topo_->nodes_[index];
  if (!spec.pcie.present)
    return;
  detail::LinkRef pcie{spec.pcie.linkType, 1};
  std::vector<DeviceId> parentOfGpu(spec.gpuCount, -1);
  for (std::size_t s = 0; s < spec.pcie.switches.size(); ++s) {
    const detail::PcieSwitchSpec &sw = spec.pcie.switches[s];
    DeviceId up =
        sw.parent >= 0 ? node.pcieSwitches[sw.parent] : node.cpus[sw.numa];
    addLinkPair(node.pcieSwitches[s], up, LinkKind::Pcie, pcie);
    for (int gpu : sw.gpus)
      parentOfGpu[gpu] = node.pcieSwitches[s];
  }
  for (int g = 0; g < spec.gpuCount; ++g)
    addLinkPair(node.gpus[g],
                parentOfGpu[g] >= 0 ? parentOfGpu[g]
                                    : node.cpus[spec.gpuNuma[g]],
                LinkKind::Pcie, pcie);
  for (std::size_t n = 0; n < spec.nics.size(); ++n) {
    const detail::NicSpec &nic = spec.nics[n];
    addLinkPair(node.nics[n],
                nic.pcieSwitch >= 0 ? node.pcieSwitches[nic.pcieSwitch]
                                    : node.cpus[nic.numa],
                LinkKind::Pcie, pcie);
  }
  for (int a = 0; a < spec.numaNodes; ++a)
    for (int b = a + 1; b < spec.numaNodes; ++b)
      addLinkPair(node.cpus[a], node.cpus[b], LinkKind::InterSocket,
                  spec.interSocket);
}

void TopologyBuilder::addNetwork() {
  topo_->networkKind_ = spec_.network.kind;
  if (spec_.network.kind == NetworkKind::RailOptimized)
    return addRails();
  if (spec_.network.kind == NetworkKind::FatTree)
    return addFatTree();
  topo_->networkSummary_ = "none";
}

/// NIC i of every node on rail switch i; rail switches optionally under one
/// spine switch.
void TopologyBuilder::addRails() {
  std::size_t rails = specOf(0).nics.size();
  std::vector<DeviceId> railSwitches;
  for (std::size_t r = 0; r < rails; ++r) {
    Device rail;
    rail.kind = DeviceKind::NetworkSwitch;
    rail.name = "rail" + std::to_string(r);
    rail.index = static_cast<int>(r);
    railSwitches.push_back(addDevice(std::move(rail)));
  }
  for (std::size_t n = 0; n < spec_.nodes.size(); ++n)
    for (std::size_t r = 0; r < rails; ++r)
      addLinkPair(topo_->nodes_[n].nics[r], railSwitches[r], LinkKind::Network,
                  {specOf(n).nics[r].linkType, 1});
  std::string summary = "rail-optimized, " + std::to_string(rails) +
                        " rail switch" + (rails == 1 ? "" : "es");
  const detail::LinkRef &spine = spec_.network.spine;
  if (spine.type < 0) {
    topo_->networkSummary_ = summary + ", no spine";
    return;
  }
  Device device;
  device.kind = DeviceKind::NetworkSwitch;
  device.name = "spine";
  device.index = static_cast<int>(rails);
  DeviceId spineSwitch = addDevice(std::move(device));
  for (DeviceId rail : railSwitches)
    addLinkPair(rail, spineSwitch, LinkKind::Network, spine);
  topo_->networkSummary_ = summary + ", spine of " +
                           topo_->linkTypes_[spine.type].name + " x" +
                           std::to_string(spine.lanes) + " per rail";
}

/// All NICs of `nodes_per_leaf` consecutive nodes on one leaf switch; leaves
/// under one core switch, each uplink carrying the leaf's NIC bandwidth
/// divided by the oversubscription.
void TopologyBuilder::addFatTree() {
  const detail::NetworkSpec &network = spec_.network;
  std::size_t perLeaf = network.nodesPerLeaf;
  std::size_t leaves = (spec_.nodes.size() + perLeaf - 1) / perLeaf;
  std::vector<DeviceId> leafSwitches;
  std::vector<double> downlink(leaves, 0);
  for (std::size_t l = 0; l < leaves; ++l) {
    Device leaf;
    leaf.kind = DeviceKind::NetworkSwitch;
    leaf.name = "leaf" + std::to_string(l);
    leaf.index = static_cast<int>(l);
    leafSwitches.push_back(addDevice(std::move(leaf)));
  }
  for (std::size_t n = 0; n < spec_.nodes.size(); ++n) {
    const detail::NodeSpec &spec = specOf(n);
    for (std::size_t k = 0; k < spec.nics.size(); ++k) {
      addLinkPair(topo_->nodes_[n].nics[k], leafSwitches[n / perLeaf],
                  LinkKind::Network, {spec.nics[k].linkType, 1});
      downlink[n / perLeaf] +=
          topo_->linkTypes_[spec.nics[k].linkType].bandwidth;
    }
  }
  std::string summary = "fat-tree, " + std::to_string(leaves) + " leaf switch" +
                        (leaves == 1 ? "" : "es") + " of up to " +
                        std::to_string(perLeaf) + " node" +
                        (perLeaf == 1 ? "" : "s") + ", oversubscription " +
                        formatNumber(network.oversubscription) + ":1";
  if (leaves == 1) {
    topo_->networkSummary_ = summary + ", no core switch";
    return;
  }
  Device core;
  core.kind = DeviceKind::NetworkSwitch;
  core.name = "core";
  core.index = static_cast<int>(leaves);
  DeviceId coreSwitch = addDevice(std::move(core));
  for (std::size_t l = 0; l < leaves; ++l)
    addLinkPair(leafSwitches[l], coreSwitch, LinkKind::Network,
                {network.uplinkType, 1},
                downlink[l] / network.oversubscription);
  topo_->networkSummary_ = summary + ", core switch over " +
                           topo_->linkTypes_[network.uplinkType].name +
                           " uplinks";
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
  for (DeviceId gpu : topo_->gpuByRank_)
    if (!reached[gpu])
      fail(specOf(devices[gpu].node).fabric.path,
           "GPU " + devices[gpu].name + " cannot reach GPU " +
               devices[start].name + "; the graph is disconnected");
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

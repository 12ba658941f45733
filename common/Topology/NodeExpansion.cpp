//===- NodeExpansion.cpp - the devices and links of one node --------------===//
//
// GPUs, the NVSwitch, CPUs, PCIe switches and NICs of a node, the fabric
// links (NVSwitch, mesh, torus), the PCIe tree and the inter-socket links.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/JsonAccess.h"
#include "common/Topology/TopologyBuilder.h"

namespace collc::topo {

using detail::formatNumber;

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

} // namespace collc::topo

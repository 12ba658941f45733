//===- NetworkExpansion.cpp - the switches and links between nodes --------===//
//
// Rail-optimized networks (with an optional spine) and two-level fat-trees.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/JsonAccess.h"
#include "common/Topology/TopologyBuilder.h"

#include <algorithm>

namespace collc::topo {

using detail::formatNumber;

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

/// All NICs of `nodes_per_leaf` consecutive nodes on one leaf switch; every
/// leaf links to each of `core_switches` core switches, the uplinks of a
/// leaf together carrying its NIC bandwidth divided by the
/// oversubscription (the paths through the cores are of equal cost: ECMP
/// spreads flows over them, compiler/Routing).
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
  const int cores = std::max(1, network.coreSwitches);
  for (int c = 0; c < cores; ++c) {
    Device core;
    core.kind = DeviceKind::NetworkSwitch;
    core.name = cores == 1 ? "core" : "core" + std::to_string(c);
    core.index = static_cast<int>(leaves) + c;
    DeviceId coreSwitch = addDevice(std::move(core));
    for (std::size_t l = 0; l < leaves; ++l)
      addLinkPair(leafSwitches[l], coreSwitch, LinkKind::Network,
                  {network.uplinkType, 1},
                  downlink[l] / network.oversubscription / cores);
  }
  topo_->networkSummary_ =
      summary +
      (cores == 1 ? ", core switch over "
                  : ", " + std::to_string(cores) + " core switches over ") +
      topo_->linkTypes_[network.uplinkType].name + " uplinks";
}

} // namespace collc::topo

//===- TopologyBuilder.h - expand a checked spec into the graph -*- C++ -*-===//
//
// The class that turns a TopologySpec into a Topology: node expansion
// (NodeExpansion.cpp), network expansion (NetworkExpansion.cpp), and the
// checks that need the whole topology (TopologyBuilder.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_TOPOLOGY_TOPOLOGYBUILDER_H
#define COLLC_COMMON_TOPOLOGY_TOPOLOGYBUILDER_H

#include "common/Topology/Topology.h"
#include "common/Topology/TopologySpec.h"

#include <memory>
#include <string>

namespace collc::topo {

/// Builds a Topology from a TopologySpec; a friend of Topology.
class TopologyBuilder {
public:
  explicit TopologyBuilder(const detail::TopologySpec &spec) : spec_(spec) {}
  std::unique_ptr<Topology> build();

private:
  const detail::NodeSpec &specOf(int node) const {
    return spec_.nodeSpecs[spec_.nodes[node].spec];
  }

  // Checks before expansion (TopologyBuilder.cpp).
  void checkSizes() const;
  void checkNodesAgree() const;
  void checkWayOut() const;
  // Expansion (NodeExpansion.cpp, NetworkExpansion.cpp).
  void addNode(int node);
  void addFabric(int node);
  void addPcie(int node);
  std::string fabricSummary(const detail::NodeSpec &spec) const;
  void addNetwork();
  void addRails();
  void addFatTree();
  // Checks after expansion (TopologyBuilder.cpp).
  void checkConnected() const;

  DeviceId addDevice(Device device);
  /// Adds a->b and b->a; `bandwidth` 0 means lanes x the type's bandwidth.
  void addLinkPair(DeviceId a, DeviceId b, LinkKind kind, detail::LinkRef ref,
                   double bandwidth = 0);

  const detail::TopologySpec &spec_;
  std::unique_ptr<Topology> topo_;
};

} // namespace collc::topo

#endif // COLLC_COMMON_TOPOLOGY_TOPOLOGYBUILDER_H

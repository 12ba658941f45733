//===- TopologySpec.h - a topology file, checked, unexpanded ----*- C++ -*-===//
//
// What the parser reads out of the JSON (every value checked, every name
// resolved to an index) and the builder expands into the device/link graph.
// Each part keeps its JSON path for the builder's messages.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMMON_TOPOLOGY_TOPOLOGYSPEC_H
#define COLLC_COMMON_TOPOLOGY_TOPOLOGYSPEC_H

#include "common/Topology/JsonDocument.h"
#include "common/Topology/Topology.h"

#include <memory>
#include <string>
#include <vector>

namespace collc::topo::detail {

class NameTable;

/// Largest values accepted, so that a mistyped count cannot exhaust memory.
constexpr int64_t kMaxNodes = 65536;
constexpr int64_t kMaxGpusPerNode = 1024;
constexpr int64_t kMaxNumaNodes = 64;
constexpr int64_t kMaxLanes = 1024;
constexpr int64_t kMaxGpus = 131072;
constexpr int64_t kMaxDevices = int64_t(1) << 20;
constexpr int64_t kMaxLinks = int64_t(1) << 22;

/// A link type and how many lanes of it one link bundles.
struct LinkRef {
  int type = -1;
  int lanes = 1;
};

struct MeshLinkSpec {
  int a = 0, b = 0, lanes = 1;
};

struct FabricSpec {
  FabricKind kind = FabricKind::Pcie;
  std::string path;
  LinkRef link;                   ///< nvswitch (per GPU), mesh, torus.
  std::vector<MeshLinkSpec> mesh; ///< mesh.
  std::vector<int> dims;          ///< torus.
  std::vector<bool> wraparound;   ///< torus, one per dim.
};

struct PcieSwitchSpec {
  std::string name;
  std::string path;
  int numa = -1;   ///< The NUMA node (resolved through parents).
  int parent = -1; ///< Index of the parent switch, or -1 (under the CPU).
  std::vector<int> gpus;
};

struct PcieSpec {
  bool present = false;
  int linkType = -1;
  std::vector<PcieSwitchSpec> switches;
};

struct NicSpec {
  std::string name;
  std::string path;
  int linkType = -1;
  std::vector<int> gpus;
  int pcieSwitch = -1; ///< Index of its switch, or -1 (on the CPU).
  int numa = -1;
};

/// A node body: an entry of "node_templates" or of an explicit "nodes" list.
struct NodeSpec {
  std::string path;
  int numaNodes = 1;
  LinkRef interSocket; ///< type -1 when numaNodes == 1.
  int gpuCount = 0;
  int gpuModel = -1;
  std::vector<int> gpuNuma;
  FabricSpec fabric;
  PcieSpec pcie;
  std::vector<NicSpec> nics;
  std::string nicsPath; ///< Where a missing NIC affinity is reported.
};

/// One node of the topology: a name and the body it instantiates.
struct NodeInstance {
  std::string name;
  std::string path;
  int spec = -1; ///< Index into TopologySpec::nodeSpecs.
};

struct NetworkSpec {
  NetworkKind kind = NetworkKind::None;
  std::string path;
  LinkRef spine;        ///< rail; type -1 when there is no spine.
  int nodesPerLeaf = 0; ///< fat_tree.
  double oversubscription = 1;
  int uplinkType = -1;  ///< fat_tree.
  int coreSwitches = 1; ///< fat_tree: core switches every leaf links to.
};

struct TopologySpec {
  std::string name;
  std::string description;
  std::vector<LinkType> linkTypes;
  std::vector<GpuModel> gpuModels;
  std::vector<NodeSpec> nodeSpecs;
  std::vector<NodeInstance> nodes;
  std::string nodesPath = "nodes";
  NetworkSpec network;
};

/// Reads {"link_type": NAME, "lanes": N} (TopologyParser.cpp).
LinkRef readLinkRef(const Json &value, const std::string &path,
                    const NameTable &linkTypes);

/// Reads and checks a whole topology document (TopologyParser.cpp).
TopologySpec parseTopologySpec(const Json &root);

/// Reads and checks one node body (NodeParser.cpp): every rule that needs
/// only the node itself.
NodeSpec parseNodeSpec(const Json &body, const std::string &path,
                       const std::vector<std::string> &extraKeys,
                       const NameTable &linkTypes, const NameTable &gpuModels);

/// Expands a spec into the device/link graph and checks the rules that need
/// the whole graph (TopologyBuilder.cpp).
std::unique_ptr<Topology> buildTopology(const TopologySpec &spec);

} // namespace collc::topo::detail

#endif // COLLC_COMMON_TOPOLOGY_TOPOLOGYSPEC_H

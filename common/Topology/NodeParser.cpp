//===- NodeParser.cpp - one node body of a topology file ------------------===//
//
// Reads a node body (GPUs, NUMA nodes, intra-node fabric, PCIe tree, NICs)
// and checks every rule that needs only the node: indices in range,
// references resolved, names unique, NUMA placement consistent.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/JsonAccess.h"
#include "common/Topology/TopologySpec.h"

#include <limits>
#include <map>
#include <utility>

namespace collc::topo::detail {
namespace {

constexpr int64_t kAnyInteger = std::numeric_limits<int64_t>::max();

/// Reads a GPU's local index in a node of `gpuCount` GPUs.
int readGpu(const Json &value, const std::string &path, int gpuCount) {
  int64_t gpu = readInteger(value, path, -kAnyInteger, kAnyInteger);
  if (gpu < 0 || gpu >= gpuCount)
    fail(path, "GPU " + std::to_string(gpu) + " does not exist in a node of " +
                   std::to_string(gpuCount) + " GPUs");
  return static_cast<int>(gpu);
}

/// Reads a NUMA node index of a node with `numaNodes` NUMA nodes.
int readNuma(const Json &value, const std::string &path, int numaNodes) {
  int64_t numa = readInteger(value, path, -kAnyInteger, kAnyInteger);
  if (numa < 0 || numa >= numaNodes)
    fail(path, "NUMA node " + std::to_string(numa) +
                   " does not exist in a node with numa_nodes " +
                   std::to_string(numaNodes));
  return static_cast<int>(numa);
}

/// Reads a list of distinct GPU indices.
std::vector<int> readGpuList(const Json &value, const std::string &path,
                             int gpuCount) {
  const Json::array_t &array = readArray(value, path);
  std::vector<int> gpus;
  std::map<int, std::size_t> seen;
  for (std::size_t i = 0; i < array.size(); ++i) {
    int gpu = readGpu(array[i], indexPath(path, i), gpuCount);
    auto [it, inserted] = seen.emplace(gpu, i);
    if (!inserted)
      fail(indexPath(path, i), "GPU " + std::to_string(gpu) +
                                   " is already listed at " +
                                   indexPath(path, it->second));
    gpus.push_back(gpu);
  }
  return gpus;
}

/// Switch and NIC names become device names ("node0/pex0"): they must
/// differ from each other and from the generated ones (gpuN, cpuN,
/// nvswitch).
class DeviceNames {
public:
  explicit DeviceNames(const NodeSpec &spec) {
    for (int i = 0; i < spec.gpuCount; ++i)
      used_.emplace("gpu" + std::to_string(i), "GPU " + std::to_string(i));
    for (int i = 0; i < spec.numaNodes; ++i)
      used_.emplace("cpu" + std::to_string(i), "CPU " + std::to_string(i));
    if (spec.fabric.kind == FabricKind::NvSwitch)
      used_.emplace("nvswitch", "the NVSwitch");
  }
  void claim(const std::string &name, const std::string &path,
             const std::string &what) {
    auto [it, inserted] = used_.emplace(name, what + " at " + path);
    if (!inserted)
      fail(path, "name " + quote(name) + " is already used by " + it->second);
  }

private:
  std::map<std::string, std::string> used_;
};

void parseInterSocket(const ObjectReader &node, NodeSpec &spec,
                      const NameTable &linkTypes) {
  const Json *value = node.optional("inter_socket");
  if (spec.numaNodes > 1) {
    if (!value)
      fail(node.path(), "missing required key \"inter_socket\" (required "
                        "when numa_nodes > 1)");
    spec.interSocket =
        readLinkRef(*value, node.pathOf("inter_socket"), linkTypes);
  } else if (value) {
    fail(node.pathOf("inter_socket"),
         "only allowed when numa_nodes > 1 (numa_nodes is 1)");
  }
}

void parseGpus(const ObjectReader &node, NodeSpec &spec,
               const NameTable &gpuModels) {
  ObjectReader gpus(node.required("gpus"), node.pathOf("gpus"),
                    {"count", "model", "numa"});
  spec.gpuCount = static_cast<int>(gpus.integer("count", 1, kMaxGpusPerNode));
  spec.gpuModel = gpuModels.read(gpus.required("model"), gpus.pathOf("model"));
  const Json &numa = gpus.required("numa");
  std::string numaPath = gpus.pathOf("numa");
  if (numa.is_array()) {
    const Json::array_t &array = numa.get_ref<const Json::array_t &>();
    if (array.size() != static_cast<std::size_t>(spec.gpuCount))
      fail(numaPath, "has " + std::to_string(array.size()) +
                         " entries but gpus.count is " +
                         std::to_string(spec.gpuCount));
    for (std::size_t i = 0; i < array.size(); ++i)
      spec.gpuNuma.push_back(
          readNuma(array[i], indexPath(numaPath, i), spec.numaNodes));
  } else {
    if (!numa.is_number())
      fail(numaPath, "expected an integer or an array of integers, got " +
                         describeType(numa));
    spec.gpuNuma.assign(spec.gpuCount,
                        readNuma(numa, numaPath, spec.numaNodes));
  }
}

void parseMeshLinks(const ObjectReader &fabric, NodeSpec &spec) {
  std::string path = fabric.pathOf("links");
  const Json::array_t &links = readArray(fabric.required("links"), path);
  std::map<std::pair<int, int>, std::size_t> seen;
  for (std::size_t i = 0; i < links.size(); ++i) {
    std::string linkPath = indexPath(path, i);
    const Json::array_t &triple = readArray(links[i], linkPath);
    if (triple.size() != 3)
      fail(linkPath, "expected [gpu, gpu, lanes], got " +
                         std::to_string(triple.size()) + " elements");
    MeshLinkSpec link;
    link.a = readGpu(triple[0], indexPath(linkPath, 0), spec.gpuCount);
    link.b = readGpu(triple[1], indexPath(linkPath, 1), spec.gpuCount);
    link.lanes = static_cast<int>(
        readInteger(triple[2], indexPath(linkPath, 2), 1, kMaxLanes));
    if (link.a == link.b)
      fail(linkPath,
           "GPU " + std::to_string(link.a) + " cannot be linked to itself");
    auto [it, inserted] = seen.emplace(
        std::make_pair(std::min(link.a, link.b), std::max(link.a, link.b)), i);
    if (!inserted)
      fail(linkPath, "GPUs " + std::to_string(link.a) + " and " +
                         std::to_string(link.b) + " are already linked at " +
                         indexPath(path, it->second));
    spec.fabric.mesh.push_back(link);
  }
}

void parseTorus(const ObjectReader &fabric, NodeSpec &spec) {
  std::string dimsPath = fabric.pathOf("dims");
  const Json::array_t &dims = readArray(fabric.required("dims"), dimsPath);
  if (dims.empty() || dims.size() > 4)
    fail(dimsPath,
         "must have 1 to 4 dimensions, got " + std::to_string(dims.size()));
  int64_t product = 1;
  std::string shape;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    int64_t dim =
        readInteger(dims[i], indexPath(dimsPath, i), 1, kMaxGpusPerNode);
    product *= dim;
    shape += (i ? "x" : "") + std::to_string(dim);
    spec.fabric.dims.push_back(static_cast<int>(dim));
  }
  if (product != spec.gpuCount)
    fail(dimsPath, "a " + shape + " torus has " + std::to_string(product) +
                       " GPUs but gpus.count is " +
                       std::to_string(spec.gpuCount));
  std::string wrapPath = fabric.pathOf("wraparound");
  const Json &wrap = fabric.required("wraparound");
  if (wrap.is_array()) {
    const Json::array_t &array = wrap.get_ref<const Json::array_t &>();
    if (array.size() != dims.size())
      fail(wrapPath, "has " + std::to_string(array.size()) +
                         " entries but dims has " +
                         std::to_string(dims.size()));
    for (std::size_t i = 0; i < array.size(); ++i)
      spec.fabric.wraparound.push_back(
          readBool(array[i], indexPath(wrapPath, i)));
  } else {
    if (!wrap.is_boolean())
      fail(wrapPath, "expected a boolean or an array of booleans, got " +
                         describeType(wrap));
    spec.fabric.wraparound.assign(dims.size(), wrap.get<bool>());
  }
}

void parseFabric(const ObjectReader &node, NodeSpec &spec,
                 const NameTable &linkTypes) {
  std::string path = node.pathOf("fabric");
  const Json &value = node.required("fabric");
  const Json::object_t &object = readObject(value, path);
  std::string type = readTypeTag(object, path);
  static const std::map<std::string,
                        std::pair<FabricKind, std::vector<std::string>>>
      kinds = {
          {"nvswitch", {FabricKind::NvSwitch, {"type", "link_type", "lanes"}}},
          {"mesh", {FabricKind::Mesh, {"type", "link_type", "links"}}},
          {"torus",
           {FabricKind::Torus,
            {"type", "link_type", "lanes", "dims", "wraparound"}}},
          {"pcie", {FabricKind::Pcie, {"type"}}},
      };
  auto kind = kinds.find(type);
  if (kind == kinds.end())
    fail(childPath(path, "type"),
         "unknown fabric type " + quote(type) +
             " (allowed: nvswitch, mesh, torus, pcie)");
  ObjectReader fabric(value, path, kind->second.second,
                      "for fabric type " + quote(type));
  spec.fabric.kind = kind->second.first;
  spec.fabric.path = path;
  if (spec.fabric.kind == FabricKind::Pcie)
    return;
  spec.fabric.link.type =
      linkTypes.read(fabric.required("link_type"), fabric.pathOf("link_type"));
  if (spec.fabric.kind == FabricKind::Mesh)
    return parseMeshLinks(fabric, spec);
  spec.fabric.link.lanes =
      static_cast<int>(fabric.integer("lanes", 1, kMaxLanes));
  if (spec.fabric.kind == FabricKind::Torus)
    parseTorus(fabric, spec);
}

/// Resolves "parent" names, rejects cycles and derives each switch's NUMA
/// node from the switch at the top of its chain.
void resolveSwitchParents(
    PcieSpec &pcie,
    const std::vector<std::pair<std::string, std::string>> &parentNames) {
  std::map<std::string, int> byName;
  for (std::size_t i = 0; i < pcie.switches.size(); ++i)
    byName.emplace(pcie.switches[i].name, static_cast<int>(i));
  for (std::size_t i = 0; i < pcie.switches.size(); ++i) {
    const auto &[parent, parentPath] = parentNames[i];
    if (parentPath.empty())
      continue;
    auto it = byName.find(parent);
    if (it == byName.end())
      fail(parentPath, "unknown PCIe switch " + quote(parent));
    pcie.switches[i].parent = it->second;
  }
  std::size_t count = pcie.switches.size();
  for (std::size_t i = 0; i < count; ++i) {
    int top = static_cast<int>(i);
    std::size_t steps = 0;
    while (pcie.switches[top].parent >= 0 && steps <= count) {
      top = pcie.switches[top].parent;
      ++steps;
    }
    if (steps > count) {
      // `top` is on the cycle now; name its members in order.
      std::string chain = pcie.switches[top].name;
      for (int s = pcie.switches[top].parent; s != top;
           s = pcie.switches[s].parent)
        chain += " -> " + pcie.switches[s].name;
      fail(parentNames[i].second, "PCIe switch parents form a cycle: " + chain +
                                      " -> " + pcie.switches[top].name);
    }
    pcie.switches[i].numa = pcie.switches[top].numa;
  }
}

void parsePcie(const ObjectReader &node, NodeSpec &spec,
               const NameTable &linkTypes, DeviceNames &names) {
  const Json *value = node.optional("pcie");
  if (!value)
    return;
  ObjectReader pcie(*value, node.pathOf("pcie"), {"link_type", "switches"});
  spec.pcie.present = true;
  spec.pcie.linkType =
      linkTypes.read(pcie.required("link_type"), pcie.pathOf("link_type"));
  const Json *switches = pcie.optional("switches");
  if (!switches)
    return;
  std::string listPath = pcie.pathOf("switches");
  const Json::array_t &array = readArray(*switches, listPath);
  std::vector<std::pair<std::string, std::string>> parentNames;
  for (std::size_t i = 0; i < array.size(); ++i) {
    ObjectReader sw(array[i], indexPath(listPath, i),
                    {"name", "numa", "parent", "gpus"});
    PcieSwitchSpec result;
    result.path = sw.path();
    result.name = sw.name("name");
    names.claim(result.name, sw.pathOf("name"), "the PCIe switch");
    bool hasNuma = sw.has("numa"), hasParent = sw.has("parent");
    if (hasNuma == hasParent)
      fail(sw.path(), hasNuma ? "give either \"numa\" or \"parent\", not both"
                              : "missing required key \"numa\" or \"parent\"");
    if (hasNuma) {
      result.numa =
          readNuma(sw.required("numa"), sw.pathOf("numa"), spec.numaNodes);
      parentNames.emplace_back();
    } else {
      parentNames.emplace_back(sw.name("parent"), sw.pathOf("parent"));
    }
    if (const Json *gpus = sw.optional("gpus"))
      result.gpus = readGpuList(*gpus, sw.pathOf("gpus"), spec.gpuCount);
    spec.pcie.switches.push_back(std::move(result));
  }
  resolveSwitchParents(spec.pcie, parentNames);

  // Each GPU sits under at most one switch, on the switch's NUMA node.
  std::map<int, int> switchOfGpu;
  for (std::size_t s = 0; s < spec.pcie.switches.size(); ++s) {
    const PcieSwitchSpec &sw = spec.pcie.switches[s];
    for (std::size_t k = 0; k < sw.gpus.size(); ++k) {
      int gpu = sw.gpus[k];
      std::string gpuPath = indexPath(childPath(sw.path, "gpus"), k);
      auto [it, inserted] = switchOfGpu.emplace(gpu, static_cast<int>(s));
      if (!inserted)
        fail(gpuPath, "GPU " + std::to_string(gpu) +
                          " is already under PCIe switch " +
                          quote(spec.pcie.switches[it->second].name));
      if (spec.gpuNuma[gpu] != sw.numa)
        fail(gpuPath, "GPU " + std::to_string(gpu) + " is on NUMA node " +
                          std::to_string(spec.gpuNuma[gpu]) +
                          " but PCIe switch " + quote(sw.name) +
                          " is under NUMA node " + std::to_string(sw.numa));
    }
  }
}

void parseNics(const ObjectReader &node, NodeSpec &spec,
               const NameTable &linkTypes, DeviceNames &names) {
  const Json *value = node.optional("nics");
  spec.nicsPath = value ? node.pathOf("nics") : node.path();
  if (!value)
    return;
  const Json::array_t &array = readArray(*value, spec.nicsPath);
  std::map<int, int> nicOfGpu;
  std::map<std::string, int> switchIndex;
  for (std::size_t s = 0; s < spec.pcie.switches.size(); ++s)
    switchIndex.emplace(spec.pcie.switches[s].name, static_cast<int>(s));
  for (std::size_t i = 0; i < array.size(); ++i) {
    ObjectReader nic(array[i], indexPath(spec.nicsPath, i),
                     {"name", "link_type", "gpus", "pcie_switch", "numa"});
    NicSpec result;
    result.path = nic.path();
    result.name =
        nic.has("name") ? nic.name("name") : "nic" + std::to_string(i);
    names.claim(result.name, nic.has("name") ? nic.pathOf("name") : nic.path(),
                "the NIC");
    result.linkType =
        linkTypes.read(nic.required("link_type"), nic.pathOf("link_type"));
    result.gpus =
        readGpuList(nic.required("gpus"), nic.pathOf("gpus"), spec.gpuCount);
    if (!spec.pcie.present)
      fail(nic.path(), "a NIC attaches to the PCIe tree, but this node has "
                       "no \"pcie\" section");
    bool hasSwitch = nic.has("pcie_switch"), hasNuma = nic.has("numa");
    if (hasSwitch == hasNuma)
      fail(nic.path(),
           hasNuma ? "give either \"pcie_switch\" or \"numa\", not both"
                   : "missing required key \"pcie_switch\" or \"numa\"");
    if (hasSwitch) {
      std::string switchName = nic.name("pcie_switch");
      auto it = switchIndex.find(switchName);
      if (it == switchIndex.end())
        fail(nic.pathOf("pcie_switch"),
             "unknown PCIe switch " + quote(switchName));
      result.pcieSwitch = it->second;
      result.numa = spec.pcie.switches[result.pcieSwitch].numa;
    } else {
      result.numa =
          readNuma(nic.required("numa"), nic.pathOf("numa"), spec.numaNodes);
    }
    for (std::size_t k = 0; k < result.gpus.size(); ++k) {
      auto [it, inserted] =
          nicOfGpu.emplace(result.gpus[k], static_cast<int>(i));
      if (!inserted)
        fail(indexPath(nic.pathOf("gpus"), k),
             "GPU " + std::to_string(result.gpus[k]) + " already uses NIC " +
                 quote(spec.nics[it->second].name));
    }
    spec.nics.push_back(std::move(result));
  }
}

} // namespace

NodeSpec parseNodeSpec(const Json &body, const std::string &path,
                       const std::vector<std::string> &extraKeys,
                       const NameTable &linkTypes, const NameTable &gpuModels) {
  std::vector<std::string> allowed = extraKeys;
  for (const char *key : {"description", "numa_nodes", "inter_socket", "gpus",
                          "fabric", "pcie", "nics"})
    allowed.push_back(key);
  ObjectReader node(body, path, allowed, "");
  NodeSpec spec;
  spec.path = path;
  if (const Json *description = node.optional("description"))
    readString(*description, node.pathOf("description"));
  spec.numaNodes =
      static_cast<int>(node.integer("numa_nodes", 1, kMaxNumaNodes));
  parseInterSocket(node, spec, linkTypes);
  parseGpus(node, spec, gpuModels);
  parseFabric(node, spec, linkTypes);
  DeviceNames names(spec);
  parsePcie(node, spec, linkTypes, names);
  parseNics(node, spec, linkTypes, names);
  return spec;
}

} // namespace collc::topo::detail

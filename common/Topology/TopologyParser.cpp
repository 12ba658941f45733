//===- TopologyParser.cpp - a topology document, checked ------------------===//
//
// Reads the top level of a topology file: format version, link types, GPU
// models, node templates, the node list or shorthand, and the network. Node
// bodies are read by NodeParser.cpp.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/JsonAccess.h"
#include "common/Topology/TopologySpec.h"

#include <map>

namespace collc::topo::detail {
namespace {

constexpr int64_t kFormatVersion = 1;

/// The dtypes a GPU model may give a peak for.
const char *const kDtypes[] = {"f64", "f32", "tf32", "bf16", "f16", "f8", "i8"};

void parseLinkTypes(const ObjectReader &top, TopologySpec &spec,
                    NameTable &names) {
  std::string path = top.pathOf("link_types");
  for (const auto &[name, value] :
       readObject(top.required("link_types"), path)) {
    ObjectReader entry(value, childPath(path, name),
                       {"bandwidth_GBps", "latency_us", "description"});
    if (name.empty())
      fail(entry.path(), "a link type name must not be empty");
    LinkType type;
    type.name = name;
    type.bandwidth = entry.positive("bandwidth_GBps") * 1e9;
    type.latency = entry.positive("latency_us") * 1e-6;
    if (entry.has("description"))
      type.description = entry.string("description");
    names.add(name);
    spec.linkTypes.push_back(std::move(type));
  }
}

void parseGpuModels(const ObjectReader &top, TopologySpec &spec,
                    NameTable &names) {
  std::string path = top.pathOf("gpu_models");
  for (const auto &[name, value] :
       readObject(top.required("gpu_models"), path)) {
    ObjectReader entry(value, childPath(path, name),
                       {"memory_GiB", "memory_bandwidth_GBps",
                        "channel_bandwidth_GBps", "peak_TFLOPS",
                        "description"});
    if (name.empty())
      fail(entry.path(), "a GPU model name must not be empty");
    GpuModel model;
    model.name = name;
    model.memoryBytes = entry.positive("memory_GiB") * 1073741824.0;
    model.memoryBandwidth = entry.positive("memory_bandwidth_GBps") * 1e9;
    if (entry.has("channel_bandwidth_GBps"))
      model.channelBandwidth = entry.positive("channel_bandwidth_GBps") * 1e9;
    std::vector<std::string> dtypes(std::begin(kDtypes), std::end(kDtypes));
    ObjectReader peaks(entry.required("peak_TFLOPS"),
                       entry.pathOf("peak_TFLOPS"), dtypes, "");
    for (const std::string &dtype : dtypes)
      if (peaks.has(dtype))
        model.peakFlops[dtype] = peaks.positive(dtype) * 1e12;
    if (model.peakFlops.empty())
      fail(peaks.path(), "must give the peak of at least one dtype");
    if (entry.has("description"))
      model.description = entry.string("description");
    names.add(name);
    spec.gpuModels.push_back(std::move(model));
  }
}

void parseTemplates(const ObjectReader &top, TopologySpec &spec,
                    NameTable &templates, std::map<std::string, int> &specOf,
                    const NameTable &linkTypes, const NameTable &gpuModels) {
  const Json *value = top.optional("node_templates");
  if (!value)
    return;
  std::string path = top.pathOf("node_templates");
  for (const auto &[name, body] : readObject(*value, path)) {
    std::string bodyPath = childPath(path, name);
    if (name.empty())
      fail(bodyPath, "a node template name must not be empty");
    spec.nodeSpecs.push_back(
        parseNodeSpec(body, bodyPath, {}, linkTypes, gpuModels));
    templates.add(name);
    specOf[name] = static_cast<int>(spec.nodeSpecs.size()) - 1;
  }
}

/// "nodes": {"count": N, "template": NAME} or a list of node bodies and
/// {"name": ..., "template": NAME} references.
void parseNodes(const ObjectReader &top, TopologySpec &spec,
                const NameTable &templates,
                const std::map<std::string, int> &specOf,
                const NameTable &linkTypes, const NameTable &gpuModels) {
  std::string path = top.pathOf("nodes");
  const Json &value = top.required("nodes");
  spec.nodesPath = path;
  auto templateSpec = [&](const ObjectReader &object) {
    templates.read(object.required("template"), object.pathOf("template"));
    return specOf.at(object.string("template"));
  };
  if (value.is_object()) {
    ObjectReader shorthand(value, path, {"count", "template"});
    int count = static_cast<int>(shorthand.integer("count", 1, kMaxNodes));
    int body = templateSpec(shorthand);
    for (int i = 0; i < count; ++i)
      spec.nodes.push_back({"node" + std::to_string(i), path, body});
    return;
  }
  if (!value.is_array())
    fail(path, "expected an object {\"count\", \"template\"} or an array of "
               "nodes, got " +
                   describeType(value));
  const Json::array_t &array = value.get_ref<const Json::array_t &>();
  if (array.empty())
    fail(path, "must list at least one node");
  if (array.size() > static_cast<std::size_t>(kMaxNodes))
    fail(path, "lists " + std::to_string(array.size()) + " nodes; at most " +
                   std::to_string(kMaxNodes) + " are supported");
  std::map<std::string, std::size_t> nameUsedAt;
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::string nodePath = indexPath(path, i);
    const Json::object_t &object = readObject(array[i], nodePath);
    NodeInstance node;
    node.path = nodePath;
    if (object.count("template")) {
      ObjectReader ref(array[i], nodePath, {"name", "template"},
                       "(a node with \"template\" takes only \"name\")");
      node.spec = templateSpec(ref);
    } else {
      spec.nodeSpecs.push_back(
          parseNodeSpec(array[i], nodePath, {"name"}, linkTypes, gpuModels));
      node.spec = static_cast<int>(spec.nodeSpecs.size()) - 1;
    }
    auto name = object.find("name");
    node.name = name == object.end()
                    ? "node" + std::to_string(i)
                    : readName(name->second, childPath(nodePath, "name"));
    auto [it, inserted] = nameUsedAt.emplace(node.name, i);
    if (!inserted)
      fail(childPath(nodePath, "name"), "node name " + quote(node.name) +
                                            " is already used by " +
                                            indexPath(path, it->second));
    spec.nodes.push_back(std::move(node));
  }
}

void parseNetwork(const ObjectReader &top, TopologySpec &spec,
                  const NameTable &linkTypes) {
  std::string path = top.pathOf("network");
  const Json &value = top.required("network");
  const Json::object_t &object = readObject(value, path);
  std::string type = readTypeTag(object, path);
  static const std::map<std::string,
                        std::pair<NetworkKind, std::vector<std::string>>>
      kinds = {
          {"none", {NetworkKind::None, {"type"}}},
          {"rail", {NetworkKind::RailOptimized, {"type", "spine"}}},
          {"fat_tree",
           {NetworkKind::FatTree,
            {"type", "nodes_per_leaf", "oversubscription", "uplink_type",
             "core_switches"}}},
      };
  auto kind = kinds.find(type);
  if (kind == kinds.end())
    fail(childPath(path, "type"), "unknown network type " + quote(type) +
                                      " (allowed: none, rail, fat_tree)");
  ObjectReader network(value, path, kind->second.second,
                       "for network type " + quote(type));
  NetworkSpec &result = spec.network;
  result.kind = kind->second.first;
  result.path = path;
  if (result.kind == NetworkKind::RailOptimized) {
    if (const Json *spine = network.optional("spine"))
      result.spine = readLinkRef(*spine, network.pathOf("spine"), linkTypes);
  } else if (result.kind == NetworkKind::FatTree) {
    result.nodesPerLeaf =
        static_cast<int>(network.integer("nodes_per_leaf", 1, kMaxNodes));
    result.oversubscription =
        readAtLeast(network.required("oversubscription"),
                    network.pathOf("oversubscription"), 1.0);
    result.uplinkType = linkTypes.read(network.required("uplink_type"),
                                       network.pathOf("uplink_type"));
    if (network.optional("core_switches"))
      result.coreSwitches =
          static_cast<int>(network.integer("core_switches", 1, 1024));
  }
}

} // namespace

LinkRef readLinkRef(const Json &value, const std::string &path,
                    const NameTable &linkTypes) {
  ObjectReader object(value, path, {"link_type", "lanes"});
  LinkRef ref;
  ref.type =
      linkTypes.read(object.required("link_type"), object.pathOf("link_type"));
  ref.lanes = static_cast<int>(object.integer("lanes", 1, kMaxLanes));
  return ref;
}

TopologySpec parseTopologySpec(const Json &root) {
  ObjectReader top(root, "",
                   {"$schema", "format_version", "name", "description",
                    "link_types", "gpu_models", "node_templates", "nodes",
                    "network"});
  TopologySpec spec;
  if (const Json *schema = top.optional("$schema"))
    readString(*schema, top.pathOf("$schema"));
  int64_t version =
      readInteger(top.required("format_version"), top.pathOf("format_version"),
                  INT64_MIN, INT64_MAX);
  if (version != kFormatVersion)
    fail(top.pathOf("format_version"),
         "unsupported format_version " + std::to_string(version) +
             " (this collc reads version " + std::to_string(kFormatVersion) +
             ")");
  spec.name = top.name("name");
  if (top.has("description"))
    spec.description = top.string("description");

  NameTable linkTypes("link type", "link_types");
  NameTable gpuModels("GPU model", "gpu_models");
  NameTable templates("node template", "node_templates");
  std::map<std::string, int> specOfTemplate;
  parseLinkTypes(top, spec, linkTypes);
  parseGpuModels(top, spec, gpuModels);
  parseTemplates(top, spec, templates, specOfTemplate, linkTypes, gpuModels);
  parseNodes(top, spec, templates, specOfTemplate, linkTypes, gpuModels);
  parseNetwork(top, spec, linkTypes);
  return spec;
}

} // namespace collc::topo::detail

//===- TopologyTestUtil.cpp - helpers of the topology unit tests ----------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

namespace collc::topo::test {

static std::unique_ptr<Topology> loadOrFail(const std::string &path) {
  LoadResult result = loadTopologyFile(path);
  EXPECT_EQ(result.error, "") << path;
  EXPECT_NE(result.topology, nullptr) << path;
  return std::move(result.topology);
}

std::unique_ptr<Topology> loadBundled(const std::string &name) {
  return loadOrFail(std::string(COLLC_TOPOLOGIES_DIR) + "/" + name + ".json");
}

std::string inputPath(const std::string &name) {
  return std::string(COLLC_TOPOLOGY_INPUTS_DIR) + "/" + name;
}

std::unique_ptr<Topology> loadInput(const std::string &name) {
  return loadOrFail(inputPath(name));
}

std::string inputError(const std::string &name) {
  return loadTopologyFile(inputPath(name)).error;
}

DeviceId deviceNamed(const Topology &topology, const std::string &name) {
  for (std::size_t d = 0; d < topology.devices().size(); ++d)
    if (topology.devices()[d].name == name)
      return static_cast<DeviceId>(d);
  ADD_FAILURE() << "no device " << name;
  return -1;
}

std::string nameOf(const Topology &topology, std::optional<DeviceId> device) {
  return device ? topology.device(*device).name : "";
}

std::string describePath(const Topology &topology,
                         const std::vector<LinkId> &path) {
  if (path.empty())
    return "";
  std::string text = topology.device(topology.link(path[0]).src).name;
  for (LinkId link : path)
    text += " > " + topology.device(topology.link(link).dst).name;
  return text;
}

std::vector<DeviceId> devicesNamed(const Topology &topology,
                                   const std::string &prefix) {
  std::vector<DeviceId> devices;
  for (std::size_t d = 0; d < topology.devices().size(); ++d)
    if (topology.devices()[d].name.rfind(prefix, 0) == 0)
      devices.push_back(static_cast<DeviceId>(d));
  return devices;
}

nlohmann::json miniTopology() {
  return nlohmann::json::parse(R"({
    "format_version": 1,
    "name": "mini",
    "link_types": {
      "nvl": {"bandwidth_GBps": 25, "latency_us": 0.3},
      "pcie": {"bandwidth_GBps": 32, "latency_us": 0.5},
      "upi": {"bandwidth_GBps": 20, "latency_us": 0.5},
      "ib": {"bandwidth_GBps": 25, "latency_us": 1.35}
    },
    "gpu_models": {
      "g": {"memory_GiB": 80, "memory_bandwidth_GBps": 2000,
            "peak_TFLOPS": {"bf16": 300}}
    },
    "node_templates": {
      "n": {
        "numa_nodes": 2,
        "inter_socket": {"link_type": "upi", "lanes": 2},
        "gpus": {"count": 4, "model": "g", "numa": [0, 0, 1, 1]},
        "fabric": {"type": "nvswitch", "link_type": "nvl", "lanes": 12},
        "pcie": {"link_type": "pcie", "switches": [
          {"name": "sw0", "numa": 0, "gpus": [0, 1]},
          {"name": "sw1", "numa": 1, "gpus": [2, 3]}]},
        "nics": [
          {"link_type": "ib", "pcie_switch": "sw0", "gpus": [0, 1]},
          {"link_type": "ib", "pcie_switch": "sw1", "gpus": [2, 3]}]
      }
    },
    "nodes": {"count": 2, "template": "n"},
    "network": {"type": "rail"}
  })");
}

std::string errorOf(const nlohmann::json &doc) { return errorOf(doc.dump()); }

std::string errorOf(const std::string &text) {
  LoadResult result = parseTopology(text, "t.json");
  EXPECT_EQ(result.topology == nullptr, !result.error.empty());
  return result.error;
}

} // namespace collc::topo::test

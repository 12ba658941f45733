//===- RejectionTest.cpp - every rule of the format, with its message -----===//
//
// Each test breaks one rule in an otherwise valid topology (miniTopology():
// 2 nodes of 4 GPUs, template "n") and checks the exact error: the JSON path
// and the rule.
//
//===----------------------------------------------------------------------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

#include <functional>

using namespace collc::topo;
using namespace collc::topo::test;
using nlohmann::json;

namespace {

/// The error of miniTopology() after `edit`, without the "t.json: error: ".
std::string reject(const std::function<void(json &)> &edit) {
  json doc = miniTopology();
  edit(doc);
  std::string error = errorOf(doc);
  const std::string prefix = "t.json: error: ";
  if (error.rfind(prefix, 0) != 0)
    return "(not rejected as expected) " + error;
  return error.substr(prefix.size());
}

/// The node template of miniTopology().
json &tmpl(json &doc) { return doc["node_templates"]["n"]; }

TEST(Rejection, MiniTopologyLoads) {
  LoadResult result = parseTopology(miniTopology().dump(), "t.json");
  ASSERT_EQ(result.error, "");
  EXPECT_EQ(result.topology->numGpus(), 8);
}

//===--- Unknown keys: every object is checked ----------------------------===//

TEST(Rejection, UnknownKeys) {
  EXPECT_EQ(reject([](json &t) { t["colour"] = "red"; }),
            "(root): unknown key \"colour\" (allowed: $schema, "
            "format_version, name, description, link_types, gpu_models, "
            "node_templates, nodes, network)");
  EXPECT_EQ(reject([](json &t) { t["link_types"]["nvl"]["bandwidth"] = 1; }),
            "link_types.nvl: unknown key \"bandwidth\" (allowed: "
            "bandwidth_GBps, latency_us, description)");
  EXPECT_EQ(reject([](json &t) { t["gpu_models"]["g"]["tdp_W"] = 700; }),
            "gpu_models.g: unknown key \"tdp_W\" (allowed: memory_GiB, "
            "memory_bandwidth_GBps, channel_bandwidth_GBps, peak_TFLOPS, "
            "description)");
  EXPECT_EQ(
      reject([](json &t) { t["gpu_models"]["g"]["peak_TFLOPS"]["fp4"] = 1; }),
      "gpu_models.g.peak_TFLOPS: unknown key \"fp4\" (allowed: f64, "
      "f32, tf32, bf16, f16, f8, i8)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nic"] = json::array(); }),
            "node_templates.n: unknown key \"nic\" (allowed: description, "
            "numa_nodes, inter_socket, gpus, fabric, pcie, nics)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["name"] = "x"; }),
            "node_templates.n: unknown key \"name\" (allowed: description, "
            "numa_nodes, inter_socket, gpus, fabric, pcie, nics)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["memory"] = 1; }),
            "node_templates.n.gpus: unknown key \"memory\" (allowed: count, "
            "model, numa)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"]["dims"] = {2, 2}; }),
            "node_templates.n.fabric: unknown key \"dims\" for fabric type "
            "\"nvswitch\" (allowed: type, link_type, lanes)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["inter_socket"]["count"] = 2; }),
            "node_templates.n.inter_socket: unknown key \"count\" (allowed: "
            "link_type, lanes)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["pcie"]["root"] = "cpu"; }),
            "node_templates.n.pcie: unknown key \"root\" (allowed: "
            "link_type, switches)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["pcie"]["switches"][1]["gen"] = 4; }),
            "node_templates.n.pcie.switches[1]: unknown key \"gen\" "
            "(allowed: name, numa, parent, gpus)");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["speed"] = 200; }),
            "node_templates.n.nics[1]: unknown key \"speed\" (allowed: name, "
            "link_type, gpus, pcie_switch, numa)");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["prefix"] = "n"; }),
            "nodes: unknown key \"prefix\" (allowed: count, template)");
  EXPECT_EQ(reject([](json &t) { t["network"]["nodes_per_leaf"] = 2; }),
            "network: unknown key \"nodes_per_leaf\" for network type "
            "\"rail\" (allowed: type, spine)");
  EXPECT_EQ(reject([](json &t) {
              t["network"]["spine"] = {
                  {"link_type", "ib"}, {"lanes", 2}, {"oversubscription", 2}};
            }),
            "network.spine: unknown key \"oversubscription\" (allowed: "
            "link_type, lanes)");
  EXPECT_EQ(reject([](json &t) {
              t["nodes"] = json::array({{{"template", "n"}, {"gpus", 4}}});
            }),
            "nodes[0]: unknown key \"gpus\" (a node with \"template\" takes "
            "only \"name\") (allowed: name, template)");
}

//===--- Missing required keys --------------------------------------------===//

TEST(Rejection, MissingRequiredKeys) {
  for (const char *key : {"format_version", "name", "link_types", "gpu_models",
                          "nodes", "network"})
    EXPECT_EQ(reject([&](json &t) { t.erase(key); }),
              std::string("(root): missing required key \"") + key + "\"");
  EXPECT_EQ(reject([](json &t) { t["link_types"]["ib"].erase("latency_us"); }),
            "link_types.ib: missing required key \"latency_us\"");
  EXPECT_EQ(reject([](json &t) { t["gpu_models"]["g"].erase("memory_GiB"); }),
            "gpu_models.g: missing required key \"memory_GiB\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t).erase("numa_nodes"); }),
            "node_templates.n: missing required key \"numa_nodes\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t).erase("gpus"); }),
            "node_templates.n: missing required key \"gpus\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t).erase("fabric"); }),
            "node_templates.n: missing required key \"fabric\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"].erase("numa"); }),
            "node_templates.n.gpus: missing required key \"numa\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"].erase("type"); }),
            "node_templates.n.fabric: missing required key \"type\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"].erase("lanes"); }),
            "node_templates.n.fabric: missing required key \"lanes\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["pcie"].erase("link_type"); }),
            "node_templates.n.pcie: missing required key \"link_type\"");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][0].erase("name"); }),
      "node_templates.n.pcie.switches[0]: missing required key "
      "\"name\"");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][0].erase("numa"); }),
      "node_templates.n.pcie.switches[0]: missing required key "
      "\"numa\" or \"parent\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][0].erase("gpus"); }),
            "node_templates.n.nics[0]: missing required key \"gpus\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][0].erase("pcie_switch"); }),
            "node_templates.n.nics[0]: missing required key \"pcie_switch\" "
            "or \"numa\"");
  EXPECT_EQ(reject([](json &t) { tmpl(t).erase("inter_socket"); }),
            "node_templates.n: missing required key \"inter_socket\" "
            "(required when numa_nodes > 1)");
  EXPECT_EQ(reject([](json &t) { t["network"].erase("type"); }),
            "network: missing required key \"type\"");
  EXPECT_EQ(reject([](json &t) {
              t["network"] = {{"type", "fat_tree"},
                              {"nodes_per_leaf", 1},
                              {"oversubscription", 1}};
            }),
            "network: missing required key \"uplink_type\"");
  EXPECT_EQ(reject([](json &t) { t["nodes"].erase("template"); }),
            "nodes: missing required key \"template\"");
}

//===--- Wrong JSON types
//--------------------------------------------------===//

TEST(Rejection, WrongTypes) {
  EXPECT_EQ(reject([](json &t) { t["name"] = 8; }),
            "name: expected a string, got an integer");
  EXPECT_EQ(reject([](json &t) { t["description"] = json::array(); }),
            "description: expected a string, got an array");
  EXPECT_EQ(reject([](json &t) { t["link_types"] = json::array(); }),
            "link_types: expected an object, got an array");
  EXPECT_EQ(
      reject([](json &t) { t["link_types"]["nvl"]["bandwidth_GBps"] = "25"; }),
      "link_types.nvl.bandwidth_GBps: expected a number, got a string");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["count"] = 2.5; }),
            "nodes.count: must be an integer from 1 to 65536, got 2.5");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["count"] = 2.0; }),
            "nodes.count: must be an integer from 1 to 65536, got 2.0");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["numa"][0] = 0.0; }),
            "node_templates.n.gpus.numa[0]: must be an integer, got 0.0");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["count"] = "2"; }),
            "nodes.count: expected an integer, got a string");
  EXPECT_EQ(reject([](json &t) { t["nodes"] = "n"; }),
            "nodes: expected an object {\"count\", \"template\"} or an array "
            "of nodes, got a string");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["numa"] = "0"; }),
            "node_templates.n.gpus.numa: expected an integer or an array of "
            "integers, got a string");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["numa"][2] = true; }),
            "node_templates.n.gpus.numa[2]: expected an integer, got a "
            "boolean");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["gpus"] = 2; }),
            "node_templates.n.nics[1].gpus: expected an array, got an "
            "integer");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"] = json::object(); }),
      "node_templates.n.pcie.switches: expected an array, got an "
      "object");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"] = "nvswitch"; }),
            "node_templates.n.fabric: expected an object, got a string");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"]["type"] = nullptr; }),
            "node_templates.n.fabric.type: expected a string, got null");
  EXPECT_EQ(reject([](json &t) { t["nodes"] = json::array({"n"}); }),
            "nodes[0]: expected an object, got a string");
  EXPECT_EQ(reject([](json &t) { t["$schema"] = 1; }),
            "$schema: expected a string, got an integer");
}

//===--- Values out of range
//-----------------------------------------------===//

TEST(Rejection, BandwidthAndLatencyMustBePositive) {
  EXPECT_EQ(
      reject([](json &t) { t["link_types"]["nvl"]["bandwidth_GBps"] = 0; }),
      "link_types.nvl.bandwidth_GBps: must be a positive number, got 0");
  EXPECT_EQ(reject([](json &t) { t["link_types"]["ib"]["latency_us"] = -1.5; }),
            "link_types.ib.latency_us: must be a positive number, got -1.5");
  EXPECT_EQ(reject([](json &t) { t["link_types"]["ib"]["latency_us"] = 0; }),
            "link_types.ib.latency_us: must be a positive number, got 0");
  EXPECT_EQ(reject([](json &t) {
              t["gpu_models"]["g"]["memory_bandwidth_GBps"] = -2000;
            }),
            "gpu_models.g.memory_bandwidth_GBps: must be a positive number, "
            "got -2000");
  EXPECT_EQ(reject([](json &t) {
              t["gpu_models"]["g"]["channel_bandwidth_GBps"] = 0;
            }),
            "gpu_models.g.channel_bandwidth_GBps: must be a positive number, "
            "got 0");
  EXPECT_EQ(reject([](json &t) {
              t["gpu_models"]["g"]["channel_bandwidth_GBps"] = "fast";
            }),
            "gpu_models.g.channel_bandwidth_GBps: expected a number, got a "
            "string");
  EXPECT_EQ(
      reject([](json &t) { t["gpu_models"]["g"]["peak_TFLOPS"]["bf16"] = 0; }),
      "gpu_models.g.peak_TFLOPS.bf16: must be a positive number, got 0");
  EXPECT_EQ(reject([](json &t) {
              t["gpu_models"]["g"]["peak_TFLOPS"] = json::object();
            }),
            "gpu_models.g.peak_TFLOPS: must give the peak of at least one "
            "dtype");
}

TEST(Rejection, CountsOutOfRange) {
  EXPECT_EQ(reject([](json &t) { t["format_version"] = 2; }),
            "format_version: unsupported format_version 2 (this collc reads "
            "version 1)");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["count"] = 0; }),
            "nodes.count: must be an integer from 1 to 65536, got 0");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["count"] = 777777777777ll; }),
            "nodes.count: must be an integer from 1 to 65536, got "
            "777777777777");
  EXPECT_EQ(
      reject([](json &t) { t["nodes"]["count"] = 18446744073709551615ull; }),
      "nodes.count: must be an integer from 1 to 65536, got "
      "18446744073709551615");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["count"] = -4; }),
            "node_templates.n.gpus.count: must be an integer from 1 to 1024, "
            "got -4");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["numa_nodes"] = 0; }),
            "node_templates.n.numa_nodes: must be an integer from 1 to 64, "
            "got 0");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"]["lanes"] = 0; }),
            "node_templates.n.fabric.lanes: must be an integer from 1 to "
            "1024, got 0");
  EXPECT_EQ(reject([](json &t) {
              t["network"] = {{"type", "fat_tree"},
                              {"nodes_per_leaf", 1},
                              {"oversubscription", 0.5},
                              {"uplink_type", "ib"}};
            }),
            "network.oversubscription: must be a number >= 1, got 0.5");
  EXPECT_EQ(reject([](json &t) {
              t["network"] = {{"type", "fat_tree"},
                              {"nodes_per_leaf", 1},
                              {"oversubscription", 1},
                              {"uplink_type", "ib"},
                              {"core_switches", 0}};
            }),
            "network.core_switches: must be an integer from 1 to 1024, got 0");
  // Counts that each fit but together make too many GPUs.
  EXPECT_EQ(reject([](json &t) {
              t["nodes"]["count"] = 65536;
              tmpl(t)["gpus"]["count"] = 1024;
              tmpl(t)["gpus"]["numa"] = 0;
              tmpl(t)["fabric"] = {{"type", "pcie"}};
              tmpl(t).erase("pcie");
              tmpl(t).erase("nics");
            }),
            "nodes: the topology has 67108864 GPUs; at most 131072 are "
            "supported");
}

TEST(Rejection, EmptyNames) {
  EXPECT_EQ(reject([](json &t) { t["name"] = ""; }), "name: must not be empty");
  EXPECT_EQ(
      reject([](json &t) { t["link_types"][""] = t["link_types"]["nvl"]; }),
      "link_types[\"\"]: a link type name must not be empty");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][0]["name"] = ""; }),
      "node_templates.n.pcie.switches[0].name: must not be empty");
}

//===--- Duplicates
//--------------------------------------------------------===//

TEST(Rejection, DuplicateNames) {
  EXPECT_EQ(reject([](json &t) {
              t["nodes"] = json::array({{{"name", "a"}, {"template", "n"}},
                                        {{"name", "a"}, {"template", "n"}}});
            }),
            "nodes[1].name: node name \"a\" is already used by nodes[0]");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][1]["name"] = "sw0"; }),
      "node_templates.n.pcie.switches[1].name: name \"sw0\" is already "
      "used by the PCIe switch at node_templates.n.pcie.switches[0].name");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["name"] = "nic0"; }),
            "node_templates.n.nics[1].name: name \"nic0\" is already used by "
            "the NIC at node_templates.n.nics[0]");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][0]["name"] = "sw1"; }),
            "node_templates.n.nics[0].name: name \"sw1\" is already used by "
            "the PCIe switch at node_templates.n.pcie.switches[1].name");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][0]["name"] = "gpu2"; }),
      "node_templates.n.pcie.switches[0].name: name \"gpu2\" is "
      "already used by GPU 2");
}

TEST(Rejection, DuplicateGpus) {
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][0]["gpus"] = {0, 1, 0}; }),
            "node_templates.n.nics[0].gpus[2]: GPU 0 is already listed at "
            "node_templates.n.nics[0].gpus[0]");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["gpus"] = {2, 3, 1}; }),
            "node_templates.n.nics[1].gpus[2]: GPU 1 already uses NIC "
            "\"nic0\"");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["pcie"]["switches"][1]["gpus"] = {2, 3, 1};
            }),
            "node_templates.n.pcie.switches[1].gpus[2]: GPU 1 is already "
            "under PCIe switch \"sw0\"");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["fabric"] = {
                  {"type", "mesh"},
                  {"link_type", "nvl"},
                  {"links", {{0, 1, 2}, {2, 3, 2}, {1, 0, 1}}}};
            }),
            "node_templates.n.fabric.links[2]: GPUs 1 and 0 are already "
            "linked at node_templates.n.fabric.links[0]");
}

//===--- References
//--------------------------------------------------------===//

TEST(Rejection, UnknownReferences) {
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"]["link_type"] = "nvlink9"; }),
            "node_templates.n.fabric.link_type: unknown link type "
            "\"nvlink9\"; link_types defines: ib, nvl, pcie, upi");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["link_type"] = "roce"; }),
            "node_templates.n.nics[1].link_type: unknown link type \"roce\"; "
            "link_types defines: ib, nvl, pcie, upi");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["inter_socket"]["link_type"] = "qpi"; }),
      "node_templates.n.inter_socket.link_type: unknown link type "
      "\"qpi\"; link_types defines: ib, nvl, pcie, upi");
  EXPECT_EQ(reject([](json &t) {
              t["network"]["spine"] = {{"link_type", "ndr"}, {"lanes", 2}};
            }),
            "network.spine.link_type: unknown link type \"ndr\"; link_types "
            "defines: ib, nvl, pcie, upi");
  EXPECT_EQ(reject([](json &t) { t["link_types"] = json::object(); }),
            "node_templates.n.inter_socket.link_type: unknown link type "
            "\"upi\"; link_types defines none");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["model"] = "H100"; }),
            "node_templates.n.gpus.model: unknown GPU model \"H100\"; "
            "gpu_models defines: g");
  EXPECT_EQ(reject([](json &t) { t["nodes"]["template"] = "dgx"; }),
            "nodes.template: unknown node template \"dgx\"; node_templates "
            "defines: n");
  EXPECT_EQ(reject([](json &t) {
              t.erase("node_templates");
              t["nodes"] = json::array({{{"template", "n"}}});
            }),
            "nodes[0].template: unknown node template \"n\"; node_templates "
            "defines none");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["pcie_switch"] = "sw9"; }),
            "node_templates.n.nics[1].pcie_switch: unknown PCIe switch "
            "\"sw9\"");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["pcie"]["switches"][1].erase("numa");
              tmpl(t)["pcie"]["switches"][1]["parent"] = "top";
            }),
            "node_templates.n.pcie.switches[1].parent: unknown PCIe switch "
            "\"top\"");
}

TEST(Rejection, GpuAndNumaIndices) {
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["gpus"]["count"] = 8;
              tmpl(t)["gpus"]["numa"] = {0, 0, 1, 1, 1, 1, 1, 1};
              tmpl(t)["nics"][1]["gpus"] = {9};
            }),
            "node_templates.n.nics[1].gpus[0]: GPU 9 does not exist in a node "
            "of 8 GPUs");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][0]["gpus"][1] = -1; }),
      "node_templates.n.pcie.switches[0].gpus[1]: GPU -1 does not exist "
      "in a node of 4 GPUs");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["fabric"] = {{"type", "mesh"},
                                   {"link_type", "nvl"},
                                   {"links", {{0, 4, 1}}}};
            }),
            "node_templates.n.fabric.links[0][1]: GPU 4 does not exist in a "
            "node of 4 GPUs");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["numa"][3] = 2; }),
            "node_templates.n.gpus.numa[3]: NUMA node 2 does not exist in a "
            "node with numa_nodes 2");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["pcie"]["switches"][1]["numa"] = 5; }),
            "node_templates.n.pcie.switches[1].numa: NUMA node 5 does not "
            "exist in a node with numa_nodes 2");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["nics"][1].erase("pcie_switch");
              tmpl(t)["nics"][1]["numa"] = 3;
            }),
            "node_templates.n.nics[1].numa: NUMA node 3 does not exist in a "
            "node with numa_nodes 2");
}

//===--- Consistency within a node
//-----------------------------------------===//

TEST(Rejection, InconsistentNode) {
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["numa"] = {0, 0, 1}; }),
            "node_templates.n.gpus.numa: has 3 entries but gpus.count is 4");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["gpus"]["numa"] = {0, 1, 1, 1}; }),
            "node_templates.n.pcie.switches[0].gpus[1]: GPU 1 is on NUMA node "
            "1 but PCIe switch \"sw0\" is under NUMA node 0");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t)["numa_nodes"] = 1;
              tmpl(t)["gpus"]["numa"] = 0;
            }),
            "node_templates.n.inter_socket: only allowed when numa_nodes > 1 "
            "(numa_nodes is 1)");
  EXPECT_EQ(
      reject([](json &t) { tmpl(t)["pcie"]["switches"][0]["parent"] = "sw1"; }),
      "node_templates.n.pcie.switches[0]: give either \"numa\" or "
      "\"parent\", not both");
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][0]["numa"] = 0; }),
            "node_templates.n.nics[0]: give either \"pcie_switch\" or "
            "\"numa\", not both");
  EXPECT_EQ(reject([](json &t) { tmpl(t).erase("pcie"); }),
            "node_templates.n.nics[0]: a NIC attaches to the PCIe tree, but "
            "this node has no \"pcie\" section");
  EXPECT_EQ(reject([](json &t) {
              json &switches = tmpl(t)["pcie"]["switches"];
              switches[0].erase("numa");
              switches[0]["parent"] = "sw2";
              switches[1].erase("numa");
              switches[1]["parent"] = "sw0";
              switches.push_back({{"name", "sw2"}, {"parent", "sw1"}});
            }),
            "node_templates.n.pcie.switches[0].parent: PCIe switch parents "
            "form a cycle: sw2 -> sw1 -> sw0 -> sw2");
  EXPECT_EQ(reject([](json &t) {
              json &sw = tmpl(t)["pcie"]["switches"][0];
              sw.erase("numa");
              sw["parent"] = "sw0";
            }),
            "node_templates.n.pcie.switches[0].parent: PCIe switch parents "
            "form a cycle: sw0 -> sw0");
}

TEST(Rejection, BadFabric) {
  EXPECT_EQ(reject([](json &t) { tmpl(t)["fabric"]["type"] = "nvlink"; }),
            "node_templates.n.fabric.type: unknown fabric type \"nvlink\" "
            "(allowed: nvswitch, mesh, torus, pcie)");
  auto torus = [](json &t, json dims, json wrap) {
    tmpl(t)["fabric"] = {{"type", "torus"},
                         {"link_type", "nvl"},
                         {"lanes", 1},
                         {"dims", dims},
                         {"wraparound", wrap}};
  };
  EXPECT_EQ(reject([&](json &t) { torus(t, {2, 3}, true); }),
            "node_templates.n.fabric.dims: a 2x3 torus has 6 GPUs but "
            "gpus.count is 4");
  EXPECT_EQ(reject([&](json &t) { torus(t, json::array(), true); }),
            "node_templates.n.fabric.dims: must have 1 to 4 dimensions, got 0");
  EXPECT_EQ(reject([&](json &t) { torus(t, {2, 2}, {true}); }),
            "node_templates.n.fabric.wraparound: has 1 entries but dims has 2");
  EXPECT_EQ(reject([&](json &t) { torus(t, {2, 2}, "yes"); }),
            "node_templates.n.fabric.wraparound: expected a boolean or an "
            "array of booleans, got a string");
  EXPECT_EQ(reject([&](json &t) { torus(t, {2, 2}, {true, 1}); }),
            "node_templates.n.fabric.wraparound[1]: expected a boolean, got "
            "an integer");
  auto mesh = [](json &t, json links) {
    tmpl(t)["fabric"] = {
        {"type", "mesh"}, {"link_type", "nvl"}, {"links", links}};
  };
  EXPECT_EQ(reject([&](json &t) { mesh(t, {{1, 1, 1}}); }),
            "node_templates.n.fabric.links[0]: GPU 1 cannot be linked to "
            "itself");
  EXPECT_EQ(reject([&](json &t) { mesh(t, {{0, 1, 1}, {2, 3}}); }),
            "node_templates.n.fabric.links[1]: expected [gpu, gpu, lanes], "
            "got 2 elements");
  EXPECT_EQ(reject([&](json &t) { mesh(t, {{0, 1, 0}}); }),
            "node_templates.n.fabric.links[0][2]: must be an integer from 1 "
            "to 1024, got 0");
  EXPECT_EQ(reject([&](json &t) {
              tmpl(t)["fabric"] = {{"type", "pcie"}, {"link_type", "pcie"}};
            }),
            "node_templates.n.fabric: unknown key \"link_type\" for fabric "
            "type \"pcie\" (allowed: type)");
}

//===--- Consistency across nodes and the network
//--------------------------===//

TEST(Rejection, InconsistentNodes) {
  EXPECT_EQ(reject([](json &t) {
              json small = tmpl(t);
              small["gpus"]["count"] = 2;
              small["gpus"]["numa"] = {0, 1};
              small["pcie"]["switches"][0]["gpus"] = {0};
              small["pcie"]["switches"][1]["gpus"] = {1};
              small["nics"][0]["gpus"] = {0};
              small["nics"][1]["gpus"] = {1};
              t["node_templates"]["small"] = small;
              t["nodes"] =
                  json::array({{{"template", "n"}},
                               {{"name", "s"}, {"template", "small"}}});
            }),
            "nodes[1]: node \"s\" has 2 GPUs but node \"node0\" has 4; every "
            "node must have the same number of GPUs");
  EXPECT_EQ(reject([](json &t) {
              json one = tmpl(t);
              one["nics"] = {{{"link_type", "ib"},
                              {"pcie_switch", "sw0"},
                              {"gpus", {0, 1, 2, 3}}}};
              t["nodes"] = json::array({tmpl(t), one});
            }),
            "nodes[1]: node \"node1\" has 1 NICs but node \"node0\" has 2; a "
            "rail network needs the same number of NICs in every node (NIC i "
            "of every node is on rail i)");
  EXPECT_EQ(reject([](json &t) { t["network"] = {{"type", "none"}}; }),
            "network: network type \"none\" allows only 1 node, but there are "
            "2");
  EXPECT_EQ(reject([](json &t) { t["network"]["type"] = "torus"; }),
            "network.type: unknown network type \"torus\" (allowed: none, "
            "rail, fat_tree)");
}

TEST(Rejection, GpuWithNoWayOut) {
  EXPECT_EQ(reject([](json &t) { tmpl(t)["nics"][1]["gpus"] = {2}; }),
            "node_templates.n.nics: GPU 3 has no NIC, so it has no way out of "
            "its node in a multi-node topology; list it in the \"gpus\" of a "
            "NIC");
  EXPECT_EQ(reject([](json &t) {
              tmpl(t).erase("nics");
              t["network"] = {{"type", "fat_tree"},
                              {"nodes_per_leaf", 2},
                              {"oversubscription", 1},
                              {"uplink_type", "ib"}};
            }),
            "node_templates.n: network type \"fat_tree\" needs NICs, but node "
            "\"node0\" has none");
  // One node needs no NIC affinity.
  json one = miniTopology();
  one["nodes"]["count"] = 1;
  one["network"] = {{"type", "none"}};
  tmpl(one)["nics"][1]["gpus"] = {2};
  EXPECT_EQ(errorOf(one), "");
}

TEST(Rejection, Disconnected) {
  // Without a PCIe tree, GPUs {0, 1} and {2, 3} of a mesh are two islands.
  EXPECT_EQ(reject([](json &t) {
              t["nodes"]["count"] = 1;
              t["network"] = {{"type", "none"}};
              tmpl(t).erase("pcie");
              tmpl(t).erase("nics");
              tmpl(t)["fabric"] = {{"type", "mesh"},
                                   {"link_type", "nvl"},
                                   {"links", {{0, 1, 2}, {2, 3, 2}}}};
            }),
            "node_templates.n.fabric: GPU node0/gpu2 cannot reach GPU "
            "node0/gpu0; the graph is disconnected: no link crosses the cut "
            "{node0/gpu0, node0/gpu1} | {node0/gpu2, node0/gpu3}, so no "
            "schedule can move data across it");
  // A GPU with no link at all.
  EXPECT_EQ(reject([](json &t) {
              t["nodes"]["count"] = 1;
              t["network"] = {{"type", "none"}};
              tmpl(t).erase("pcie");
              tmpl(t).erase("nics");
              tmpl(t)["fabric"] = {{"type", "pcie"}};
            }),
            "node_templates.n.fabric: GPU node0/gpu1 cannot reach GPU "
            "node0/gpu0; the graph is disconnected: no link crosses the cut "
            "{node0/gpu0} | {node0/gpu1, node0/gpu2, node0/gpu3}, so no "
            "schedule can move data across it");
}

TEST(Rejection, ExplicitNodeList) {
  EXPECT_EQ(reject([](json &t) { t["nodes"] = json::array(); }),
            "nodes: must list at least one node");
  // An inline body is checked like a template, under its own path.
  EXPECT_EQ(reject([](json &t) {
              json body = tmpl(t);
              body["gpus"]["count"] = 0;
              t["nodes"] = json::array({tmpl(t), body});
            }),
            "nodes[1].gpus.count: must be an integer from 1 to 1024, got 0");
}

} // namespace

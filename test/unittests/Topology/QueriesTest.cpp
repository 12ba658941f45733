//===- QueriesTest.cpp - the graph queries and expansion details ----------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace collc::topo;
using namespace collc::topo::test;
using nlohmann::json;

namespace {

/// One node of `gpus` GPUs with `fabric`, on one NUMA node with a PCIe root
/// (link type "pcie", 0.5 us); link type "nvl" (25 GB/s) has `nvlLatencyUs`.
std::unique_ptr<Topology> oneNode(int gpus, json fabric,
                                  double nvlLatencyUs = 0.6) {
  json doc = miniTopology();
  doc["link_types"]["nvl"]["latency_us"] = nvlLatencyUs;
  json &node = doc["node_templates"]["n"];
  node = {{"numa_nodes", 1},
          {"gpus", {{"count", gpus}, {"model", "g"}, {"numa", 0}}},
          {"fabric", fabric},
          {"pcie", {{"link_type", "pcie"}}}};
  doc["nodes"]["count"] = 1;
  doc["network"] = {{"type", "none"}};
  LoadResult result = parseTopology(doc.dump(), "t.json");
  EXPECT_EQ(result.error, "");
  return std::move(result.topology);
}

json mesh(json links) {
  return {{"type", "mesh"}, {"link_type", "nvl"}, {"links", links}};
}

TEST(Queries, WidestPathBeatsNarrowDirectLink) {
  auto t = oneNode(3, mesh({{0, 1, 1}, {1, 2, 4}, {0, 2, 4}}));
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(1)), 100 * GBps);
  // The shortest path is still the direct link.
  EXPECT_EQ(describePath(*t, t->shortestPath(t->gpu(0), t->gpu(1))),
            "node0/gpu0 > node0/gpu1");
}

TEST(Queries, ShortestPathByLatencyThenHops) {
  // Direct NVLink vs GPU > CPU > GPU over two 0.5 us PCIe links.
  auto slow = oneNode(2, mesh({{0, 1, 1}}), 1.1);
  EXPECT_EQ(describePath(*slow, slow->shortestPath(slow->gpu(0), slow->gpu(1))),
            "node0/gpu0 > node0/cpu0 > node0/gpu1");
  auto fast = oneNode(2, mesh({{0, 1, 1}}), 0.9);
  EXPECT_EQ(describePath(*fast, fast->shortestPath(fast->gpu(0), fast->gpu(1))),
            "node0/gpu0 > node0/gpu1");
  // Equal latency (0.5 + 0.5 == 1.0 exactly): fewer hops wins.
  auto tie = oneNode(2, mesh({{0, 1, 1}}), 1.0);
  EXPECT_EQ(describePath(*tie, tie->shortestPath(tie->gpu(0), tie->gpu(1))),
            "node0/gpu0 > node0/gpu1");
}

TEST(Queries, SameDeviceAndEmptySets) {
  auto t = oneNode(2, mesh({{0, 1, 1}}));
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->shortestPath(t->gpu(1), t->gpu(1)).empty());
  EXPECT_TRUE(std::isinf(t->bottleneckBandwidth(t->gpu(1), t->gpu(1))));
  EXPECT_DOUBLE_EQ(t->cutBandwidth({}), 0);
  // Duplicates count once; the whole graph has no cut.
  EXPECT_DOUBLE_EQ(t->cutBandwidth({t->gpu(0), t->gpu(0)}), (25 + 32) * GBps);
  std::vector<DeviceId> all;
  for (std::size_t d = 0; d < t->devices().size(); ++d)
    all.push_back(static_cast<DeviceId>(d));
  EXPECT_DOUBLE_EQ(t->cutBandwidth(all), 0);
}

TEST(Queries, LinksComeInReversePairs) {
  auto t = loadBundled("dgx-a100-2");
  ASSERT_TRUE(t);
  for (std::size_t id = 0; id < t->links().size(); ++id) {
    const Link &link = t->links()[id];
    const Link &back = t->link(link.reverse);
    EXPECT_EQ(back.reverse, static_cast<LinkId>(id));
    EXPECT_EQ(back.src, link.dst);
    EXPECT_EQ(back.dst, link.src);
    EXPECT_DOUBLE_EQ(back.bandwidth, link.bandwidth);
    EXPECT_DOUBLE_EQ(back.latency, link.latency);
  }
  for (std::size_t d = 0; d < t->devices().size(); ++d)
    for (LinkId id : t->linksFrom(static_cast<DeviceId>(d)))
      EXPECT_EQ(t->link(id).src, static_cast<DeviceId>(d));
}

TEST(Queries, DeviceFields) {
  auto t = loadBundled("dgx-a100-2");
  ASSERT_TRUE(t);
  const Device &gpu = t->device(t->gpu(13));
  EXPECT_EQ(gpu.kind, DeviceKind::Gpu);
  EXPECT_EQ(gpu.name, "node1/gpu5");
  EXPECT_EQ(gpu.node, 1);
  EXPECT_EQ(gpu.index, 5);
  EXPECT_EQ(gpu.rank, 13);
  EXPECT_EQ(t->gpuModels()[gpu.gpuModel].name, "A100-SXM4-80GB");
  const Device &nic = t->device(gpu.nic);
  EXPECT_EQ(nic.kind, DeviceKind::Nic);
  EXPECT_EQ(nic.numa, 1);
  EXPECT_EQ(t->linkTypes()[nic.portType].name, "cx6_hdr200");
  const Device &rail = t->device(deviceNamed(*t, "rail5"));
  EXPECT_EQ(rail.kind, DeviceKind::NetworkSwitch);
  EXPECT_EQ(rail.node, -1);
  EXPECT_EQ(t->node(1).name, "node1");
  EXPECT_EQ(t->node(1).gpus.size(), 8u);
  EXPECT_EQ(t->node(1).cpus.size(), 2u);
  EXPECT_EQ(t->device(t->node(1).nvSwitch).kind, DeviceKind::NvSwitch);
  EXPECT_EQ(std::string(deviceKindName(DeviceKind::PcieSwitch)), "PCIe switch");
  EXPECT_EQ(std::string(linkKindName(LinkKind::InterSocket)), "inter-socket");
}

json torus(json dims, json wrap) {
  return {{"type", "torus"},
          {"link_type", "nvl"},
          {"lanes", 2},
          {"dims", dims},
          {"wraparound", wrap}};
}

/// Directed fabric links of a one-node topology.
int fabricLinks(const Topology &t) {
  int count = 0;
  for (const Link &link : t.links())
    count += link.kind == LinkKind::Fabric;
  return count;
}

TEST(Queries, TorusWraparound) {
  // A ring of 3 closes; a line of 3 does not; a dimension of 2 has one link.
  EXPECT_EQ(fabricLinks(*oneNode(3, torus({3}, true))), 6);
  EXPECT_EQ(fabricLinks(*oneNode(3, torus({3}, false))), 4);
  EXPECT_EQ(fabricLinks(*oneNode(4, torus({2, 2}, true))), 8);
  // 2x3 wrapping only in dim 1 (rows of 3 are rings, columns are lines).
  auto t = oneNode(6, torus({2, 3}, {false, true}));
  EXPECT_EQ(fabricLinks(*t), 2 * (3 + 2 * 3));
  EXPECT_EQ(t->shortestPath(t->gpu(0), t->gpu(2)).size(), 1u); // (0,0)-(0,2)
  EXPECT_DOUBLE_EQ(t->link(t->shortestPath(t->gpu(0), t->gpu(2))[0]).bandwidth,
                   50 * GBps); // 2 lanes
  EXPECT_EQ(t->node(0).fabricSummary,
            "2x3 torus of nvl x2, wraparound in dims 1");
  // 3-D.
  EXPECT_EQ(fabricLinks(*oneNode(27, torus({3, 3, 3}, true))), 2 * 81);
}

TEST(Queries, ThreeSocketsAreFullyConnected) {
  json doc = miniTopology();
  json &node = doc["node_templates"]["n"];
  node["numa_nodes"] = 3;
  node["gpus"]["numa"] = {0, 1, 2, 2};
  node["pcie"]["switches"] = json::array();
  node["nics"] = {{{"link_type", "ib"}, {"numa", 0}, {"gpus", {0, 1, 2, 3}}}};
  LoadResult result = parseTopology(doc.dump(), "t.json");
  ASSERT_EQ(result.error, "");
  int interSocket = 0;
  for (const Link &link : result.topology->links())
    interSocket += link.kind == LinkKind::InterSocket;
  EXPECT_EQ(interSocket, 2 * 2 * 3); // 2 nodes x 3 pairs x 2 directions
  // No switches: GPUs and the NIC hang off their socket's CPU.
  const Topology &t = *result.topology;
  EXPECT_EQ(describePath(t, t.shortestPath(t.gpu(1), *t.nicOf(1))),
            "node0/gpu1 > node0/cpu1 > node0/cpu0 > node0/nic0");
  EXPECT_EQ(describePath(t, t.shortestPath(deviceNamed(t, "node0/cpu2"),
                                           deviceNamed(t, "node0/cpu1"))),
            "node0/cpu2 > node0/cpu1");
}

TEST(Queries, RailSpineAndSingleLeafFatTree) {
  json doc = miniTopology();
  doc["network"]["spine"] = {{"link_type", "ib"}, {"lanes", 2}};
  LoadResult rail = parseTopology(doc.dump(), "t.json");
  ASSERT_EQ(rail.error, "");
  const Topology &t = *rail.topology;
  EXPECT_EQ(t.networkSummary(),
            "rail-optimized, 2 rail switches, spine of ib x2 per rail");
  EXPECT_DOUBLE_EQ(t.cutBandwidth({deviceNamed(t, "spine")}), 2 * 50 * GBps);

  doc["network"] = {{"type", "fat_tree"},
                    {"nodes_per_leaf", 4},
                    {"oversubscription", 1},
                    {"uplink_type", "ib"}};
  LoadResult tree = parseTopology(doc.dump(), "t.json");
  ASSERT_EQ(tree.error, "");
  EXPECT_EQ(tree.topology->networkSummary(),
            "fat-tree, 1 leaf switch of up to 4 nodes, oversubscription 1:1, "
            "no core switch");
  EXPECT_DOUBLE_EQ(tree.topology->egressBandwidth(1), 2 * 25 * GBps);
}

} // namespace

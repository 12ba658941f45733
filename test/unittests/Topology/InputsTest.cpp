//===- InputsTest.cpp - the files of test/Topology/Inputs -----------------===//
//
// The example and the broken files that the docs and the driver's lit tests
// use, with the exact error each must give.
//
//===----------------------------------------------------------------------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

using namespace collc::topo;
using namespace collc::topo::test;

namespace {

TEST(Inputs, ExplicitFatTree) {
  auto t = loadInput("explicit-fat-tree.json");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numNodes(), 4);
  EXPECT_EQ(t->numGpus(), 16);
  EXPECT_EQ(t->node(3).name, "b1");
  EXPECT_EQ(t->device(t->gpu(13)).name, "b1/gpu1");
  EXPECT_EQ(t->networkKind(), NetworkKind::FatTree);
  // 4 NVLink 3 lanes between every GPU pair of a board.
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(12), t->gpu(14)), 100 * GBps);
  // One HDR NIC across nodes, on the same leaf or not (uplinks: 4 NICs x 25
  // GB/s / 2 = 50 GB/s).
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(4)), 25 * GBps);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(8)), 25 * GBps);
  EXPECT_DOUBLE_EQ(t->egressBandwidth(0), 2 * 25 * GBps);
  DeviceId leaf0 = deviceNamed(*t, "leaf0");
  EXPECT_DOUBLE_EQ(t->cutBandwidth({leaf0}), (4 * 25 + 50) * GBps);
  std::vector<DeviceId> firstLeaf = devicesNamed(*t, "a");
  firstLeaf.push_back(leaf0);
  EXPECT_DOUBLE_EQ(t->cutBandwidth(firstLeaf), 50 * GBps);
  // Leaf to leaf through the core: 8 links.
  std::vector<LinkId> path = t->shortestPath(t->gpu(0), t->gpu(8));
  EXPECT_EQ(describePath(*t, path),
            "a0/gpu0 > a0/sw0 > a0/nic0 > leaf0 > core > leaf1 > b0/nic0 > "
            "b0/sw0 > b0/gpu0");
  EXPECT_NEAR(t->pathLatency(path), (4 * 0.5 + 4 * 1.35) * us, 1e-12);
  EXPECT_EQ(deviceNamed(*t, "core"), t->link(path[3]).dst);
  // The written-out node: NICs on the CPUs, one per socket.
  EXPECT_EQ(nameOf(*t, t->nicOf(14)), "b1/ib1");
  EXPECT_EQ(t->gpuNuma(14), 1);
  EXPECT_EQ(t->device(*t->nicOf(14)).numa, 1);
  EXPECT_EQ(describePath(*t, t->shortestPath(*t->nicOf(14), t->gpu(14))),
            "b1/ib1 > b1/cpu1 > b1/gpu2");
}

TEST(Inputs, Malformed) {
  EXPECT_EQ(inputError("malformed.json"),
            inputPath("malformed.json") +
                ":4:15: error: syntax error while parsing object - "
                "unexpected string literal; expected '}'");
}

TEST(Inputs, UnknownKey) {
  EXPECT_EQ(inputError("unknown-key.json"),
            inputPath("unknown-key.json") +
                ": error: node_templates.box: unknown key \"nic\" (allowed: "
                "description, numa_nodes, inter_socket, gpus, fabric, pcie, "
                "nics)");
}

TEST(Inputs, BadReference) {
  EXPECT_EQ(inputError("bad-reference.json"),
            inputPath("bad-reference.json") +
                ": error: nodes[0].nics[3].gpus[0]: GPU 9 does not exist in a "
                "node of 8 GPUs");
}

TEST(Inputs, Disconnected) {
  EXPECT_EQ(inputError("disconnected.json"),
            inputPath("disconnected.json") +
                ": error: node_templates.bridged.fabric: GPU node0/gpu2 "
                "cannot reach GPU node0/gpu0; the graph is disconnected: no "
                "link crosses the cut {node0/gpu0, node0/gpu1} | {node0/gpu2, "
                "node0/gpu3}, so no schedule can move data across it");
}

TEST(Inputs, DuplicateKey) {
  EXPECT_EQ(inputError("duplicate-key.json"),
            inputPath("duplicate-key.json") +
                ": error: link_types: duplicate key \"nvlink\"");
}

TEST(Inputs, NoWayOut) {
  EXPECT_EQ(inputError("no-way-out.json"),
            inputPath("no-way-out.json") +
                ": error: node_templates.box.nics: GPU 3 has no NIC, so it "
                "has no way out of its node in a multi-node topology; list it "
                "in the \"gpus\" of a NIC");
}

} // namespace

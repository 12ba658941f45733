//===- BoundsTest.cpp - lower bounds on bundled topologies ----------------===//
//
// dgx8x8: 8 nodes of 8 H100s. A GPU's links out: NVLink 18 x 25 = 450 GB/s
// and PCIe Gen5 64 GB/s, 514 GB/s in all. A node's links out: 8 NICs x
// 50 GB/s = 400 GB/s. The smallest GPU-to-GPU latency is an NVSwitch hop,
// 2 x 0.3 us.
//
//===----------------------------------------------------------------------===//
#include "compiler/Bounds/Bounds.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace collc;
using namespace collc::bounds;
using sched::Collective;

namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kGpuOut = 514e9, kNodeOut = 400e9;

std::unique_ptr<topo::Topology>
load(const std::string &name, const std::string &dir = COLLC_TOPOLOGIES_DIR) {
  topo::LoadResult result = topo::loadTopologyFile(dir + "/" + name + ".json");
  EXPECT_EQ(result.error, "");
  return std::move(result.topology);
}

std::vector<int> firstRanks(int n) {
  std::vector<int> gpus;
  for (int r = 0; r < n; ++r)
    gpus.push_back(r);
  return gpus;
}

void expectRelative(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * expected);
}

class Dgx8x8 : public ::testing::Test {
protected:
  void SetUp() override {
    topology = load("dgx8x8");
    ASSERT_TRUE(topology);
  }
  LowerBound bound(Collective collective, double bytes, int root = 0,
                   int peer = 1) {
    CollectiveSpec spec;
    spec.collective = collective;
    spec.gpus = firstRanks(64);
    spec.bytes = bytes;
    spec.root = root;
    spec.peer = peer;
    LowerBound result = lowerBound(spec, *topology);
    EXPECT_EQ(result.error, "");
    return result;
  }
  std::unique_ptr<topo::Topology> topology;
};

TEST_F(Dgx8x8, CutBandwidths) {
  EXPECT_DOUBLE_EQ(topology->cutBandwidth({topology->gpu(0)}), kGpuOut);
  EXPECT_DOUBLE_EQ(topology->egressBandwidth(0), kNodeOut);
}

/// 1 GiB all-reduce on 64 ranks. Per GPU: 2(N-1)/N * M = 2*63/64 GiB over
/// 514 GB/s = 4.11 ms. Per node: 2(n-1)/n * M = 2*7/8 GiB over 400 GB/s =
/// 4.70 ms. The node's NICs dominate. (Over NVLink alone, 450 GB/s, the
/// per-GPU bound would tie with it exactly: 126/64/450 = 14/8/400.)
TEST_F(Dgx8x8, AllReduce1GiBIsBoundByNodeEgress) {
  LowerBound b = bound(Collective::AllReduce, kGiB);
  double perNode = 2.0 * 7 / 8 * kGiB / kNodeOut;
  double perGpu = 2.0 * 63 / 64 * kGiB / kGpuOut;
  expectRelative(b.seconds, perNode);
  expectRelative(b.bandwidthSeconds, perNode);
  EXPECT_TRUE(b.bandwidthDominates);
  EXPECT_EQ(b.bandwidth.name, "per-node egress");
  EXPECT_EQ(b.reason,
            "per-node egress: 2*(8-1)/8 * M = 1.88 GB over 400 GB/s (M = "
            "1.07 GB; average over 8 nodes; all_reduce moves 2(P-1) M "
            "between P parties)");
  ASSERT_EQ(b.terms.size(), 4u);
  EXPECT_EQ(b.terms[2].name, "per-GPU injection");
  expectRelative(b.terms[2].seconds, perGpu);
  // Any schedule: GPU 0 of node 0 reaches GPU 2 of node 1 through its own
  // rail and an NVLink hop at the far end (4.7 + 0.6 us).
  expectRelative(b.latencySeconds, 5.3e-6);
  EXPECT_EQ(b.latency.reason,
            "latency: the farthest pair that must communicate, 1 hop of "
            "5.3 us (node0/gpu0 to node1/gpu2)");
  std::printf("all_reduce 1 GiB on dgx8x8: %s\n", b.reason.c_str());
  std::printf("  per-GPU: %s\n", b.terms[2].reason.c_str());
}

TEST_F(Dgx8x8, SmallAllReduceIsBoundByLatency) {
  LowerBound b = bound(Collective::AllReduce, 1024);
  EXPECT_FALSE(b.bandwidthDominates);
  expectRelative(b.seconds, 5.3e-6);
  EXPECT_EQ(b.reason, b.latency.reason);
}

TEST_F(Dgx8x8, OtherCollectives) {
  // all_gather: a node receives the other 56 inputs.
  expectRelative(bound(Collective::AllGather, kGiB).seconds,
                 56 * kGiB / kNodeOut);
  // reduce_scatter: a node sends (64-8)/64 of its partial sums.
  expectRelative(bound(Collective::ReduceScatter, kGiB).seconds,
                 56.0 / 64 * kGiB / kNodeOut);
  // all_to_all: 8 ranks each send 56 parts of M/64 out of the node.
  LowerBound a2a = bound(Collective::AllToAll, kGiB);
  expectRelative(a2a.seconds, 8.0 * 56 / 64 * kGiB / kNodeOut);
  EXPECT_EQ(a2a.reason, "per-node egress: 8*(64-8)/64 * M = 7.52 GB over "
                        "400 GB/s (M = 1.07 GB; node0)");
  // broadcast: the root's node sends M once.
  expectRelative(bound(Collective::Broadcast, kGiB).seconds, kGiB / kNodeOut);
  // gather to rank 9: its node receives 56 inputs.
  expectRelative(bound(Collective::Gather, kGiB, 9).seconds,
                 56 * kGiB / kNodeOut);
}

TEST_F(Dgx8x8, SendRecvAcrossNodes) {
  LowerBound b = bound(Collective::SendRecv, kGiB, 0, 8);
  expectRelative(b.bandwidthSeconds, kGiB / kNodeOut);
  // GPU - PCIe switch - NIC - rail - NIC - PCIe switch - GPU.
  expectRelative(b.latencySeconds, 4.7e-6);
  EXPECT_EQ(b.latency.reason,
            "latency: 1 hop of 4.7 us (node0/gpu0 to node1/gpu0)");
}

TEST_F(Dgx8x8, GeneralCut) {
  // Nodes 0..3 against 4..7: 32 NIC links out.
  std::vector<topo::DeviceId> half;
  for (size_t d = 0; d < topology->devices().size(); ++d) {
    int node = topology->devices()[d].node;
    if (node >= 0 && node < 4)
      half.push_back(topo::DeviceId(d));
  }
  CollectiveSpec spec;
  spec.collective = Collective::AllToAll;
  spec.gpus = firstRanks(64);
  spec.bytes = kGiB;
  BoundTerm term = cutBound(spec, *topology, half, "half");
  expectRelative(term.seconds, 32.0 * 32 / 64 * kGiB / (32 * 50e9));
  EXPECT_EQ(term.name, "half egress");
  // Of one GPU and half the machine, the half binds.
  BoundTerm best = maxCutBound(spec, *topology, {{topology->gpu(0)}, half});
  EXPECT_EQ(best.name, "cut 1 egress");
  expectRelative(best.seconds, term.seconds);
}

TEST_F(Dgx8x8, Options) {
  CollectiveSpec spec;
  spec.collective = Collective::Broadcast;
  spec.gpus = firstRanks(64);
  // Any schedule: the farthest rank from the root, plus the fixed costs of
  // the sending and the receiving instruction.
  BoundOptions anySchedule;
  anySchedule.perHopOverhead = 1e-6;
  expectRelative(latencyBound(spec, *topology, anySchedule).seconds, 7.3e-6);
  // Single-port schedules: 6 hops of the closest pair, each with the cost,
  // and the last receive's.
  BoundOptions singlePort = anySchedule;
  singlePort.singlePort = true;
  BoundTerm term = latencyBound(spec, *topology, singlePort);
  expectRelative(term.seconds, 6 * 1.6e-6 + 1e-6);
  EXPECT_EQ(term.reason, "latency: single-port, ceil(log2 64) = 6 hops of "
                         "600 ns + 1 us fixed cost, + 1 us for the receiving "
                         "instruction (node0/gpu0 and node0/gpu1)");
  // Reduce to rank 9: the farthest sender.
  spec.collective = Collective::Reduce;
  spec.root = 9;
  expectRelative(latencyBound(spec, *topology, BoundOptions()).seconds, 5.3e-6);
}

TEST_F(Dgx8x8, InvalidSpecs) {
  CollectiveSpec spec;
  spec.gpus = {0, 64};
  EXPECT_EQ(lowerBound(spec, *topology).error,
            "group rank 1 is on GPU 64, but the topology has 64");
  spec.gpus = {0, 1};
  spec.collective = Collective::Reduce;
  spec.root = 2;
  EXPECT_EQ(lowerBound(spec, *topology).error,
            "root 2 is outside the group of 2");
  spec.collective = Collective::SendRecv;
  spec.root = 1;
  spec.peer = 1;
  EXPECT_EQ(lowerBound(spec, *topology).error,
            "peer 1 must be another rank of the group of 2");
}

/// One DGX H100: no node cuts; per GPU 2*7/8 GiB over 514 GB/s.
TEST(SingleNode, AllReduceIsBoundByGpuInjection) {
  auto topology = load("dgx-h100");
  ASSERT_TRUE(topology);
  LowerBound b =
      lowerBound(Collective::AllReduce, kGiB, *topology, firstRanks(8));
  ASSERT_EQ(b.error, "");
  ASSERT_EQ(b.terms.size(), 2u);
  expectRelative(b.seconds, 2.0 * 7 / 8 * kGiB / kGpuOut);
  EXPECT_EQ(b.bandwidth.name, "per-GPU injection");
  // Every pair is one NVSwitch hop apart.
  expectRelative(b.latencySeconds, 0.6e-6);
  // all_gather: a GPU receives 7 inputs.
  expectRelative(
      lowerBound(Collective::AllGather, kGiB, *topology, firstRanks(8)).seconds,
      7 * kGiB / kGpuOut);
}

/// Two ranks on each GPU: the GPU holds both, so half the data stays.
TEST(SingleNode, RanksSharingGpus) {
  auto topology = load("dgx-h100");
  ASSERT_TRUE(topology);
  LowerBound b =
      lowerBound(Collective::AllGather, kGiB, *topology, {0, 0, 1, 1});
  ASSERT_EQ(b.error, "");
  expectRelative(b.bandwidthSeconds, 2 * kGiB / kGpuOut);
  // Ranks 0 and 2 still need each other's data, one NVSwitch hop apart.
  expectRelative(b.latencySeconds, 0.6e-6);
  EXPECT_EQ(b.latency.reason,
            "latency: the farthest pair that must communicate, 1 hop of "
            "600 ns (node0/gpu0 to node0/gpu1)");
  // Single-port: the closest pair shares a GPU.
  BoundOptions singlePort;
  singlePort.singlePort = true;
  CollectiveSpec spec;
  spec.collective = Collective::AllGather;
  spec.gpus = {0, 0, 1, 1};
  EXPECT_EQ(latencyBound(spec, *topology, singlePort).reason,
            "latency: single-port, ceil(log2 4) = 2 hops of 0 s "
            "(node0/gpu0 (shared by two ranks))");
}

TEST(SingleNode, OneRank) {
  auto topology = load("dgx-h100");
  ASSERT_TRUE(topology);
  LowerBound b = lowerBound(Collective::AllReduce, kGiB, *topology, {3});
  ASSERT_EQ(b.error, "");
  EXPECT_EQ(b.seconds, 0);
}

/// 16 DGX H100 nodes, 4 under each leaf switch, leaves 2:1 oversubscribed:
/// a leaf's 32 NIC ports (1600 GB/s) have 16 uplinks (800 GB/s). The
/// nodes under a leaf are a cut of their own; a rail network (dgx8x8) has
/// no such group.
TEST(SwitchGroups, AFatTreeLeafIsACut) {
  auto topology = load("dgx16-fat-tree-2to1", COLLC_TEST_TOPOLOGIES_DIR);
  ASSERT_TRUE(topology);
  CollectiveSpec spec;
  spec.collective = Collective::AllToAll;
  spec.gpus = firstRanks(128);
  spec.bytes = kGiB;
  LowerBound b = lowerBound(spec, *topology);
  ASSERT_EQ(b.error, "");
  // 32 ranks under a leaf send 96/128 of their M out: 24 M over 800 GB/s,
  // where a node's 8 ranks send 8*120/128 M = 7.5 M over 400 GB/s.
  expectRelative(b.bandwidthSeconds, 24 * kGiB / 800e9);
  EXPECT_EQ(b.bandwidth.name, "per-switch-group egress");
  EXPECT_EQ(b.bandwidth.reason,
            "per-switch-group egress: 32*(128-32)/128 * M = 25.8 GB over "
            "800 GB/s (M = 1.07 GB; leaf0 with the 4 nodes under it)");
  // all_gather: a node must take in 120 M over 400 GB/s; a leaf 96 M over
  // 800 GB/s is less.
  spec.collective = Collective::AllGather;
  b = lowerBound(spec, *topology);
  expectRelative(b.bandwidthSeconds, 120 * kGiB / 400e9);
  EXPECT_EQ(b.bandwidth.name, "per-node ingress");
  bool leafTerm = false;
  for (const BoundTerm &t : b.terms)
    if (t.name == "per-switch-group ingress") {
      leafTerm = true;
      expectRelative(t.seconds, 96 * kGiB / 800e9);
    }
  EXPECT_TRUE(leafTerm);
  // A group of the first two leaves only: two parties.
  spec.collective = Collective::AllReduce;
  spec.gpus = firstRanks(64);
  b = lowerBound(spec, *topology);
  for (const BoundTerm &t : b.terms)
    if (t.name == "per-switch-group egress")
      EXPECT_GE(t.seconds, kGiB / 800e9 * (1 - 1e-12)) << t.reason;
  // dgx8x8's nodes all reach the same 8 rail switches: no switch group.
  auto rails = load("dgx8x8");
  ASSERT_TRUE(rails);
  spec.gpus = firstRanks(64);
  for (const BoundTerm &t : lowerBound(spec, *rails).terms)
    EXPECT_EQ(t.name.find("switch-group"), std::string::npos) << t.reason;
}

} // namespace

//===- BundledTopologiesTest.cpp - every file in topologies/ --------------===//
//
// Each bundled topology loads, has the counts its description states, and
// answers the queries with values worked out by hand from the data sheet
// figures in the file.
//
//===----------------------------------------------------------------------===//
#include "TopologyTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace collc::topo;
using namespace collc::topo::test;

namespace {

/// Counts devices of each kind.
int countKind(const Topology &topology, DeviceKind kind) {
  int count = 0;
  for (const Device &device : topology.devices())
    count += device.kind == kind;
  return count;
}

TEST(BundledTopologies, Dgx8x8) {
  auto t = loadBundled("dgx8x8");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->name(), "dgx8x8");
  EXPECT_EQ(t->numGpus(), 64);
  EXPECT_EQ(t->numNodes(), 8);
  EXPECT_EQ(t->gpusPerNode(), 8);
  EXPECT_EQ(countKind(*t, DeviceKind::Nic), 64);
  EXPECT_EQ(countKind(*t, DeviceKind::NvSwitch), 8);
  EXPECT_EQ(countKind(*t, DeviceKind::NetworkSwitch), 8); // 8 rails, no spine
  EXPECT_EQ(t->networkKind(), NetworkKind::RailOptimized);
  // Ranks are node-major.
  EXPECT_EQ(t->device(t->gpu(11)).name, "node1/gpu3");
  EXPECT_EQ(t->nodeOf(11), 1);
  // NVSwitch: 18 NVLink 4 links x 25 GB/s per GPU per direction.
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(7)), 450 * GBps);
  // Across nodes: one 400 Gb/s ConnectX-7 = 50 GB/s.
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(8)), 50 * GBps);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(3), t->gpu(60)), 50 * GBps);
  // 8 NICs x 50 GB/s leave each node.
  EXPECT_DOUBLE_EQ(t->egressBandwidth(0), 400 * GBps);
  EXPECT_DOUBLE_EQ(t->egressBandwidth(7), 400 * GBps);
  EXPECT_EQ(nameOf(*t, t->nicOf(3)), "node0/nic3");
  EXPECT_EQ(nameOf(*t, t->nicOf(13)), "node1/nic5");
  EXPECT_EQ(t->gpuNuma(3), 0);
  EXPECT_EQ(t->gpuNuma(12), 1);
  // A node's devices: the cut is its NIC links.
  EXPECT_DOUBLE_EQ(t->cutBandwidth(devicesNamed(*t, "node2/")), 400 * GBps);
  // One GPU: its NVSwitch link and its PCIe Gen5 x16 link.
  EXPECT_DOUBLE_EQ(t->cutBandwidth({t->gpu(0)}), (450 + 64) * GBps);
  // Within a node: GPU > NVSwitch > GPU, 2 x 0.3 us.
  std::vector<LinkId> path = t->shortestPath(t->gpu(0), t->gpu(5));
  EXPECT_EQ(describePath(*t, path), "node0/gpu0 > node0/nvswitch > node0/gpu5");
  EXPECT_NEAR(t->pathLatency(path), 0.6 * us, 1e-12);
  // Same rail across nodes: PCIe to the NIC, the rail switch, PCIe back.
  path = t->shortestPath(t->gpu(0), t->gpu(8));
  EXPECT_EQ(describePath(*t, path), "node0/gpu0 > node0/pex0 > node0/nic0 > "
                                    "rail0 > node1/nic0 > node1/pex0 > "
                                    "node1/gpu0");
  EXPECT_NEAR(t->pathLatency(path), (4 * 0.5 + 2 * 1.35) * us, 1e-12);
  // GPU 1 of node 1 is under the PCIe switch of node1/nic0 too.
  path = t->shortestPath(t->gpu(0), t->gpu(9));
  EXPECT_EQ(describePath(*t, path), "node0/gpu0 > node0/pex0 > node0/nic0 > "
                                    "rail0 > node1/nic0 > node1/pex0 > "
                                    "node1/gpu1");
  // Another rail on another PCIe switch: one NVSwitch crossing (2 x 0.3 us)
  // on top of the 4.7 us rail path, 8 links either way round.
  path = t->shortestPath(t->gpu(0), t->gpu(10));
  EXPECT_EQ(path.size(), 8u);
  EXPECT_NEAR(t->pathLatency(path), 5.3 * us, 1e-12);
}

TEST(BundledTopologies, DgxH100) {
  auto t = loadBundled("dgx-h100");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 8);
  EXPECT_EQ(t->numNodes(), 1);
  EXPECT_EQ(countKind(*t, DeviceKind::Nic), 8);
  EXPECT_EQ(countKind(*t, DeviceKind::Cpu), 2);
  EXPECT_EQ(countKind(*t, DeviceKind::PcieSwitch), 4);
  EXPECT_EQ(countKind(*t, DeviceKind::NetworkSwitch), 0);
  EXPECT_EQ(t->networkKind(), NetworkKind::None);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(1), t->gpu(6)), 450 * GBps);
  EXPECT_DOUBLE_EQ(t->egressBandwidth(0), 0); // no network
  EXPECT_EQ(nameOf(*t, t->nicOf(6)), "node0/nic6");
  EXPECT_EQ(t->device(*t->nicOf(6)).numa, 1);
  // The GPU model's figures, in SI units.
  EXPECT_DOUBLE_EQ(t->gpuMemoryBandwidth(0), 3350 * GBps);
  EXPECT_DOUBLE_EQ(*t->gpuPeakFlops(0, "bf16"), 989.5e12);
  EXPECT_DOUBLE_EQ(*t->gpuPeakFlops(0, "f32"), 67e12);
  EXPECT_FALSE(t->gpuPeakFlops(0, "f4").has_value());
  EXPECT_DOUBLE_EQ(t->gpuModel(0).memoryBytes, 80.0 * (1 << 30));
  // Socket 0 (CPU, 2 switches, 4 GPUs, 4 NICs, and the NVSwitch) to socket
  // 1: 4 UPI links x 32 GB/s plus the NVSwitch links of GPUs 4-7.
  std::vector<DeviceId> socket0 = {
      deviceNamed(*t, "node0/cpu0"), deviceNamed(*t, "node0/pex0"),
      deviceNamed(*t, "node0/pex1"), deviceNamed(*t, "node0/nvswitch")};
  for (int rank = 0; rank < 4; ++rank) {
    socket0.push_back(t->gpu(rank));
    socket0.push_back(*t->nicOf(rank));
  }
  EXPECT_DOUBLE_EQ(t->cutBandwidth(socket0), (4 * 32 + 4 * 450) * GBps);
}

TEST(BundledTopologies, DgxA100x2) {
  auto t = loadBundled("dgx-a100-2");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 16);
  EXPECT_EQ(t->numNodes(), 2);
  EXPECT_EQ(countKind(*t, DeviceKind::Nic), 16);
  // 12 NVLink 3 links x 25 GB/s.
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(7)), 300 * GBps);
  // One 200 Gb/s HDR NIC = 25 GB/s.
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(2), t->gpu(13)), 25 * GBps);
  EXPECT_DOUBLE_EQ(t->egressBandwidth(1), 8 * 25 * GBps);
  EXPECT_EQ(nameOf(*t, t->nicOf(9)), "node1/nic1");
  EXPECT_EQ(t->gpuNuma(9), 0);
  EXPECT_EQ(t->gpuNuma(14), 1);
  EXPECT_DOUBLE_EQ(t->cutBandwidth(devicesNamed(*t, "node0/")), 200 * GBps);
  // Rails: node0/nic4 > rail4 > node1/nic4, with PCIe Gen4 at both ends.
  std::vector<LinkId> path = t->shortestPath(t->gpu(4), t->gpu(12));
  EXPECT_EQ(path.size(), 6u);
  EXPECT_NEAR(t->pathLatency(path), 4.7 * us, 1e-12);
}

TEST(BundledTopologies, Dgx1V100) {
  auto t = loadBundled("dgx1-v100");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 8);
  EXPECT_EQ(countKind(*t, DeviceKind::Nic), 4);
  EXPECT_EQ(countKind(*t, DeviceKind::NvSwitch), 0);
  // Every GPU has 6 NVLink 2 lanes.
  for (int rank = 0; rank < 8; ++rank) {
    int lanes = 0;
    for (LinkId id : t->linksFrom(t->gpu(rank)))
      if (t->link(id).kind == LinkKind::Fabric)
        lanes += t->link(id).lanes;
    EXPECT_EQ(lanes, 6) << "rank " << rank;
  }
  // GPUs 0 and 1 share a single link, but the doubled links form the ring
  // 0-3-2-1-5-6-7-4-0, so every pair has a 2 x 25 GB/s path.
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(1)), 50 * GBps);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(6)), 50 * GBps);
  // GPU 0 and GPU 6 are not neighbours: two NVLink hops of 0.6 us.
  std::vector<LinkId> path = t->shortestPath(t->gpu(0), t->gpu(6));
  EXPECT_EQ(path.size(), 2u);
  EXPECT_NEAR(t->pathLatency(path), 1.2 * us, 1e-12);
  EXPECT_EQ(t->shortestPath(t->gpu(0), t->gpu(3)).size(), 1u);
  EXPECT_DOUBLE_EQ(t->egressBandwidth(0), 0);
  // One EDR NIC per PCIe switch, shared by its 2 GPUs.
  EXPECT_EQ(nameOf(*t, t->nicOf(3)), "node0/nic1");
  EXPECT_EQ(nameOf(*t, t->nicOf(4)), "node0/nic2");
  EXPECT_EQ(t->gpuNuma(4), 1);
  // GPU 0: 6 NVLink lanes and PCIe Gen3 x16.
  EXPECT_DOUBLE_EQ(t->cutBandwidth({t->gpu(0)}), (6 * 25 + 16) * GBps);
}

TEST(BundledTopologies, Mi300x) {
  auto t = loadBundled("mi300x");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 8);
  EXPECT_EQ(countKind(*t, DeviceKind::Nic), 0);
  EXPECT_FALSE(t->nicOf(0).has_value());
  // All-to-all: every pair has one 64 GB/s xGMI link.
  for (int b = 1; b < 8; ++b) {
    std::vector<LinkId> path = t->shortestPath(t->gpu(0), t->gpu(b));
    ASSERT_EQ(path.size(), 1u);
    EXPECT_DOUBLE_EQ(t->link(path[0]).bandwidth, 64 * GBps);
    EXPECT_NEAR(t->pathLatency(path), 0.6 * us, 1e-12);
  }
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(2), t->gpu(5)), 64 * GBps);
  // GPU 0: 7 xGMI links and its PCIe Gen5 x16 root port, 64 GB/s each.
  EXPECT_DOUBLE_EQ(t->cutBandwidth({t->gpu(0)}), 8 * 64 * GBps);
  // Socket 0 with its 4 GPUs: 16 xGMI links cross, and 4 socket links.
  std::vector<DeviceId> half = {deviceNamed(*t, "node0/cpu0"), t->gpu(0),
                                t->gpu(1), t->gpu(2), t->gpu(3)};
  EXPECT_DOUBLE_EQ(t->cutBandwidth(half), (16 * 64 + 4 * 64) * GBps);
  EXPECT_EQ(t->gpuNuma(5), 1);
  EXPECT_DOUBLE_EQ(*t->gpuPeakFlops(0, "bf16"), 1307.4e12);
}

TEST(BundledTopologies, Pcie2Numa) {
  auto t = loadBundled("pcie-2numa");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 8);
  EXPECT_EQ(countKind(*t, DeviceKind::PcieSwitch), 6);
  EXPECT_EQ(countKind(*t, DeviceKind::Cpu), 2);
  EXPECT_EQ(t->node(0).fabric, FabricKind::Pcie);
  // PCIe Gen4 x16 everywhere: 32 GB/s, also across the sockets (3 UPI
  // links of 22.4 GB/s are wider).
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(1)), 32 * GBps);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(5)), 32 * GBps);
  // Same leaf switch: 2 links; other leaf: up to the top switch and down.
  EXPECT_EQ(describePath(*t, t->shortestPath(t->gpu(0), t->gpu(1))),
            "node0/gpu0 > node0/sw0a > node0/gpu1");
  EXPECT_EQ(describePath(*t, t->shortestPath(t->gpu(0), t->gpu(3))),
            "node0/gpu0 > node0/sw0a > node0/sw0 > node0/sw0b > node0/gpu3");
  // Across sockets: through both CPUs, 7 links of 0.5 us.
  std::vector<LinkId> path = t->shortestPath(t->gpu(1), t->gpu(6));
  EXPECT_EQ(describePath(*t, path),
            "node0/gpu1 > node0/sw0a > node0/sw0 > node0/cpu0 > node0/cpu1 > "
            "node0/sw1 > node0/sw1b > node0/gpu6");
  EXPECT_NEAR(t->pathLatency(path), 3.5 * us, 1e-12);
  EXPECT_EQ(nameOf(*t, t->nicOf(2)), "node0/nic0");
  EXPECT_EQ(nameOf(*t, t->nicOf(5)), "node0/nic1");
  EXPECT_EQ(t->gpuNuma(2), 0);
  EXPECT_EQ(t->gpuNuma(5), 1);
  // A child switch inherits the NUMA node of its parent.
  EXPECT_EQ(t->device(deviceNamed(*t, "node0/sw1b")).numa, 1);
  // Socket 0's half of the tree is cut from socket 1 by the UPI links.
  std::vector<DeviceId> socket0 = devicesNamed(*t, "node0/sw0");
  socket0.push_back(deviceNamed(*t, "node0/cpu0"));
  socket0.push_back(deviceNamed(*t, "node0/nic0"));
  for (int rank = 0; rank < 4; ++rank)
    socket0.push_back(t->gpu(rank));
  EXPECT_EQ(socket0.size(), 9u);
  EXPECT_DOUBLE_EQ(t->cutBandwidth(socket0), 3 * 22.4 * GBps);
}

TEST(BundledTopologies, Torus4x4) {
  auto t = loadBundled("torus4x4");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 16);
  EXPECT_EQ(t->devices().size(), 16u);
  EXPECT_EQ(t->links().size(), 64u); // 4 neighbours each, both directions
  EXPECT_EQ(t->node(0).fabric, FabricKind::Torus);
  for (int rank = 0; rank < 16; ++rank)
    EXPECT_EQ(t->linksFrom(t->gpu(rank)).size(), 4u);
  // (0,0) to (2,2): 4 hops; to (3,3): 2 hops over the wraparound links.
  EXPECT_EQ(t->shortestPath(t->gpu(0), t->gpu(10)).size(), 4u);
  EXPECT_EQ(t->shortestPath(t->gpu(0), t->gpu(15)).size(), 2u);
  EXPECT_EQ(t->shortestPath(t->gpu(0), t->gpu(3)).size(), 1u);
  // (1,1) to (3,2): 2 + 1 hops.
  EXPECT_NEAR(t->pathLatency(t->shortestPath(t->gpu(5), t->gpu(14))),
              3 * 0.6 * us, 1e-12);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(10)), 50 * GBps);
  // Row 0 to the rest: each of its 4 GPUs links to rows 1 and 3.
  EXPECT_DOUBLE_EQ(
      t->cutBandwidth({t->gpu(0), t->gpu(1), t->gpu(2), t->gpu(3)}),
      8 * 50 * GBps);
  EXPECT_FALSE(t->nicOf(0).has_value());
  EXPECT_EQ(t->gpuNuma(15), 0);
}

TEST(BundledTopologies, Dgx128x8) {
  auto t = loadBundled("dgx128x8");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->numGpus(), 1024);
  EXPECT_EQ(t->numNodes(), 128);
  EXPECT_EQ(countKind(*t, DeviceKind::Nic), 1024);
  EXPECT_EQ(countKind(*t, DeviceKind::NetworkSwitch), 9); // 8 rails + spine
  EXPECT_EQ(t->device(t->gpu(1023)).name, "node127/gpu7");
  EXPECT_EQ(t->nodeOf(1023), 127);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(7)), 450 * GBps);
  EXPECT_DOUBLE_EQ(t->bottleneckBandwidth(t->gpu(0), t->gpu(1023)), 50 * GBps);
  EXPECT_DOUBLE_EQ(t->egressBandwidth(64), 400 * GBps);
  EXPECT_EQ(nameOf(*t, t->nicOf(1021)), "node127/nic5");
  // Each rail switch has 128 node ports and 128 NDR lanes up to the spine.
  DeviceId spine = deviceNamed(*t, "spine");
  EXPECT_DOUBLE_EQ(t->cutBandwidth({spine}), 8 * 128 * 50 * GBps);
  EXPECT_DOUBLE_EQ(t->cutBandwidth({deviceNamed(*t, "rail3")}),
                   (128 + 128) * 50 * GBps);
  EXPECT_EQ(t->shortestPath(t->gpu(0), t->gpu(1016)).size(), 6u);
}

} // namespace

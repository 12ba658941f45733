//===- NicChoiceTest.cpp - the NIC a rank uses, from the topology ---------===//
#include "net/NicChoice.h"

#include "common/Topology/Topology.h"

#include <gtest/gtest.h>

using namespace collrt;
using namespace collrt::net;

namespace {

std::unique_ptr<collc::topo::Topology> load(const std::string &name) {
  collc::topo::LoadResult r = collc::topo::loadTopologyFile(
      std::string(COLLC_TOPOLOGIES_DIR) + "/" + name + ".json");
  EXPECT_TRUE(r.topology) << r.error;
  return std::move(r.topology);
}

std::vector<NetDeviceInfo> devices(const std::vector<std::string> &names) {
  std::vector<NetDeviceInfo> out;
  for (size_t i = 0; i < names.size(); ++i) {
    NetDeviceInfo d;
    d.name = names[i];
    d.port = 1;
    d.numa = i < names.size() / 2 ? 0 : 1;
    out.push_back(d);
  }
  return out;
}

// dgx8x8: NIC i of every node serves GPU i; NICs 0-3 hang off the PCIe
// switches of NUMA node 0, 4-7 off NUMA node 1.
TEST(NicChoice, Dgx8x8GpuIUsesNicI) {
  auto topology = load("dgx8x8");
  ASSERT_TRUE(topology);
  for (int32_t rank = 0; rank < 64; ++rank) {
    NicAffinity a;
    Status s = nicAffinity(*topology, rank, &a);
    ASSERT_TRUE(s.ok()) << s.toString();
    const int node = rank / 8, local = rank % 8;
    EXPECT_EQ(a.gpu,
              "node" + std::to_string(node) + "/gpu" + std::to_string(local));
    EXPECT_EQ(a.nic,
              "node" + std::to_string(node) + "/nic" + std::to_string(local));
    EXPECT_EQ(a.nicName, "nic" + std::to_string(local));
    EXPECT_EQ(a.node, node);
    EXPECT_EQ(a.position, local);
    EXPECT_EQ(a.nicsInNode, 8);
    EXPECT_EQ(a.numa, local < 4 ? 0 : 1) << "rank " << rank;
    EXPECT_EQ(a.gpuNuma, local < 4 ? 0 : 1) << "rank " << rank;
    EXPECT_EQ(a.topology, "dgx8x8");
  }
}

TEST(NicChoice, RanksOutsideOrWithoutANicAreErrors) {
  auto topology = load("dgx8x8");
  ASSERT_TRUE(topology);
  NicAffinity a;
  Status s = nicAffinity(*topology, 64, &a);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("rank 64 is not a GPU of topology dgx8x8 (it "
                             "has 64 GPUs)"),
            std::string::npos)
      << s.message();
  // A one-node machine without "nics".
  auto single = load("dgx-h100");
  ASSERT_TRUE(single);
  if (!single->nicOf(0)) {
    s = nicAffinity(*single, 0, &a);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(s.message().find("no NIC"), std::string::npos) << s.message();
  }
}

// A host whose RDMA devices are named mlx5_0..7 (sorted), 8 like the
// node's NICs: GPU i's NIC is the i-th, and the report says why.
TEST(NicChoice, ByPositionWhenTheCountsMatch) {
  auto topology = load("dgx8x8");
  ASSERT_TRUE(topology);
  auto host = devices({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4",
                       "mlx5_5", "mlx5_6", "mlx5_7"});
  for (int32_t rank : {0, 3, 13, 63}) {
    NicAffinity a;
    ASSERT_TRUE(nicAffinity(*topology, rank, &a).ok());
    NicSelection pick;
    Status s = chooseNic(host, "", &a, rank % 8, &pick);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(pick.device, size_t(rank % 8)) << "rank " << rank;
    EXPECT_NE(pick.reason.find("the topology dgx8x8 gives GPU " + a.gpu),
              std::string::npos)
        << pick.reason;
    EXPECT_NE(pick.reason.find(host[rank % 8].name + " port 1"),
              std::string::npos)
        << pick.reason;
    EXPECT_EQ(pick.reason.find("note:"), std::string::npos) << pick.reason;
  }
  // Rank 3 is the 4th NIC; rank 13 (node 1, GPU 5) the 6th.
  NicAffinity a;
  ASSERT_TRUE(nicAffinity(*topology, 13, &a).ok());
  NicSelection pick;
  ASSERT_TRUE(chooseNic(host, "", &a, 5, &pick).ok());
  EXPECT_NE(pick.reason.find("the 6th of its node's 8 NICs"), std::string::npos)
      << pick.reason;
}

TEST(NicChoice, ByNameWhenTheTopologyNamesTheDevices) {
  auto topology = load("dgx8x8");
  ASSERT_TRUE(topology);
  // A host whose devices carry the topology's names, listed in another
  // order than the NICs (and fewer of them): the name decides.
  auto host = devices({"nic5", "nic2", "nic7"});
  host[1].numa = 0;
  NicAffinity a;
  ASSERT_TRUE(nicAffinity(*topology, 8 + 2, &a).ok()); // node1/gpu2
  NicSelection pick;
  ASSERT_TRUE(chooseNic(host, "", &a, 2, &pick).ok());
  EXPECT_EQ(pick.device, 1u);
  EXPECT_NE(pick.reason.find("an RDMA device of that name"), std::string::npos)
      << pick.reason;
  EXPECT_EQ(pick.reason.find("note:"), std::string::npos) << pick.reason;
  // Where sysfs disagrees with the topology on the NIC's NUMA node, the
  // report says so.
  host[1].numa = 1;
  ASSERT_TRUE(chooseNic(host, "", &a, 2, &pick).ok());
  EXPECT_NE(pick.reason.find("note: the topology puts node1/nic2 on NUMA "
                             "node 0 but sysfs says nic2 is on NUMA node 1"),
            std::string::npos)
      << pick.reason;
}

TEST(NicChoice, UnmatchableNicIsAnErrorThatSaysWhatToDo) {
  auto topology = load("dgx8x8");
  ASSERT_TRUE(topology);
  auto host = devices({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"});
  NicAffinity a;
  ASSERT_TRUE(nicAffinity(*topology, 6, &a).ok());
  NicSelection pick;
  Status s = chooseNic(host, "", &a, 6, &pick);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("no RDMA device named nic6 and 4 active RDMA "
                             "port(s) (mlx5_0:1, mlx5_1:1, mlx5_2:1, "
                             "mlx5_3:1) where the node has 8 NICs"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("name the device (collc-run --ib-device, "
                             "CommOptions::ibDevice, "
                             "IbTransportOptions::device)"),
            std::string::npos)
      << s.message();
}

TEST(NicChoice, RequestedDeviceWins) {
  auto topology = load("dgx8x8");
  ASSERT_TRUE(topology);
  auto host = devices({"mlx5_0", "mlx5_1"});
  host.push_back(host[1]);
  host[2].port = 2;
  NicAffinity a;
  ASSERT_TRUE(nicAffinity(*topology, 0, &a).ok());
  NicSelection pick;
  ASSERT_TRUE(chooseNic(host, "mlx5_1:2", &a, 0, &pick).ok());
  EXPECT_EQ(pick.device, 2u);
  EXPECT_EQ(pick.reason, "asked for by name ('mlx5_1:2')");
  ASSERT_TRUE(chooseNic(host, "mlx5_1", nullptr, 0, &pick).ok());
  EXPECT_EQ(pick.device, 1u);
  Status s = chooseNic(host, "mlx5_9", &a, 0, &pick);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("no active RDMA port 'mlx5_9' on this host (it "
                             "has mlx5_0:1, mlx5_1:1, mlx5_1:2)"),
            std::string::npos)
      << s.message();
}

TEST(NicChoice, WithoutTopologyTheLocalRankPicks) {
  auto host = devices({"mlx5_0", "mlx5_1", "mlx5_2"});
  for (int32_t local = 0; local < 7; ++local) {
    NicSelection pick;
    ASSERT_TRUE(chooseNic(host, "", nullptr, local, &pick).ok());
    EXPECT_EQ(pick.device, size_t(local % 3));
    EXPECT_EQ(pick.reason, "no topology given: local rank " +
                               std::to_string(local) +
                               " modulo 3 active RDMA port(s)");
  }
  NicSelection pick;
  Status s = chooseNic({}, "", nullptr, 0, &pick);
  EXPECT_EQ(s.code(), ErrorCode::Unsupported);
}

} // namespace

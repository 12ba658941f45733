//===- RoutesTest.cpp - transfers routed the way the runtime moves them ---===//
//
// compiler/Routing: between nodes, from the source GPU's own NIC to the
// destination GPU's own NIC (the ib transport's choice), ECMP over the
// equal-cost paths of a network with several core switches; within a
// node, no relay through a third GPU where the node joins the two without
// one; on a rail network without a spine, the implicit relay that the
// runtime cannot take is counted.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include "compiler/Routing/Routes.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace collc;
using namespace collc::sim::testing;

namespace {

/// dgx8x8's DGX H100 nodes, `nodes` of them, on a fat tree.
std::unique_ptr<topo::Topology> dgxFatTree(int nodes, int perLeaf,
                                           double oversubscription, int cores) {
  std::ifstream file(std::string(COLLC_TOPOLOGIES_DIR) + "/dgx8x8.json");
  nlohmann::json t = nlohmann::json::parse(file);
  t["name"] = "dgx-fat-tree";
  t["nodes"] = {{"count", nodes}, {"template", "dgx-h100"}};
  t["network"] = {{"type", "fat_tree"},
                  {"nodes_per_leaf", perLeaf},
                  {"oversubscription", oversubscription},
                  {"uplink_type", "cx7_ndr400"}};
  if (cores > 1)
    t["network"]["core_switches"] = cores;
  topo::LoadResult result = topo::parseTopology(t.dump(), "dgx-fat-tree.json");
  EXPECT_EQ(result.error, "");
  return std::move(result.topology);
}

/// The devices a path enters, in order.
std::vector<topo::DeviceId> devicesOf(const topo::Topology &t,
                                      const std::vector<topo::LinkId> &path) {
  std::vector<topo::DeviceId> devices;
  for (topo::LinkId l : path)
    devices.push_back(t.link(l).dst);
  return devices;
}

TEST(RoutesTest, BetweenNodesFromTheSourceNicToTheDestinationNic) {
  // The case: 4 DGX H100 nodes under one leaf. A least-latency
  // route entered node0 through nic1 for gpu0 and gpu1 alike.
  auto t = dgxFatTree(4, 4, 1, 1);
  ASSERT_TRUE(t);
  Routes routes(*t);
  std::map<topo::LinkId, int> intoNic; // network -> NIC links: pairs using it
  for (int a = 0; a < 32; ++a)
    for (int b = 0; b < 32; ++b) {
      if (t->nodeOf(a) == t->nodeOf(b))
        continue;
      topo::DeviceId from = t->gpu(a), to = t->gpu(b);
      std::vector<topo::LinkId> path = routes.path(from, to);
      std::vector<topo::DeviceId> devices = devicesOf(*t, path);
      std::vector<topo::DeviceId> nics;
      for (topo::DeviceId d : devices)
        if (t->device(d).kind == topo::DeviceKind::Nic)
          nics.push_back(d);
      ASSERT_EQ(nics.size(), 2u) << a << " -> " << b;
      EXPECT_EQ(nics[0], t->device(from).nic) << a << " -> " << b;
      EXPECT_EQ(nics[1], t->device(to).nic) << a << " -> " << b;
      EXPECT_EQ(routes.relays(from, to), 0) << a << " -> " << b;
      EXPECT_EQ(devices.back(), to);
      for (topo::LinkId l : path)
        if (t->device(t->link(l).dst).kind == topo::DeviceKind::Nic &&
            t->device(t->link(l).src).kind == topo::DeviceKind::NetworkSwitch)
          ++intoNic[l];
    }
  // Every NIC takes the traffic of its own GPU only: 24 peers each.
  ASSERT_EQ(intoNic.size(), 32u);
  for (auto [link, pairs] : intoNic)
    EXPECT_EQ(pairs, 24) << t->device(t->link(link).dst).name;
}

TEST(RoutesTest, EcmpSpreadsPairsOverTheCoreSwitches) {
  // 16 nodes, 4 per leaf, 2:1 oversubscribed, 2 core switches: a pair on
  // different leaves has two equal-cost paths.
  auto t = dgxFatTree(16, 4, 2, 2);
  ASSERT_TRUE(t);
  Routes routes(*t), again(*t);
  std::map<std::string, int> perCore;
  int crossLeaf = 0;
  for (int a = 0; a < 128; a += 3)
    for (int b = 0; b < 128; b += 5) {
      if (t->nodeOf(a) / 4 == t->nodeOf(b) / 4)
        continue;
      ++crossLeaf;
      std::vector<topo::LinkId> path = routes.path(t->gpu(a), t->gpu(b));
      EXPECT_EQ(path, again.path(t->gpu(a), t->gpu(b)))
          << "ECMP must pick the same path every time";
      std::set<std::string> cores;
      for (topo::DeviceId d : devicesOf(*t, path))
        if (t->device(d).name.rfind("core", 0) == 0)
          cores.insert(t->device(d).name);
      ASSERT_EQ(cores.size(), 1u) << a << " -> " << b;
      ++perCore[*cores.begin()];
      EXPECT_EQ(routes.relays(t->gpu(a), t->gpu(b)), 0);
    }
  ASSERT_EQ(perCore.size(), 2u);
  for (auto [core, pairs] : perCore) {
    EXPECT_GT(pairs, crossLeaf * 4 / 10) << core;
    EXPECT_LT(pairs, crossLeaf * 6 / 10) << core;
  }
}

TEST(RoutesTest, WithinANodeNoRelayThroughAThirdGpu) {
  // DGX-1's cube mesh: GPU 0 has no NVLink to GPU 5; peer access between
  // them crosses PCIe (and QPI), not GPU 1 or 4.
  auto t = loadBundled("dgx1-v100");
  ASSERT_TRUE(t);
  Routes routes(*t);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (a != b)
        EXPECT_EQ(routes.relays(t->gpu(a), t->gpu(b)), 0) << a << " -> " << b;
  bool crossesPcie = false;
  for (topo::LinkId l : routes.path(t->gpu(0), t->gpu(5)))
    crossesPcie |= t->link(l).kind != topo::LinkKind::Fabric;
  EXPECT_TRUE(crossesPcie);
}

TEST(RoutesTest, RelaysCountedWhereTheTopologyHasNoOtherWay) {
  // A torus without a host: non-neighbours are joined only through
  // other accelerators.
  auto torus = loadBundled("torus4x4");
  ASSERT_TRUE(torus);
  Routes routes(*torus);
  EXPECT_EQ(routes.relays(torus->gpu(0), torus->gpu(1)), 0);
  EXPECT_EQ(routes.relays(torus->gpu(0), torus->gpu(5)), 1);
  EXPECT_EQ(routes.relays(torus->gpu(0), torus->gpu(10)), 3);
  // Rails without a spine: node0/gpu7's rail does not reach node1/gpu0's
  // NIC, so the data crosses a GPU of the other rail first (implicit PXN).
  auto rails = loadBundled("dgx8x8");
  ASSERT_TRUE(rails);
  Routes railRoutes(*rails);
  EXPECT_EQ(railRoutes.relays(rails->gpu(7), rails->gpu(8)), 1);
  EXPECT_EQ(railRoutes.relays(rails->gpu(0), rails->gpu(8)), 0);
}

} // namespace

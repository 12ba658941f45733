//===- TreePackingTest.cpp - broadcast and reduce trees against closed forms
//-===//
//
// lowering/Synthesis/TreePacking: on a ring and a torus the optimal
// broadcast rate is the root's out-degree times the link bandwidth
// (Edmonds: every GPU has that in-degree, and that many arc-disjoint
// spanning trees exist); on DGX-1, dgx-h100 and dgx8x8 the packing reaches
// the route-free max-flow bound or says how far from it it is.
//
//===----------------------------------------------------------------------===//
#include "lowering/Synthesis/TreePacking.h"
#include "lowering/Synthesis/ForestPacking.h"
#include "lowering/Synthesis/RingPacking.h"

#include "compiler/Routing/RouteMemo.h"
#include "compiler/Routing/Routes.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>

using namespace collc;
using namespace collc::synth;

namespace {

nlohmann::json bundledJson(const std::string &name) {
  std::ifstream file(std::string(COLLC_TOPOLOGIES_DIR) + "/" + name + ".json");
  return nlohmann::json::parse(file);
}

std::unique_ptr<topo::Topology> load(const nlohmann::json &t) {
  topo::LoadResult result = topo::parseTopology(t.dump(), "test.json");
  EXPECT_EQ(result.error, "");
  return std::move(result.topology);
}

/// torus4x4's accelerators (50 GB/s links) on a torus of `dims`.
std::unique_ptr<topo::Topology> torus(const std::vector<int> &dims) {
  nlohmann::json t = bundledJson("torus4x4");
  int count = 1;
  for (int d : dims)
    count *= d;
  auto &tmpl = t["node_templates"]["torus-4x4"];
  tmpl["gpus"]["count"] = count;
  tmpl["fabric"]["dims"] = dims;
  return load(t);
}

std::vector<topo::DeviceId> allGpus(const topo::Topology &t) {
  std::vector<topo::DeviceId> gpus;
  for (int r = 0; r < t.numGpus(); ++r)
    gpus.push_back(t.gpu(r));
  return gpus;
}

TreePacking pack(const topo::Topology &t, int32_t root, TreeDirection d) {
  RouteMemo routes(t);
  TreePacking packing;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(packTrees(t, routes, allGpus(t), root, d, PackingOptions(),
                        &packing, &error))
      << error;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%s: %.3f s\n%s", t.name().c_str(), seconds,
              describePacking(packing).c_str());
  return packing;
}

/// Every tree spans the group from the root, and no link carries more
/// than its bandwidth.
void expectFeasible(const topo::Topology &t, const TreePacking &p) {
  Routes routes(t);
  std::vector<double> load(t.links().size(), 0);
  for (const PackedTree &tree : p.trees) {
    ASSERT_EQ(tree.parent.size(), size_t(t.numGpus()));
    for (size_t r = 0; r < tree.parent.size(); ++r) {
      if (int32_t(r) == p.root) {
        EXPECT_EQ(tree.parent[r], -1);
        continue;
      }
      // Up the tree to the root, without a cycle.
      int32_t at = int32_t(r);
      for (size_t steps = 0; at != p.root; ++steps) {
        ASSERT_LT(steps, tree.parent.size()) << "a cycle";
        ASSERT_GE(tree.parent[size_t(at)], 0);
        at = tree.parent[size_t(at)];
      }
      topo::DeviceId from = t.gpu(tree.parent[r]), to = t.gpu(int(r));
      if (p.direction == TreeDirection::ToRoot)
        std::swap(from, to);
      for (topo::LinkId l : routes.path(from, to))
        load[size_t(l)] += tree.rate;
    }
  }
  for (size_t l = 0; l < load.size(); ++l)
    EXPECT_LE(load[l], t.links()[l].bandwidth * (1 + 1e-6))
        << t.device(t.links()[l].src).name << " -> "
        << t.device(t.links()[l].dst).name;
}

TEST(TreePacking, RingOfFourBroadcastsOverBothLinksOfTheRoot) {
  auto t = torus({4});
  ASSERT_TRUE(t);
  TreePacking p = pack(*t, 0, TreeDirection::FromRoot);
  EXPECT_NEAR(p.rate, 2 * 50e9, 1e6);
  EXPECT_NEAR(p.cutBound, 2 * 50e9, 1e6);
  EXPECT_NEAR(p.routedBound, p.rate, 1e-3 * p.rate);
  expectFeasible(*t, p);
  TreePacking r = pack(*t, 2, TreeDirection::ToRoot);
  EXPECT_NEAR(r.rate, 2 * 50e9, 1e6);
  expectFeasible(*t, r);
}

TEST(TreePacking, TorusBroadcastUsesEveryLinkOfTheRoot) {
  // 4x4 with wraparound: 4 links per GPU, Edmonds' bound 4 x 50 GB/s.
  auto t = torus({4, 4});
  ASSERT_TRUE(t);
  TreePacking p = pack(*t, 5, TreeDirection::FromRoot);
  EXPECT_NEAR(p.cutBound, 4 * 50e9, 1e6);
  EXPECT_GE(p.rate, 0.999 * p.cutBound);
  EXPECT_GE(p.trees.size(), 4u);
  expectFeasible(*t, p);
  TreePacking r = pack(*t, 0, TreeDirection::ToRoot);
  EXPECT_GE(r.rate, 0.999 * 4 * 50e9);
  expectFeasible(*t, r);
}

TEST(TreePacking, BundledMachinesReachTheirBounds) {
  // The root's fabric ports: the rate trees over the runtime's routes
  // reach (the max-flow
  // bound adds the root's PCIe link, which no route between two
  // fabric-connected GPUs takes; DGX-1 uses it for the pairs without
  // NVLink).
  struct Case {
    const char *name;
    double fabric; // bytes/s out of GPU 0 over its fabric
  };
  for (Case c : {Case{"dgx-h100", 18 * 25e9}, Case{"mi300x", 7 * 64e9},
                 Case{"dgx1-v100", 6 * 25e9}}) {
    auto t = load(bundledJson(c.name));
    ASSERT_TRUE(t) << c.name;
    // The optimum reaches the fabric's rate; cut to 16 trees (one channel
    // each) it keeps at least 85% of it.
    for (auto [root, direction] : {std::pair{0, TreeDirection::FromRoot},
                                   std::pair{3, TreeDirection::ToRoot}}) {
      TreePacking p = pack(*t, root, direction);
      EXPECT_GE(p.optimalRate, (1 - 1e-3) * p.routedBound) << c.name;
      EXPECT_GE(p.optimalRate, c.fabric * (1 - 1e-6)) << c.name;
      EXPECT_LE(p.optimalRate, p.cutBound * (1 + 1e-6)) << c.name;
      EXPECT_LE(p.trees.size(), 16u);
      EXPECT_GE(p.rate, 0.85 * p.optimalRate) << c.name;
      expectFeasible(*t, p);
    }
  }
}

TEST(TreePacking, AcrossNodesTheNicsBound) {
  // dgx8x8, 64 GPUs: every GPU of another node gets at most its node's 8
  // NICs' 400 GB/s.
  auto t = load(bundledJson("dgx8x8"));
  ASSERT_TRUE(t);
  TreePacking p = pack(*t, 0, TreeDirection::FromRoot);
  EXPECT_LE(p.cutBound, 8 * 50e9 * (1 + 1e-6));
  EXPECT_GE(p.rate, (1 - 1e-3) * p.routedBound);
  EXPECT_GE(p.rate, 0.9 * p.cutBound);
  expectFeasible(*t, p);
}

TEST(TreePacking, BadGroupsAreErrors) {
  auto t = torus({4});
  ASSERT_TRUE(t);
  RouteMemo routes(*t);
  TreePacking p;
  std::string error;
  EXPECT_FALSE(packTrees(*t, routes, {t->gpu(0)}, 0, TreeDirection::FromRoot,
                         PackingOptions(), &p, &error));
  EXPECT_EQ(error, "tree packing needs a group of at least 2 GPUs, got 1");
  EXPECT_FALSE(packTrees(*t, routes, {t->gpu(0), t->gpu(0)}, 0,
                         TreeDirection::FromRoot, PackingOptions(), &p,
                         &error));
  EXPECT_EQ(error, "the group's devices must be distinct GPUs of topology "
                   "'torus4x4'");
  EXPECT_FALSE(packTrees(*t, routes, allGpus(*t), 4, TreeDirection::FromRoot,
                         PackingOptions(), &p, &error));
  EXPECT_EQ(error, "root 4 is not a rank of the group of 4");
}

} // namespace

// All-roots packings (ForestPacking.h): every GPU's links are a tight cut,
// so the rate per root is the bandwidth into a GPU over n - 1; the trees
// span from their roots and fit the links together.
ForestPacking packAll(const topo::Topology &t, TreeDirection d, int maxTrees,
                      ForestPacking *fitted = nullptr) {
  RouteMemo routes(t);
  ForestPacking packing;
  std::string error;
  PackingOptions options;
  options.maxTrees = maxTrees;
  options.gap = 1e-3;
  EXPECT_TRUE(
      packForest(t, routes, allGpus(t), d, options, &packing, fitted, &error))
      << error;
  std::printf("%s", describeForest(packing).c_str());
  return packing;
}

void expectFeasible(const topo::Topology &t, const ForestPacking &p) {
  Routes routes(t);
  std::vector<double> load(t.links().size(), 0);
  std::vector<double> perRoot(size_t(t.numGpus()), 0);
  for (const ForestTree &tree : p.trees) {
    ASSERT_EQ(tree.parent.size(), size_t(t.numGpus()));
    perRoot[size_t(tree.root)] += tree.rate;
    for (size_t r = 0; r < tree.parent.size(); ++r) {
      if (int32_t(r) == tree.root) {
        EXPECT_EQ(tree.parent[r], -1);
        continue;
      }
      int32_t at = int32_t(r);
      for (size_t steps = 0; at != tree.root; ++steps) {
        ASSERT_LT(steps, tree.parent.size()) << "a cycle";
        ASSERT_GE(tree.parent[size_t(at)], 0);
        at = tree.parent[size_t(at)];
      }
      topo::DeviceId from = t.gpu(tree.parent[r]), to = t.gpu(int(r));
      if (p.direction == TreeDirection::ToRoot)
        std::swap(from, to);
      for (topo::LinkId l : routes.path(from, to))
        load[size_t(l)] += tree.rate;
    }
  }
  for (double rate : perRoot)
    EXPECT_GE(rate, p.rate * (1 - 1e-9));
  for (size_t l = 0; l < load.size(); ++l)
    EXPECT_LE(load[l], t.links()[l].bandwidth * (1 + 1e-6));
}

/// A torus GPU's links: 2 per dimension of size > 2, 1 for a dimension of
/// 2.
int linksPerGpu(const std::vector<int> &dims) {
  int links = 0;
  for (int d : dims)
    links += d > 2 ? 2 : 1;
  return links;
}

TEST(ForestPacking, RingAndTorusAllGatherAtTheCutRate) {
  for (const std::vector<int> &dims :
       std::vector<std::vector<int>>{{4}, {8}, {2, 4}, {4, 4}}) {
    auto t = torus(dims);
    ASSERT_TRUE(t);
    const int n = t->numGpus();
    const int links = linksPerGpu(dims);
    const double optimum = links * 50e9 / (n - 1);
    ForestPacking p = packAll(*t, TreeDirection::FromRoot, 4 * n);
    EXPECT_NEAR(p.routedBound, optimum, 1e-3 * optimum) << t->name();
    EXPECT_GE(p.optimalRate, 0.999 * optimum);
    EXPECT_GE(p.rate, 0.9 * optimum);
    EXPECT_LE(p.trees.size(), size_t(4 * n));
    expectFeasible(*t, p);
    ForestPacking r = packAll(*t, TreeDirection::ToRoot, 4 * n);
    EXPECT_GE(r.optimalRate, 0.999 * optimum);
    expectFeasible(*t, r);
  }
}

TEST(ForestPacking, CutToFewerTreesKeepsOnePerRoot) {
  auto t = torus({4, 4});
  ASSERT_TRUE(t);
  ForestPacking fitted;
  ForestPacking p = packAll(*t, TreeDirection::FromRoot, 16, &fitted);
  EXPECT_EQ(p.trees.size(), 16u);
  for (int32_t r = 0; r < 16; ++r)
    EXPECT_EQ(p.treesOf(r).size(), 1u);
  expectFeasible(*t, p);
  // No fits callback: the fitted packing is the packing.
  EXPECT_EQ(fitted.trees.size(), p.trees.size());
  RouteMemo routes(*t);
  std::string error;
  PackingOptions options;
  options.maxTrees = 15;
  ForestPacking few;
  EXPECT_FALSE(packForest(*t, routes, allGpus(*t), TreeDirection::FromRoot,
                          options, &few, nullptr, &error));
  EXPECT_NE(error.find("a tree per root needs 16 channels"), std::string::npos)
      << error;
}

// Equal-rate packings (packForestEven): K trees per root, all of one rate,
// that rate the least over the links of 50 GB/s over the tree edges there.
TEST(ForestPacking, EqualRateTreesOnRingsAndTori) {
  for (const std::vector<int> &dims :
       std::vector<std::vector<int>>{{4}, {8}, {2, 4}, {4, 4}}) {
    double best = 0, optimum = 0;
    for (int perRoot : {1, 2}) {
      auto t = torus(dims);
      ASSERT_TRUE(t);
      const int n = t->numGpus();
      const int links = linksPerGpu(dims);
      ForestPacking lp = packAll(*t, TreeDirection::FromRoot, 4 * n);
      RouteMemo routes(*t);
      ForestPacking even;
      std::string error;
      ASSERT_TRUE(packForestEven(*t, routes, allGpus(*t),
                                 TreeDirection::FromRoot, perRoot, lp, nullptr,
                                 &even, &error))
          << error;
      std::printf("%s", describeForest(even).c_str());
      EXPECT_EQ(even.equalPerRoot, perRoot);
      ASSERT_EQ(even.trees.size(), size_t(perRoot * n));
      for (int32_t r = 0; r < n; ++r)
        EXPECT_EQ(even.treesOf(r).size(), size_t(perRoot));
      for (const ForestTree &tree : even.trees)
        EXPECT_DOUBLE_EQ(tree.rate, even.trees[0].rate);
      EXPECT_NEAR(even.rate, perRoot * even.trees[0].rate, 1e-6 * even.rate);
      // Whole edges per link: the rate is 50 GB/s over an integer.
      double edges = 50e9 / even.trees[0].rate;
      EXPECT_NEAR(edges, std::round(edges), 1e-6) << t->name();
      expectFeasible(*t, even);
      // The edges spread as evenly as whole numbers allow: perRoot n (n-1)
      // edges over n x links links.
      const int most = (perRoot * n * (n - 1) + n * links - 1) / (n * links);
      EXPECT_NEAR(even.rate, perRoot * 50e9 / most, 1e3) << t->name();
      EXPECT_LE(even.rate, lp.routedBound * (1 + 1e-6));
      best = std::max(best, even.rate);
      optimum = lp.routedBound;
    }
    // One or two trees per root: within 7% of the optimum on all four.
    EXPECT_GE(best, 0.93 * optimum);
  }
  // The 4x4 torus: 16 trees of 15 edges on 64 links, 4 edges on the
  // busiest at best (3.75 on average): 12.5 GB/s, 15/16 of the optimum.
  auto t = torus({4, 4});
  ForestPacking lp = packAll(*t, TreeDirection::FromRoot, 64);
  RouteMemo routes(*t);
  ForestPacking even;
  std::string error;
  ASSERT_TRUE(packForestEven(*t, routes, allGpus(*t), TreeDirection::FromRoot,
                             1, lp, nullptr, &even, &error));
  EXPECT_NEAR(even.rate, 12.5e9, 1e3);
}

// Two trees per root started from the one-per-root packing repeated are
// never slower than it (DGX-1's uneven links, where a search from scratch
// found a worse local optimum).
TEST(ForestPacking, MoreEqualRateTreesStartFromFewer) {
  auto t = load(bundledJson("dgx1-v100"));
  ASSERT_TRUE(t);
  ForestPacking lp = packAll(*t, TreeDirection::FromRoot, 64);
  RouteMemo routes(*t);
  ForestPacking one, two;
  std::string error;
  ASSERT_TRUE(packForestEven(*t, routes, allGpus(*t), TreeDirection::FromRoot,
                             1, lp, nullptr, &one, &error))
      << error;
  ASSERT_TRUE(packForestEven(*t, routes, allGpus(*t), TreeDirection::FromRoot,
                             2, lp, &one, &two, &error))
      << error;
  std::printf("%s%s", describeForest(one).c_str(), describeForest(two).c_str());
  EXPECT_EQ(two.trees.size(), 2 * one.trees.size());
  EXPECT_GE(two.rate, one.rate * (1 - 1e-9));
  expectFeasible(*t, two);
}

// maxMinRates: every ring's rate rises until a link it crosses is full.
// Ring A crosses links 0 (10 GB/s) and 1 (40), ring B link 1 twice, ring C
// link 2 (5): link 2 fills first (C = 5), then link 0 (A = 10, link 1 then
// holds 10 + 2 x 10), then B alone on what link 1 has left (+10 / 2).
TEST(RingPacking, MaxMinRates) {
  std::vector<double> rates = maxMinRates(
      {{{0, 1.0}, {1, 1.0}}, {{1, 2.0}}, {{2, 1.0}}}, {10.0, 40.0, 5.0});
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_NEAR(rates[0], 10, 1e-9);
  EXPECT_NEAR(rates[1], 15, 1e-9);
  EXPECT_NEAR(rates[2], 5, 1e-9);
}

// Rings on a ring of 4 GPUs (both directions, 50 GB/s each: 100 GB/s out
// of every GPU), the 4x4 and 2x4 tori (every link, 200 and 150 GB/s) and
// DGX-1 (six rings on its NVLink lanes at
// 25 GB/s, one more over PCIe at 8: 158 GB/s, the optimum of the all-roots
// tree packing over the runtime's routes, which rings, being trees, cannot
// pass). Every ring visits every rank once.
TEST(RingPacking, RingsOnRingsToriAndDgx1) {
  struct Case {
    std::unique_ptr<topo::Topology> topology;
    double least;
  };
  std::vector<Case> cases;
  cases.push_back({torus({4}), 100e9});
  // All four links of every GPU: the torus's Hamiltonian decomposition,
  // which the depth-first search alone misses (three of the four links),
  // found by merging permutations.
  cases.push_back({torus({4, 4}), 200e9});
  cases.push_back({torus({2, 4}), 150e9});
  cases.push_back({load(bundledJson("dgx1-v100")), 158e9});
  for (const Case &c : cases) {
    ASSERT_TRUE(c.topology);
    const topo::Topology &t = *c.topology;
    const int n = t.numGpus();
    RouteMemo routes(t);
    RingPacking rings;
    std::string error;
    ASSERT_TRUE(packRings(t, routes, allGpus(t), 16, &rings, &error)) << error;
    std::printf("%s: %s\n", t.name().c_str(), describeRings(rings).c_str());
    EXPECT_GE(rings.rate, c.least * (1 - 1e-9)) << t.name();
    ForestPacking lp = packAll(t, TreeDirection::FromRoot, 4 * n);
    ASSERT_GT(lp.routedBound, 0);
    EXPECT_LE(rings.rate / (n - 1), lp.routedBound * (1 + 1e-6)) << t.name();
    double sum = 0;
    for (const PackedRing &ring : rings.rings) {
      std::vector<int32_t> order = ring.order;
      std::sort(order.begin(), order.end());
      for (int r = 0; r < n; ++r)
        EXPECT_EQ(order[size_t(r)], r) << t.name();
      sum += ring.rate;
    }
    EXPECT_NEAR(sum, rings.rate, 1e-6 * rings.rate);
  }
  // DGX-1: at the optimum.
  auto t = load(bundledJson("dgx1-v100"));
  RouteMemo routes(*t);
  RingPacking rings;
  std::string error;
  ASSERT_TRUE(packRings(*t, routes, allGpus(*t), 16, &rings, &error));
  ForestPacking lp = packAll(*t, TreeDirection::FromRoot, 64);
  EXPECT_NEAR(rings.rate / 7, lp.routedBound, 1e-3 * lp.routedBound);
}

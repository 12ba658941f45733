//===- FlowNetworkTest.cpp - max-min fair rates, checked by definition ----===//
//
// An allocation is max-min fair iff every flow has a bottleneck: a
// saturated resource on its path on which no flow has a higher rate. The
// tests check that property (and feasibility) on random instances with many
// distinct rates (the heap path) and few (the scanning path), after every
// incremental start and finish.
//
//===----------------------------------------------------------------------===//
#include "compiler/Simulate/FlowNetwork.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using collc::sim::FlowNetwork;

namespace {

struct Instance {
  std::vector<double> capacity;
  std::vector<std::vector<uint32_t>> paths; ///< per flow slot
};

/// Checks feasibility and the bottleneck property of the active flows.
void expectMaxMinFair(const FlowNetwork &network, const Instance &instance,
                      const std::vector<bool> &active) {
  size_t resources = instance.capacity.size();
  std::vector<double> load(resources, 0), highest(resources, 0);
  for (size_t f = 0; f < active.size(); ++f) {
    if (!active[f])
      continue;
    EXPECT_GT(network.rate(uint32_t(f)), 0) << "flow " << f;
    for (uint32_t r : instance.paths[f]) {
      load[r] += network.rate(uint32_t(f));
      highest[r] = std::max(highest[r], network.rate(uint32_t(f)));
    }
  }
  const double tolerance = 1e-9;
  for (size_t r = 0; r < resources; ++r)
    EXPECT_LE(load[r], instance.capacity[r] * (1 + tolerance))
        << "resource " << r;
  for (size_t f = 0; f < active.size(); ++f) {
    if (!active[f])
      continue;
    double rate = network.rate(uint32_t(f));
    bool bottleneck = false;
    for (uint32_t r : instance.paths[f])
      bottleneck =
          bottleneck || (load[r] >= instance.capacity[r] * (1 - tolerance) &&
                         rate >= highest[r] * (1 - tolerance));
    EXPECT_TRUE(bottleneck)
        << "flow " << f << " at " << rate << " has no bottleneck";
  }
}

Instance randomInstance(std::mt19937 &random, size_t resources, size_t flows,
                        bool uniformCapacity) {
  Instance instance;
  std::uniform_real_distribution<double> capacity(1, 100);
  for (size_t r = 0; r < resources; ++r)
    instance.capacity.push_back(uniformCapacity ? 50 : capacity(random));
  std::uniform_int_distribution<size_t> hops(1, 5), pick(0, resources - 1);
  for (size_t f = 0; f < flows; ++f) {
    std::vector<uint32_t> path;
    for (size_t h = hops(random); path.size() < h;) {
      uint32_t r = uint32_t(pick(random));
      if (std::find(path.begin(), path.end(), r) == path.end())
        path.push_back(r);
    }
    instance.paths.push_back(path);
  }
  return instance;
}

void runIncremental(const Instance &instance, std::mt19937 &random) {
  size_t flows = instance.paths.size();
  FlowNetwork network(instance.capacity, uint32_t(flows));
  std::vector<bool> active(flows, false);
  double now = 0;
  // Start flows in a few waves, then finish random ones.
  for (size_t f = 0; f < flows; ++f) {
    network.start(uint32_t(f), instance.paths[f].data(),
                  uint32_t(instance.paths[f].size()), 1e6, now);
    active[f] = true;
    if (f % 7 == 6) {
      network.update(now += 1e-3);
      expectMaxMinFair(network, instance, active);
    }
  }
  network.update(now += 1e-3);
  expectMaxMinFair(network, instance, active);
  std::uniform_int_distribution<size_t> pick(0, flows - 1);
  for (int round = 0; round < 20; ++round) {
    size_t f = pick(random);
    if (!active[f])
      continue;
    network.finish(uint32_t(f));
    active[f] = false;
    network.update(now += 1e-3);
    expectMaxMinFair(network, instance, active);
  }
}

TEST(FlowNetworkTest, RandomCapacitiesManyLevels) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 20; ++trial)
    runIncremental(randomInstance(random, 30, 60, false), random);
}

TEST(FlowNetworkTest, EqualCapacitiesFewLevels) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 20; ++trial)
    runIncremental(randomInstance(random, 20, 40, true), random);
}

TEST(FlowNetworkTest, DrainTimeFollowsRateChanges) {
  // Two flows on one resource of 10 B/s: 5 B/s each; 10 bytes drain at 2 s.
  FlowNetwork network({10.0}, 2);
  uint32_t resource = 0;
  network.start(0, &resource, 1, 10, 0);
  network.start(1, &resource, 1, 30, 0);
  network.update(0);
  EXPECT_DOUBLE_EQ(network.drainTime(0), 2);
  EXPECT_EQ(network.changedFlows().size(), 2u);
  // At 2 s flow 1 has 20 bytes left and the resource to itself.
  network.finish(0);
  network.update(2);
  EXPECT_DOUBLE_EQ(network.rate(1), 10);
  EXPECT_DOUBLE_EQ(network.drainTime(1), 4);
  EXPECT_DOUBLE_EQ(network.load(0), 10);
}

} // namespace

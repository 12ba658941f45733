//===- DgxTest.cpp - the bundled 8-node DGX H100 topology -----------------===//
//
// A 64-rank ring all-reduce on dgx8x8. The ring's 8 node crossings each have
// a 50 GB/s NIC to themselves; every step waits for the slowest hop, so the
// run takes 2(N-1) steps of a crossing: 2(N-1) * (alpha_net + M/(N B_net)),
// which for large M is the bandwidth term 2(N-1)/N * M / B_net (dgx8x8
// does not cap a channel; with a cap, the one channel is the bottleneck:
// the ChannelCap case).
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include "compiler/Simulate/BusBandwidth.h"

#include "compiler/Bounds/Bounds.h"
#include "compiler/Routing/Routes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

using namespace collc;
using namespace collc::sim;
using namespace collc::sim::testing;

namespace {

TEST(DgxTest, RingAllReduce64RanksNearBandwidthTerm) {
  auto topology = loadBundled("dgx8x8");
  ASSERT_TRUE(topology);
  const int n = 64;
  Program program = ringAllReduce(n);
  const int64_t elements = int64_t(1) << 28; // 1 GiB of floats
  const double m = double(elements) * 4, segment = m / n;
  SimOptions options;
  options.recordTimeline = false;

  SimResult result =
      simulate(program, elements, 4, *topology, identity(n), options);
  ASSERT_TRUE(result.ok()) << result.error;

  // The slowest hop: node0/gpu7 -> node1/gpu0.
  Routes routes(*topology);
  double latency = 0, bottleneck = 1e300;
  for (topo::LinkId link : routes.path(topology->gpu(7), topology->gpu(8))) {
    latency += topology->link(link).latency;
    bottleneck = std::min(bottleneck, topology->link(link).bandwidth);
  }
  EXPECT_DOUBLE_EQ(bottleneck, 50e9);
  double bandwidthTerm = 2.0 * (n - 1) / n * m / bottleneck;
  double alpha = latency + SimOptions().fixedCost;
  double closedForm = 2 * (n - 1) * (alpha + segment / bottleneck) +
                      SimOptions().fixedCost +
                      2 * segment / topology->gpuMemoryBandwidth(0);
  std::printf("dgx8x8 ring all-reduce, 64 ranks, 1 GiB: simulated %.4f ms, "
              "closed form %.4f ms, 2(N-1)/N*M/B %.4f ms (+%.2f%%); "
              "crossing latency %.2f us\n",
              result.totalTime * 1e3, closedForm * 1e3, bandwidthTerm * 1e3,
              (result.totalTime / bandwidthTerm - 1) * 100, latency * 1e6);
  EXPECT_NEAR(result.totalTime, closedForm, 0.01 * closedForm);
  EXPECT_NEAR(result.totalTime, bandwidthTerm, 0.05 * bandwidthTerm);
  EXPECT_GT(result.totalTime, bandwidthTerm);

  // nccl-tests' busbw of a ring all-reduce is the bottleneck's bandwidth,
  // less the latency terms.
  Bandwidths bw =
      ncclTestsBandwidths(program.collective, n, m, result.totalTime);
  EXPECT_DOUBLE_EQ(bw.algorithm, m / result.totalTime);
  EXPECT_NEAR(bw.bus, bottleneck * bandwidthTerm / result.totalTime, 1e-3);
  EXPECT_GT(bw.bus, 0.95 * bottleneck);

  // The NIC ports of the crossings are the busiest links, near saturation.
  double busiest = *std::max_element(result.linkUtilization.begin(),
                                     result.linkUtilization.end());
  EXPECT_GT(busiest, 0.95);
  EXPECT_LE(busiest, 1.0 + 1e-9);
}

/// No schedule beats the lower bound (compiler/Bounds).
TEST(DgxTest, SimulatedTimesRespectTheLowerBound) {
  auto topology = loadBundled("dgx8x8");
  ASSERT_TRUE(topology);
  const int n = 64;
  const int64_t elements = int64_t(1) << 24; // 64 MiB of floats
  struct Case {
    const char *name;
    Program program;
  } cases[] = {{"ring all_reduce", ringAllReduce(n)},
               {"direct all_to_all", directAllToAll(n)},
               {"concurrent all_to_all", concurrentAllToAll(n)},
               {"binomial broadcast", binomialBroadcast(n)}};
  for (const Case &c : cases) {
    SimResult result = simulate(c.program, elements, 4, *topology, identity(n));
    ASSERT_TRUE(result.ok()) << c.name << ": " << result.error;
    bounds::LowerBound bound = bounds::lowerBound(
        c.program.collective, double(elements) * 4, *topology, identity(n));
    ASSERT_EQ(bound.error, "");
    std::printf("%s, 64 MiB on dgx8x8: simulated %.3f ms, bound %.3f ms "
                "(%.2fx): %s\n",
                c.name, result.totalTime * 1e3, bound.seconds * 1e3,
                result.totalTime / bound.seconds, bound.reason.c_str());
    EXPECT_GE(result.totalTime, bound.seconds) << c.name;
  }
}

/// With a channel capped at C = 37.5 GB/s (what a copy kernel's thread
/// block moves on an H200) the one-channel ring's steps are limited by the
/// channel: a ring step's
/// recv-reduce-send of s bytes reads the staged data and its input (2s of
/// memory work) and sends s, 3s on one channel of C, so 3s / C per step
/// instead of the NIC's s / B_net.
TEST(DgxTest, ChannelCap) {
  auto topology = loadBundled("dgx8x8");
  ASSERT_TRUE(topology);
  EXPECT_EQ(channelCap(*topology, 0, SimOptions()), 0);
  const double cap = 37.5e9;
  const int n = 64;
  Program program = ringAllReduce(n);
  const int64_t elements = int64_t(1) << 28;
  SimOptions options;
  options.recordTimeline = false;
  options.channelBandwidth = cap;
  SimResult capped =
      simulate(program, elements, 4, *topology, identity(n), options);
  ASSERT_TRUE(capped.ok()) << capped.error;
  options.channelBandwidth = 0;
  SimResult free =
      simulate(program, elements, 4, *topology, identity(n), options);
  ASSERT_TRUE(free.ok()) << free.error;
  const double segment = double(elements) * 4 / n;
  // n - 1 reduce-scatter steps alone take (n - 1) 3s / C at least.
  EXPECT_GT(capped.totalTime, (n - 1) * 3 * segment / cap);
  EXPECT_GT(capped.totalTime, 2 * free.totalTime);
}

} // namespace

//===- ScaleTest.cpp - 1024-rank schedules simulate completely ------------===//
//
// 1024-rank schedules (about 1M transfers) simulate to completion with the
// right counts. Their times are printed, never asserted: speed is measured
// by bench/scale and recorded in bench/scale/RESULTS.md.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include <gtest/gtest.h>

// Timings are printed, never asserted: speed is measured by
// bench/scale (bench/scale/RESULTS.md), not by unit tests.
#include <chrono>
#include <cstdio>

using namespace collc;
using namespace collc::sim;
using namespace collc::sim::testing;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void report(const char *what, const SimResult &result, double seconds) {
  std::printf("%s: %llu instructions, %llu transfers, %llu batches, %llu "
              "flow rates set, simulated %.3f ms, in %.2f s\n",
              what, (unsigned long long)result.instructions,
              (unsigned long long)result.transfers,
              (unsigned long long)result.batches,
              (unsigned long long)result.rateComputations,
              result.totalTime * 1e3, seconds);
}

TEST(ScaleTest, DirectAllToAll1024RanksOnDgx128x8) {
  auto topology = loadBundled("dgx128x8");
  ASSERT_TRUE(topology);
  const int n = 1024;
  Program program = directAllToAll(n);
  const int64_t elements = int64_t(1) << 28; // 1 GiB per rank, 1 MiB parts
  SimOptions options;
  options.recordTimeline = false;
  options.recordLinkLoad = false;

  auto start = std::chrono::steady_clock::now();
  SimResult result =
      simulate(program, elements, 4, *topology, identity(n), options);
  double seconds = secondsSince(start);
  report("direct all-to-all, 1024 ranks on dgx128x8", result, seconds);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.transfers, uint64_t(n) * (n - 1));
  EXPECT_EQ(result.instructions, uint64_t(n) * (2 * (n - 1) + 1));
}

TEST(ScaleTest, DirectAllToAll1024RanksWithTimeline) {
  auto topology = loadBundled("dgx128x8");
  ASSERT_TRUE(topology);
  const int n = 1024;
  Program program = directAllToAll(n);
  auto start = std::chrono::steady_clock::now();
  SimResult result =
      simulate(program, int64_t(1) << 28, 4, *topology, identity(n));
  double seconds = secondsSince(start);
  report("the same, with timeline and link load", result, seconds);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.timeline.size(), result.instructions);
}

TEST(ScaleTest, RingAllReduce1024Ranks) {
  auto topology = loadBundled("dgx128x8");
  ASSERT_TRUE(topology);
  const int n = 1024;
  Program program = ringAllReduce(n);
  SimOptions options;
  options.recordTimeline = false;
  options.recordLinkLoad = false;
  auto start = std::chrono::steady_clock::now();
  SimResult result =
      simulate(program, int64_t(1) << 28, 4, *topology, identity(n), options);
  double seconds = secondsSince(start);
  report("ring all-reduce, 1024 ranks on dgx128x8", result, seconds);
  ASSERT_TRUE(result.ok()) << result.error;
}

} // namespace

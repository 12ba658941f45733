//===- BusBandwidthTest.cpp - nccl-tests' algbw and busbw -----------------===//
#include "compiler/Simulate/BusBandwidth.h"

#include <gtest/gtest.h>

using namespace collc::sim;
using collc::sched::Collective;

namespace {

TEST(BusBandwidthTest, FactorsAndSizes) {
  // 8 ranks, M = 800 bytes each, 1 second.
  struct Case {
    Collective collective;
    double algbw, busbw;
  } cases[] = {
      {Collective::AllReduce, 800, 800 * 2 * 7 / 8.0},
      {Collective::AllGather, 6400, 6400 * 7 / 8.0},
      {Collective::ReduceScatter, 800, 800 * 7 / 8.0},
      {Collective::AllToAll, 800, 800 * 7 / 8.0},
      {Collective::Broadcast, 800, 800},
      {Collective::Reduce, 800, 800},
      {Collective::Scatter, 800, 800 * 7 / 8.0},
      {Collective::Gather, 6400, 6400 * 7 / 8.0},
      {Collective::SendRecv, 800, 800},
  };
  for (const Case &c : cases) {
    Bandwidths b = ncclTestsBandwidths(c.collective, 8, 800, 1);
    EXPECT_DOUBLE_EQ(b.algorithm, c.algbw) << collectiveName(c.collective);
    EXPECT_DOUBLE_EQ(b.bus, c.busbw) << collectiveName(c.collective);
  }
  EXPECT_EQ(ncclTestsBandwidths(Collective::AllReduce, 8, 800, 0).bus, 0);
}

} // namespace

//===- CrossingTest.cpp - bytes every collective must move across a cut ---===//
//
// Four ranks, M = 1000 bytes; the cut holds rank 0 alone, or ranks {0, 1}.
// Expected values follow docs/bounds.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/Bounds/Bounds.h"

#include <gtest/gtest.h>

using namespace collc;
using namespace collc::bounds;
using sched::Collective;

namespace {

Crossing cross(Collective collective, std::vector<bool> inside, int root = 0,
               int peer = 1) {
  CollectiveSpec spec;
  spec.collective = collective;
  spec.gpus = {0, 1, 2, 3};
  spec.bytes = 1000;
  spec.root = root;
  spec.peer = peer;
  return crossingBytes(spec, inside);
}

void expectCrossing(const Crossing &c, double out, double in) {
  EXPECT_DOUBLE_EQ(c.out, out);
  EXPECT_DOUBLE_EQ(c.in, in);
}

const std::vector<bool> kOne = {true, false, false, false};
const std::vector<bool> kTwo = {true, true, false, false};
const std::vector<bool> kLast = {false, false, false, true};

TEST(CrossingTest, AllReduceNeedsOneVectorEachWay) {
  expectCrossing(cross(Collective::AllReduce, kOne), 1000, 1000);
  expectCrossing(cross(Collective::AllReduce, kTwo), 1000, 1000);
}

TEST(CrossingTest, AllGather) {
  Crossing c = cross(Collective::AllGather, kOne);
  expectCrossing(c, 1000, 3000);
  EXPECT_EQ(c.inFormula, "(4-1) * M");
  expectCrossing(cross(Collective::AllGather, kTwo), 2000, 2000);
}

TEST(CrossingTest, ReduceScatter) {
  expectCrossing(cross(Collective::ReduceScatter, kOne), 750, 250);
  expectCrossing(cross(Collective::ReduceScatter, kTwo), 500, 500);
}

TEST(CrossingTest, AllToAll) {
  Crossing c = cross(Collective::AllToAll, kOne);
  expectCrossing(c, 750, 750);
  EXPECT_EQ(c.outFormula, "1*(4-1)/4 * M");
  expectCrossing(cross(Collective::AllToAll, kTwo), 1000, 1000);
}

TEST(CrossingTest, AllToAllVSumsTheMatrix) {
  CollectiveSpec spec;
  spec.collective = Collective::AllToAllV;
  spec.gpus = {0, 1, 2};
  spec.bytes = 0;
  spec.sendBytes = {0, 1, 2, 10, 0, 20, 100, 200, 0};
  Crossing c = crossingBytes(spec, {true, false, false});
  expectCrossing(c, 1 + 2, 10 + 100);
}

TEST(CrossingTest, RootedCollectives) {
  expectCrossing(cross(Collective::Broadcast, kOne), 1000, 0);
  expectCrossing(cross(Collective::Broadcast, kLast), 0, 1000);
  expectCrossing(cross(Collective::Reduce, kOne), 0, 1000);
  expectCrossing(cross(Collective::Reduce, kLast), 1000, 0);
  expectCrossing(cross(Collective::Scatter, kOne), 750, 0);
  expectCrossing(cross(Collective::Scatter, kTwo, 3), 0, 500);
  expectCrossing(cross(Collective::Gather, kOne), 0, 3000);
  expectCrossing(cross(Collective::Gather, kTwo, 3), 2000, 0);
}

TEST(CrossingTest, SendRecv) {
  expectCrossing(cross(Collective::SendRecv, kOne, 0, 2), 1000, 0);
  expectCrossing(cross(Collective::SendRecv, kLast, 0, 3), 0, 1000);
  expectCrossing(cross(Collective::SendRecv, kTwo, 0, 1), 0, 0);
}

TEST(CrossingTest, NothingCrossesAroundEveryoneOrNoOne) {
  expectCrossing(cross(Collective::AllGather, {true, true, true, true}), 0, 0);
  expectCrossing(cross(Collective::AllGather, {false, false, false, false}), 0,
                 0);
}

} // namespace

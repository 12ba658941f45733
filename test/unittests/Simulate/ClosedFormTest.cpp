//===- ClosedFormTest.cpp - simulated times against closed forms ----------===//
//
// Textbook schedules on hand-built machines, each checked against the time
// the model predicts in closed form (docs/simulator.md). A step over a link
// of bandwidth B and latency L costs alpha + bytes / B with alpha = L +
// fixed cost; the last recv, which stores its data, adds fixed cost + 2 *
// bytes / memory bandwidth (read the staged data, write the output).
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include <gtest/gtest.h>

using namespace collc;
using namespace collc::sim;
using namespace collc::sim::testing;

namespace {

constexpr double kFixed = 1e-6;

/// |actual - expected| <= 1% of expected.
void expectWithin1Percent(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 0.01 * expected)
      << "actual " << actual << " s, expected " << expected << " s";
}

TEST(ClosedFormTest, RingAllReduceOnUniformRing) {
  const int n = 8;
  const double bandwidth = 100e9, latency = 2e-6, memory = 2000e9;
  auto topology = parse(ringTopology(n, 100, 2, 2000));
  ASSERT_TRUE(topology);
  Program program = ringAllReduce(n);
  const int64_t elements = int64_t(16) << 20; // 64 MiB of floats
  const double m = double(elements) * 4, segment = m / n;

  SimResult result = simulate(program, elements, 4, *topology, identity(n));
  ASSERT_TRUE(result.ok()) << result.error;

  double alpha = latency + kFixed;
  double textbook = 2 * (n - 1) * (alpha + m / (n * bandwidth));
  double lastRecv = kFixed + 2 * segment / memory;
  EXPECT_NEAR(result.totalTime, textbook + lastRecv, 1e-9 * textbook);
  expectWithin1Percent(result.totalTime, textbook);
  EXPECT_EQ(result.instructions, uint64_t(n) * (2 * n - 1));
  EXPECT_EQ(result.transfers, uint64_t(n) * (2 * n - 2));
  for (double finish : result.rankFinish)
    EXPECT_NEAR(finish, result.totalTime, 1e-12);

  // Each ring link carries 2(N-1) segments; nothing runs backwards.
  for (size_t l = 0; l < topology->links().size(); ++l) {
    const topo::Link &link = topology->link(topo::LinkId(l));
    int from = topology->device(link.src).rank;
    int to = topology->device(link.dst).rank;
    double expected = to == (from + 1) % n ? 2 * (n - 1) * segment : 0;
    EXPECT_DOUBLE_EQ(result.linkBytes[l], expected) << from << "->" << to;
    EXPECT_NEAR(result.linkUtilization[l],
                expected / (bandwidth * result.totalTime), 1e-12);
  }
}

/// One channel sends to r+1, r+2, ... one at a time; every step is a
/// permutation, so each flow has a switch port to itself: the sequential
/// form (N-1) * (alpha + (M/N) / B). The same stream then stores the N-1
/// parts it received, each after its data arrived: (N-1) * (fixed cost + 2
/// (M/N) / memory bandwidth) more.
TEST(ClosedFormTest, DirectAllToAllThroughSwitchIsSequential) {
  const int n = 8;
  const double bandwidth = 50e9, latency = 2 * 0.5e-6, memory = 2000e9;
  auto topology = parse(switchTopology(n, 50, 0.5, 2000));
  ASSERT_TRUE(topology);
  Program program = directAllToAll(n);
  const int64_t elements = int64_t(2) << 20; // 8 MiB of floats
  const double part = double(elements) * 4 / n;

  SimResult result = simulate(program, elements, 4, *topology, identity(n));
  ASSERT_TRUE(result.ok()) << result.error;

  double alpha = latency + kFixed;
  double sequential = (n - 1) * (alpha + part / bandwidth);
  double recvs = (n - 1) * (kFixed + 2 * part / memory);
  EXPECT_NEAR(result.totalTime, sequential + recvs, 1e-9 * sequential);
  expectWithin1Percent(result.totalTime, sequential + recvs);
  // Send i of every rank ends after i steps.
  for (int i = 1; i < n; ++i)
    EXPECT_NEAR(endOf(result, program, 3, 0, uint32_t(i - 1)),
                i * (alpha + part / bandwidth), 1e-12);
  EXPECT_EQ(result.transfers, uint64_t(n) * (n - 1));
}

/// Every peer on its own channel: the N-1 flows of a rank share its switch
/// port, the bandwidth-limited form alpha + (N-1) * (M/N) / B.
TEST(ClosedFormTest, ConcurrentAllToAllIsBandwidthLimited) {
  const int n = 8;
  const double bandwidth = 50e9, latency = 2 * 0.5e-6, memory = 2000e9;
  auto topology = parse(switchTopology(n, 50, 0.5, 2000));
  ASSERT_TRUE(topology);
  Program program = concurrentAllToAll(n);
  const int64_t elements = int64_t(2) << 20;
  const double part = double(elements) * 4 / n;

  SimResult result = simulate(program, elements, 4, *topology, identity(n));
  ASSERT_TRUE(result.ok()) << result.error;

  double alpha = latency + kFixed;
  double limited = alpha + (n - 1) * part / bandwidth;
  // The N-1 recvs then run at once and share the GPU's memory.
  double recvs = kFixed + (n - 1) * 2 * part / memory;
  EXPECT_NEAR(result.totalTime, limited + recvs, 1e-9 * limited);
  expectWithin1Percent(result.totalTime, limited + recvs);
}

/// ceil(log2 N) steps of alpha + M / B: forwarding with recv_copy_send
/// keeps the copy under the transfer.
TEST(ClosedFormTest, BinomialBroadcast) {
  const int n = 8;
  const double bandwidth = 50e9, latency = 2 * 0.5e-6, memory = 2000e9;
  auto topology = parse(switchTopology(n, 50, 0.5, 2000));
  ASSERT_TRUE(topology);
  Program program = binomialBroadcast(n);
  const int64_t elements = int64_t(1) << 20; // 4 MiB of floats
  const double m = double(elements) * 4;

  SimResult result = simulate(program, elements, 4, *topology, identity(n));
  ASSERT_TRUE(result.ok()) << result.error;

  double step = latency + kFixed + m / bandwidth;
  double lastRecv = kFixed + 2 * m / memory;
  EXPECT_NEAR(result.totalTime, 3 * step + lastRecv, 1e-9 * step);
  expectWithin1Percent(result.totalTime, 3 * step + lastRecv);
  // Rank 4 (a leaf, from the root at step 2) and rank 1 (first to receive).
  EXPECT_NEAR(result.rankFinish[4], 3 * step + lastRecv, 1e-12);
  EXPECT_NEAR(endOf(result, program, 1, 0, 0), 2 * step, 1e-12);
}

/// Two sends on two channels share the one link between two GPUs: each
/// moves at B/2, and both finish when one alone would have moved twice its
/// bytes.
TEST(ClosedFormTest, TwoTransfersShareOneLink) {
  const double bandwidth = 10e9, latency = 1e-6;
  auto topology = parse(meshTopology(2, "[[0, 1, 1]]", 10, 1, 2000));
  ASSERT_TRUE(topology);
  const int64_t elements = int64_t(512) << 10; // 2 MiB of floats, 2 chunks
  const double chunk = double(elements) * 4 / 2;

  Program alone = makeProgram(Collective::SendRecv, 2, 2);
  add(alone, 0, 0, send(1, input(0), 0));
  add(alone, 1, 0, recv(0, output(0), 0));
  Program both = alone;
  add(both, 0, 1, send(1, input(1), 0));
  add(both, 1, 1, recv(0, output(1), 0));

  SimResult one = simulate(alone, elements, 4, *topology, identity(2));
  SimResult two = simulate(both, elements, 4, *topology, identity(2));
  ASSERT_TRUE(one.ok()) << one.error;
  ASSERT_TRUE(two.ok()) << two.error;
  double transfer = chunk / bandwidth;
  EXPECT_NEAR(endOf(one, alone, 0, 0, 0), kFixed + latency + transfer, 1e-12);
  for (uint32_t c = 0; c < 2; ++c)
    EXPECT_NEAR(endOf(two, both, 0, c, 0), kFixed + latency + 2 * transfer,
                1e-12);
}

/// Rates change when a flow drains: a flow of 2 chunks and one of 1 chunk
/// share a link at B/2 until the short one is done at 2 chunks / B, then
/// the long one has the link to itself: 3 chunks / B.
TEST(ClosedFormTest, RateRisesWhenASharingFlowDrains) {
  const double bandwidth = 10e9, latency = 1e-6;
  auto topology = parse(meshTopology(2, "[[0, 1, 1]]", 10, 1, 2000));
  ASSERT_TRUE(topology);
  const int64_t elements = 3 << 18; // 3 MiB of floats, 3 chunks
  const double chunk = double(elements) * 4 / 3;
  Program program = makeProgram(Collective::SendRecv, 2, 3);
  add(program, 0, 0, send(1, input(0, 2), 0));
  add(program, 0, 1, send(1, input(2), 0));
  add(program, 1, 0, recv(0, output(0, 2), 0));
  add(program, 1, 1, recv(0, output(2), 0));
  SimOptions options;
  options.chargeMemory = false;

  SimResult result =
      simulate(program, elements, 4, *topology, identity(2), options);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_NEAR(endOf(result, program, 0, 1, 0),
              kFixed + latency + 2 * chunk / bandwidth, 1e-12);
  EXPECT_NEAR(endOf(result, program, 0, 0, 0),
              kFixed + latency + 3 * chunk / bandwidth, 1e-12);
  EXPECT_NEAR(result.totalTime,
              kFixed + latency + 3 * chunk / bandwidth + kFixed, 1e-12);
}

/// Max-min fairness is not an equal split. Links 0->1 (4 lanes), 1->2 (1
/// lane), 3->1 (4 lanes); flows f1: 0->1, f2: 0->1->2, f3: 3->1->2. The
/// 1->2 link saturates first and gives f2 and f3 B/2 each; f1 then takes
/// what f2 leaves of 0->1: 4B - B/2 = 3.5B (an equal split would give 2B).
TEST(ClosedFormTest, MaxMinFairSharesByProgressiveFilling) {
  const double lane = 10e9, latency = 1e-6;
  auto topology =
      parse(meshTopology(4, "[[0, 1, 4], [1, 2, 1], [3, 1, 4]]", 10, 1, 2000));
  ASSERT_TRUE(topology);
  const int64_t elements = 2500000; // 10 MB of floats
  const double bytes = 1e7;
  Program program = makeProgram(Collective::SendRecv, 4, 1);
  add(program, 0, 0, send(1, input(0), 0));
  add(program, 0, 1, send(2, input(0), 0));
  add(program, 3, 0, send(2, input(0), 0));
  add(program, 1, 0, recv(0, output(0), 0));
  add(program, 2, 1, recv(0, output(0), 0));
  add(program, 2, 0, recv(3, output(0), 0));
  SimOptions options;
  options.chargeMemory = false;

  SimResult result =
      simulate(program, elements, 4, *topology, identity(4), options);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_NEAR(endOf(result, program, 0, 0, 0),
              kFixed + latency + bytes / (3.5 * lane), 1e-12);
  EXPECT_NEAR(endOf(result, program, 0, 1, 0),
              kFixed + 2 * latency + bytes / (0.5 * lane), 1e-12);
  EXPECT_NEAR(endOf(result, program, 3, 0, 0),
              kFixed + 2 * latency + bytes / (0.5 * lane), 1e-12);
}

} // namespace

/// A reduce with fanin w reads its w source ranges and reads and writes
/// its destination once: (w + 2) x the destination's bytes of memory
/// traffic, where w plain reduces move 3 w x (docs/simulator.md).
TEST(ClosedFormTest, ReduceWithFaninPassesOverMemoryOnce) {
  const double memory = 1000e9; // bytes/s
  auto topology = parse(meshTopology(2, "[[0, 1, 1]]", 10, 1, 1000));
  ASSERT_TRUE(topology);
  const int64_t elements = int64_t(1) << 20; // 4 MiB of floats, 4 chunks
  const double chunk = double(elements) * 4 / 4;
  // all_reduce of 4 chunks per rank: output[0] += output[1..4) in one pass.
  Program program = makeProgram(Collective::AllReduce, 2, 4);
  Instruction fold = make(Opcode::Reduce, -1, -1, output(1, 3), output(0), 0);
  ASSERT_EQ(sched::reduceFanin(fold), 3u);
  add(program, 0, 0, fold);
  SimResult result = simulate(program, elements, 4, *topology, identity(2));
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_NEAR(endOf(result, program, 0, 0, 0), kFixed + 5 * chunk / memory,
              1e-12);
  EXPECT_NEAR(result.memoryBytes[0], 5 * chunk, 1);
  // The same sum as three reduces: 9 chunks of traffic, three fixed costs.
  Program three = makeProgram(Collective::AllReduce, 2, 4);
  for (uint32_t i = 1; i < 4; ++i)
    add(three, 0, 0, make(Opcode::Reduce, -1, -1, output(i), output(0), 0));
  SimResult serial = simulate(three, elements, 4, *topology, identity(2));
  ASSERT_TRUE(serial.ok()) << serial.error;
  EXPECT_NEAR(serial.totalTime, 3 * kFixed + 9 * chunk / memory, 1e-12);
}

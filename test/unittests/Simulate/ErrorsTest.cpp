//===- ErrorsTest.cpp - invalid arguments and stuck programs --------------===//
#include "SimTestUtil.h"

#include <gtest/gtest.h>

using namespace collc;
using namespace collc::sim;
using namespace collc::sim::testing;

namespace {

class ErrorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    topology = parse(meshTopology(2, "[[0, 1, 1]]", 10, 1, 2000));
    ASSERT_TRUE(topology);
    good = makeProgram(Collective::SendRecv, 2, 1);
    add(good, 0, 0, send(1, input(0), 0));
    add(good, 1, 0, recv(0, output(0), 0));
  }
  std::string errorOf(const Program &program,
                      const SimOptions &options = SimOptions(),
                      std::vector<int> gpus = {0, 1}) {
    return simulate(program, 1024, 4, *topology, gpus, options).error;
  }

  std::unique_ptr<topo::Topology> topology;
  Program good;
};

TEST_F(ErrorsTest, GoodProgramRuns) { EXPECT_EQ(errorOf(good), ""); }

TEST_F(ErrorsTest, RecvFromARankThatNeverSends) {
  Program program = makeProgram(Collective::SendRecv, 2, 1);
  add(program, 0, 0, recv(1, output(0), 0));
  add(program, 1, 0, copy(input(0), output(0), 0));
  EXPECT_EQ(errorOf(program),
            "stuck: 1 of 2 channel streams did not finish; rank 0 channel 0 "
            "step 0 (instruction 0: recv) waits for data from rank 1 channel "
            "0, which never sends to it");
}

TEST_F(ErrorsTest, BothReceiveFirst) {
  Program program = makeProgram(Collective::SendRecv, 2, 1);
  add(program, 0, 0, recv(1, output(0), 0));
  add(program, 0, 0, send(1, input(0), 1));
  add(program, 1, 0, recv(0, output(0), 0));
  add(program, 1, 0, send(0, input(0), 1));
  EXPECT_EQ(errorOf(program),
            "stuck: 2 of 2 channel streams did not finish; rank 0 channel 0 "
            "step 0 (instruction 0: recv) waits for rank 1 channel 0 to send "
            "its send #1 to rank 0");
}

TEST_F(ErrorsTest, SlotsRunOut) {
  Program program = makeProgram(Collective::SendRecv, 2, 1);
  add(program, 0, 0, send(1, input(0), 0));
  add(program, 0, 0, send(1, input(0), 1));
  add(program, 1, 0, copy(input(0), output(0), 0));
  SimOptions options;
  options.connectionSlots = 1;
  SimResult result = simulate(program, 1024, 4, *topology, {0, 1}, options);
  EXPECT_EQ(result.error,
            "stuck: 1 of 2 channel streams did not finish; rank 0 channel 0 "
            "step 1 (instruction 1: send) waits for a free slot: rank 1 "
            "channel 0 has received 0 of the 1 sends posted to it");
  ASSERT_EQ(result.timeline.size(), 3u);
  EXPECT_GT(result.timeline[0].end, 0);
  EXPECT_EQ(result.timeline[1].start, -1);
  EXPECT_EQ(result.timeline[1].end, -1);
}

TEST_F(ErrorsTest, DependencyNeverDone) {
  Program program = good;
  add(program, 0, 1, recv(1, output(0), 0)); // never satisfied
  Instruction &first = program.ranks[0].channels[0].instructions[0];
  first.depBegin = 0;
  first.depCount = 1;
  program.ranks[0].dependencies.push_back({1, 0});
  EXPECT_EQ(errorOf(program),
            "stuck: 3 of 3 channel streams did not finish; rank 0 channel 0 "
            "step 0 (instruction 0: send) waits for rank 0 channel 1 to "
            "complete instruction 0");
}

TEST_F(ErrorsTest, MalformedPrograms) {
  Program peer = good;
  peer.ranks[0].channels[0].instructions[0].sendPeer = 5;
  EXPECT_EQ(errorOf(peer), "rank 0 channel 0 instruction 0: send peer 5 does "
                           "not fit send in a group of 2");
  Program range = good;
  range.ranks[1].channels[0].instructions[0].dst = output(1, 2);
  EXPECT_EQ(errorOf(range), "rank 1 channel 0 instruction 0: dst chunks 1..2 "
                            "are outside the output buffer of 1 chunks");
  Program dependency = good;
  dependency.ranks[0].channels[0].instructions[0].depCount = 1;
  dependency.ranks[0].dependencies.push_back({3, 0});
  EXPECT_EQ(errorOf(dependency),
            "rank 0 channel 0 instruction 0: depends on channel 3 instruction "
            "0, which does not exist");
  Program ranks = good;
  ranks.numRanks = 3;
  EXPECT_EQ(errorOf(ranks), "the program has 2 rank programs for a group of 3");
}

TEST_F(ErrorsTest, InvalidArguments) {
  EXPECT_EQ(errorOf(good, SimOptions(), {0}),
            "gpuOfRank has 1 entries for a group of 2");
  EXPECT_EQ(errorOf(good, SimOptions(), {0, 2}),
            "group rank 1 is on GPU 2, but topology test has 2 GPUs");
  SimOptions slots;
  slots.connectionSlots = 0;
  EXPECT_EQ(errorOf(good, slots), "connectionSlots must be at least 1");
  SimOptions efficiency;
  efficiency.protocolEfficiency = 1.5;
  EXPECT_EQ(errorOf(good, efficiency), "protocolEfficiency must be in (0, 1]");
  SimOptions fixed;
  fixed.fixedCost = -1;
  EXPECT_EQ(errorOf(good, fixed),
            "fixedCost must be a finite number of seconds >= 0");
  SimOptions unknown;
  unknown.linkOverrides.push_back({"nvlink9", 1e9, std::nullopt});
  EXPECT_EQ(errorOf(good, unknown),
            "override of unknown link type \"nvlink9\"");
  EXPECT_EQ(simulate(good, 1024, 0, *topology, {0, 1}).error,
            "elements of 0 bytes");
}

} // namespace

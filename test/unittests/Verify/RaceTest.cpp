//===- RaceTest.cpp - unordered accesses of two channels of a rank --------===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

using Messages = std::vector<std::string>;

/// The tail every race message ends with: the `after` that orders the two
/// as the verifier's run did (instruction `index` of `channel` first), and
/// the one that orders them the other way.
std::string unordered(uint32_t channel, uint32_t index, uint32_t laterChannel,
                      uint32_t laterIndex) {
  auto wait = [](uint32_t waiter, uint32_t waiterIndex, uint32_t awaited,
                 uint32_t awaitedIndex) {
    return "`after = [(channel " + std::to_string(awaited) + ", index " +
           std::to_string(awaitedIndex) + ")]` on channel " +
           std::to_string(waiter) + "'s instruction " +
           std::to_string(waiterIndex);
  };
  return ", and neither happens before the other (no chain of program order, "
         "`after` dependencies and messages leads from one to the other); " +
         wait(laterChannel, laterIndex, channel, index) +
         " orders them as this run did, " +
         wait(channel, index, laterChannel, laterIndex) + " the other way";
}

/// The pattern of the recursive-doubling all-gather bug (b53974d): channel 1
/// sends the part that channel 0 copies from the input, with nothing making
/// it wait for the copy. The verifier's own run happens to copy first (its
/// streams run in order), and the race is reported all the same.
Program copyThenSendOnAnotherChannel(bool ordered) {
  Program program = makeProgram(Collective::AllGather, 2, 1);
  for (int32_t r = 0; r < 2; ++r) {
    int32_t peer = 1 - r;
    add(program, r, 0, copy(input(0), output(uint32_t(r)), 0));
    add(program, r, 1, send(peer, output(uint32_t(r)), 1));
    add(program, r, 1, recv(peer, output(uint32_t(peer)), 1));
    if (ordered)
      addDependency(program, r, 1, 0, 0, 0);
  }
  return program;
}

TEST(RaceTest, CopyAndSendOfOnePartOnTwoChannels) {
  VerifyResult result =
      verifyProgram(copyThenSendOnAnotherChannel(false), VerifyOptions());
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>(2, VerifyErrorKind::Race));
  EXPECT_EQ(messages(result),
            Messages({"race: rank 0, output chunk 0 is written by channel 0 "
                      "step 0 (instruction 0: copy) and read by channel 1 "
                      "step 1 (instruction 0: send to rank 1)" +
                          unordered(0, 0, 1, 0),
                      "race: rank 1, output chunk 1 is written by channel 0 "
                      "step 0 (instruction 0: copy) and read by channel 1 "
                      "step 1 (instruction 0: send to rank 0)" +
                          unordered(0, 0, 1, 0)}));
  EXPECT_EQ(result.raceStreams, 4u);
  EXPECT_EQ(result.raceCheckSkipped, "");
}

TEST(RaceTest, AfterDependencyOrdersThem) {
  VerifyResult result =
      verifyProgram(copyThenSendOnAnotherChannel(true), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.raceStreams, 4u);
  EXPECT_EQ(result.raceCheckSkipped, "");
}

TEST(RaceTest, TwoChannelsWriteOneChunk) {
  Program program = makeProgram(Collective::AllReduce, 1, 1);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(input(0), output(0), 2));
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"race: rank 0, output chunk 0 is written by channel 0 "
                      "step 0 (instruction 0: copy) and by channel 1 step 2 "
                      "(instruction 0: copy)" +
                      unordered(0, 0, 1, 0)}));
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::Race}));
}

/// Adjacent chunks of one pair of instructions make one error.
TEST(RaceTest, RunsOfChunksAreOneError) {
  Program program = makeProgram(Collective::AllReduce, 1, 4);
  add(program, 0, 0, copy(input(0, 4), output(0, 4), 0));
  add(program, 0, 1, copy(input(1, 2), output(1, 2), 0));
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"race: rank 0, output chunks 1..2 are written by "
                      "channel 0 step 0 (instruction 0: copy) and by channel "
                      "1 step 0 (instruction 0: copy)" +
                      unordered(0, 0, 1, 0)}));
}

TEST(RaceTest, ReadsOfSeveralChannelsDoNotRace) {
  Program program = makeProgram(Collective::AllReduce, 1, 1, 2);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(input(0), scratch(0), 0));
  add(program, 0, 2, copy(input(0), scratch(1), 0));
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  // Nothing shared is written: no stream needs following.
  EXPECT_EQ(result.raceStreams, 0u);
}

/// A dependency orders what came before the depended-on instruction, not
/// what its channel did later (the verifier's run has done both by then).
TEST(RaceTest, DependencyOnAnEarlierInstructionDoesNotOrderLaterOnes) {
  Program program = makeProgram(Collective::AllReduce, 1, 1, 1);
  add(program, 0, 0, copy(input(0), scratch(0), 0));
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(output(0), scratch(0), 1));
  addDependency(program, 0, 1, 0, 0, 0);
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"race: rank 0, output chunk 0 is written by channel 0 "
                      "step 0 (instruction 1: copy) and read by channel 1 "
                      "step 1 (instruction 0: copy)" +
                      unordered(0, 1, 1, 0)}));
}

/// Channel 2 waits for channel 1, which waits for channel 0's write.
Program dependencyChain(bool complete) {
  Program program = makeProgram(Collective::AllReduce, 1, 1, 2);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(input(0), scratch(0), 0));
  add(program, 0, 2, copy(output(0), scratch(1), 0));
  if (complete)
    addDependency(program, 0, 1, 0, 0, 0);
  addDependency(program, 0, 2, 0, 1, 0);
  return program;
}

TEST(RaceTest, DependenciesOrderTransitively) {
  VerifyResult ordered = verifyProgram(dependencyChain(true), VerifyOptions());
  EXPECT_TRUE(ordered.ok()) << ::testing::PrintToString(messages(ordered));
  VerifyResult broken = verifyProgram(dependencyChain(false), VerifyOptions());
  EXPECT_EQ(messages(broken),
            Messages({"race: rank 0, output chunk 0 is written by channel 0 "
                      "step 0 (instruction 0: copy) and read by channel 2 "
                      "step 0 (instruction 0: copy)" +
                      unordered(0, 0, 2, 0)}));
}

/// A write after two unordered reads, ordered after only one of them.
TEST(RaceTest, WriteAfterReadsOfTwoChannels) {
  Program program = makeProgram(Collective::AllReduce, 1, 1, 2);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(output(0), scratch(0), 0));
  add(program, 0, 2, copy(output(0), scratch(1), 0));
  add(program, 0, 3, copy(input(0), output(0), 1));
  addDependency(program, 0, 1, 0, 0, 0);
  addDependency(program, 0, 2, 0, 0, 0);
  addDependency(program, 0, 3, 0, 1, 0);
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"race: rank 0, output chunk 0 is read by channel 2 "
                      "step 0 (instruction 0: copy) and written by channel 3 "
                      "step 1 (instruction 0: copy)" +
                      unordered(2, 0, 3, 0)}));
}

/// Rank 0's channel 0 writes output chunk 0 and sends to rank 1; rank 1
/// forwards on channel 1 (after its channel 0's recv, when `forward`) to
/// rank 0's channel 1, which then reads the chunk: ordered only through
/// rank 1.
Program throughAnotherRank(bool forward) {
  Program program = makeProgram(Collective::AllGather, 2, 1, 1);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 0, send(1, output(0), 1));
  add(program, 0, 1, recv(1, output(1), 2));
  add(program, 0, 1, copy(output(0), scratch(0), 3));
  add(program, 1, 0, recv(0, output(0), 1));
  add(program, 1, 1, copy(input(0), output(1), 0));
  add(program, 1, 1, send(0, output(1), 2));
  if (forward)
    addDependency(program, 1, 1, 1, 0, 0);
  return program;
}

TEST(RaceTest, OrderedThroughAnotherRank) {
  VerifyResult result =
      verifyProgram(throughAnotherRank(true), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  // Rank 0's two channels share output chunk 0.
  EXPECT_EQ(result.raceStreams, 2u);

  VerifyResult broken =
      verifyProgram(throughAnotherRank(false), VerifyOptions());
  EXPECT_EQ(messages(broken),
            Messages({"race: rank 0, output chunk 0 is written by channel 0 "
                      "step 0 (instruction 0: copy) and read by channel 1 "
                      "step 3 (instruction 1: copy)" +
                      unordered(0, 0, 1, 1)}));
}

/// With one slot, rank 0's second send on channel 1 cannot be posted before
/// rank 1 took the first, which waits for the message that follows rank
/// 0's write: every run of this machine orders the write before the read.
/// A runtime may give the connection more slots, so it is still a race.
TEST(RaceTest, SlotsDoNotOrder) {
  Program program = makeProgram(Collective::AllGather, 2, 1, 2);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 0, send(1, output(0), 1));
  add(program, 0, 0, recv(1, output(1), 2));
  add(program, 0, 1, send(1, input(0), 1));
  add(program, 0, 1, send(1, input(0), 1));
  add(program, 0, 1, copy(output(0), scratch(0), 2));
  add(program, 1, 0, recv(0, output(0), 1));
  add(program, 1, 0, copy(input(0), output(1), 1));
  add(program, 1, 0, send(0, output(1), 2));
  add(program, 1, 1, recv(0, scratch(0), 1));
  add(program, 1, 1, recv(0, scratch(1), 1));
  addDependency(program, 1, 1, 0, 0, 0);
  VerifyOptions oneSlot;
  oneSlot.connectionSlots = 1;
  VerifyResult result = verifyProgram(program, oneSlot);
  EXPECT_EQ(messages(result),
            Messages({"race: rank 0, output chunk 0 is written by channel 0 "
                      "step 0 (instruction 0: copy) and read by channel 1 "
                      "step 2 (instruction 2: copy)" +
                      unordered(0, 0, 1, 2)}));
}

TEST(RaceTest, SkippedWhenDisabledOrTooManyStreams) {
  Program program = makeProgram(Collective::AllReduce, 1, 1);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(input(0), output(0), 0));

  VerifyOptions off;
  off.checkRaces = false;
  VerifyResult disabled = verifyProgram(program, off);
  EXPECT_TRUE(disabled.ok());
  EXPECT_EQ(disabled.raceCheckSkipped,
            "disabled (VerifyOptions::checkRaces is false)");
  EXPECT_EQ(disabled.raceStreams, 0u);

  VerifyOptions narrow;
  narrow.maxRaceStreams = 1;
  VerifyResult skipped = verifyProgram(program, narrow);
  EXPECT_TRUE(skipped.ok());
  EXPECT_EQ(skipped.raceCheckSkipped,
            "skipped: 2 channel streams on 1 rank share chunks with another "
            "channel of their rank, more than the 1 it follows "
            "(VerifyOptions::maxRaceStreams)");
  EXPECT_EQ(skipped.raceStreams, 0u);
}

/// Channels that own disjoint chunks cannot race: nothing is followed, at
/// any size.
TEST(RaceTest, ParallelRingsFollowNothing) {
  VerifyResult result =
      verifyProgram(ringAllReduce(64, 2, /*channels=*/4), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.raceStreams, 0u);
  EXPECT_EQ(result.raceCheckSkipped, "");
}

/// A ring all-gather whose channel 0 copies the input into the output and
/// whose channel 1 sends that part on (after the copy when `ordered`).
Program ringAllGatherWithCopyChannel(int32_t n, bool ordered) {
  Program program = makeProgram(Collective::AllGather, n, 1);
  for (int32_t r = 0; r < n; ++r) {
    int32_t next = (r + 1) % n, prev = (r + n - 1) % n;
    auto part = [&](int32_t s) { return uint32_t(((s % n) + n) % n); };
    add(program, r, 0, copy(input(0), output(part(r)), 0));
    add(program, r, 1, send(next, output(part(r)), 0));
    if (ordered)
      addDependency(program, r, 1, 0, 0, 0);
    for (int32_t s = 1; s < n - 1; ++s)
      add(program, r, 1,
          makeInstruction(Opcode::RecvCopySend, prev, next, {},
                          output(part(r - s)), s));
    add(program, r, 1, recv(prev, output(part(r + 1)), n - 1));
  }
  return program;
}

TEST(RaceTest, RingOf128RanksWithACopyChannel) {
  VerifyResult result =
      verifyProgram(ringAllGatherWithCopyChannel(128, true), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.raceStreams, 256u);

  VerifyResult broken =
      verifyProgram(ringAllGatherWithCopyChannel(128, false), VerifyOptions());
  ASSERT_EQ(broken.errors.size(), kMaxErrorsPerKind + 1);
  EXPECT_EQ(broken.errors[0].message,
            "race: rank 0, output chunk 0 is written by channel 0 step 0 "
            "(instruction 0: copy) and read by channel 1 step 0 (instruction "
            "0: send to rank 1)" +
                unordered(0, 0, 1, 0));
  EXPECT_EQ(broken.errors.back().message, "123 more race errors not shown");
}

/// Clocks that outgrow their memory stop the check, and the result says so.
TEST(RaceTest, StopsWhenClocksOutgrowTheirMemory) {
  Program program = ringAllGatherWithCopyChannel(128, true);
  VerifyOptions small;
  small.maxRaceClockBytes = 65536;
  VerifyResult result = verifyProgram(program, small);
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.raceCheckSkipped,
            "stopped part-way: the vector clocks of the 256 channel streams "
            "it follows outgrew 65536 bytes "
            "(VerifyOptions::maxRaceClockBytes); races reported before "
            "stand");
  // Enough memory for all of it.
  small.maxRaceClockBytes = 1 << 20;
  EXPECT_EQ(verifyProgram(program, small).raceCheckSkipped, "");
}

/// Above maxRaceStreams the check is skipped, and the result says so.
TEST(RaceTest, RingOf1025RanksWithACopyChannelIsSkipped) {
  VerifyResult result =
      verifyProgram(ringAllGatherWithCopyChannel(1025, false), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.raceCheckSkipped,
            "skipped: 2050 channel streams on 1025 ranks share chunks with "
            "another channel of their rank, more than the 2048 it follows "
            "(VerifyOptions::maxRaceStreams)");
  EXPECT_EQ(result.raceStreams, 0u);
}

} // namespace

//===- MalformedTest.cpp - programs that are not programs; co-residency ---===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

using Messages = std::vector<std::string>;

VerifyResult verify(const Program &program) {
  return verifyProgram(program, VerifyOptions());
}

TEST(MalformedTest, ChunkOutOfRange) {
  Program program = ringAllReduce(2, 1);
  at(program, 1, 0, 0).src = input(1, 2);
  VerifyResult result = verify(program);
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::Malformed}));
  EXPECT_EQ(messages(result),
            Messages({"rank 1 channel 0 step 0 (instruction 0: send to rank "
                      "0): reads input chunks 1..2, but the input buffer has 2 "
                      "chunks"}));
}

TEST(MalformedTest, Peers) {
  Program program = ringAllReduce(2, 1);
  at(program, 0, 0, 0).sendPeer = 5;
  at(program, 1, 0, 0).sendPeer = 1;
  at(program, 1, 0, 2).recvPeer = -1;
  at(program, 0, 0, 2).sendPeer = 1;
  EXPECT_EQ(messages(verify(program)),
            Messages({"rank 0 channel 0 step 0 (instruction 0: send to rank "
                      "5): sends to rank 5, outside ranks 0..1",
                      "rank 0 channel 0 step 2 (instruction 2: recv from rank "
                      "1): sets sendPeer to 1, but the opcode does not use it "
                      "(it must be -1)",
                      "rank 1 channel 0 step 0 (instruction 0: send to rank "
                      "1): sends to itself",
                      "rank 1 channel 0 step 2 (instruction 2: recv from rank "
                      "-1): has no peer (recvPeer is -1)"}));
}

TEST(MalformedTest, OpcodeFields) {
  Program program = makeProgram(Collective::AllReduce, 1, 2);
  add(program, 0, 0, copy(input(0, 2), output(0, 1), 0));
  add(program, 0, 0, reduce(input(0), ChunkRange{Buffer::Output, 0, 0}, 1));
  EXPECT_EQ(messages(verify(program)),
            Messages({"rank 0 channel 0 step 0 (instruction 0: copy): reads 2 "
                      "chunks but writes 1 chunk",
                      "rank 0 channel 0 step 1 (instruction 1: reduce): writes "
                      "no chunks (an empty output range)",
                      "rank 0 channel 0 step 1 (instruction 1: reduce): reads "
                      "1 chunk but writes 0 chunks (a reduce reads a whole "
                      "number of ranges of its destination's size, its "
                      "fanin)"}));
}

// A reduce's source may be several ranges of its destination's size (its
// fanin), never a partial one, and never overlapping what it writes.
TEST(MalformedTest, ReduceFanin) {
  Program program = makeProgram(Collective::AllReduce, 1, 4);
  add(program, 0, 0, copy(input(0, 4), output(0, 4), 0));
  add(program, 0, 0, reduce(input(0, 3), output(0, 2), 1));
  add(program, 0, 0, reduce(output(0, 4), output(2, 2), 2));
  EXPECT_EQ(messages(verify(program)),
            Messages({"rank 0 channel 0 step 1 (instruction 1: reduce): reads "
                      "3 chunks but writes 2 chunks (a reduce reads a whole "
                      "number of ranges of its destination's size, its "
                      "fanin)",
                      "rank 0 channel 0 step 2 (instruction 2: reduce): reduce "
                      "with fanin 2 reads chunks that it writes"}));
}

TEST(MalformedTest, Dependencies) {
  Program program = makeProgram(Collective::AllReduce, 1, 2);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 0, copy(input(1), output(1), 1));
  addDependency(program, 0, 0, 0, 3, 0);
  addDependency(program, 0, 0, 0, 0, 1);
  addDependency(program, 0, 0, 1, 0, 1);
  EXPECT_EQ(messages(verify(program)),
            Messages({"rank 0 channel 0 step 0 (instruction 0: copy): depends "
                      "on channel 3, but rank 0 has 1 channel",
                      "rank 0 channel 0 step 0 (instruction 0: copy): depends "
                      "on instruction 1 of its own channel, which comes after "
                      "it",
                      "rank 0 channel 0 step 1 (instruction 1: copy): depends "
                      "on itself"}));
}

TEST(MalformedTest, BufferShapesAndCounts) {
  Program program = makeProgram(Collective::AllGather, 8, 2);
  program.buffers.outputChunks = 8;
  EXPECT_EQ(messages(verify(program)),
            Messages({"all_gather with 8 ranks and 2 chunks per part needs 16 "
                      "output chunks, but the program has 8"}));

  program = makeProgram(Collective::AllToAllV, 2, 1);
  program.sendCounts = {1, 2, 3};
  EXPECT_EQ(messages(verify(program)),
            Messages({"all_to_all_v with 2 ranks needs 4 send counts, but the "
                      "program has 3"}));

  program = makeProgram(Collective::Broadcast, 4, 1);
  program.numRanks = 5;
  EXPECT_EQ(messages(verify(program)),
            Messages({"numRanks is 5, but the program has 4 ranks in "
                      "`ranks`"}));

  program = makeProgram(Collective::Broadcast, 4, 1);
  EXPECT_EQ(messages(verify(program)),
            Messages({"broadcast needs a root in ranks 0..3, but root is -1"}));
}

TEST(MalformedTest, OnlyTheFirstFewAreShown) {
  Program program = makeProgram(Collective::AllReduce, 1, 1);
  for (int32_t i = 0; i < 8; ++i)
    add(program, 0, 0, copy(input(0), output(uint32_t(i)), i));
  VerifyResult result = verify(program);
  ASSERT_EQ(result.errors.size(), kMaxErrorsPerKind + 1);
  EXPECT_EQ(result.errors[4].message,
            "rank 0 channel 0 step 5 (instruction 5: copy): writes output "
            "chunk 5, but the output buffer has 1 chunk");
  EXPECT_EQ(result.errors[5].message, "2 more malformed errors not shown");
  EXPECT_EQ(result.errors[5].kind, VerifyErrorKind::Malformed);
}

TEST(CoResidencyTest, TooManyChannels) {
  const uint32_t channels = 40;
  Program program = makeProgram(Collective::AllReduce, 1, channels);
  for (uint32_t c = 0; c < channels; ++c)
    add(program, 0, c, copy(input(c), output(c), 0));
  VerifyResult result = verify(program);
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::CoResidency}));
  EXPECT_EQ(messages(result),
            Messages({"rank 0 uses 40 channels but at most 32 can run at once "
                      "(a channel is a thread block, and a rank's blocks must "
                      "all be resident; sched-verify's max-channels option "
                      "sets the limit)"}));

  VerifyOptions roomy;
  roomy.maxChannelsPerRank = 40;
  EXPECT_TRUE(verifyProgram(program, roomy).ok());
}

} // namespace

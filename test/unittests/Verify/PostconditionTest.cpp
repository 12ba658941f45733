//===- PostconditionTest.cpp - wrong data, wrong sums ---------------------===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

using Messages = std::vector<std::string>;

VerifyResult verify(const Program &program) {
  return verifyProgram(program, VerifyOptions());
}

TEST(PostconditionTest, MissingContribution) {
  Program program = ringAllReduce(3, 1);
  program.buffers.scratchChunks = 1;
  // Rank 1 forwards the partial sum of segment 0 without adding its own.
  at(program, 1, 0, 1) =
      makeInstruction(Opcode::RecvCopySend, 0, 2, {}, scratch(0), 1);
  VerifyResult result = verify(program);
  EXPECT_EQ(messages(result),
            Messages({"rank 0, output chunk 0 holds the sum over ranks {0,2} "
                      "but must hold the sum over ranks 0..2",
                      "rank 1, output chunk 0 holds the sum over ranks {0,2} "
                      "but must hold the sum over ranks 0..2",
                      "rank 2, output chunk 0 holds the sum over ranks {0,2} "
                      "but must hold the sum over ranks 0..2"}));
}

TEST(PostconditionTest, DoubleCountedContribution) {
  Program program = ringAllReduce(3, 1);
  // While gathering, rank 0 adds its input to the finished sum of segment 0.
  Instruction &gather = at(program, 0, 0, 3);
  gather.opcode = Opcode::RecvReduceCopySend;
  gather.src = input(0);
  VerifyResult result = verify(program);
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::DoubleCount}));
  EXPECT_EQ(messages(result),
            Messages({"rank 0 channel 0 step 3 (instruction 3: "
                      "recv_reduce_copy_send from rank 2 to rank 1), output "
                      "chunk 0: the contribution of rank 0 is counted twice"}));
}

TEST(PostconditionTest, WrongChunk) {
  const uint32_t k = 4;
  Program program = makeProgram(Collective::AllGather, 2, k);
  for (int32_t r = 0; r < 2; ++r) {
    int32_t peer = 1 - r;
    add(program, r, 0, copy(input(0, k), output(uint32_t(r) * k, k), 0));
    for (uint32_t c = 0; c < k; ++c) {
      add(program, r, 0, send(peer, input(c), 1));
      add(program, r, 0, recv(peer, output(uint32_t(peer) * k + c), 1));
    }
  }
  ASSERT_TRUE(verify(program).ok());
  // Chunks 0 and 1 have the same size, so only the data is wrong.
  at(program, 0, 0, 1).src = input(1);
  EXPECT_EQ(messages(verify(program)),
            Messages({"rank 1, output chunk 0 holds input chunk 1 of rank 0 "
                      "but must hold input chunk 0 of rank 0"}));
}

TEST(PostconditionTest, NeverWritten) {
  Program program = makeProgram(Collective::Broadcast, 1, 2);
  program.root = 0;
  add(program, 0, 0, copy(input(0), output(0), 0));
  EXPECT_EQ(messages(verify(program)),
            Messages({"rank 0, output chunk 1 was never written but must hold "
                      "input chunk 1 of rank 0"}));
}

/// Direct reduce of 2 chunks to root 0: rank 1 sends its chunks in the
/// wrong order, so the root adds chunk 1 to chunk 0 and vice versa.
TEST(PostconditionTest, ReduceOfDifferentChunks) {
  Program program = makeProgram(Collective::Reduce, 2, 2, /*scratch=*/2);
  program.root = 0;
  add(program, 1, 0, send(0, input(1), 0));
  add(program, 1, 0, send(0, input(0), 0));
  add(program, 0, 0, recv(1, scratch(0), 0));
  add(program, 0, 0, recv(1, scratch(1), 0));
  add(program, 0, 0, copy(input(0, 2), output(0, 2), 1));
  add(program, 0, 0, reduce(scratch(0, 2), output(0, 2), 2));
  VerifyResult result = verify(program);
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::InvalidReduce,
                                          VerifyErrorKind::InvalidReduce,
                                          VerifyErrorKind::Postcondition,
                                          VerifyErrorKind::Postcondition}));
  EXPECT_EQ(messages(result),
            Messages({"rank 0 channel 0 step 2 (instruction 3: reduce), output "
                      "chunk 0: reduces input chunk 0 of rank 0 with input "
                      "chunk 1 of rank 1",
                      "rank 0 channel 0 step 2 (instruction 3: reduce), output "
                      "chunk 1: reduces input chunk 1 of rank 0 with input "
                      "chunk 0 of rank 1",
                      "rank 0, output chunk 0 holds the result of an invalid "
                      "reduce but must hold the sum over ranks {0,1}",
                      "rank 0, output chunk 1 holds the result of an invalid "
                      "reduce but must hold the sum over ranks {0,1}"}));
}

TEST(PostconditionTest, ReduceIntoUnwrittenChunk) {
  Program program = makeProgram(Collective::Reduce, 2, 1, /*scratch=*/1);
  program.root = 1;
  add(program, 0, 0, send(1, input(0), 0));
  add(program, 1, 0, recv(0, scratch(0), 0));
  add(program, 1, 0, reduce(scratch(0), output(0), 1));
  VerifyResult result = verify(program);
  EXPECT_EQ(messages(result),
            Messages({"rank 1 channel 0 step 1 (instruction 1: reduce), output "
                      "chunk 0: reduces output chunk 0, which was never "
                      "written",
                      "rank 1, output chunk 0 holds the result of an invalid "
                      "reduce but must hold the sum over ranks {0,1}"}));
}

TEST(PostconditionTest, ReduceScatterNamesTheOriginWhenItDiffers) {
  // Each rank keeps its own input part instead of reducing: part r of rank
  // r is input chunk r of rank r, the sum of input chunk r is required.
  Program program = makeProgram(Collective::ReduceScatter, 3, 1);
  for (int32_t r = 0; r < 3; ++r)
    add(program, r, 0, copy(input(uint32_t((r + 1) % 3)), output(0), 0));
  VerifyResult result = verify(program);
  EXPECT_EQ(messages(result)[0],
            "rank 0, output chunk 0 holds input chunk 1 of rank 0 but must "
            "hold the sum over ranks 0..2 of input chunk 0");
}

TEST(PostconditionTest, OnlyTheFirstFewAreShown) {
  // An all-reduce that never communicates: 64 wrong chunks.
  Program program = makeProgram(Collective::AllReduce, 8, 8);
  for (int32_t r = 0; r < 8; ++r)
    add(program, r, 0, copy(input(0, 8), output(0, 8), 0));
  VerifyResult result = verify(program);
  ASSERT_EQ(result.errors.size(), kMaxErrorsPerKind + 1);
  EXPECT_EQ(result.errors[0].message,
            "rank 0, output chunk 0 holds input chunk 0 of rank 0 but must "
            "hold the sum over ranks 0..7");
  EXPECT_EQ(result.errors.back().message,
            "59 more postcondition errors not shown");
}

} // namespace

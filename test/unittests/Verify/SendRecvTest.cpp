//===- SendRecvTest.cpp - send/recv as a permutation of the ranks ---------===//
//
// send/recv's postcondition out[sendTo[s]][c] = in[s][c] (Program.h): a ring
// shift, a pipeline hand-off whose last rank sends nothing, the single pair
// root -> peer, a schedule that follows the wrong permutation, and the
// well-formedness of sendTo.
//
//===----------------------------------------------------------------------===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

using Messages = std::vector<std::string>;

/// Every rank s with to[s] >= 0 sends its k chunks one by one to to[s], and
/// every receiver takes them into its output, chunk c of both at step c.
Program pipelined(std::vector<int32_t> to, uint32_t k) {
  int32_t n = int32_t(to.size());
  Program program = makeProgram(Collective::SendRecv, n, k);
  program.sendTo = to;
  for (uint32_t c = 0; c < k; ++c) {
    for (int32_t s = 0; s < n; ++s) {
      if (to[size_t(s)] < 0)
        continue;
      add(program, s, 0, send(to[size_t(s)], input(c), int32_t(c)));
      add(program, to[size_t(s)], 0, recv(s, output(c), int32_t(c)));
    }
  }
  return program;
}

TEST(SendRecvTest, RingShift) {
  Program program = pipelined({1, 2, 3, 0}, 3);
  VerifyResult result = verifyProgram(program);
  EXPECT_TRUE(result.ok()) << messages(result).front();
  EXPECT_EQ(result.transfers, 12u);
}

TEST(SendRecvTest, PipelineHandOffLastSendsNothing) {
  // Rank 0 receives nothing: its output is free.
  Program program = pipelined({1, 2, 3, -1}, 2);
  VerifyResult result = verifyProgram(program);
  EXPECT_TRUE(result.ok()) << messages(result).front();
  EXPECT_EQ(result.transfers, 6u);
}

TEST(SendRecvTest, NoRankSends) {
  Program program = pipelined({-1, -1, -1}, 1);
  EXPECT_TRUE(verifyProgram(program).ok());
}

TEST(SendRecvTest, SinglePairWithoutSendTo) {
  Program program = makeProgram(Collective::SendRecv, 3, 2);
  program.root = 2;
  program.peer = 0;
  add(program, 2, 0, send(0, input(0, 2), 0));
  add(program, 0, 0, recv(2, output(0, 2), 0));
  EXPECT_TRUE(verifyProgram(program).ok());
  EXPECT_EQ(program.sendTarget(2), 0);
  EXPECT_EQ(program.sendTarget(0), -1);
}

TEST(SendRecvTest, SinglePairInSendTo) {
  Program program = pipelined({-1, -1, 0}, 2);
  program.root = 2;
  program.peer = 0;
  EXPECT_TRUE(verifyProgram(program).ok());
}

TEST(SendRecvTest, WrongPermutationIsCaught) {
  // The schedule shifts right, the permutation asks for a shift left.
  Program program = pipelined({1, 2, 0}, 1);
  program.sendTo = {2, 0, 1};
  VerifyResult result = verifyProgram(program);
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>(3, VerifyErrorKind::Postcondition));
  EXPECT_EQ(messages(result),
            Messages({"rank 0, output chunk 0 holds input chunk 0 of rank 2 "
                      "but must hold input chunk 0 of rank 1",
                      "rank 1, output chunk 0 holds input chunk 0 of rank 0 "
                      "but must hold input chunk 0 of rank 2",
                      "rank 2, output chunk 0 holds input chunk 0 of rank 1 "
                      "but must hold input chunk 0 of rank 0"}));
}

TEST(SendRecvTest, MissingReceiverIsCaught) {
  // The hand-off forgets its last link: rank 3 never gets rank 2's data.
  Program program = pipelined({1, 2, -1, -1}, 1);
  program.sendTo = {1, 2, 3, -1};
  VerifyResult result = verifyProgram(program);
  EXPECT_EQ(messages(result),
            Messages({"rank 3, output chunk 0 was never written but must "
                      "hold input chunk 0 of rank 2"}));
}

TEST(SendRecvTest, MalformedSendTo) {
  Program program = pipelined({1, 2, 0}, 1);
  program.sendTo = {1, 2};
  EXPECT_EQ(messages(verifyProgram(program)),
            Messages({"send_recv with 3 ranks needs 3 sendTo entries, but "
                      "the program has 2"}));
  program.sendTo = {1, 1, 3};
  EXPECT_EQ(
      messages(verifyProgram(program)),
      Messages({"send_recv's sendTo[1] is 1, but a rank cannot send to itself",
                "send_recv's sendTo[2] is 3, but it must be -1 (no send) or "
                "in ranks 0..2"}));
  program.sendTo = {1, -1, 1};
  EXPECT_EQ(messages(verifyProgram(program)),
            Messages({"send_recv's sendTo has ranks 0 and 2 both sending to "
                      "rank 1, but a rank receives from one at most"}));
  program.sendTo = {1, 2, 0};
  program.root = 1;
  program.peer = 0;
  EXPECT_EQ(messages(verifyProgram(program)),
            Messages({"send_recv's root 1 and peer 0 must be -1 or a pair of "
                      "its sendTo"}));
}

TEST(SendRecvTest, SendToOnlyForSendRecv) {
  Program program = ringAllReduce(3, 1);
  program.sendTo = {1, 2, 0};
  EXPECT_EQ(messages(verifyProgram(program)),
            Messages({"all_reduce takes no sendTo, but the program has 3 "
                      "sendTo entries"}));
}

} // namespace

//===- MatchingTest.cpp - sends and recvs that do not pair up -------------===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

using Messages = std::vector<std::string>;

TEST(MatchingTest, SizeMismatchNamesBothSides) {
  // Rank 3 receives one chunk of the two rank 2 sends it.
  Program program = directAllToAll(4, 2);
  // Rank 3's recvs come after its copy and 3 sends: from 2, 1, 0.
  at(program, 3, 0, 4).dst.count = 1;
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"rank 2 channel 0 step 1 sends 2 chunks to rank 3 on "
                      "channel 0 (its send #1 on that connection), but rank 3 "
                      "channel 0 step 1 receives 1 chunk from rank 2 (its "
                      "recv #1)"}));
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::Mismatch}));
}

TEST(MatchingTest, RecvWithoutSend) {
  Program program = ringAllReduce(3, 1);
  // Rank 2 receives once more from rank 1 at the end.
  add(program, 2, 0, recv(1, output(0), 5));
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"rank 2 channel 0 step 5 receives 1 chunk from rank 1 on "
                      "channel 0 (its recv #5 on that connection), but rank 1 "
                      "sends to rank 2 on channel 0 only 4 times"}));
}

TEST(MatchingTest, SendWithoutRecv) {
  Program program = ringAllReduce(2, 1);
  add(program, 0, 0, send(1, input(0), 3));
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"rank 0 channel 0 step 3 sends 1 chunk to rank 1 on "
                      "channel 0 (its send #3 on that connection), but rank 1 "
                      "receives from rank 0 on channel 0 only 2 times"}));
}

TEST(MatchingTest, WrongPeer) {
  Program program = ringAllReduce(3, 1);
  // Rank 0 starts by sending to rank 2 instead of its ring successor 1.
  at(program, 0, 0, 0).sendPeer = 2;
  VerifyResult result = verifyProgram(program, VerifyOptions());
  // Every later message to rank 1 pairs with the recv before it: where the
  // segments paired that way differ in size (3 * 1009 + 1 elements cut into
  // 3 chunks), that shows too.
  EXPECT_EQ(
      messages(result),
      Messages({"rank 0 channel 0 step 0 sends 1 chunk to rank 2 on channel 0 "
                "(its send #1 on that connection), but rank 2 never receives "
                "from rank 0 on channel 0",
                "rank 0 channel 0 step 1 sends 1 chunk (1009 elements) to rank "
                "1 on channel 0 (its send #1 on that connection), but rank 1 "
                "channel 0 step 1 receives 1 chunk (1010 elements) from rank 0 "
                "(its recv #1)",
                "rank 0 channel 0 step 3 sends 1 chunk (1010 elements) to rank "
                "1 on channel 0 (its send #3 on that connection), but rank 1 "
                "channel 0 step 3 receives 1 chunk (1009 elements) from rank 0 "
                "(its recv #3)",
                "rank 1 channel 0 step 4 receives 1 chunk from rank 0 on "
                "channel 0 (its recv #4 on that connection), but rank 0 sends "
                "to rank 1 on channel 0 only 3 times"}));
}

TEST(MatchingTest, ElementCountsOfAllToAllVBlocks) {
  Program program = makeProgram(Collective::AllToAllV, 2, 1);
  program.sendCounts = {1, 5, //
                        3, 1};
  for (int32_t r = 0; r < 2; ++r)
    add(program, r, 0, copy(input(uint32_t(r)), output(uint32_t(r)), 0));
  // Rank 0 sends part 1 (5 elements) correctly; rank 1 sends its own part 1
  // (1 element) where part 0 (3 elements) belongs, and rank 0 receives it
  // where it belongs, into part 1 of its output (3 elements).
  add(program, 0, 0, send(1, input(1), 1));
  add(program, 0, 0, recv(1, output(1), 1));
  add(program, 1, 0, send(0, input(1), 1));
  add(program, 1, 0, recv(0, output(0), 1));
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"rank 1 channel 0 step 1 sends 1 chunk (1 element) to "
                      "rank 0 on channel 0 (its send #1 on that connection), "
                      "but rank 0 channel 0 step 1 receives 1 chunk (3 "
                      "elements) from rank 1 (its recv #1)"}));
}

TEST(MatchingTest, UnevenChunksOfOnePart) {
  // Nominal parts of 1009 * 4 + 2 elements: chunks 0 and 1 carry one more.
  Program program = makeProgram(Collective::AllGather, 2, 4);
  for (int32_t r = 0; r < 2; ++r) {
    int32_t peer = 1 - r;
    add(program, r, 0, copy(input(0, 4), output(uint32_t(r) * 4, 4), 0));
    add(program, r, 0, send(peer, input(0, 4), 1));
    add(program, r, 0, recv(peer, output(uint32_t(peer) * 4, 4), 1));
  }
  EXPECT_TRUE(verifyProgram(program, VerifyOptions()).ok());
  // Rank 1 receives rank 0's chunks 0..1 into the slots of chunks 2..3.
  at(program, 0, 0, 1).src = input(0, 2);
  at(program, 1, 0, 2).dst = output(2, 2);
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"rank 0 channel 0 step 1 sends 2 chunks (2020 elements) "
                      "to rank 1 on channel 0 (its send #1 on that "
                      "connection), but rank 1 channel 0 step 1 receives 2 "
                      "chunks (2018 elements) from rank 0 (its recv #1)"}));
}

} // namespace

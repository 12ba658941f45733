//===- DeadlockTest.cpp - stuck schedules print their wait-for cycle ------===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

using Messages = std::vector<std::string>;

/// A 2-rank exchange; with `sendFirst` false both ranks receive first.
Program exchange(bool sendFirst) {
  Program program = makeProgram(Collective::AllToAll, 2, 1);
  for (int32_t r = 0; r < 2; ++r) {
    int32_t peer = 1 - r;
    add(program, r, 0, copy(input(r), output(r), 0));
    if (sendFirst)
      add(program, r, 0, send(peer, input(peer), 1));
    add(program, r, 0, recv(peer, output(peer), 1));
    if (!sendFirst)
      add(program, r, 0, send(peer, input(peer), 1));
  }
  return program;
}

TEST(DeadlockTest, RecvBeforeSendInAnExchange) {
  VerifyResult result = verifyProgram(exchange(false), VerifyOptions());
  EXPECT_EQ(kinds(result),
            std::vector<VerifyErrorKind>({VerifyErrorKind::Deadlock}));
  EXPECT_EQ(messages(result),
            Messages({"deadlock: rank 0 channel 0 step 1 (instruction 1: recv "
                      "from rank 1) waits for rank 1 channel 0 to post its "
                      "send #1 to rank 0 (step 1, instruction 2), but rank 1 "
                      "channel 0 is stuck at step 1 (instruction 1: recv from "
                      "rank 0), which waits for rank 0 channel 0 to post its "
                      "send #1 to rank 1 (step 1, instruction 2), but rank 0 "
                      "channel 0 is stuck as said (a wait-for cycle of 2 "
                      "channel streams; 2 of 2 channel streams are stuck)"}));

  VerifyOptions oneSlot;
  oneSlot.connectionSlots = 1;
  EXPECT_TRUE(verifyProgram(exchange(true), oneSlot).ok());
}

/// Both ranks post three sends before their recvs: fine with three slots,
/// stuck with two.
TEST(DeadlockTest, SendsBeyondTheSlots) {
  Program program = makeProgram(Collective::AllToAll, 2, 3);
  for (int32_t r = 0; r < 2; ++r) {
    int32_t peer = 1 - r;
    add(program, r, 0,
        copy(input(uint32_t(r) * 3, 3), output(uint32_t(r) * 3, 3), 0));
    for (uint32_t c = 0; c < 3; ++c)
      add(program, r, 0, send(peer, input(uint32_t(peer) * 3 + c), 1));
    for (uint32_t c = 0; c < 3; ++c)
      add(program, r, 0, recv(peer, output(uint32_t(peer) * 3 + c), 2));
  }
  VerifyOptions options;
  options.connectionSlots = 3;
  EXPECT_TRUE(verifyProgram(program, options).ok());

  options.connectionSlots = 2;
  VerifyResult result = verifyProgram(program, options);
  EXPECT_EQ(messages(result),
            Messages({"deadlock: rank 0 channel 0 step 1 (instruction 3: send "
                      "to rank 1) waits for rank 1 channel 0 to post its recv "
                      "#1 from rank 0 (step 2, instruction 4), which frees one "
                      "of the 2 slots of that connection, but rank 1 channel 0 "
                      "is stuck at step 1 (instruction 3: send to rank 0), "
                      "which waits for rank 0 channel 0 to post its recv #1 "
                      "from rank 1 (step 2, instruction 4), which frees one of "
                      "the 2 slots of that connection, but rank 0 channel 0 is "
                      "stuck as said (a wait-for cycle of 2 channel streams; 2 "
                      "of 2 channel streams are stuck)"}));
}

TEST(DeadlockTest, DependencyCycleAcrossChannels) {
  Program program = makeProgram(Collective::AllReduce, 1, 2);
  add(program, 0, 0, copy(input(0), output(0), 0));
  add(program, 0, 1, copy(input(1), output(1), 0));
  addDependency(program, 0, 0, 0, 1, 0);
  addDependency(program, 0, 1, 0, 0, 0);
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"deadlock: rank 0 channel 0 step 0 (instruction 0: copy) "
                      "waits for rank 0 channel 1 to complete its instruction "
                      "0 (step 0: copy), but rank 0 channel 1 is stuck at step "
                      "0 (instruction 0: copy), which waits for rank 0 channel "
                      "0 to complete its instruction 0 (step 0: copy), but "
                      "rank 0 channel 0 is stuck as said (a wait-for cycle of "
                      "2 channel streams; 2 of 2 channel streams are stuck)"}));
}

/// Rank 1 sends on channel 0 only after channel 1 has received from rank 0,
/// and rank 0 sends (on channel 1) only after its channel 0 has received
/// from rank 1: a cycle through two dependencies and two connections.
TEST(DeadlockTest, CycleThroughDependenciesAndPeers) {
  Program program = makeProgram(Collective::AllToAll, 2, 1);
  add(program, 0, 0, copy(input(0), output(0), 0));
  uint32_t heard = add(program, 0, 0, recv(1, output(1), 1));
  uint32_t answer = add(program, 0, 1, send(1, input(1), 2));
  addDependency(program, 0, 1, answer, 0, heard);
  add(program, 1, 0, copy(input(1), output(1), 0));
  uint32_t waiting = add(program, 1, 0, send(0, input(0), 1));
  uint32_t received = add(program, 1, 1, recv(0, output(0), 1));
  addDependency(program, 1, 0, waiting, 1, received);
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_EQ(messages(result),
            Messages({"deadlock: rank 0 channel 0 step 1 (instruction 1: recv "
                      "from rank 1) waits for rank 1 channel 0 to post its "
                      "send #1 to rank 0 (step 1, instruction 1), but rank 1 "
                      "channel 0 is stuck at step 1 (instruction 1: send to "
                      "rank 0), which waits for rank 1 channel 1 to complete "
                      "its instruction 0 (step 1: recv from rank 0), but rank "
                      "1 channel 1 is stuck at step 1 (instruction 0: recv "
                      "from rank 0), which waits for rank 0 channel 1 to post "
                      "its send #1 to rank 1 (step 2, instruction 0), but rank "
                      "0 channel 1 is stuck at step 2 (instruction 0: send to "
                      "rank 1), which waits for rank 0 channel 0 to complete "
                      "its instruction 1 (step 1: recv from rank 1), but rank "
                      "0 channel 0 is stuck as said (a wait-for cycle of 4 "
                      "channel streams; 4 of 4 channel streams are stuck)"}));
}

/// A ring in which every rank receives before it sends: the cycle runs
/// through all ranks and is shown in part.
TEST(DeadlockTest, LongCycleIsShortened) {
  const int32_t n = 12;
  Program program = makeProgram(Collective::AllGather, n, 1);
  for (int32_t r = 0; r < n; ++r) {
    add(program, r, 0, recv((r + n - 1) % n, output(0), 0));
    add(program, r, 0, send((r + 1) % n, input(0), 0));
  }
  VerifyResult result = verifyProgram(program, VerifyOptions());
  ASSERT_EQ(result.errors.size(), 1u);
  const std::string &message = result.errors[0].message;
  EXPECT_EQ(message.substr(message.find(", but rank 5 channel 0")),
            ", but rank 5 channel 0 is stuck at step 0 (instruction 0: recv "
            "from rank 4), which waits for rank 4 channel 0 to post its send "
            "#1 to rank 5 (step 0, instruction 1), and so on through 4 more "
            "channel streams back to rank 0 channel 0 (a wait-for cycle of "
            "12 channel streams; 12 of 12 channel streams are stuck)");
}

} // namespace

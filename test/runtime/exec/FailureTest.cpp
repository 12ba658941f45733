//===- FailureTest.cpp - the watchdog, mismatches, aborts, bad arguments --===//
//
// Every way a run can go wrong ends in a Status that names the rank,
// channel, tile, step, instruction and peer concerned: a deadlocked
// schedule times out with the watchdog's report, a message that does not
// fit its recv fails at once and stops the other ranks, an aborted rank
// stops its peers, and bad arguments are refused before anything moves.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "Schedules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>

#include <chrono>
#include <thread>

namespace collrt {
namespace {

using namespace testing;
using ::testing::HasSubstr;

std::vector<std::unique_ptr<Communicator>> makeComms(int32_t n,
                                                     double timeout = 30) {
  CommOptions options;
  options.timeoutSeconds = timeout;
  std::vector<std::unique_ptr<Communicator>> comms;
  Status s = Communicator::createInProcessGroup(n, options, &comms);
  EXPECT_TRUE(s.ok()) << s.toString();
  return comms;
}

std::vector<Status> runPlan(std::vector<std::unique_ptr<Communicator>> &comms,
                            const Plan &plan, int64_t count,
                            const std::vector<int64_t> &counts = {}) {
  WorldBuffers buffers = makeBuffers(plan, count);
  return runWorld(comms, plan, count, buffers, counts);
}

TEST(WatchdogTest, DeadlockTimesOutWithAReportOfEveryChannel) {
  // Both ranks receive first. Rank 0 also has a channel that waits for the
  // stuck one and a channel that finishes.
  collc::sched::Program p =
      emptyProgram(collc::sched::Collective::AllReduce, 2, 2, 0, 3);
  for (int32_t r = 0; r < 2; ++r) {
    append(p, r, 0, recvFrom(1 - r, out(0), 0));
    append(p, r, 0, sendTo(1 - r, in(0), 1));
  }
  append(p, 0, 1, copyTo(in(1), out(1), 2));
  dependOn(p, 0, 1, 0, 0, 0);
  append(p, 0, 2, copyTo(in(1), out(1), 0));
  Plan plan = makePlan(p, DataType::F32, ReduceOp::Sum);
  auto comms = makeComms(2, 0.5);
  std::vector<Status> statuses = runPlan(comms, plan, 64);

  // The first rank whose watchdog fires reports a Timeout; the other may
  // see the abort first (PeerFailure). Either way each names its own
  // waiting channels.
  bool timedOut = false;
  for (int32_t r = 0; r < 2; ++r) {
    const Status &s = statuses[size_t(r)];
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(s.code() == ErrorCode::Timeout ||
                s.code() == ErrorCode::PeerFailure)
        << s.toString();
    timedOut |= s.code() == ErrorCode::Timeout;
    std::string peer = std::to_string(1 - r);
    EXPECT_THAT(s.message(),
                HasSubstr("rank " + std::to_string(r) +
                          " channel 0 tile 0 step 0 instruction 0 recv "
                          "output[0] from rank " +
                          peer + ": waiting for rank " + peer +
                          " to send (message 1 of 1 on this connection; 0 "
                          "arrived)"));
  }
  EXPECT_TRUE(timedOut);
  const Status &timeout =
      statuses[0].code() == ErrorCode::Timeout ? statuses[0] : statuses[1];
  EXPECT_THAT(timeout.message(), HasSubstr("did not finish within 0.5 s "
                                           "(CommOptions::timeoutSeconds)"));
  EXPECT_THAT(statuses[0].message(),
              HasSubstr("rank 0 channel 1 tile 0 step 2 instruction 0 copy "
                        "input[1] to output[1]: waiting for channel 0 to "
                        "finish its instruction 0 of tile 0 (channel 0 is at "
                        "instruction 0 of tile 0)"));
  EXPECT_THAT(statuses[0].message(),
              HasSubstr("rank 0 channel 2: finished (1 instruction x 1 "
                        "tile)"));
}

TEST(WatchdogTest, SendWaitingForAFreeSlot) {
  // Rank 0 sends three messages over a connection of one slot; rank 1
  // never receives.
  collc::sched::Program p =
      emptyProgram(collc::sched::Collective::Broadcast, 2, 3);
  p.root = 0;
  for (uint32_t c = 0; c < 3; ++c)
    append(p, 0, 0, sendTo(1, in(c), int32_t(c)));
  append(p, 1, 0, recvFrom(0, out(0), 5)); // a recv the sends never match
  append(p, 1, 0, sendTo(0, in(0), 6));    // ... and a send nobody takes
  append(p, 0, 0, recvFrom(1, out(0), 7));
  Plan plan = makePlan(p, DataType::F32, ReduceOp::Sum, /*slots=*/1);
  auto comms = makeComms(2, 0.5);
  std::vector<Status> statuses = runPlan(comms, plan, 30);
  ASSERT_FALSE(statuses[0].ok());
  EXPECT_THAT(statuses[0].message(),
              HasSubstr("rank 0 channel 0 tile 0 step 2 instruction 2 send "
                        "input[2] to rank 1: waiting for rank 1 to release a "
                        "slot (message 3 of 3 on this connection; 2 sent, "
                        "every one of the 1 slots taken)"));
}

TEST(FailureTest, MessageOfTheWrongSizeStopsEveryRank) {
  // Rank 0 sends two chunks, rank 1 receives one and would forward it to
  // rank 2.
  collc::sched::Program p =
      emptyProgram(collc::sched::Collective::AllReduce, 3, 2);
  append(p, 0, 0, sendTo(1, in(0, 2), 0));
  append(p, 1, 0, op(Opcode::RecvCopySend, 0, 2, {}, out(0), 1));
  append(p, 2, 0, recvFrom(1, out(0), 2));
  Plan plan = makePlan(p, DataType::F32, ReduceOp::Sum);
  auto comms = makeComms(3);
  std::vector<Status> statuses = runPlan(comms, plan, 10);
  EXPECT_EQ(statuses[1].code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(statuses[1].message(),
              HasSubstr("rank 1 channel 0 tile 0 step 1 instruction 0 "
                        "recv_copy_send output[0] from rank 0 to rank 2: the "
                        "message from rank 0 (number 1 on this connection, "
                        "72 bytes) carries 2 chunks, this instruction "
                        "receives 1 (output[0])"));
  // Rank 2 stops at once with the reason, not at its 30 s deadline.
  EXPECT_EQ(statuses[2].code(), ErrorCode::PeerFailure)
      << statuses[2].toString();
  EXPECT_THAT(statuses[2].message(), HasSubstr("peer rank 1 failed"));
  EXPECT_THAT(statuses[2].message(),
              HasSubstr("rank 2 channel 0 tile 0 step 2 instruction 0 recv "
                        "output[0] from rank 1"));
}

TEST(FailureTest, RanksWithDifferentCounts) {
  Plan plan = makePlan(chainBroadcast(2, 1, 0), DataType::I32, ReduceOp::Sum);
  auto comms = makeComms(2);
  // Each rank's buffers fit its own count.
  WorldBuffers buffers = makeBuffers(plan, 12);
  buffers.inputs[1].resize(10 * 4);
  buffers.outputs[1].resize(10 * 4);
  std::vector<Status> statuses = runWorld(comms, plan, 12, buffers, {12, 10});
  EXPECT_EQ(statuses[1].code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(statuses[1].message(),
              HasSubstr("was sent by a run with other sizes than this "
                        "rank's: every rank must pass the same count (this "
                        "rank: 10 elements)"));
}

TEST(FailureTest, AbortStopsThePeers) {
  Plan plan = makePlan(ringAllReduce(3, 1, 1), DataType::F32, ReduceOp::Sum);
  auto comms = makeComms(3);
  // A first run connects the transport.
  std::vector<Status> first = runPlan(comms, plan, 30);
  for (const Status &s : first)
    ASSERT_TRUE(s.ok()) << s.toString();
  // Ranks 0 and 1 run again; rank 2 aborts instead.
  WorldBuffers buffers = makeBuffers(plan, 30);
  std::vector<Status> statuses(2);
  std::vector<std::thread> threads;
  for (size_t r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      statuses[r] = comms[r]->run(plan, 0, buffers.inputs[r].data(),
                                  buffers.outputs[r].data(), 30, DataType::F32,
                                  ReduceOp::Sum);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  comms[2]->abort("the test stops rank 2");
  for (auto &t : threads)
    t.join();
  for (const Status &s : statuses) {
    EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
    EXPECT_THAT(s.message(), HasSubstr("peer rank 2 failed: the test stops "
                                       "rank 2"));
  }
  // An aborted communicator does not run again.
  Status again = comms[2]->run(plan, 0, buffers.inputs[2].data(),
                               buffers.outputs[2].data(), 30, DataType::F32,
                               ReduceOp::Sum);
  EXPECT_FALSE(again.ok());
}

TEST(FailureTest, AbortDuringConnect) {
  // A different collective makes ranks 0 and 1 connect again; rank 2
  // aborts instead of joining.
  Plan plan = makePlan(directAllToAll(3, 1), DataType::I32, ReduceOp::Sum);
  auto comms = makeComms(3);
  WorldBuffers buffers = makeBuffers(plan, 9);
  std::vector<Status> statuses(2);
  std::vector<std::thread> threads;
  for (size_t r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      statuses[r] = comms[r]->run(plan, 0, buffers.inputs[r].data(),
                                  buffers.outputs[r].data(), 9, DataType::I32,
                                  ReduceOp::Sum);
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  comms[2]->abort("rank 2 gives up");
  for (auto &t : threads)
    t.join();
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(statuses[r].code(), ErrorCode::PeerFailure)
        << statuses[r].toString();
    EXPECT_THAT(statuses[r].message(),
                HasSubstr("rank " + std::to_string(r) +
                          ": connecting the transport for collective 0 "
                          "(all_to_all 'direct', test)"));
  }
}

/// A single communicator's run() refusing its arguments before anything
/// moves (no other rank is needed).
Status runAlone(const Plan &plan, size_t index, const void *in, void *out,
                int64_t count, DataType type, ReduceOp op) {
  std::vector<std::unique_ptr<Communicator>> comms;
  Status s =
      Communicator::createInProcessGroup(plan.worldSize, CommOptions(), &comms);
  if (!s.ok())
    return s;
  return comms[0]->run(plan, index, in, out, count, type, op);
}

TEST(FailureTest, ArgumentsThatDoNotFitThePlan) {
  Plan plan = makePlan(ringAllReduce(2, 1, 1), DataType::F32, ReduceOp::Sum);
  std::vector<float> in(8), out(8);
  Status s =
      runAlone(plan, 1, in.data(), out.data(), 8, DataType::F32, ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "rank 0: collective index 1 is out of range: the "
                         "plan has 1 collective(s)");
  s = runAlone(plan, 0, in.data(), out.data(), 8, DataType::F16, ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_EQ(s.message(), "rank 0: collective 0 (test) was compiled for f32 "
                         "elements, run() got f16");
  s = runAlone(plan, 0, in.data(), out.data(), 8, DataType::F32, ReduceOp::Max);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_EQ(s.message(), "rank 0: collective 0 (test) was compiled for "
                         "reduction sum, run() got max");
  s = runAlone(plan, 0, in.data(), out.data(), -1, DataType::F32,
               ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.message(), "rank 0: count = -1 is negative");
  s = runAlone(plan, 0, nullptr, out.data(), 8, DataType::F32, ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rank 0: sendbuf is null but collective "
                                     "0 (all_reduce 'ring', test) reads 8 "
                                     "input elements"));
  s = runAlone(plan, 0, in.data(), nullptr, 8, DataType::F32, ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("recvbuf is null"));

  Plan wrongWorld = plan;
  wrongWorld.worldSize = 3;
  std::vector<std::unique_ptr<Communicator>> comms = makeComms(2);
  s = comms[0]->run(wrongWorld, 0, in.data(), out.data(), 8, DataType::F32,
                    ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_EQ(s.message(), "rank 0: the plan is for a world of 3 ranks, this "
                         "communicator's world has 2");

  Plan v = makePlan(directAllToAllV(2, 1, {1, 2, 3, 4}), DataType::I8,
                    ReduceOp::Sum);
  s = runAlone(v, 0, in.data(), out.data(), 4, DataType::I8, ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(s.message(), HasSubstr("count = 4 does not match collective 0 "
                                     "(all_to_all_v 'direct', test): its "
                                     "send counts give group rank 0 3 input "
                                     "elements"));
}

TEST(FailureTest, MalformedProgramsAreRefusedBeforeRunning) {
  std::vector<float> in(8), out(8);
  auto refuse = [&](collc::sched::Program p, const std::string &message) {
    Plan plan = makePlan(p, DataType::F32, ReduceOp::Sum);
    Status s = runAlone(plan, 0, in.data(), out.data(), 8, DataType::F32,
                        ReduceOp::Sum);
    EXPECT_EQ(s.code(), ErrorCode::InvalidPlan) << s.toString();
    EXPECT_THAT(s.message(), HasSubstr(message));
  };
  collc::sched::Program peer = ringAllReduce(2, 1, 1);
  peer.ranks[1].channels[0].instructions[0].sendPeer = 2;
  refuse(peer, "collective 0 (all_reduce 'ring', test): program rank 1 "
               "channel 0 instruction 0 (send) sends to rank 2, outside the "
               "2 ranks");
  collc::sched::Program range = ringAllReduce(2, 1, 1);
  range.ranks[0].channels[0].instructions[1].dst.index = 2;
  refuse(range, "program rank 0 channel 0 instruction 1 "
                "(recv_reduce_copy_send) dst output[2] is outside the output "
                "buffer's 2 chunks");
  collc::sched::Program dep = ringAllReduce(2, 1, 1);
  dependOn(dep, 0, 0, 1, 3, 0);
  refuse(dep, "program rank 0 channel 0 instruction 1 (recv_reduce_copy_send) "
              "depends on channel 3 instruction 0, which is not an "
              "instruction of another channel of the rank");
  collc::sched::Program ranks = ringAllReduce(2, 1, 1);
  ranks.ranks.pop_back();
  refuse(ranks, "the program has streams for 1 ranks but numRanks is 2");
}

TEST(FailureTest, GroupsThatDoNotFitTheWorld) {
  std::vector<float> in(8), out(8);
  Plan plan = makePlan(ringAllReduce(2, 1, 1), DataType::F32, ReduceOp::Sum, 8,
                       {{0, 5}}, 2);
  Status s =
      runAlone(plan, 0, in.data(), out.data(), 8, DataType::F32, ReduceOp::Sum);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_THAT(s.message(), HasSubstr("group 0 names world rank 5, outside "
                                     "this world of 2 ranks"));
}

TEST(CommunicatorTest, TraceRecordsEveryInstructionOfTheLastRun) {
  // A ring all_reduce of 2 channels on 3 ranks, slots small enough to cut
  // the chunks into 4 tiles: with CommOptions::trace each rank's lastTrace
  // has an event per instruction and tile, in order per channel; without
  // it, none.
  Plan plan = makePlan(ringAllReduce(3, 1, 2), DataType::F32, ReduceOp::Sum);
  const int64_t count = 3 * 2 * 40;
  for (bool trace : {true, false}) {
    CommOptions options;
    options.trace = trace;
    options.slotBytes = 64;
    std::vector<std::unique_ptr<Communicator>> comms;
    ASSERT_TRUE(Communicator::createInProcessGroup(3, options, &comms).ok());
    WorldBuffers buffers = makeBuffers(plan, count);
    for (const Status &s : runWorld(comms, plan, count, buffers))
      ASSERT_TRUE(s.ok()) << s.toString();
    ASSERT_EQ(checkWorld(plan, count, buffers), "");
    for (int32_t r = 0; r < 3; ++r) {
      std::vector<TraceEvent> events = comms[size_t(r)]->lastTrace();
      if (!trace) {
        EXPECT_TRUE(events.empty());
        continue;
      }
      const auto &channels =
          plan.collectives[0].program.ranks[size_t(r)].channels;
      size_t instructions = 0;
      for (const auto &channel : channels)
        instructions += channel.instructions.size();
      uint64_t tiles = 0;
      for (const TraceEvent &e : events)
        tiles = std::max(tiles, e.tile + 1);
      EXPECT_EQ(tiles, 4u) << "rank " << r;
      ASSERT_EQ(events.size(), instructions * tiles) << "rank " << r;
      for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent &e = events[i];
        EXPECT_EQ(e.rank, r);
        EXPECT_STREQ(
            e.opcode,
            collc::sched::opcodeName(
                channels[e.channel].instructions[e.instruction].opcode));
        EXPECT_LE(e.start, e.end);
        EXPECT_GE(e.waited, 0);
        EXPECT_LE(e.waited, e.end - e.start + 1e-9);
        EXPECT_GT(e.bytes, 0);
        EXPECT_LE(e.bytes, 64);
        if (i > 0 && events[i - 1].channel == e.channel) {
          EXPECT_GE(e.start, events[i - 1].end);
        }
      }
    }
  }
}

TEST(CommunicatorTest, OptionsAreChecked) {
  std::vector<std::unique_ptr<Communicator>> comms;
  CommOptions options;
  options.timeoutSeconds = 0;
  Status s = Communicator::createInProcessGroup(2, options, &comms);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("timeoutSeconds"));
  s = Communicator::createInProcessGroup(0, CommOptions(), &comms);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  for (int32_t threads : {-1, 1025}) {
    CommOptions bad;
    bad.channelThreads = threads;
    s = Communicator::createInProcessGroup(2, bad, &comms);
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("CommOptions::channelThreads = " +
                                       std::to_string(threads)));
  }
  // Automatic: the cores shared out among the group's ranks, at least 1.
  ASSERT_TRUE(
      Communicator::createInProcessGroup(64, CommOptions(), &comms).ok());
  cpu_set_t cores;
  ASSERT_EQ(::sched_getaffinity(0, sizeof cores, &cores), 0);
  EXPECT_EQ(comms[0]->channelThreads(), std::max(1, CPU_COUNT(&cores) / 64));
  CommOptions five;
  five.channelThreads = 5;
  ASSERT_TRUE(Communicator::createInProcessGroup(2, five, &comms).ok());
  EXPECT_EQ(comms[1]->channelThreads(), 5);
  ASSERT_TRUE(
      Communicator::createInProcessGroup(3, CommOptions(), &comms).ok());
  ASSERT_EQ(comms.size(), 3u);
  EXPECT_EQ(comms[2]->rank(), 2);
  EXPECT_EQ(comms[2]->worldSize(), 3);
  EXPECT_STREQ(comms[2]->transportName(), "in-process");
  // In-process: finalize has nothing to wait for; run() is refused after.
  EXPECT_TRUE(comms[1]->finalize().ok());
  Plan plan = makePlan(ringAllReduce(3, 1, 1), DataType::F32, ReduceOp::Sum);
  Status after =
      comms[1]->run(plan, 0, nullptr, nullptr, 0, DataType::F32, ReduceOp::Sum);
  EXPECT_EQ(after.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(after.message(), "rank 1: run() after finalize()");
}

TEST(CommunicatorTest, OutputElements) {
  PlanCollective c;
  c.program = ringAllReduce(4, 1, 1);
  EXPECT_EQ(outputElements(c, 0, 10), 10);
  c.program = emptyProgram(collc::sched::Collective::AllGather, 4, 2);
  EXPECT_EQ(outputElements(c, 3, 10), 40);
  c.program = directReduceScatter(4, 2);
  EXPECT_EQ(outputElements(c, 0, 10), 3); // 10 = 3 + 3 + 2 + 2
  EXPECT_EQ(outputElements(c, 3, 10), 2);
  c.program = directAllToAllV(2, 1, {1, 2, 3, 4});
  EXPECT_EQ(outputElements(c, 0, 0), 4); // 1 from itself, 3 from rank 1
  EXPECT_EQ(outputElements(c, 1, 0), 6);
  EXPECT_EQ(outputElements(c, 2, 0), 0); // no such group rank
}

} // namespace
} // namespace collrt

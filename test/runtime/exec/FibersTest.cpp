//===- FibersTest.cpp - several channels on one thread --------------------===//
//
// runFibers itself (tasks that wait for each other on one thread finish,
// in the order their waits allow; the stacks are kept; floating-point state
// and deep frames survive switches; yieldFiber outside a group does
// nothing), and the executor with fewer threads than channels: a
// multi-channel schedule with dependencies between channels, every element
// checked, on one thread per rank and on two; a stuck one still times out
// with the report of every channel. No timing.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "Schedules.h"

#include "runtime/exec/Executor.h"
#include "runtime/exec/Fibers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>

namespace collrt {
namespace {

using namespace testing;
using exec::FiberStacks;
using exec::runFibers;
using exec::yieldFiber;
using ::testing::HasSubstr;

TEST(FibersTest, TasksThatWaitForEachOtherFinishOnOneThread) {
  // Task 0 waits for task 2's first step, task 2 for task 1's, task 1 for
  // task 0's second: only switching at every wait lets all three finish.
  std::string log;
  int step[3] = {0, 0, 0};
  std::thread::id ran[3];
  auto waitFor = [&](int task, int atLeast) {
    bool first = true;
    while (step[task] < atLeast) {
      ASSERT_TRUE(yieldFiber(first));
      first = false;
    }
  };
  std::vector<std::function<void()>> tasks = {
      [&] {
        ran[0] = std::this_thread::get_id();
        log += "a";
        step[0] = 1;
        waitFor(2, 1);
        log += "A";
        step[0] = 2;
      },
      [&] {
        ran[1] = std::this_thread::get_id();
        waitFor(0, 2);
        log += "b";
        step[1] = 1;
      },
      [&] {
        ran[2] = std::this_thread::get_id();
        log += "c";
        step[2] = 1;
        waitFor(1, 1);
        log += "C";
      },
  };
  FiberStacks stacks;
  for (int round = 0; round < 3; ++round) {
    log.clear();
    step[0] = step[1] = step[2] = 0;
    ASSERT_TRUE(runFibers(tasks, stacks).ok());
    EXPECT_EQ(log, "acAbC") << "round " << round;
    for (const std::thread::id &id : ran)
      EXPECT_EQ(id, std::this_thread::get_id());
    // The stacks are mapped once and kept.
    EXPECT_EQ(stacks.size(), 3u);
  }
}

TEST(FibersTest, OneTaskRunsWithoutAFiberAndYieldOutsideDoesNothing) {
  EXPECT_FALSE(yieldFiber(true));
  FiberStacks stacks;
  bool inside = true;
  ASSERT_TRUE(runFibers({[&] { inside = yieldFiber(false); }}, stacks).ok());
  EXPECT_FALSE(inside); // alone: the caller pauses by itself
  EXPECT_EQ(stacks.size(), 0u);
  // The last unfinished fiber is alone too.
  int yields = 0;
  ASSERT_TRUE(runFibers({[] {},
                         [&] {
                           for (int i = 0; i < 3; ++i)
                             yields += yieldFiber(false);
                         }},
                        stacks)
                  .ok());
  EXPECT_LE(yields, 1);
}

/// Recursion that fills a few KiB of stack per level and checks its frame
/// after a switch at every level.
double deep(int depth) {
  volatile double frame[256];
  for (int i = 0; i < 256; ++i)
    frame[i] = depth * 1000.0 + i;
  yieldFiber(true);
  double below = depth > 0 ? deep(depth - 1) : 0;
  double sum = 0;
  for (int i = 0; i < 256; ++i)
    sum += frame[i] - depth * 1000.0;
  return below + sum;
}

TEST(FibersTest, FramesAndFloatingPointSurviveSwitches) {
  FiberStacks stacks;
  double results[4] = {0, 0, 0, 0};
  std::vector<std::function<void()>> tasks;
  for (int t = 0; t < 4; ++t)
    tasks.push_back([&results, t] {
      // 40 levels of 2 KiB, well inside kFiberStackBytes.
      results[t] = deep(40) + std::sqrt(double(t));
    });
  ASSERT_TRUE(runFibers(tasks, stacks).ok());
  double perLevel = 255.0 * 256.0 / 2.0;
  for (int t = 0; t < 4; ++t)
    EXPECT_DOUBLE_EQ(results[t], 41 * perLevel + std::sqrt(double(t)));
}

/// Runs collective 0 of `plan` on in-process ranks with `threads` channel
/// threads each; with one, no rank starts a pool thread.
std::vector<Status> runWithThreads(const Plan &plan, int64_t count,
                                   WorldBuffers &buffers, int32_t threads,
                                   double timeout = 30) {
  ExecutorWorld world(plan.worldSize, threads);
  std::vector<Status> statuses = world.run(plan, count, buffers, timeout);
  if (threads == 1) {
    for (const exec::ExecutorState &state : world.states)
      EXPECT_EQ(state.pool.threadsStarted(), 0u);
  }
  return statuses;
}

TEST(FibersTest, FewerThreadsThanChannelsRunEverySchedule) {
  // Ring all_reduce of 5 channels and 3 chunks per channel on 4 ranks, and
  // a schedule whose channels wait for each other (below), on 1 and 2
  // threads per rank; every element compared.
  for (int32_t threads : {1, 2}) {
    Plan ring = makePlan(ringAllReduce(4, 3, 5), DataType::F32, ReduceOp::Sum);
    for (int64_t count : {int64_t(1), int64_t(4 * 5 * 3 * 7 + 5)}) {
      WorldBuffers buffers = makeBuffers(ring, count);
      for (const Status &s : runWithThreads(ring, count, buffers, threads))
        ASSERT_TRUE(s.ok()) << s.toString();
      EXPECT_EQ(checkWorld(ring, count, buffers), "")
          << threads << " thread(s), count " << count;
    }
  }
}

TEST(FibersTest, ChannelsWaitingForEachOtherOnOneThread) {
  // Channel 0 sends only after channel 1 copied (a later fiber of the same
  // thread), then receives; on one thread per rank.
  collc::sched::Program p =
      emptyProgram(collc::sched::Collective::AllGather, 2, 1, 0, 2);
  for (int32_t r = 0; r < 2; ++r) {
    append(p, r, 0, sendTo(1 - r, in(0), 1));
    append(p, r, 0, recvFrom(1 - r, out(uint32_t(1 - r)), 1));
    append(p, r, 1, copyTo(in(0), out(uint32_t(r)), 0));
    dependOn(p, r, 0, 0, 1, 0);
  }
  Plan plan = makePlan(p, DataType::I32, ReduceOp::Sum);
  for (int64_t count : {int64_t(1), int64_t(1000)}) {
    WorldBuffers buffers = makeBuffers(plan, count);
    for (const Status &s : runWithThreads(plan, count, buffers, 1))
      ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(checkWorld(plan, count, buffers), "") << "count " << count;
  }
}

TEST(FibersTest, AStuckScheduleOnOneThreadTimesOutWithTheReport) {
  // Both ranks receive first on channel 0; channels 1 and 2 wait for it.
  Plan plan = makePlan(stuckOnChannel0(), DataType::F32, ReduceOp::Sum);
  WorldBuffers buffers = makeBuffers(plan, 64);
  std::vector<Status> statuses = runWithThreads(plan, 64, buffers, 1, 0.3);
  bool timedOut = false;
  for (const Status &s : statuses) {
    ASSERT_FALSE(s.ok());
    timedOut |= s.code() == ErrorCode::Timeout;
    EXPECT_THAT(s.message(), HasSubstr("channel 0 tile 0 step 0 instruction "
                                       "0 recv output[0] from rank"));
    EXPECT_THAT(s.message(), HasSubstr("channel 2 tile 0 step 2 "
                                       "instruction 0 copy input[1] to "
                                       "output[1]: waiting for channel 0"));
  }
  EXPECT_TRUE(timedOut);
}

} // namespace
} // namespace collrt

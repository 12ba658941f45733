//===- ChannelPoolTest.cpp - channel threads kept across runs -------------===//
//
// The pool itself (tasks run on the same threads run after run, it grows to
// the largest run, shutdown joins), the executor's use of it (runs of a
// multi-channel schedule reuse its threads, every element checked; a run
// that fails joins them), and the communicator's (abort and destruction
// leave no thread behind, counted in /proc/self/task). No timing.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "Schedules.h"

#include "runtime/exec/ChannelPool.h"
#include "runtime/exec/Executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

namespace collrt {
namespace {

using namespace testing;
using exec::ChannelPool;
using ::testing::HasSubstr;

/// Threads of this process now.
size_t processThreads() {
  size_t n = 0;
  if (DIR *d = ::opendir("/proc/self/task")) {
    while (dirent *e = ::readdir(d))
      n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

TEST(ChannelPoolTest, TasksRunOnTheSameThreadsRunAfterRun) {
  ChannelPool pool;
  ASSERT_TRUE(pool.reserve(3).ok());
  EXPECT_EQ(pool.size(), 3u);
  std::vector<std::thread::id> ids = pool.threadIds();
  for (int round = 0; round < 20; ++round) {
    std::mutex mutex;
    std::vector<std::thread::id> ran(3);
    std::vector<int> times(3, 0);
    std::thread::id local;
    pool.run(
        3,
        [&](size_t i) {
          std::lock_guard<std::mutex> lock(mutex);
          ran[i] = std::this_thread::get_id();
          ++times[i];
        },
        [&] { local = std::this_thread::get_id(); });
    EXPECT_EQ(local, std::this_thread::get_id());
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(times[i], 1) << "task " << i << " round " << round;
      EXPECT_EQ(ran[i], ids[i]) << "task " << i << " round " << round;
    }
  }
  EXPECT_EQ(pool.threadsStarted(), 3u);
  EXPECT_EQ(pool.runs(), 20u);
}

TEST(ChannelPoolTest, GrowsToTheLargestRunAndRunsFewerTasks) {
  ChannelPool pool;
  std::atomic<int> done{0};
  auto count = [&](size_t) { done.fetch_add(1); };
  auto nothing = [] {};
  for (size_t n : {1u, 4u, 2u, 0u, 4u, 3u}) {
    ASSERT_TRUE(pool.reserve(n).ok());
    done = 0;
    pool.run(n, count, nothing);
    EXPECT_EQ(done.load(), int(n));
  }
  EXPECT_EQ(pool.size(), 4u);
  EXPECT_EQ(pool.threadsStarted(), 4u);
}

TEST(ChannelPoolTest, ShutdownJoinsAndALaterRunStartsNewThreads) {
  size_t before = processThreads();
  {
    ChannelPool pool;
    ASSERT_TRUE(pool.reserve(5).ok());
    EXPECT_EQ(processThreads(), before + 5);
    pool.shutdown();
    EXPECT_EQ(pool.size(), 0u);
    EXPECT_EQ(processThreads(), before);
    ASSERT_TRUE(pool.reserve(2).ok());
    std::atomic<int> done{0};
    pool.run(2, [&](size_t) { done.fetch_add(1); }, [] {});
    EXPECT_EQ(done.load(), 2);
    EXPECT_EQ(pool.threadsStarted(), 7u);
    EXPECT_EQ(processThreads(), before + 2);
  } // the destructor joins
  EXPECT_EQ(processThreads(), before);
}

TEST(ChannelPoolTest, TheCallerWaitsForTheSlowestTask) {
  ChannelPool pool;
  ASSERT_TRUE(pool.reserve(2).ok());
  std::atomic<bool> release{false};
  std::atomic<int> done{0};
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
  });
  pool.run(
      2,
      [&](size_t i) {
        if (i == 1)
          while (!release.load())
            std::this_thread::yield();
        done.fetch_add(1);
      },
      [] {});
  // run() returned: every task finished, the one that waited too.
  EXPECT_TRUE(release.load());
  EXPECT_EQ(done.load(), 2);
  releaser.join();
}

/// A thread per channel (at most 64).
struct World : ExecutorWorld {
  explicit World(int32_t n) : ExecutorWorld(n, 64) {}
};

TEST(ChannelPoolTest, RunsOfAMultiChannelScheduleReuseTheThreads) {
  // A ring all-reduce of 3 channels on 4 ranks: channels 1 and 2 run on
  // pool threads, channel 0 on the caller's.
  Plan plan = makePlan(ringAllReduce(4, 2, 3), DataType::F32, ReduceOp::Sum);
  World world(4);
  const int64_t count = 3 * 4 * 2 * 5 + 7;
  std::vector<std::vector<std::thread::id>> first(4);
  for (int round = 0; round < 6; ++round) {
    WorldBuffers buffers = makeBuffers(plan, count);
    for (const Status &s : world.run(plan, count, buffers))
      ASSERT_TRUE(s.ok()) << s.toString();
    ASSERT_EQ(checkWorld(plan, count, buffers), "") << "round " << round;
    for (int32_t r = 0; r < 4; ++r) {
      const ChannelPool &pool = world.states[size_t(r)].pool;
      EXPECT_EQ(pool.size(), 2u);
      if (round == 0)
        first[size_t(r)] = pool.threadIds();
      EXPECT_EQ(pool.threadIds(), first[size_t(r)]) << "rank " << r;
    }
  }
  for (int32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(world.states[size_t(r)].pool.threadsStarted(), 2u);
    EXPECT_EQ(world.states[size_t(r)].pool.runs(), 6u);
  }
  // A schedule of more channels grows the pools; one of fewer uses part.
  Plan wider = makePlan(ringAllReduce(4, 1, 5), DataType::I32, ReduceOp::Max);
  Plan narrow = makePlan(ringAllReduce(4, 1, 1), DataType::I32, ReduceOp::Min);
  for (const Plan *p : {&wider, &narrow, &wider}) {
    WorldBuffers buffers = makeBuffers(*p, 101);
    for (const Status &s : world.run(*p, 101, buffers))
      ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(checkWorld(*p, 101, buffers), "");
  }
  for (int32_t r = 0; r < 4; ++r)
    EXPECT_EQ(world.states[size_t(r)].pool.threadsStarted(), 4u);
}

TEST(ChannelPoolTest, ARunThatTimesOutJoinsItsThreads) {
  // Both ranks receive first on channel 0; channels 1 and 2 wait for it:
  // the watchdog stops the run, and the pool's threads are joined.
  Plan plan = makePlan(stuckOnChannel0(), DataType::F32, ReduceOp::Sum);
  size_t before = processThreads();
  {
    World world(2);
    // A good run first, so that the pools exist.
    Plan good = makePlan(ringAllReduce(2, 1, 3), DataType::F32, ReduceOp::Sum);
    WorldBuffers buffers = makeBuffers(good, 60);
    for (const Status &s : world.run(good, 60, buffers))
      ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(world.states[0].pool.size(), 2u);
    WorldBuffers stuck = makeBuffers(plan, 64);
    std::vector<Status> statuses = world.run(plan, 64, stuck, 0.3);
    bool timedOut = false;
    for (const Status &s : statuses) {
      ASSERT_FALSE(s.ok());
      timedOut |= s.code() == ErrorCode::Timeout;
      EXPECT_THAT(s.message(), HasSubstr("channel 1 tile 0 step 2 "
                                         "instruction 0 copy input[1] to "
                                         "output[1]: waiting for channel 0"));
    }
    EXPECT_TRUE(timedOut);
    for (const exec::ExecutorState &state : world.states)
      EXPECT_EQ(state.pool.size(), 0u);
  }
  EXPECT_EQ(processThreads(), before);
}

TEST(ChannelPoolTest, AbortAndDestructionLeaveNoThreadBehind) {
  size_t before = processThreads();
  Plan plan = makePlan(ringAllReduce(3, 1, 4), DataType::F32, ReduceOp::Sum);
  CommOptions threadPerChannel;
  threadPerChannel.channelThreads = 4;
  {
    std::vector<std::unique_ptr<Communicator>> comms;
    ASSERT_TRUE(
        Communicator::createInProcessGroup(3, threadPerChannel, &comms).ok());
    EXPECT_EQ(comms[0]->channelThreads(), 4);
    for (int round = 0; round < 3; ++round) {
      WorldBuffers buffers = makeBuffers(plan, 48);
      for (const Status &s : runWorld(comms, plan, 48, buffers))
        ASSERT_TRUE(s.ok()) << s.toString();
      ASSERT_EQ(checkWorld(plan, 48, buffers), "");
    }
    // 3 channels on pool threads per rank, kept between runs.
    EXPECT_EQ(processThreads(), before + 9);
    comms[2]->abort("the test stops rank 2");
    EXPECT_EQ(processThreads(), before + 6);
    // The others' next run fails naming rank 2 and joins their threads.
    WorldBuffers buffers = makeBuffers(plan, 48);
    std::vector<Status> statuses(2);
    std::vector<std::thread> threads;
    for (size_t r = 0; r < 2; ++r)
      threads.emplace_back([&, r] {
        statuses[r] = comms[r]->run(plan, 0, buffers.inputs[r].data(),
                                    buffers.outputs[r].data(), 48,
                                    DataType::F32, ReduceOp::Sum);
      });
    for (auto &t : threads)
      t.join();
    for (const Status &s : statuses) {
      EXPECT_EQ(s.code(), ErrorCode::PeerFailure) << s.toString();
      EXPECT_THAT(s.message(), HasSubstr("the test stops rank 2"));
    }
    EXPECT_EQ(processThreads(), before);
  }
  EXPECT_EQ(processThreads(), before);
  {
    // Destroyed after good runs (finalize, then the state): none left.
    std::vector<std::unique_ptr<Communicator>> comms;
    ASSERT_TRUE(
        Communicator::createInProcessGroup(3, threadPerChannel, &comms).ok());
    WorldBuffers buffers = makeBuffers(plan, 48);
    for (const Status &s : runWorld(comms, plan, 48, buffers))
      ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(processThreads(), before + 9);
    ASSERT_TRUE(comms[0]->finalize().ok());
    EXPECT_EQ(processThreads(), before + 6);
  }
  EXPECT_EQ(processThreads(), before);
}

} // namespace
} // namespace collrt

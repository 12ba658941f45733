//===- RuntimeCountsTest.cpp - all_to_all_v counts given at run time ------===//
//
// The golden plans whose all_to_all_v leaves its send counts to run time
// ("send_counts": null; direct on 4 ranks, hierarchical on 2 nodes x 2) run
// on in-process ranks with several count matrices one after the other on
// the same communicators (the connections stay, the chunks and tiles
// follow the counts), every element checked by runtime/check against the
// counts given; and the arguments run() refuses.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"

#include "collrt/collrt.h"
#include "runtime/check/Reference.h"
#include "runtime/check/SendCounts.h"
#include "runtime/check/TestData.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace collrt {
namespace {

using ::testing::HasSubstr;
using testing::loadTestPlan;

/// Runs collective 0 of `plan` on every rank of `comms` with `counts` (or
/// none) and checks every element; "" when every rank ran and every element
/// is right, else what went wrong. `iteration` varies the inputs.
std::string runAndCheck(std::vector<std::unique_ptr<Communicator>> &comms,
                        const Plan &plan, const std::vector<int64_t> &counts,
                        uint64_t iteration) {
  const PlanCollective &c = plan.collectives[0];
  const int64_t *given = counts.empty() ? nullptr : counts.data();
  size_t es = dataTypeSize(c.dtype);
  std::vector<std::string> results(comms.size());
  std::vector<std::thread> threads;
  for (size_t w = 0; w < comms.size(); ++w)
    threads.emplace_back([&, w] {
      int32_t rank = groupRankOf(c, int32_t(w));
      check::TestData data(c.program, c.dtype, c.reduction, iteration, given);
      int64_t in =
          check::referenceInputElements(c.program, rank, 0, data.sendCounts());
      int64_t out = outputElements(c, rank, in, given);
      EXPECT_EQ(out, check::referenceOutputElements(c.program, rank, 0,
                                                    data.sendCounts()));
      std::vector<uint8_t> input(size_t(in) * es + 1),
          output(size_t(out) * es + 1);
      data.fillInput(rank, input.data(), in);
      check::TestData::poison(c.dtype, output.data(), out);
      Status s = comms[w]->run(plan, 0, input.data(), output.data(), in,
                               c.dtype, c.reduction, given);
      if (!s.ok()) {
        results[w] = s.toString();
        return;
      }
      check::CheckResult r = check::checkRank(data, rank, in, input.data(), in,
                                              output.data(), out);
      if (r.wrong)
        results[w] = std::to_string(r.wrong) + " wrong, first " +
                     r.examples.front().describe();
      else if (r.checked != in + out)
        results[w] = "checked " + std::to_string(r.checked) + " of " +
                     std::to_string(in + out) + " elements";
    });
  for (std::thread &t : threads)
    t.join();
  std::string all;
  for (size_t w = 0; w < results.size(); ++w)
    if (!results[w].empty())
      all += "rank " + std::to_string(w) + ": " + results[w] + "\n";
  return all;
}

std::vector<std::unique_ptr<Communicator>> world(int32_t n,
                                                 size_t slotBytes = 1 << 20) {
  CommOptions options;
  options.slotBytes = slotBytes;
  options.timeoutSeconds = 30;
  std::vector<std::unique_ptr<Communicator>> comms;
  Status s = Communicator::createInProcessGroup(n, options, &comms);
  EXPECT_TRUE(s.ok()) << s.toString();
  return comms;
}

TEST(RuntimeCountsTest, GoldenPlansLeaveTheirCountsToRunTime) {
  for (const char *name : {"direct-all_to_all_v-runtime-4.plan.json",
                           "hierarchical-all_to_all_v-runtime-2x2.plan.json"}) {
    Plan plan = loadTestPlan(name);
    ASSERT_EQ(plan.collectives.size(), 1u);
    EXPECT_TRUE(sendCountsAtRunTime(plan.collectives[0])) << name;
    EXPECT_EQ(plan.version, 2) << name;
  }
  EXPECT_FALSE(sendCountsAtRunTime(
      loadTestPlan("direct-all_to_all_v-4.plan.json").collectives[0]));
}

// Several matrices in a row on the same communicators: uneven, with zero
// rows and columns, one rank sending everything to one peer, and random
// ones; with 1 MiB slots and with 256-byte slots (many tiles, whose number
// changes with the largest count).
TEST(RuntimeCountsTest, CountsChangeFromRunToRun) {
  for (const char *name : {"direct-all_to_all_v-runtime-4.plan.json",
                           "hierarchical-all_to_all_v-runtime-2x2.plan.json"}) {
    Plan plan = loadTestPlan(name);
    for (size_t slotBytes : {size_t(1) << 20, size_t(256)}) {
      auto comms = world(plan.worldSize, slotBytes);
      std::vector<std::vector<int64_t>> matrices = {
          {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
          {0, 0, 0, 0, 0, 7, 0, 300, 0, 0, 0, 0, 1, 0, 0, 0},
          {0, 0, 0, 1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
          check::randomSendCounts(4, 500, 3, 7),
          check::randomSendCounts(4, 17, 1, 8),
          {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      };
      uint64_t iteration = 0;
      for (const std::vector<int64_t> &m : matrices) {
        SCOPED_TRACE(std::string(name) + ", slot bytes " +
                     std::to_string(slotBytes) + ", matrix " +
                     std::to_string(iteration));
        EXPECT_EQ(runAndCheck(comms, plan, m, iteration++), "");
      }
    }
  }
}

// Every rank must pass the same matrix: a rank given another one fails at
// its first message from a peer with the other matrix, saying so, and no
// rank waits for its deadline. Here rank 3's matrix differs from the
// others' in entries that do not even change its own row.
TEST(RuntimeCountsTest, RanksWithDifferentMatricesFailAtTheFirstMessage) {
  Plan plan = loadTestPlan("direct-all_to_all_v-runtime-4.plan.json");
  auto comms = world(plan.worldSize);
  const PlanCollective &c = plan.collectives[0];
  std::vector<int64_t> same(16, 3), other = same;
  other[1] = 4; // rank 0 -> 1: rank 3 takes no part in it
  std::vector<Status> statuses(4);
  std::vector<std::thread> threads;
  auto start = std::chrono::steady_clock::now();
  for (int32_t w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      const std::vector<int64_t> &m = w == 3 ? other : same;
      int64_t in = check::referenceInputElements(c.program, w, 0, m.data());
      std::vector<uint8_t> input(size_t(in) * 4 + 4), output(1 << 12);
      statuses[size_t(w)] =
          comms[size_t(w)]->run(plan, 0, input.data(), output.data(), in,
                                c.dtype, c.reduction, m.data());
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  size_t saying = 0;
  for (const Status &s : statuses) {
    EXPECT_FALSE(s.ok());
    if (s.code() == ErrorCode::PlanMismatch) {
      EXPECT_THAT(s.message(),
                  HasSubstr("was sent by a run with other sizes than this "
                            "rank's: every rank of an all_to_all_v must pass "
                            "the same N x N send counts"));
      ++saying;
    }
  }
  EXPECT_GE(saying, 1u);
}

/// World rank `rank` of a fresh world runs `plan` alone with `counts` and
/// `count`: every refusal below comes before anything is exchanged, so no
/// other rank is needed.
Status runOne(const Plan &plan, int32_t rank, const int64_t *counts,
              int64_t count) {
  auto comms = world(plan.worldSize);
  const PlanCollective &c = plan.collectives[0];
  std::vector<uint8_t> in(size_t(count) * 4 + 4), out(1 << 16);
  return comms[size_t(rank)]->run(plan, 0, in.data(), out.data(), count,
                                  c.dtype, c.reduction, counts);
}

TEST(RuntimeCountsTest, RunRefusesWrongCounts) {
  Plan runtime = loadTestPlan("direct-all_to_all_v-runtime-4.plan.json");
  Plan fixed = loadTestPlan("direct-all_to_all_v-4.plan.json");
  std::vector<int64_t> m = {1, 2,  3,  4,  5,  6,  7,  8,
                            9, 10, 11, 12, 13, 14, 15, 16};

  // None given.
  Status s = runOne(runtime, 1, nullptr, 26);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("rank 1: collective 0 (all_to_all_v 'direct', "
                             "runtime-counts.mlir:6:8) takes its send counts "
                             "at run time, but none were given (pass the 4 x "
                             "4 matrix"),
            std::string::npos)
      << s.toString();
  // Given for a plan that fixes them.
  int64_t fixedRow =
      check::referenceInputElements(fixed.collectives[0].program, 0, 0);
  s = runOne(fixed, 0, m.data(), fixedRow);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_NE(s.message().find("rank 0: send counts were given for collective "
                             "0 (all_to_all_v 'direct'"),
            std::string::npos)
      << s.toString();
  EXPECT_NE(s.message().find("whose plan fixes its send counts"),
            std::string::npos)
      << s.toString();
  // A negative entry: named by sender, receiver and index.
  std::vector<int64_t> negative = m;
  negative[6] = -3;
  s = runOne(runtime, 3, negative.data(), 58);
  EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.message().find("rank 3: send count [1][2] (entry 6, from group "
                             "rank 1 to 2) of collective 0"),
            std::string::npos)
      << s.toString();
  EXPECT_NE(s.message().find("is negative (-3)"), std::string::npos);
  // A count that is not the rank's row sum (rank 2's row sums to 42).
  s = runOne(runtime, 2, m.data(), 41);
  EXPECT_EQ(s.code(), ErrorCode::PlanMismatch);
  EXPECT_NE(s.message().find("rank 2: count = 41 does not match collective 0"),
            std::string::npos)
      << s.toString();
  EXPECT_NE(s.message().find("its send counts (given at run time) give group "
                             "rank 2 42 input elements"),
            std::string::npos)
      << s.toString();
}

TEST(RuntimeCountsTest, OutputElementsFollowTheGivenCounts) {
  Plan plan = loadTestPlan("direct-all_to_all_v-runtime-4.plan.json");
  std::vector<int64_t> m = {1, 2,  3,  4,  5,  6,  7,  8,
                            9, 10, 11, 12, 13, 14, 15, 16};
  // Rank 1 receives column 1: 2 + 6 + 10 + 14.
  EXPECT_EQ(outputElements(plan.collectives[0], 1, 26, m.data()), 32);
  // Without counts a run-time plan has no sizes.
  EXPECT_EQ(outputElements(plan.collectives[0], 1, 26), 0);
}

} // namespace
} // namespace collrt

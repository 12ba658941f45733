//===- ScaleTest.cpp - a 1024-rank ring all-reduce verifies in seconds ----===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

// Timings are printed, never asserted: speed is measured by
// bench/scale (bench/scale/RESULTS.md), not by unit tests.
#include <chrono>
#include <cstdio>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

TEST(ScaleTest, RingAllReduce1024Ranks1024Chunks) {
  const int32_t n = 1024;
  Program program = ringAllReduce(n, /*chunksPerSegment=*/1);
  ASSERT_EQ(program.buffers.inputChunks, 1024u);

  auto start = std::chrono::steady_clock::now();
  VerifyResult result = verifyProgram(program, VerifyOptions());
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("verified %llu instructions (%llu transfers) in %.2f s\n",
              (unsigned long long)result.instructions,
              (unsigned long long)result.transfers, seconds);

  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.instructions, uint64_t(n) * (2 * n - 1));
}

/// A direct all-to-all has a connection per pair of ranks: 1M of them.
TEST(ScaleTest, DirectAllToAll1024Ranks) {
  const int32_t n = 1024;
  Program program = directAllToAll(n, 1);
  auto start = std::chrono::steady_clock::now();
  VerifyResult result = verifyProgram(program, VerifyOptions());
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("verified %llu instructions (%llu transfers) in %.2f s\n",
              (unsigned long long)result.instructions,
              (unsigned long long)result.transfers, seconds);
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.transfers, uint64_t(n) * (n - 1));
}

/// The same ring schedule with a dropped contribution at the far end of the
/// ring is caught, and the report stays short.
TEST(ScaleTest, BrokenLargeRingReportsAFewErrors) {
  const int32_t n = 1024;
  Program program = ringAllReduce(n, 1);
  // Rank 5's last reduce step keeps the partial sum instead of adding.
  Instruction &last = at(program, 5, 0, uint32_t(n - 1));
  last.opcode = Opcode::RecvCopySend;
  last.src = {};
  VerifyResult result = verifyProgram(program, VerifyOptions());
  ASSERT_EQ(result.errors.size(), kMaxErrorsPerKind + 1);
  EXPECT_EQ(result.errors[0].message,
            "rank 0, output chunk 6 holds the sum over ranks {0..4,6..1023} "
            "but must hold the sum over ranks 0..1023");
  EXPECT_EQ(result.errors.back().message,
            "1019 more postcondition errors not shown");
}

} // namespace

//===- PassingSchedulesTest.cpp - correct schedules verify ----------------===//
#include "ScheduleBuilders.h"

#include <gtest/gtest.h>

using namespace collc::sched;
using namespace collc::sched::testing;

namespace {

class RingAllReduceTest : public ::testing::TestWithParam<int32_t> {};

TEST_P(RingAllReduceTest, Verifies) {
  int32_t n = GetParam();
  for (uint32_t chunksPerSegment : {1u, 3u}) {
    Program program = ringAllReduce(n, chunksPerSegment);
    VerifyResult result = verifyProgram(program, VerifyOptions());
    EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
    EXPECT_EQ(result.instructions, uint64_t(n) * uint64_t(2 * n - 1));
    // Every instruction but the last of each rank sends.
    EXPECT_EQ(result.transfers, uint64_t(n) * uint64_t(2 * n - 2));
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, RingAllReduceTest, ::testing::Values(2, 3, 8));

TEST(PassingSchedulesTest, RingAllReduceOnFourChannels) {
  VerifyResult result = verifyProgram(ringAllReduce(6, 2, 4), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.instructions, 4u * 6u * 11u);
}

/// A fused recv_reduce_send needs its arrival and a free slot at once: in a
/// ring where every rank has one send in flight, two slots are enough and
/// one is not.
TEST(PassingSchedulesTest, RingAllReduceNeedsTwoSlots) {
  VerifyOptions options;
  options.connectionSlots = 2;
  EXPECT_TRUE(verifyProgram(ringAllReduce(5, 2), options).ok());
  options.connectionSlots = 1;
  EXPECT_EQ(kinds(verifyProgram(ringAllReduce(5, 2), options)),
            std::vector<VerifyErrorKind>({VerifyErrorKind::Deadlock}));
}

TEST(PassingSchedulesTest, DirectAllToAll) {
  VerifyResult result = verifyProgram(directAllToAll(4, 2), VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
  EXPECT_EQ(result.instructions, 4u * 7u);
  EXPECT_EQ(result.transfers, 12u);
}

/// Each rank sends before it receives, so one slot per connection suffices.
TEST(PassingSchedulesTest, SendFirstExchangeWithOneSlot) {
  Program program = makeProgram(Collective::AllToAll, 2, 1);
  for (int32_t r = 0; r < 2; ++r) {
    int32_t peer = 1 - r;
    add(program, r, 0, copy(input(r), output(r), 0));
    add(program, r, 0, send(peer, input(peer), 1));
    add(program, r, 0, recv(peer, output(peer), 1));
  }
  VerifyOptions options;
  options.connectionSlots = 1;
  VerifyResult result = verifyProgram(program, options);
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
}

/// Blocks of zero elements need not be sent; everything else arrives.
TEST(PassingSchedulesTest, AllToAllVSkipsEmptyBlocks) {
  const int32_t n = 3;
  const uint32_t k = 2;
  Program program = makeProgram(Collective::AllToAllV, n, k);
  // Row-major by sender; 1 element cut into 2 chunks leaves chunk 1 empty.
  program.sendCounts = {4, 0, 1, //
                        7, 5, 0, //
                        0, 3, 9};
  for (int32_t s = 0; s < n; ++s) {
    for (int32_t r = 0; r < n; ++r) {
      int64_t count = program.sendCounts[size_t(s * n + r)];
      uint32_t chunks = count >= int64_t(k) ? k : uint32_t(count);
      if (chunks == 0)
        continue;
      if (s == r) {
        add(program, s, 0,
            copy(input(uint32_t(r) * k, chunks),
                 output(uint32_t(s) * k, chunks), 0));
        continue;
      }
      add(program, s, 0, send(r, input(uint32_t(r) * k, chunks), 0));
      add(program, r, 0, recv(s, output(uint32_t(s) * k, chunks), 0));
    }
  }
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
}

/// A direct reduce to the root through scratch, with a dependency between
/// the receiving channel and the reducing one; only the root's output is
/// constrained.
TEST(PassingSchedulesTest, DirectReduceToRootWithDependencies) {
  const int32_t n = 4, root = 2;
  Program program = makeProgram(Collective::Reduce, n, 2, /*scratch=*/2 * n);
  program.root = root;
  add(program, root, 0, copy(input(0, 2), output(0, 2), 0));
  for (int32_t s = 0; s < n; ++s) {
    if (s == root)
      continue;
    add(program, s, 1, send(root, input(0, 2), 0));
    uint32_t slot = uint32_t(s) * 2;
    uint32_t received = add(program, root, 1, recv(s, scratch(slot, 2), 0));
    uint32_t reduced =
        add(program, root, 0, reduce(scratch(slot, 2), output(0, 2), 1));
    addDependency(program, root, 0, reduced, 1, received);
  }
  VerifyResult result = verifyProgram(program, VerifyOptions());
  EXPECT_TRUE(result.ok()) << ::testing::PrintToString(messages(result));
}

} // namespace

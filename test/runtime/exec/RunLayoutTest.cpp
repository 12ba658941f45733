//===- RunLayoutTest.cpp - which slices a send may leave in place ---------===//
//
// RunLayout::stableSource decides whether a message's slices may stay in
// the sender's memory until the run ends (Transport.h's trySendParts
// `stable`; docs/runtime.md): input chunks when nothing writes the input,
// output and scratch chunks that exactly one instruction writes. A wrong
// "stable" would let a receiver read bytes that changed after the send;
// the cross-process runs of test/tools/collc-run/stable-sends.test check
// the results, this test the rule.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "Schedules.h"

#include "runtime/exec/RunLayout.h"

#include <gtest/gtest.h>

namespace collrt {
namespace testing {
namespace {

using exec::buildRunLayout;
using exec::RunLayout;

RunLayout layoutOf(const Program &program, int32_t rank, int64_t count) {
  Plan plan = makePlan(program, DataType::F32, ReduceOp::Sum);
  RunLayout layout;
  Status s = buildRunLayout(plan.collectives[0], 0, rank, program.numRanks,
                            count, 1 << 20, &layout);
  EXPECT_TRUE(s.ok()) << s.toString();
  return layout;
}

TEST(RunLayoutTest, RingAllReduceSendsEveryChunkFromWhereItIs) {
  // Nothing writes the input; every output chunk is written once (by the
  // recv_reduce_copy_send or recv_copy_send that produces it).
  Program ring = ringAllReduce(4, 2, 1);
  RunLayout layout = layoutOf(ring, 1, 4096);
  ASSERT_EQ(layout.writers[int(Buffer::Input)].size(), 8u);
  ASSERT_EQ(layout.writers[int(Buffer::Output)].size(), 8u);
  for (uint32_t c = 0; c < 8; ++c) {
    EXPECT_EQ(layout.writers[int(Buffer::Input)][c], 0u) << c;
    EXPECT_EQ(layout.writers[int(Buffer::Output)][c], 1u) << c;
  }
  EXPECT_FALSE(layout.writesInput);
  EXPECT_TRUE(layout.stableSource(in(0, 8)));
  EXPECT_TRUE(layout.stableSource(out(0, 8)));
}

TEST(RunLayoutTest, ChunksWrittenTwiceOrAWrittenInputAreNotStable) {
  // all_gather on 2 ranks, 1 chunk per part: rank 0 copies its input to
  // output[0] and then receives into output[0] again; output[1] is written
  // once.
  Program p = emptyProgram(Collective::AllGather, 2, 1);
  append(p, 0, 0, copyTo(in(0), out(0)));
  append(p, 0, 0, recvFrom(1, out(0), 1));
  append(p, 0, 0, recvFrom(1, out(1), 2));
  append(p, 1, 0, sendTo(0, in(0), 1));
  append(p, 1, 0, sendTo(0, in(0), 2));
  RunLayout layout = layoutOf(p, 0, 1024);
  EXPECT_EQ(layout.writers[int(Buffer::Output)][0], 2u);
  EXPECT_EQ(layout.writers[int(Buffer::Output)][1], 1u);
  EXPECT_FALSE(layout.stableSource(out(0)));
  EXPECT_TRUE(layout.stableSource(out(1)));
  EXPECT_FALSE(layout.stableSource(out(0, 2)));
  EXPECT_TRUE(layout.stableSource(in(0)));

  // An instruction that writes the input makes every input chunk unstable
  // (the executor then works on a private copy of sendbuf), also one it
  // does not write.
  Program q = emptyProgram(Collective::AllReduce, 2, 2);
  append(q, 0, 0, recvFrom(1, in(0), 1));
  append(q, 1, 0, sendTo(0, in(0), 1));
  RunLayout written = layoutOf(q, 0, 1024);
  EXPECT_TRUE(written.writesInput);
  EXPECT_EQ(written.writers[int(Buffer::Input)][1], 0u);
  EXPECT_FALSE(written.stableSource(in(1)));
  EXPECT_FALSE(written.stableSource(in(0)));
  // Rank 1 writes nothing: its input is stable.
  EXPECT_TRUE(layoutOf(q, 1, 1024).stableSource(in(0, 2)));
}

} // namespace
} // namespace testing
} // namespace collrt

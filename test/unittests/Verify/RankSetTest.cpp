//===- RankSetTest.cpp - interval sets of ranks and their spelling --------===//
#include "compiler/Verify/RankSet.h"
#include "compiler/Verify/Messages.h"

#include <gtest/gtest.h>

using namespace collc::sched;

namespace {

/// The union of {r} for r in `ranks`, built one rank at a time.
RankSetPool::Handle setOf(RankSetPool &pool, std::vector<uint32_t> ranks) {
  RankSetPool::Handle set = pool.singleton(ranks[0]);
  for (size_t i = 1; i < ranks.size(); ++i) {
    RankSetPool::Handle overlap;
    set = pool.unite(set, pool.singleton(ranks[i]), &overlap);
  }
  return set;
}

TEST(RankSetTest, Spelling) {
  RankSetPool pool(2048);
  EXPECT_EQ(formatRankSet(pool, pool.allRanks()), "0..2047");
  EXPECT_EQ(formatRankSet(pool, pool.singleton(5)), "{5}");
  EXPECT_EQ(formatRankSet(pool, setOf(pool, {1, 0})), "{0,1}");
  EXPECT_EQ(formatRankSet(pool, setOf(pool, {6, 0, 3, 1, 2})), "{0..3,6}");
  std::vector<uint32_t> even;
  for (uint32_t r = 0; r < 1024; r += 2)
    even.push_back(r);
  EXPECT_EQ(formatRankSet(pool, setOf(pool, even)),
            "{0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,...,1022 (512 "
            "ranks)}");
}

TEST(RankSetTest, UnionCoalescesAndReportsOverlap) {
  RankSetPool pool(16);
  RankSetPool::Handle overlap;
  // A ring's partial sums wrap around: {14,15} + {0..2} + {3} = {0..3,14,15}.
  RankSetPool::Handle wrapped =
      pool.unite(setOf(pool, {14, 15}), setOf(pool, {0, 1, 2}), &overlap);
  EXPECT_EQ(overlap, RankSetPool::kNone);
  wrapped = pool.unite(wrapped, pool.singleton(3), &overlap);
  EXPECT_EQ(pool.intervalCount(wrapped), 2u);
  EXPECT_EQ(pool.size(wrapped), 6u);
  EXPECT_TRUE(pool.equal(wrapped, setOf(pool, {15, 0, 3, 2, 14, 1})));

  RankSetPool::Handle both =
      pool.unite(wrapped, setOf(pool, {2, 3, 4, 9}), &overlap);
  ASSERT_NE(overlap, RankSetPool::kNone);
  EXPECT_EQ(formatRankSet(pool, overlap), "{2,3}");
  EXPECT_EQ(formatRankSet(pool, both), "{0..4,9,14,15}");
}

} // namespace

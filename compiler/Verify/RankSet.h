//===- RankSet.h - compact sets of ranks for symbolic values ----*- C++ -*-===//
//
// The ranks contributing to a symbolic value, as sorted closed intervals.
// Partial sums of ring, tree, halving-doubling and hierarchical algorithms
// are one or two intervals, so a set costs a few words even at 1024+ ranks,
// where a bitset would cost 128 bytes per chunk.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_RANKSET_H
#define COLLC_COMPILER_VERIFY_RANKSET_H

#include <cstdint>
#include <vector>

namespace collc {
namespace sched {

/// A closed interval of ranks [first, last].
struct RankInterval {
  uint32_t first;
  uint32_t last;
};

/// Immutable rank sets in one arena, named by 32-bit handles. Intervals of a
/// set are sorted, disjoint and never adjacent (they are coalesced), so two
/// sets are equal exactly when their interval lists are. Sets are never
/// freed: the arena grows with the number of reductions, which is linear in
/// the program.
class RankSetPool {
public:
  using Handle = uint32_t;
  /// No set (used for "no overlap").
  static constexpr Handle kNone = UINT32_MAX;

  /// Pre-creates {r} for every rank and the set of all ranks.
  explicit RankSetPool(uint32_t numRanks);

  Handle singleton(uint32_t rank) const { return singletons[rank]; }
  Handle allRanks() const { return all; }

  /// The union of `a` and `b`; `*overlap` receives their intersection, or
  /// kNone when they are disjoint.
  Handle unite(Handle a, Handle b, Handle *overlap);

  bool equal(Handle a, Handle b) const;
  uint32_t intervalCount(Handle set) const { return words[set]; }
  RankInterval interval(Handle set, uint32_t i) const {
    return {words[set + 1 + 2 * i], words[set + 2 + 2 * i]};
  }
  /// Number of ranks in the set.
  uint64_t size(Handle set) const;

private:
  Handle intersect(Handle a, Handle b);
  Handle store(const std::vector<RankInterval> &intervals);

  // Each set: [n, first0, last0, first1, last1, ...].
  std::vector<uint32_t> words;
  std::vector<Handle> singletons;
  Handle all = 0;
  std::vector<RankInterval> merged; // reused by unite and intersect
};

} // namespace sched
} // namespace collc

#endif

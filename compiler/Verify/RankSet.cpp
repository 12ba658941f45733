//===- RankSet.cpp - compact sets of ranks for symbolic values ------------===//
#include "compiler/Verify/RankSet.h"

#include <algorithm>

namespace collc {
namespace sched {

RankSetPool::RankSetPool(uint32_t numRanks) {
  words.reserve(3 * (size_t(numRanks) + 1));
  singletons.reserve(numRanks);
  for (uint32_t r = 0; r < numRanks; ++r)
    singletons.push_back(store({{r, r}}));
  all = numRanks == 0 ? store({}) : store({{0, numRanks - 1}});
}

RankSetPool::Handle
RankSetPool::store(const std::vector<RankInterval> &intervals) {
  Handle handle = static_cast<Handle>(words.size());
  words.push_back(static_cast<uint32_t>(intervals.size()));
  for (const RankInterval &interval : intervals) {
    words.push_back(interval.first);
    words.push_back(interval.last);
  }
  return handle;
}

RankSetPool::Handle RankSetPool::unite(Handle a, Handle b, Handle *overlap) {
  merged.clear();
  uint32_t na = intervalCount(a), nb = intervalCount(b);
  uint32_t ia = 0, ib = 0;
  bool intersects = false;
  while (ia < na || ib < nb) {
    RankInterval next;
    if (ib == nb || (ia < na && interval(a, ia).first < interval(b, ib).first))
      next = interval(a, ia++);
    else
      next = interval(b, ib++);
    // Intervals of one set are disjoint and not adjacent, so an overlap with
    // the merged tail is always an overlap between the two sets.
    if (!merged.empty() && next.first <= merged.back().last)
      intersects = true;
    if (!merged.empty() &&
        uint64_t(next.first) <= uint64_t(merged.back().last) + 1)
      merged.back().last = std::max(merged.back().last, next.last);
    else
      merged.push_back(next);
  }
  Handle result = store(merged);
  *overlap = intersects ? intersect(a, b) : kNone;
  return result;
}

RankSetPool::Handle RankSetPool::intersect(Handle a, Handle b) {
  merged.clear();
  uint32_t na = intervalCount(a), nb = intervalCount(b);
  uint32_t ia = 0, ib = 0;
  while (ia < na && ib < nb) {
    RankInterval x = interval(a, ia), y = interval(b, ib);
    uint32_t first = std::max(x.first, y.first);
    uint32_t last = std::min(x.last, y.last);
    if (first <= last)
      merged.push_back({first, last});
    if (x.last < y.last)
      ++ia;
    else
      ++ib;
  }
  return store(merged);
}

bool RankSetPool::equal(Handle a, Handle b) const {
  if (a == b)
    return true;
  uint32_t n = intervalCount(a);
  if (n != intervalCount(b))
    return false;
  return std::equal(words.begin() + a + 1, words.begin() + a + 1 + 2 * n,
                    words.begin() + b + 1);
}

uint64_t RankSetPool::size(Handle set) const {
  uint64_t total = 0;
  for (uint32_t i = 0, n = intervalCount(set); i < n; ++i) {
    RankInterval interval = this->interval(set, i);
    total += uint64_t(interval.last) - interval.first + 1;
  }
  return total;
}

} // namespace sched
} // namespace collc

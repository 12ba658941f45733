//===- SendCounts.cpp - random all_to_all_v send counts for checked runs --===//
#include "runtime/check/SendCounts.h"

#include <algorithm>

namespace collrt {
namespace check {

namespace {

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

} // namespace

std::vector<int64_t> randomSendCounts(int32_t n, int64_t rowsPerRank,
                                      int64_t rowElements, uint64_t seed) {
  size_t ranks = size_t(std::max(n, 0));
  std::vector<int64_t> counts(ranks * ranks, 0);
  if (ranks == 0)
    return counts;
  uint64_t state = seed;
  std::vector<int64_t> cuts(ranks + 1);
  for (size_t s = 0; s < ranks; ++s) {
    cuts[0] = 0;
    cuts[ranks] = rowsPerRank;
    for (size_t i = 1; i < ranks; ++i)
      cuts[i] = int64_t(splitmix64(state) % uint64_t(rowsPerRank + 1));
    std::sort(cuts.begin() + 1, cuts.end() - 1);
    for (size_t r = 0; r < ranks; ++r)
      counts[s * ranks + r] = (cuts[r + 1] - cuts[r]) * rowElements;
  }
  return counts;
}

std::vector<int64_t> transposeCounts(const std::vector<int64_t> &counts,
                                     int32_t n) {
  size_t ranks = size_t(std::max(n, 0));
  std::vector<int64_t> t(counts.size(), 0);
  for (size_t s = 0; s < ranks; ++s)
    for (size_t r = 0; r < ranks; ++r)
      if (s * ranks + r < counts.size())
        t[r * ranks + s] = counts[s * ranks + r];
  return t;
}

void countRange(const std::vector<int64_t> &counts, int64_t rowElements,
                int64_t *least, int64_t *most) {
  int64_t row = std::max<int64_t>(rowElements, 1);
  *least = 0;
  *most = 0;
  if (counts.empty())
    return;
  auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  *least = *lo / row;
  *most = *hi / row;
}

} // namespace check
} // namespace collrt

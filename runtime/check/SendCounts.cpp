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
  constexpr uint64_t kScale = uint64_t(1) << 20;
  std::vector<uint64_t> weight(ranks);
  std::vector<std::pair<uint64_t, size_t>> remainder(ranks);
  for (size_t s = 0; s < ranks; ++s) {
    // Weights: 0 with probability 1/8, else uniform in [1, 2^21).
    unsigned __int128 total = 0;
    for (size_t r = 0; r < ranks; ++r) {
      uint64_t x = splitmix64(state);
      weight[r] = (x & 7) == 0 ? 0 : 1 + ((x >> 3) % (2 * kScale - 1));
      total += weight[r];
    }
    int64_t *row = &counts[s * ranks];
    if (total == 0) {
      row[s] = rowsPerRank * rowElements; // every weight 0: keep them all
      continue;
    }
    // Rows in proportion to the weights, the remainder to the largest
    // fractions (ties to the lower rank), so the row sums exactly.
    int64_t given = 0;
    for (size_t r = 0; r < ranks; ++r) {
      unsigned __int128 scaled = (unsigned __int128)rowsPerRank * weight[r];
      row[r] = int64_t(scaled / total);
      remainder[r] = {uint64_t(scaled % total), r};
      given += row[r];
    }
    std::sort(
        remainder.begin(), remainder.end(), [](const auto &a, const auto &b) {
          return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
    for (size_t i = 0; given < rowsPerRank; ++i, ++given)
      ++row[remainder[i % ranks].second];
    for (size_t r = 0; r < ranks; ++r)
      row[r] *= rowElements;
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

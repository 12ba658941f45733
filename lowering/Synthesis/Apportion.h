//===- Apportion.h - whole units in proportion to shares -------*- C++ -*-===//
//
// The packings' schedules give each tree whole units of a buffer in
// proportion to its rate: one unit each, the rest by largest remainder.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_APPORTION_H
#define COLLC_LOWERING_SYNTHESIS_APPORTION_H

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace collc::synth {

/// `total` units split among `weights` (all zero: equally) in proportion,
/// at least one each, the units left after the whole parts going to the
/// largest remainders. `total` must be at least weights.size().
inline std::vector<int> apportion(const std::vector<double> &weights,
                                  int total) {
  const size_t m = weights.size();
  std::vector<int> units(m, 1);
  if (m == 0)
    return units;
  double sum = 0;
  for (double w : weights)
    sum += w;
  int left = total - int(m);
  std::vector<double> remainder(m);
  for (size_t i = 0; i < m; ++i) {
    double want = (sum > 0 ? weights[i] / sum : 1.0 / double(m)) * total - 1;
    int whole = std::min(std::max(left, 0), std::max(0, int(std::floor(want))));
    units[i] += whole;
    left -= whole;
    remainder[i] = want - whole;
  }
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return remainder[a] > remainder[b];
  });
  for (size_t i = 0; left > 0; i = (i + 1) % m, --left)
    ++units[order[i]];
  return units;
}

} // namespace collc::synth

#endif

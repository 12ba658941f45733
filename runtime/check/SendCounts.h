//===- SendCounts.h - random all_to_all_v send counts for checked runs -*-===//
//
// An all_to_all_v whose plan leaves its send counts to run time runs under
// collc --run and collc-run with counts drawn here: the same N x N matrix on
// every rank for the same seed (no exchange needed), every sender's rows
// split among the N receivers in proportion to random weights (one in eight
// receivers, on average, gets nothing; the others from about nothing to
// 2.3 times the mean), like the loads of a router's experts; counts in elements
// (whole rows of `rowElements`).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_CHECK_SENDCOUNTS_H
#define COLLRT_CHECK_SENDCOUNTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace check {

/// N x N element counts, row-major by sender: sender s's `rowsPerRank` rows
/// of `rowElements` elements each, split among the N receivers in
/// proportion to weights drawn from a splitmix64 stream seeded with `seed`
/// (so every platform draws the same matrix): a weight is 0 with
/// probability 1/8, else uniform in (0, 2) times the mean weight
/// (so nonzero entries reach about 2.3 times the mean count); rows are given
/// by the largest remainder, so each row sums to exactly
/// rowsPerRank * rowElements (a sender whose weights are all 0 keeps its
/// rows).
std::vector<int64_t> randomSendCounts(int32_t n, int64_t rowsPerRank,
                                      int64_t rowElements, uint64_t seed);

/// The transpose of an N x N matrix (a MoE combine sends back what the
/// dispatch delivered).
std::vector<int64_t> transposeCounts(const std::vector<int64_t> &counts,
                                     int32_t n);

/// The smallest and largest entry of `counts`, in rows of `rowElements`.
void countRange(const std::vector<int64_t> &counts, int64_t rowElements,
                int64_t *least, int64_t *most);

} // namespace check
} // namespace collrt

#endif

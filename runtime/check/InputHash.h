//===- InputHash.h - the hashes behind TestData's inputs --------*- C++ -*-===//
//
// Input element i of group rank r in iteration t is drawn from
//
//   hash = mix(mix(key) + i),  key = i * kIndexStep + (r + 1) * kRankStep
//                                    + (t + 1) * kIterationStep  (mod 2^64)
//
// with mix MurmurHash3's 64-bit finalizer. Consecutive elements' keys differ
// by kIndexStep, so a run of hashes is a loop of independent multiplies that
// the vector units compute several at a time (hashElements).
//
// Internal to runtime/check.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_CHECK_INPUTHASH_H
#define COLLRT_CHECK_INPUTHASH_H

#include <cstdint>

namespace collrt {
namespace check {

constexpr uint64_t kIndexStep = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kRankStep = 0xc2b2ae3d27d4eb4fULL;
constexpr uint64_t kIterationStep = 0x165667b19e3779f9ULL;

/// MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/// The hash key of element `index` of `rank` in `iteration`.
inline uint64_t elementKey(int32_t rank, int64_t index, uint64_t iteration) {
  return static_cast<uint64_t>(index) * kIndexStep +
         (static_cast<uint64_t>(rank) + 1) * kRankStep +
         (iteration + 1) * kIterationStep;
}

/// out[j] = the hash of element index + j, for j < count, where `key` is
/// element `index`'s key. Uses AVX-512 where the processor has it (the
/// same integer arithmetic, eight elements at a time).
void hashElements(uint64_t key, int64_t index, int64_t count, uint64_t *out);
/// The same on the scalar path only (tests compare the two).
void hashElementsScalar(uint64_t key, int64_t index, int64_t count,
                        uint64_t *out);

} // namespace check
} // namespace collrt

#endif

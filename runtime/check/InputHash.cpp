//===- InputHash.cpp - runs of input hashes, vectorized where possible ----===//
#include "runtime/check/InputHash.h"

namespace collrt {
namespace check {

namespace {
/// The loop both paths compile: independent iterations, so the compiler
/// vectorizes it for whatever instruction set the function is built for.
__attribute__((always_inline)) inline void
hashLoop(uint64_t key, int64_t index, int64_t count, uint64_t *out) {
  for (int64_t j = 0; j < count; ++j)
    out[j] = mix(mix(key + static_cast<uint64_t>(j) * kIndexStep) +
                 static_cast<uint64_t>(index) + static_cast<uint64_t>(j));
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define COLLRT_CHECK_AVX512 1
// 64-bit multiplies in vector registers need AVX-512DQ (vpmullq).
__attribute__((target("avx512f,avx512dq,avx512vl"))) void
hashLoopAvx512(uint64_t key, int64_t index, int64_t count, uint64_t *out) {
  hashLoop(key, index, count, out);
}

bool haveAvx512() {
  // libgcc's check includes the operating system's support (XCR0).
  static const bool have = __builtin_cpu_supports("avx512f") &&
                           __builtin_cpu_supports("avx512dq") &&
                           __builtin_cpu_supports("avx512vl");
  return have;
}
#endif
} // namespace

void hashElementsScalar(uint64_t key, int64_t index, int64_t count,
                        uint64_t *out) {
  hashLoop(key, index, count, out);
}

void hashElements(uint64_t key, int64_t index, int64_t count, uint64_t *out) {
#ifdef COLLRT_CHECK_AVX512
  if (haveAvx512()) {
    hashLoopAvx512(key, index, count, out);
    return;
  }
#endif
  hashLoop(key, index, count, out);
}

} // namespace check
} // namespace collrt

//===- ReferenceFloat.h - slow reference conversions for tests --*- C++ -*-===//
//
// The narrow floating point formats written from their definitions with
// frexp/ldexp and nearbyint (round to nearest even in the default rounding
// mode), on doubles: a second implementation that shares no code or trick
// with NarrowFloat.h's bit manipulation, to test it against.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_EXEC_REFERENCEFLOAT_H
#define COLLRT_TEST_EXEC_REFERENCEFLOAT_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace collrt {
namespace testing {

struct ReferenceFormat {
  const char *name;
  int expBits;
  int manBits;
  int bias;
  /// IEEE-like (infinities, NaNs in the top exponent); otherwise "FN": no
  /// infinity, the single NaN pattern all ones, overflow saturates.
  bool hasInfinity;

  int bits() const { return 1 + expBits + manBits; }
  uint32_t patterns() const { return 1u << bits(); }
  uint32_t signBit() const { return 1u << (expBits + manBits); }
  uint32_t topExponent() const { return (1u << expBits) - 1; }
  uint32_t maxFinitePattern() const {
    return hasInfinity ? (topExponent() << manBits) - 1
                       : (topExponent() << manBits) | ((1u << manBits) - 2);
  }
  uint32_t infinityPattern() const { return topExponent() << manBits; }

  bool isNaN(uint32_t p) const {
    uint32_t e = (p >> manBits) & topExponent();
    uint32_t m = p & ((1u << manBits) - 1);
    if (hasInfinity)
      return e == topExponent() && m != 0;
    return e == topExponent() && m == (1u << manBits) - 1;
  }

  double decode(uint32_t p) const {
    bool negative = (p & signBit()) != 0;
    uint32_t e = (p >> manBits) & topExponent();
    uint32_t m = p & ((1u << manBits) - 1);
    double magnitude;
    if (isNaN(p))
      magnitude = std::numeric_limits<double>::quiet_NaN();
    else if (hasInfinity && e == topExponent())
      magnitude = std::numeric_limits<double>::infinity();
    else if (e == 0)
      magnitude = std::ldexp(double(m), 1 - bias - manBits);
    else
      magnitude =
          std::ldexp(double(m + (1u << manBits)), int(e) - bias - manBits);
    return negative ? -magnitude : magnitude;
  }

  /// Rounds `x` to nearest even; NaN gives the positive or negative quiet
  /// NaN pattern (callers compare NaNs by isNaN).
  uint32_t encode(double x) const {
    uint32_t sign = std::signbit(x) ? signBit() : 0;
    if (std::isnan(x))
      return sign |
             (hasInfinity ? (topExponent() << manBits) | (1u << (manBits - 1))
                          : (topExponent() << manBits) | ((1u << manBits) - 1));
    double a = std::fabs(x);
    uint32_t overflow = hasInfinity ? infinityPattern() : maxFinitePattern();
    if (std::isinf(a))
      return sign | overflow;
    if (a == 0)
      return sign;
    int e;
    std::frexp(a, &e); // a = f 2^e, f in [0.5, 1)
    int exponent = std::max(e - 1, 1 - bias);
    double significand = std::nearbyint(std::ldexp(a, manBits - exponent));
    if (significand >= std::ldexp(1.0, manBits + 1)) {
      significand /= 2;
      ++exponent;
    }
    if (std::ldexp(significand, exponent - manBits) >
        decode(maxFinitePattern()))
      return sign | overflow;
    uint32_t s = uint32_t(significand);
    if (s < (1u << manBits)) // subnormal (or zero)
      return sign | s;
    return sign | (uint32_t(exponent + bias) << manBits) |
           (s - (1u << manBits));
  }
};

constexpr ReferenceFormat kF16Ref{"f16", 5, 10, 15, true};
constexpr ReferenceFormat kBF16Ref{"bf16", 8, 7, 127, true};
constexpr ReferenceFormat kF8E5M2Ref{"f8E5M2", 5, 2, 15, true};
constexpr ReferenceFormat kF8E4M3FNRef{"f8E4M3FN", 4, 3, 7, false};

} // namespace testing
} // namespace collrt

#endif

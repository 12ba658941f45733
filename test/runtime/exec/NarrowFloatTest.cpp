//===- NarrowFloatTest.cpp - f16/bf16/f8 conversions, exhaustively --------===//
//
// Every bit pattern of the 8- and 16-bit formats is decoded and re-encoded;
// every rounding boundary between two neighbouring values (the midpoint and
// the floats on either side of it) and 2^21 random floats are encoded; all
// against ReferenceFloat.h.
//
//===----------------------------------------------------------------------===//
#include "ReferenceFloat.h"

#include "runtime/exec/NarrowFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace collrt {
namespace {

using exec::bitsFloat;
using exec::floatBits;
using testing::ReferenceFormat;

std::string hex(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", v);
  return text;
}

/// The implementation's encoding of `x` agrees with the reference's.
template <class Format>
::testing::AssertionResult encodesLikeReference(const ReferenceFormat &ref,
                                                float x) {
  uint32_t got = Format::encode(x);
  uint32_t want = ref.encode(double(x));
  if (ref.isNaN(want)
          ? ref.isNaN(got) && (got & ref.signBit()) == (want & ref.signBit())
          : got == want)
    return ::testing::AssertionSuccess();
  char value[64];
  std::snprintf(value, sizeof value, "%.9g (f32 %s)", double(x),
                hex(floatBits(x)).c_str());
  return ::testing::AssertionFailure()
         << ref.name << " encode " << value << ": got " << hex(got)
         << ", reference " << hex(want);
}

template <class Format>
void checkDecodeEveryPattern(const ReferenceFormat &ref) {
  for (uint32_t p = 0; p < ref.patterns(); ++p) {
    float got = Format::decode(typename Format::Storage(p));
    double want = ref.decode(p);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << ref.name << " pattern " << hex(p);
      ASSERT_EQ(std::signbit(got), std::signbit(want))
          << ref.name << " pattern " << hex(p);
      continue;
    }
    ASSERT_EQ(floatBits(got), floatBits(float(want)))
        << ref.name << " pattern " << hex(p) << ": got " << got
        << ", reference " << want;
    ASSERT_EQ(double(float(want)), want) << "not exact in f32";
  }
}

template <class Format>
void checkRoundTripEveryPattern(const ReferenceFormat &ref) {
  for (uint32_t p = 0; p < ref.patterns(); ++p) {
    uint32_t back = Format::encode(Format::decode(typename Format::Storage(p)));
    if (ref.isNaN(p)) {
      ASSERT_TRUE(ref.isNaN(back)) << ref.name << " NaN " << hex(p);
      ASSERT_EQ(back & ref.signBit(), p & ref.signBit());
    } else {
      ASSERT_EQ(back, p) << ref.name << " pattern " << hex(p);
    }
  }
}

/// Midpoints of neighbouring values and the floats next to them, both signs;
/// the last interval reaches the first value past the largest finite one
/// (infinity's threshold, or the saturation boundary).
template <class Format>
void checkRoundingBoundaries(const ReferenceFormat &ref) {
  std::vector<double> values;
  for (uint32_t p = 0; p <= ref.maxFinitePattern(); ++p)
    if (!ref.isNaN(p))
      values.push_back(ref.decode(p));
  double top = values.back();
  double lastStep = top - values[values.size() - 2];
  values.push_back(top + lastStep);
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    ASSERT_LT(values[i], values[i + 1]) << ref.name << " not increasing";
    double mid = (values[i] + values[i + 1]) / 2;
    float m = float(mid);
    ASSERT_EQ(double(m), mid) << "midpoint not exact in f32";
    for (float x : {m, std::nextafter(m, 0.0f),
                    std::nextafter(m, std::numeric_limits<float>::infinity()),
                    float(values[i])}) {
      ASSERT_TRUE(encodesLikeReference<Format>(ref, x));
      ASSERT_TRUE(encodesLikeReference<Format>(ref, -x));
    }
  }
  float specials[] = {0.0f,
                      std::numeric_limits<float>::infinity(),
                      std::numeric_limits<float>::max(),
                      std::numeric_limits<float>::min(),
                      std::numeric_limits<float>::denorm_min(),
                      std::numeric_limits<float>::quiet_NaN(),
                      1e30f,
                      float(top) * 2,
                      float(top) * 1.0625f};
  for (float x : specials) {
    EXPECT_TRUE(encodesLikeReference<Format>(ref, x));
    EXPECT_TRUE(encodesLikeReference<Format>(ref, -x));
  }
}

template <class Format> void checkRandomFloats(const ReferenceFormat &ref) {
  std::mt19937 rng(12345);
  for (int i = 0; i < (1 << 21); ++i) {
    float x = bitsFloat(uint32_t(rng()));
    ASSERT_TRUE(encodesLikeReference<Format>(ref, x));
  }
  // Random floats near the format's range, where most roundings happen.
  std::uniform_real_distribution<double> exponent(
      -ref.bias - ref.manBits - 2, (1 << ref.expBits) - ref.bias);
  std::uniform_real_distribution<double> unit(1, 2);
  for (int i = 0; i < (1 << 20); ++i) {
    float x = float(std::ldexp(unit(rng), int(exponent(rng))));
    ASSERT_TRUE(encodesLikeReference<Format>(ref, (i & 1) ? -x : x));
  }
}

#define NARROW_FLOAT_TESTS(Name, Format, Ref)                                  \
  TEST(NarrowFloatTest, Name##DecodesEveryPattern) {                           \
    checkDecodeEveryPattern<exec::Format>(testing::Ref);                       \
  }                                                                            \
  TEST(NarrowFloatTest, Name##RoundTripsEveryPattern) {                        \
    checkRoundTripEveryPattern<exec::Format>(testing::Ref);                    \
  }                                                                            \
  TEST(NarrowFloatTest, Name##RoundsEveryBoundaryToNearestEven) {              \
    checkRoundingBoundaries<exec::Format>(testing::Ref);                       \
  }                                                                            \
  TEST(NarrowFloatTest, Name##EncodesRandomFloats) {                           \
    checkRandomFloats<exec::Format>(testing::Ref);                             \
  }

NARROW_FLOAT_TESTS(F16, F16Format, kF16Ref)
NARROW_FLOAT_TESTS(BF16, BF16Format, kBF16Ref)
NARROW_FLOAT_TESTS(F8E5M2, F8E5M2Format, kF8E5M2Ref)
NARROW_FLOAT_TESTS(F8E4M3FN, F8E4M3FNFormat, kF8E4M3FNRef)

// The documented edge cases, spelled out.
TEST(NarrowFloatTest, DocumentedOverflowAndNaN) {
  EXPECT_EQ(exec::f32ToF16(65520.0f), 0x7c00);     // rounds up to infinity
  EXPECT_EQ(exec::f32ToF16(65519.0f), 0x7bff);     // 65504
  EXPECT_EQ(exec::f32ToF8E4M3FN(1e9f), 0x7e);      // saturates to 448
  EXPECT_EQ(exec::f32ToF8E4M3FN(-INFINITY), 0xfe); // -448
  EXPECT_EQ(exec::f32ToF8E4M3FN(464.0f), 0x7e);    // tie to even: 448
  EXPECT_EQ(exec::f32ToF8E5M2(61440.0f), 0x7c);    // infinity
  EXPECT_EQ(exec::f32ToBF16(NAN) & 0x7fc0, 0x7fc0);
  EXPECT_EQ(exec::f32ToF8E4M3FN(-NAN), 0xff);
  EXPECT_EQ(exec::f8E4M3FNToF32(0x7e), 448.0f);
  EXPECT_TRUE(std::isnan(exec::f8E4M3FNToF32(0x7f)));
  EXPECT_EQ(exec::f8E4M3FNToF32(0x01), std::ldexp(1.0f, -9)); // subnormal
  EXPECT_EQ(exec::f16ToF32(0x0001), std::ldexp(1.0f, -24));
}

} // namespace
} // namespace collrt

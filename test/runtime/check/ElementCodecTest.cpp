//===- ElementCodecTest.cpp - the reference's element conversions ---------===//
#include "runtime/check/ElementCodec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace collrt;
using namespace collrt::check;

namespace {
uint64_t encodeBits(DataType type, double v) {
  uint64_t slot = 0;
  storeElement(type, &slot, 0, v);
  return slot;
}
double decodeBits(DataType type, uint64_t bits) {
  return loadElement(type, &bits, 0);
}
} // namespace

TEST(ElementCodec, KnownF16) {
  EXPECT_EQ(encodeBits(DataType::F16, 1.0), 0x3c00u);
  EXPECT_EQ(encodeBits(DataType::F16, -2.0), 0xc000u);
  EXPECT_EQ(encodeBits(DataType::F16, 65504.0), 0x7bffu);
  EXPECT_EQ(encodeBits(DataType::F16, 65520.0), 0x7c00u); // rounds to inf
  EXPECT_EQ(encodeBits(DataType::F16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(encodeBits(DataType::F16, std::ldexp(1.0, -14)), 0x0400u);
  // Ties to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(encodeBits(DataType::F16, 1.0 + std::ldexp(1.0, -11)), 0x3c00u);
  EXPECT_EQ(encodeBits(DataType::F16, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02u);
  EXPECT_EQ(encodeBits(DataType::F16, -0.0), 0x8000u);
  EXPECT_TRUE(std::isnan(decodeBits(DataType::F16, 0x7e00)));
  EXPECT_TRUE(std::isinf(decodeBits(DataType::F16, 0xfc00)));
}

TEST(ElementCodec, KnownF8) {
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, 1.0), 0x38u);
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, 448.0), 0x7eu);
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, -448.0), 0xfeu);
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, 500.0), 0x7fu); // no infinity
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, std::ldexp(1.0, -9)), 0x01u);
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, 17.0), 0x58u); // 17 -> 16 (even)
  EXPECT_EQ(encodeBits(DataType::F8E4M3FN, 19.0), 0x5au); // 19 -> 20
  EXPECT_TRUE(std::isnan(decodeBits(DataType::F8E4M3FN, 0xff)));
  EXPECT_TRUE(std::isnan(decodeBits(DataType::F8E4M3FN, 0x7f)));
  EXPECT_EQ(decodeBits(DataType::F8E4M3FN, 0x7e), 448.0);

  EXPECT_EQ(encodeBits(DataType::F8E5M2, 1.0), 0x3cu);
  EXPECT_EQ(encodeBits(DataType::F8E5M2, 57344.0), 0x7bu);
  EXPECT_EQ(encodeBits(DataType::F8E5M2, 1e6), 0x7cu); // inf
  EXPECT_EQ(encodeBits(DataType::F8E5M2, std::ldexp(1.0, -16)), 0x01u);
  EXPECT_TRUE(std::isnan(decodeBits(DataType::F8E5M2, 0xff)));
  EXPECT_TRUE(std::isinf(decodeBits(DataType::F8E5M2, 0x7c)));
}

TEST(ElementCodec, EverySmallPatternRoundTrips) {
  for (DataType type :
       {DataType::F16, DataType::BF16, DataType::F8E4M3FN, DataType::F8E5M2}) {
    uint32_t patterns = 1u << (8 * dataTypeSize(type));
    double previous = -INFINITY;
    for (uint32_t bits = 0; bits < patterns; ++bits) {
      double v = decodeBits(type, bits);
      if (std::isnan(v))
        continue;
      EXPECT_EQ(encodeBits(type, v), bits)
          << dataTypeName(type) << " pattern " << bits;
      // Positive patterns increase with their value.
      uint32_t signBit = patterns >> 1;
      if (bits > 0 && bits < signBit && !std::isnan(v)) {
        EXPECT_GT(v, previous) << dataTypeName(type) << " pattern " << bits;
        previous = v;
      }
    }
  }
}

TEST(ElementCodec, BF16MatchesRoundedFloatBits) {
  // bf16 is the top half of an f32; round to nearest even by the usual
  // integer formula, independent of the codec's.
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1e6f, 1e6f);
  for (int i = 0; i < 100000; ++i) {
    float f = uniform(random) * std::ldexp(1.0f, int(random() % 60) - 30);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t rounded = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
    ASSERT_EQ(encodeBits(DataType::BF16, f), rounded) << f;
  }
}

TEST(ElementCodec, IntegersAndWideFloats) {
  EXPECT_EQ(encodeBits(DataType::I8, -3), 0xfdu);
  EXPECT_EQ(decodeBits(DataType::I8, 0xa5), -91);
  EXPECT_EQ(decodeBits(DataType::I32, 0xfffffffe), -2);
  EXPECT_EQ(encodeBits(DataType::I64, -1), ~0ULL);
  EXPECT_EQ(encodeBits(DataType::F32, 1.0), 0x3f800000u);
  EXPECT_EQ(decodeBits(DataType::F64, 0x3ff0000000000000ULL), 1.0);
  EXPECT_EQ(roundToType(DataType::F32, 1.0 / 3), float(1.0 / 3));
}

TEST(ElementCodec, UlpAndLimits) {
  EXPECT_EQ(ulpAt(DataType::F16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(ulpAt(DataType::F16, 0.0), std::ldexp(1.0, -24));
  EXPECT_EQ(ulpAt(DataType::BF16, 3.0), std::ldexp(1.0, -6));
  EXPECT_EQ(ulpAt(DataType::F8E4M3FN, 448.0), 32.0);
  EXPECT_EQ(ulpAt(DataType::I32, 5.0), 1.0);
  for (DataType type : {DataType::F16, DataType::BF16, DataType::F8E4M3FN,
                        DataType::F8E5M2, DataType::F32}) {
    double limit = exactIntegerLimit(type);
    EXPECT_EQ(roundToType(type, limit), limit) << dataTypeName(type);
    EXPECT_EQ(roundToType(type, limit - 1), limit - 1) << dataTypeName(type);
    EXPECT_NE(roundToType(type, limit + 1), limit + 1) << dataTypeName(type);
  }
}

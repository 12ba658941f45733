//===- ElementKernelsTest.cpp - reductions and avg's division -------------===//
//
// Every DataType x ReduceOp on random operands (NaNs included for the
// floating point types), element by element against a reference computed in
// double (exact for the narrow types' operations before the one rounding to
// f32, which double rounding cannot change for + * and /: 53 >= 2 * 24 + 2)
// and ReferenceFloat.h's encoding; integers against wrapping uint64_t
// arithmetic.
//
//===----------------------------------------------------------------------===//
#include "ReferenceFloat.h"

#include "runtime/exec/ElementKernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace collrt {
namespace {

using testing::ReferenceFormat;

const ReferenceFormat *narrowFormat(DataType type) {
  switch (type) {
  case DataType::F16:
    return &testing::kF16Ref;
  case DataType::BF16:
    return &testing::kBF16Ref;
  case DataType::F8E4M3FN:
    return &testing::kF8E4M3FNRef;
  case DataType::F8E5M2:
    return &testing::kF8E5M2Ref;
  default:
    return nullptr;
  }
}

/// An element as raw bits (the low dataTypeSize bytes).
uint64_t bitsAt(DataType type, const std::vector<uint8_t> &buffer, size_t i) {
  uint64_t bits = 0;
  size_t size = dataTypeSize(type);
  std::memcpy(&bits, buffer.data() + i * size, size);
  return bits;
}
void setBits(DataType type, std::vector<uint8_t> &buffer, size_t i,
             uint64_t bits) {
  size_t size = dataTypeSize(type);
  std::memcpy(buffer.data() + i * size, &bits, size);
}

int64_t signExtend(uint64_t bits, size_t bytes) {
  int shift = int(64 - 8 * bytes);
  return int64_t(bits << shift) >> shift;
}

double valueOf(DataType type, uint64_t bits) {
  if (const ReferenceFormat *f = narrowFormat(type))
    return f->decode(uint32_t(bits));
  if (type == DataType::F32) {
    float v;
    uint32_t b = uint32_t(bits);
    std::memcpy(&v, &b, 4);
    return v;
  }
  if (type == DataType::F64) {
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  return double(signExtend(bits, dataTypeSize(type)));
}

/// The bits a floating point `type` stores for the f32 (f64 for F64) value
/// `v`.
uint64_t floatBitsOf(DataType type, double v) {
  if (const ReferenceFormat *f = narrowFormat(type))
    return f->encode(double(float(v)));
  if (type == DataType::F32) {
    float x = float(v);
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
  }
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

bool isNaNBits(DataType type, uint64_t bits) {
  if (const ReferenceFormat *f = narrowFormat(type))
    return f->isNaN(uint32_t(bits));
  return isFloatingPoint(type) && std::isnan(valueOf(type, bits));
}

/// Random operands: any pattern but NaN for the narrow types and f32 (a few
/// NaNs are planted separately), integers of the full range for the
/// integer types, small integers for f64 (so that its reference, also
/// computed in double, is exact).
uint64_t randomElement(DataType type, std::mt19937_64 &rng) {
  for (;;) {
    uint64_t bits = rng();
    if (type == DataType::F64) {
      double v = double(int64_t(bits % 2001) - 1000) / 8;
      std::memcpy(&bits, &v, 8);
      return bits;
    }
    size_t size = dataTypeSize(type);
    if (size < 8)
      bits &= (uint64_t(1) << (8 * size)) - 1;
    if (!isNaNBits(type, bits))
      return bits;
  }
}

uint64_t referenceInteger(DataType type, ReduceOp op, uint64_t a, uint64_t b) {
  size_t size = dataTypeSize(type);
  int64_t x = signExtend(a, size), y = signExtend(b, size);
  uint64_t r = 0;
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    r = uint64_t(x) + uint64_t(y);
    break;
  case ReduceOp::Prod:
    r = uint64_t(x) * uint64_t(y);
    break;
  case ReduceOp::Min:
    r = uint64_t(x < y ? x : y);
    break;
  case ReduceOp::Max:
    r = uint64_t(x > y ? x : y);
    break;
  }
  return size < 8 ? r & ((uint64_t(1) << (8 * size)) - 1) : r;
}

/// The expected bits of a (op) b.
uint64_t reference(DataType type, ReduceOp op, uint64_t a, uint64_t b) {
  if (!isFloatingPoint(type))
    return referenceInteger(type, op, a, b);
  double x = valueOf(type, a), y = valueOf(type, b);
  double nan = std::numeric_limits<double>::quiet_NaN();
  double r = 0;
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    r = x + y;
    break;
  case ReduceOp::Prod:
    r = x * y;
    break;
  case ReduceOp::Min:
    r = std::isnan(x) || std::isnan(y) ? nan : std::min(x, y);
    break;
  case ReduceOp::Max:
    r = std::isnan(x) || std::isnan(y) ? nan : std::max(x, y);
    break;
  }
  if (type != DataType::F64)
    r = double(float(r)); // the f32 accumulation's one rounding
  return floatBitsOf(type, r);
}

bool sameBits(DataType type, uint64_t got, uint64_t want) {
  if (isNaNBits(type, want))
    return isNaNBits(type, got);
  // min/max of +0 and -0 may give either zero.
  if (isFloatingPoint(type) && valueOf(type, want) == 0 &&
      valueOf(type, got) == 0)
    return true;
  return got == want;
}

constexpr DataType kAllTypes[] = {
    DataType::F64,  DataType::F32,      DataType::F16,
    DataType::BF16, DataType::F8E4M3FN, DataType::F8E5M2,
    DataType::I64,  DataType::I32,      DataType::I8};
constexpr ReduceOp kAllOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                                ReduceOp::Max, ReduceOp::Avg};

TEST(ElementKernelsTest, EveryTypeAndOpMatchesReference) {
  std::mt19937_64 rng(7);
  const size_t n = 4099; // not a multiple of any vector width
  for (DataType type : kAllTypes) {
    size_t size = dataTypeSize(type);
    std::vector<uint8_t> a(n * size), b(n * size), out(n * size);
    for (size_t i = 0; i < n; ++i) {
      setBits(type, a, i, randomElement(type, rng));
      setBits(type, b, i, randomElement(type, rng));
    }
    if (isFloatingPoint(type)) { // NaNs on either side
      uint64_t nan = floatBitsOf(type, std::nan(""));
      setBits(type, a, 3, nan);
      setBits(type, b, 10, nan);
      setBits(type, a, 11, nan);
      setBits(type, b, 11, nan);
    }
    for (ReduceOp op : kAllOps) {
      std::fill(out.begin(), out.end(), 0xA5);
      exec::reduceElements(type, op, out.data(), a.data(), b.data(), n);
      for (size_t i = 0; i < n; ++i) {
        uint64_t want =
            reference(type, op, bitsAt(type, a, i), bitsAt(type, b, i));
        uint64_t got = bitsAt(type, out, i);
        ASSERT_TRUE(sameBits(type, got, want))
            << dataTypeName(type) << " " << reduceOpName(op) << " element " << i
            << ": " << valueOf(type, bitsAt(type, a, i)) << " and "
            << valueOf(type, bitsAt(type, b, i)) << " gave "
            << valueOf(type, got) << " (0x" << std::hex << got << "), expected "
            << valueOf(type, want) << " (0x" << want << ")";
      }
    }
  }
}

TEST(ElementKernelsTest, DestinationMayBeAnOperand) {
  std::vector<float> a = {1, 2, 3, 4, 5}, b = {10, 20, 30, 40, 50};
  exec::reduceElements(DataType::F32, ReduceOp::Sum, a.data(), a.data(),
                       b.data(), a.size());
  EXPECT_EQ(a, (std::vector<float>{11, 22, 33, 44, 55}));
  exec::reduceElements(DataType::F32, ReduceOp::Max, b.data(), a.data(),
                       b.data(), a.size());
  EXPECT_EQ(b, (std::vector<float>{11, 22, 33, 44, 55}));
}

TEST(ElementKernelsTest, IntegersWrapOnOverflow) {
  std::vector<int8_t> a = {127, -128, 100}, b = {1, -1, 3};
  std::vector<int8_t> out(3);
  exec::reduceElements(DataType::I8, ReduceOp::Sum, out.data(), a.data(),
                       b.data(), 3);
  EXPECT_EQ(out, (std::vector<int8_t>{-128, 127, 103}));
  exec::reduceElements(DataType::I8, ReduceOp::Prod, out.data(), a.data(),
                       b.data(), 3);
  EXPECT_EQ(out, (std::vector<int8_t>{127, -128, 44})); // 300 mod 256
}

TEST(ElementKernelsTest, DivideMatchesReference) {
  std::mt19937_64 rng(11);
  const size_t n = 1031;
  for (DataType type : kAllTypes) {
    for (int64_t divisor : {1, 3, 8, 1024}) {
      size_t size = dataTypeSize(type);
      std::vector<uint8_t> data(n * size);
      for (size_t i = 0; i < n; ++i)
        setBits(type, data, i, randomElement(type, rng));
      std::vector<uint8_t> before = data;
      exec::divideElements(type, data.data(), n, divisor);
      for (size_t i = 0; i < n; ++i) {
        uint64_t x = bitsAt(type, before, i);
        uint64_t want;
        if (isFloatingPoint(type)) {
          double q = valueOf(type, x) / double(divisor);
          want =
              floatBitsOf(type, type == DataType::F64 ? q : double(float(q)));
        } else {
          // Truncation toward zero.
          int64_t q = signExtend(x, size) / divisor;
          want = size < 8 ? uint64_t(q) & ((uint64_t(1) << (8 * size)) - 1)
                          : uint64_t(q);
        }
        ASSERT_TRUE(sameBits(type, bitsAt(type, data, i), want))
            << dataTypeName(type) << " / " << divisor << " element " << i
            << ": " << valueOf(type, x) << " gave "
            << valueOf(type, bitsAt(type, data, i)) << ", expected "
            << valueOf(type, want);
      }
    }
  }
}

TEST(ElementKernelsTest, IntegerAverageTruncatesTowardZero) {
  std::vector<int32_t> v = {7, -7, 5, -5};
  exec::divideElements(DataType::I32, v.data(), v.size(), 2);
  EXPECT_EQ(v, (std::vector<int32_t>{3, -3, 2, -2}));
}

} // namespace
} // namespace collrt

//===- SlowDefinition.h - runtime/check element by element ----*- C++ -*-===//
//
// The check library (runtime/check) as it was before its typed block loops:
// the conversions through frexp/ldexp/nearbyint, TestData's inputs element
// by element, expectedReduction and checkRank with a loop over every
// element. FastPathTest requires the library to give the same bits, values,
// counts and messages. Kept verbatim (renamed into namespace `slow`); do
// not optimize it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_CHECK_SLOWDEFINITION_H
#define COLLRT_TEST_CHECK_SLOWDEFINITION_H

#include "runtime/check/Reference.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

namespace collrt {
namespace check {
namespace slow {

using collc::sched::Collective;
using collc::sched::Program;

// ElementCodec.cpp

namespace {

/// A binary floating-point format of at most 16 bits.
struct SmallFloat {
  int exponentBits;
  int mantissaBits;
  int bias;
  /// IEEE-like: the all-ones exponent holds infinities and NaNs. Otherwise
  /// ("FN", f8E4M3FN): no infinity, only S.1111.111 is NaN.
  bool ieee;
};

constexpr SmallFloat kF16 = {5, 10, 15, true};
constexpr SmallFloat kBF16 = {8, 7, 127, true};
constexpr SmallFloat kE4M3FN = {4, 3, 7, false};
constexpr SmallFloat kE5M2 = {5, 2, 15, true};

inline const SmallFloat *smallFloat(DataType type) {
  switch (type) {
  case DataType::F16:
    return &kF16;
  case DataType::BF16:
    return &kBF16;
  case DataType::F8E4M3FN:
    return &kE4M3FN;
  case DataType::F8E5M2:
    return &kE5M2;
  default:
    return nullptr;
  }
}

inline uint32_t nanBits(const SmallFloat &f) {
  uint32_t allOnes = (1u << f.exponentBits) - 1;
  if (f.ieee)
    return (allOnes << f.mantissaBits) | (1u << (f.mantissaBits - 1));
  return (allOnes << f.mantissaBits) | ((1u << f.mantissaBits) - 1);
}

inline uint32_t encode(const SmallFloat &f, double x) {
  const int m = f.mantissaBits;
  const uint32_t signBit = 1u << (f.exponentBits + m);
  uint32_t sign = std::signbit(x) ? signBit : 0;
  if (std::isnan(x))
    return sign | nanBits(f);
  const uint32_t maxField = (1u << f.exponentBits) - (f.ieee ? 2 : 1);
  uint32_t overflow = f.ieee ? sign | ((maxField + 1) << m) : sign | nanBits(f);
  double a = std::fabs(x);
  if (std::isinf(a))
    return overflow;
  if (a == 0)
    return sign;
  const int emin = 1 - f.bias;
  int e2 = 0;
  std::frexp(a, &e2);
  int e = e2 - 1; // a in [2^e, 2^(e+1))
  if (e < emin)
    e = emin; // subnormal: the step is that of the smallest exponent
  // The significand as an integer of m + 1 bits, rounded to nearest even
  // (the default rounding mode; scaling by a power of two is exact).
  double q = std::nearbyint(std::ldexp(a, m - e));
  if (q >= std::ldexp(1.0, m + 1)) {
    q /= 2;
    ++e;
  }
  uint32_t qi = static_cast<uint32_t>(q);
  if (qi < (1u << m))
    return sign | qi; // subnormal (or zero)
  uint32_t field = static_cast<uint32_t>(e + f.bias);
  uint32_t mantissa = qi - (1u << m);
  if (field > maxField)
    return overflow;
  uint32_t bits = (field << m) | mantissa;
  if (!f.ieee && bits == nanBits(f))
    return overflow;
  return sign | bits;
}

inline double decode(const SmallFloat &f, uint32_t bits) {
  const int m = f.mantissaBits;
  bool negative = (bits >> (f.exponentBits + m)) & 1;
  uint32_t field = (bits >> m) & ((1u << f.exponentBits) - 1);
  uint32_t mantissa = bits & ((1u << m) - 1);
  uint32_t allOnes = (1u << f.exponentBits) - 1;
  double value;
  if (f.ieee && field == allOnes)
    value = mantissa ? std::numeric_limits<double>::quiet_NaN()
                     : std::numeric_limits<double>::infinity();
  else if (!f.ieee && field == allOnes && mantissa == (1u << m) - 1)
    value = std::numeric_limits<double>::quiet_NaN();
  else if (field == 0)
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - m);
  else
    value = std::ldexp(static_cast<double>((1u << m) + mantissa),
                       static_cast<int>(field) - f.bias - m);
  return negative ? -value : value;
}

} // namespace

inline uint64_t loadBits(DataType type, const void *data, int64_t index) {
  size_t size = dataTypeSize(type);
  uint64_t bits = 0;
  // Little-endian hosts: the low bytes of `bits` are the element.
  std::memcpy(&bits, static_cast<const char *>(data) + size_t(index) * size,
              size);
  return bits;
}

inline void storeBits(DataType type, void *data, int64_t index, uint64_t bits) {
  size_t size = dataTypeSize(type);
  std::memcpy(static_cast<char *>(data) + size_t(index) * size, &bits, size);
}

inline double loadElement(DataType type, const void *data, int64_t index) {
  uint64_t bits = loadBits(type, data, index);
  if (const SmallFloat *f = smallFloat(type))
    return decode(*f, static_cast<uint32_t>(bits));
  switch (type) {
  case DataType::F64: {
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  case DataType::F32: {
    float v;
    uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&v, &b, 4);
    return v;
  }
  case DataType::I64:
    return static_cast<double>(static_cast<int64_t>(bits));
  case DataType::I32:
    return static_cast<int32_t>(static_cast<uint32_t>(bits));
  case DataType::I8:
    return static_cast<int8_t>(static_cast<uint8_t>(bits));
  default:
    return 0;
  }
}

inline void storeElement(DataType type, void *data, int64_t index,
                         double value) {
  uint64_t bits = 0;
  if (const SmallFloat *f = smallFloat(type)) {
    bits = encode(*f, value);
  } else {
    switch (type) {
    case DataType::F64:
      std::memcpy(&bits, &value, 8);
      break;
    case DataType::F32: {
      float v = static_cast<float>(value); // rounds to nearest even
      uint32_t b;
      std::memcpy(&b, &v, 4);
      bits = b;
      break;
    }
    case DataType::I64:
      bits = static_cast<uint64_t>(static_cast<int64_t>(value));
      break;
    case DataType::I32:
      bits = static_cast<uint32_t>(static_cast<int32_t>(value));
      break;
    case DataType::I8:
      bits = static_cast<uint8_t>(static_cast<int8_t>(value));
      break;
    default:
      break;
    }
  }
  storeBits(type, data, index, bits);
}

inline double roundToType(DataType type, double value) {
  uint64_t slot = 0;
  storeElement(type, &slot, 0, value);
  return loadElement(type, &slot, 0);
}

inline bool isNaNBits(DataType type, uint64_t bits) {
  if (!isFloatingPoint(type))
    return false;
  uint64_t slot = bits;
  return std::isnan(loadElement(type, &slot, 0));
}

inline double ulpAt(DataType type, double value) {
  int mantissaBits, minExponent;
  if (const SmallFloat *f = smallFloat(type)) {
    mantissaBits = f->mantissaBits;
    minExponent = 1 - f->bias;
  } else if (type == DataType::F32) {
    mantissaBits = 23;
    minExponent = -126;
  } else if (type == DataType::F64) {
    mantissaBits = 52;
    minExponent = -1022;
  } else {
    return 1;
  }
  int e = minExponent;
  if (value != 0 && std::isfinite(value)) {
    int e2 = 0;
    std::frexp(std::fabs(value), &e2);
    if (e2 - 1 > e)
      e = e2 - 1;
  }
  return std::ldexp(1.0, e - mantissaBits);
}

inline double smallestNormal(DataType type) {
  if (const SmallFloat *f = smallFloat(type))
    return std::ldexp(1.0, 1 - f->bias);
  if (type == DataType::F32)
    return std::ldexp(1.0, -126);
  if (type == DataType::F64)
    return std::ldexp(1.0, -1022);
  return 0;
}

inline double exactIntegerLimit(DataType type) {
  switch (type) {
  case DataType::F64:
    return std::ldexp(1.0, 53);
  case DataType::F32:
    return std::ldexp(1.0, 24);
  case DataType::F16:
    return 2048;
  case DataType::BF16:
    return 256;
  case DataType::F8E4M3FN:
    return 16;
  case DataType::F8E5M2:
    return 8;
  case DataType::I64:
    return std::ldexp(1.0, 53); // what a double holds exactly
  case DataType::I32:
    return 2147483647.0;
  case DataType::I8:
    return 127;
  }
  return 0;
}

// TestData.h and TestData.cpp

class SlowTestData {
public:
  SlowTestData(const collc::sched::Program &program, DataType type, ReduceOp op,
               uint64_t iteration);
  const collc::sched::Program &program() const { return program_; }
  DataType type() const { return type_; }
  ReduceOp op() const { return op_; }
  Domain domain() const { return domain_; }
  int32_t groupSize() const { return program_.numRanks; }
  double value(int32_t rank, int64_t index) const;
  uint64_t bits(int32_t rank, int64_t index) const;
  void fillInput(int32_t rank, void *data, int64_t elements) const;
  static uint64_t poisonBits(DataType type);

private:
  uint64_t hash(int32_t rank, int64_t index) const;

  const collc::sched::Program &program_;
  DataType type_;
  ReduceOp op_;
  uint64_t iteration_;
  Domain domain_;
  int64_t activeRanks_ = 0;
  int64_t range_ = 0;
};

namespace {
/// MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline uint64_t typeMask(DataType type) {
  size_t size = dataTypeSize(type);
  return size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}
} // namespace

inline SlowTestData::SlowTestData(const collc::sched::Program &program,
                                  DataType type, ReduceOp op,
                                  uint64_t iteration)
    : program_(program), type_(type), op_(op), iteration_(iteration),
      domain_(Domain::Bits) {
  if (!reduces(program.collective))
    return;
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg: {
    domain_ = Domain::Sum;
    int64_t n = std::max<int32_t>(program.numRanks, 1);
    double limit = exactIntegerLimit(type);
    activeRanks_ = std::min<int64_t>(n, static_cast<int64_t>(limit));
    range_ = std::min<int64_t>(
        static_cast<int64_t>(std::floor(limit / double(activeRanks_))),
        int64_t(1) << 20);
    break;
  }
  case ReduceOp::Prod:
    domain_ = Domain::Product;
    break;
  case ReduceOp::Min:
  case ReduceOp::Max:
    domain_ = Domain::Ordered;
    break;
  }
}

inline uint64_t SlowTestData::hash(int32_t rank, int64_t index) const {
  uint64_t key = static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ULL +
                 (static_cast<uint64_t>(rank) + 1) * 0xc2b2ae3d27d4eb4fULL +
                 (iteration_ + 1) * 0x165667b19e3779f9ULL;
  return mix(mix(key) + static_cast<uint64_t>(index));
}

inline uint64_t SlowTestData::poisonBits(DataType type) {
  return (isFloatingPoint(type) ? 0xffffffffffffffffULL
                                : 0xa5a5a5a5a5a5a5a5ULL) &
         typeMask(type);
}

inline double SlowTestData::value(int32_t rank, int64_t index) const {
  uint64_t h = hash(rank, index);
  int64_t n = std::max<int32_t>(program_.numRanks, 1);
  switch (domain_) {
  case Domain::Sum: {
    int64_t offset = ((int64_t(rank) - index) % n + n) % n;
    if (offset >= activeRanks_)
      return 0;
    return static_cast<double>(
        static_cast<int64_t>(h % uint64_t(2 * range_ + 1)) - range_);
  }
  case Domain::Product: {
    double sign = (h & 1) ? -1.0 : 1.0;
    if (index % n != rank)
      return sign;
    if (isFloatingPoint(type_) && (h & 2))
      return sign * 0.5;
    return sign * 2.0;
  }
  case Domain::Ordered:
  case Domain::Bits: {
    uint64_t slot = bits(rank, index);
    return loadElement(type_, &slot, 0);
  }
  }
  return 0;
}

inline uint64_t SlowTestData::bits(int32_t rank, int64_t index) const {
  if (domain_ == Domain::Sum || domain_ == Domain::Product) {
    uint64_t slot = 0;
    storeElement(type_, &slot, 0, value(rank, index));
    return slot;
  }
  uint64_t mask = typeMask(type_);
  uint64_t poisonPattern = poisonBits(type_);
  uint64_t h = hash(rank, index);
  // Draw until the pattern is acceptable: a few tries at most (NaNs are
  // 1/128 of f16 patterns, subnormals 1/32; more for f8).
  for (;; h = mix(h + 0x9e3779b97f4a7c15ULL)) {
    uint64_t candidate = h & mask;
    if (type_ == DataType::I64 && domain_ == Domain::Ordered)
      // Keep 64-bit integers exact in a double: [-2^52, 2^52).
      candidate = static_cast<uint64_t>(static_cast<int64_t>(h) >> 11);
    if (candidate == poisonPattern)
      continue;
    if (!isFloatingPoint(type_))
      return candidate;
    uint64_t slot = candidate;
    double v = loadElement(type_, &slot, 0);
    if (std::isnan(v))
      continue;
    if (domain_ == Domain::Ordered) {
      // Finite and normal, and no -0 (min(-0, +0) may be either).
      if (std::isinf(v) || (std::signbit(v) && v == 0))
        continue;
      if (v != 0 && std::fabs(v) < smallestNormal(type_))
        continue;
    }
    return candidate;
  }
}

inline void SlowTestData::fillInput(int32_t rank, void *data,
                                    int64_t elements) const {
  for (int64_t i = 0; i < elements; ++i)
    storeBits(type_, data, i, bits(rank, i));
}

// Reference.cpp

inline std::string formatValue(DataType type, uint64_t bits) {
  char text[96];
  uint64_t slot = bits;
  double v = loadElement(type, &slot, 0);
  int hexDigits = static_cast<int>(2 * dataTypeSize(type));
  if (!isFloatingPoint(type)) {
    int64_t i = type == DataType::I64 ? static_cast<int64_t>(bits)
                                      : static_cast<int64_t>(v);
    std::snprintf(text, sizeof text, "%" PRId64, i);
  } else {
    std::snprintf(text, sizeof text, "%.9g (0x%0*" PRIx64 ")", v, hexDigits,
                  bits);
  }
  return text;
}

inline double expectedReduction(const SlowTestData &data, int64_t index) {
  int32_t n = data.groupSize();
  double acc = data.value(0, index);
  for (int32_t s = 1; s < n; ++s) {
    double v = data.value(s, index);
    switch (data.op()) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      acc += v;
      break;
    case ReduceOp::Prod:
      acc *= v;
      break;
    case ReduceOp::Min:
      acc = std::min(acc, v);
      break;
    case ReduceOp::Max:
      acc = std::max(acc, v);
      break;
    }
  }
  if (data.op() == ReduceOp::Avg) {
    if (isFloatingPoint(data.type()))
      acc /= n;
    else
      acc = static_cast<double>(static_cast<int64_t>(acc) / n);
  }
  return roundToType(data.type(), acc);
}

inline CheckResult checkRank(const SlowTestData &data, int32_t rank,
                             int64_t count, const void *input,
                             int64_t inputElements, const void *output,
                             int64_t outputElements, size_t maxExamples) {
  CheckResult result;
  const DataType type = data.type();
  const Program &program = data.program();
  const uint64_t poison = SlowTestData::poisonBits(type);
  auto wrong = [&](const char *buffer, int64_t index, std::string expected,
                   std::string got) {
    ++result.wrong;
    if (result.examples.size() < maxExamples)
      result.examples.push_back(
          {rank, buffer, index, std::move(expected), std::move(got)});
  };
  auto describeGot = [&](uint64_t bits, bool isOutput) {
    std::string text = formatValue(type, bits);
    if (isOutput && bits == poison)
      text +=
          ", the poison: never written, or copied from an unwritten element";
    return text;
  };

  // Buffers of the wrong size: every element one of them lacks is wrong.
  int64_t wantOutput = referenceOutputElements(program, rank, count);
  if (outputElements != wantOutput) {
    result.checked += std::abs(outputElements - wantOutput);
    for (int64_t i = std::min(outputElements, wantOutput);
         i < std::max(outputElements, wantOutput); ++i)
      wrong("output", i,
            "an output of " + std::to_string(wantOutput) + " elements",
            "a buffer of " + std::to_string(outputElements));
  }
  int64_t wantInput = referenceInputElements(program, rank, count);
  if (inputElements != wantInput) {
    result.checked += std::abs(inputElements - wantInput);
    for (int64_t i = std::min(inputElements, wantInput);
         i < std::max(inputElements, wantInput); ++i)
      wrong("input", i,
            "an input of " + std::to_string(wantInput) + " elements",
            "a buffer of " + std::to_string(inputElements));
  }

  const bool floatAverage = data.op() == ReduceOp::Avg && isFloatingPoint(type);
  for (const OutputSegment &segment : outputSegments(program, rank, count)) {
    for (int64_t j = 0; j < segment.length; ++j) {
      int64_t at = segment.outputBegin + j;
      if (at >= outputElements)
        break; // counted above
      ++result.checked;
      uint64_t got = loadBits(type, output, at);
      int64_t index = segment.inputBegin + j;
      if (segment.sourceRank >= 0) {
        uint64_t want = data.bits(segment.sourceRank, index);
        if (got != want)
          wrong("output", at,
                formatValue(type, want) + " (input[" + std::to_string(index) +
                    "] of rank " + std::to_string(segment.sourceRank) + ")",
                describeGot(got, true));
        continue;
      }
      double want = expectedReduction(data, index);
      uint64_t slot = got;
      double value = loadElement(type, &slot, 0);
      bool ok = floatAverage ? std::fabs(value - want) <= ulpAt(type, want)
                             : value == want;
      if (!ok) {
        uint64_t wantBits = 0;
        storeElement(type, &wantBits, 0, want);
        wrong("output", at,
              formatValue(type, wantBits) + " (" + reduceOpName(data.op()) +
                  " of input[" + std::to_string(index) + "])",
              describeGot(got, true));
      }
    }
  }

  for (int64_t i = 0; i < std::min(inputElements, wantInput); ++i) {
    ++result.checked;
    uint64_t got = loadBits(type, input, i);
    uint64_t want = data.bits(rank, i);
    if (got != want)
      wrong("input", i, formatValue(type, want) + " (the run modified it)",
            describeGot(got, false));
  }
  return result;
}

} // namespace slow
} // namespace check
} // namespace collrt

#endif

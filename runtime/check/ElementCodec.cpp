//===- ElementCodec.cpp - element values of every type, as doubles --------===//
#include "runtime/check/ElementCodec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace collrt {
namespace check {

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

const SmallFloat *smallFloat(DataType type) {
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

uint32_t nanBits(const SmallFloat &f) {
  uint32_t allOnes = (1u << f.exponentBits) - 1;
  if (f.ieee)
    return (allOnes << f.mantissaBits) | (1u << (f.mantissaBits - 1));
  return (allOnes << f.mantissaBits) | ((1u << f.mantissaBits) - 1);
}

uint32_t encode(const SmallFloat &f, double x) {
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

double decode(const SmallFloat &f, uint32_t bits) {
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

uint64_t loadBits(DataType type, const void *data, int64_t index) {
  size_t size = dataTypeSize(type);
  uint64_t bits = 0;
  // Little-endian hosts: the low bytes of `bits` are the element.
  std::memcpy(&bits, static_cast<const char *>(data) + size_t(index) * size,
              size);
  return bits;
}

void storeBits(DataType type, void *data, int64_t index, uint64_t bits) {
  size_t size = dataTypeSize(type);
  std::memcpy(static_cast<char *>(data) + size_t(index) * size, &bits, size);
}

double loadElement(DataType type, const void *data, int64_t index) {
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

void storeElement(DataType type, void *data, int64_t index, double value) {
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

double roundToType(DataType type, double value) {
  uint64_t slot = 0;
  storeElement(type, &slot, 0, value);
  return loadElement(type, &slot, 0);
}

bool isNaNBits(DataType type, uint64_t bits) {
  if (!isFloatingPoint(type))
    return false;
  uint64_t slot = bits;
  return std::isnan(loadElement(type, &slot, 0));
}

double ulpAt(DataType type, double value) {
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

double smallestNormal(DataType type) {
  if (const SmallFloat *f = smallFloat(type))
    return std::ldexp(1.0, 1 - f->bias);
  if (type == DataType::F32)
    return std::ldexp(1.0, -126);
  if (type == DataType::F64)
    return std::ldexp(1.0, -1022);
  return 0;
}

double exactIntegerLimit(DataType type) {
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

} // namespace check
} // namespace collrt

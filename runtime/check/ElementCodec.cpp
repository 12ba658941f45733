//===- ElementCodec.cpp - element values of every type, as doubles --------===//
#include "runtime/check/ElementCodec.h"

#include "runtime/check/TypedElement.h"

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

/// The value of a pattern, from the format's definition (the tables of
/// typed::decodeTable).
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

namespace typed {

const double *decodeTable(DataType type) {
  struct Tables {
    double f16[1 << 16], e4m3fn[256], e5m2[256];
    Tables() {
      for (uint32_t b = 0; b < (1u << 16); ++b)
        f16[b] = decode(kF16, b);
      for (uint32_t b = 0; b < 256; ++b) {
        e4m3fn[b] = decode(kE4M3FN, b);
        e5m2[b] = decode(kE5M2, b);
      }
    }
  };
  static const Tables *tables = new Tables(); // built once, never freed
  switch (type) {
  case DataType::F16:
    return tables->f16;
  case DataType::F8E4M3FN:
    return tables->e4m3fn;
  case DataType::F8E5M2:
    return tables->e5m2;
  default:
    return nullptr;
  }
}

} // namespace typed

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
  return typed::visitType(type, [&](auto element) {
    using E = decltype(element);
    typename E::Storage bits;
    std::memcpy(&bits,
                static_cast<const char *>(data) + size_t(index) * sizeof bits,
                sizeof bits);
    return E::decode(bits);
  });
}

void storeElement(DataType type, void *data, int64_t index, double value) {
  typed::visitType(type, [&](auto element) {
    using E = decltype(element);
    typename E::Storage bits = E::encode(value);
    std::memcpy(static_cast<char *>(data) + size_t(index) * sizeof bits, &bits,
                sizeof bits);
  });
}

double roundToType(DataType type, double value) {
  return typed::visitType(type, [&](auto element) {
    using E = decltype(element);
    return E::decode(E::encode(value));
  });
}

bool isNaNBits(DataType type, uint64_t bits) {
  return typed::visitType(type, [&](auto element) {
    using E = decltype(element);
    return E::isNaN(static_cast<typename E::Storage>(bits));
  });
}

double ulpAt(DataType type, double value) {
  return typed::visitType(type, [&](auto element) {
    using E = decltype(element);
    return E::ulp(value);
  });
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

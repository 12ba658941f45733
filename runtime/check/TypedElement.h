//===- TypedElement.h - one element type's bits and values ------*- C++ -*-===//
//
// The check library's conversions for one element type known at compile
// time, so that its loops over millions of elements (TestData's inputs,
// checkRank's comparisons) are plain typed loops with no per-element switch
// and no libm call. ElementCodec.h's functions taking a DataType dispatch to
// these. Conversions round to nearest even with exact integer arithmetic on
// the bits of the double, following each format's definition;
// test/runtime/check/ElementCodecTest.cpp compares them with an
// implementation through frexp/ldexp/nearbyint on every pattern, every
// rounding boundary and random doubles.
//
// Internal to runtime/check.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_CHECK_TYPEDELEMENT_H
#define COLLRT_CHECK_TYPEDELEMENT_H

#include "collrt/Types.h"

#include <cstdint>
#include <cstring>

namespace collrt {
namespace check {
namespace typed {

/// The value of every pattern of a small float type (f16 and the f8
/// types), computed once from the format's definition (ElementCodec.cpp).
const double *decodeTable(DataType type);

template <typename To, typename From> inline To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast needs equal sizes");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

/// 2^k as a double (0 below the smallest subnormal); k <= 1023.
inline double pow2(int k) {
  if (k >= -1022)
    return bitCast<double>(uint64_t(k + 1023) << 52);
  if (k >= -1074)
    return bitCast<double>(uint64_t(1) << (k + 1074));
  return 0;
}

/// floor(log2 |x|) for a finite nonzero double given by `abs`, its bits
/// without the sign.
inline int floorLog2(uint64_t abs) {
  int field = int(abs >> 52);
  if (field)
    return field - 1023;
  return 63 - __builtin_clzll(abs) - 1074; // subnormal
}

/// A binary floating-point format: `Exp` exponent bits, `Mant` mantissa
/// bits, bias `Bias`; `Ieee`: the all-ones exponent holds infinities and
/// NaNs, else ("FN", f8E4M3FN) there is no infinity and only S.1111.111 is
/// NaN.
template <typename S, int Exp, int Mant, int Bias, bool Ieee>
struct FloatFormat {
  using Storage = S;
  static constexpr bool kFloat = true;
  static constexpr int kMantissaBits = Mant;
  static constexpr int kMinExponent = 1 - Bias;
  static constexpr S kSign = S(S(1) << (Exp + Mant));
  static constexpr S kAbs = S(kSign - 1);
  static constexpr S kExpMask = S(((S(1) << Exp) - 1) << Mant);
  static constexpr S kMantMask = S((S(1) << Mant) - 1);

  static bool isNaN(S b) {
    S a = S(b & kAbs);
    return Ieee ? a > kExpMask : a == kAbs;
  }
  static bool isInf(S b) { return Ieee && S(b & kAbs) == kExpMask; }
  static bool isSubnormal(S b) {
    return (b & kExpMask) == 0 && (b & kMantMask) != 0;
  }
  /// The quiet NaN the definition encodes NaNs to.
  static constexpr S nanBits() {
    return Ieee ? S(kExpMask | (S(1) << (Mant - 1))) : kAbs;
  }

  /// `x` rounded to nearest even. Out of range: infinity, or NaN for FN
  /// formats (ElementCodec.h's storeElement).
  static S encodeSmall(double x) {
    uint64_t bits = bitCast<uint64_t>(x);
    S sign = (bits >> 63) ? kSign : S(0);
    uint64_t abs = bits & ~(uint64_t(1) << 63);
    const S overflow = Ieee ? S(sign | kExpMask) : S(sign | nanBits());
    if (abs >= (uint64_t(0x7ff) << 52))
      return abs == (uint64_t(0x7ff) << 52) ? overflow : S(sign | nanBits());
    if (abs == 0)
      return sign;
    // |x| = significand * 2^base, significand < 2^53.
    int field = int(abs >> 52);
    uint64_t significand = abs & ((uint64_t(1) << 52) - 1);
    int base = -1074;
    if (field) {
      significand |= uint64_t(1) << 52;
      base = field - 1075;
    }
    int e = floorLog2(abs);
    if (e < kMinExponent)
      e = kMinExponent; // subnormal: the step of the smallest exponent
    // q = |x| / 2^(e - Mant), rounded to nearest even: a right shift of the
    // significand by `shift` >= 52 - Mant bits.
    int shift = e - Mant - base;
    uint64_t q;
    if (shift >= 54) {
      q = 0; // below half of the smallest step
    } else {
      q = significand >> shift;
      uint64_t rest = significand & ((uint64_t(1) << shift) - 1);
      uint64_t half = uint64_t(1) << (shift - 1);
      if (rest > half || (rest == half && (q & 1)))
        ++q;
    }
    if (q >= (uint64_t(1) << (Mant + 1))) {
      q >>= 1;
      ++e;
    }
    if (q < (uint64_t(1) << Mant))
      return S(sign | q); // subnormal or zero
    uint64_t maxField = ((uint64_t(1) << Exp) - 1) - (Ieee ? 1 : 0);
    uint64_t biased = uint64_t(e + Bias);
    if (biased > maxField)
      return overflow;
    S out = S((biased << Mant) | (q - (uint64_t(1) << Mant)));
    if (!Ieee && out == nanBits())
      return overflow;
    return S(sign | out);
  }

  /// The spacing of the format's values at |x| (ElementCodec.h's ulpAt).
  static double ulp(double x) {
    uint64_t abs = bitCast<uint64_t>(x) & ~(uint64_t(1) << 63);
    int e = kMinExponent;
    if (abs != 0 && abs < (uint64_t(0x7ff) << 52)) {
      int log2 = floorLog2(abs);
      if (log2 > e)
        e = log2;
    }
    return pow2(e - Mant);
  }
};

/// Traits of each element type: Storage (its bits), kFloat, decode
/// (bits to double), encode (double to bits, as storeElement), isNaN and,
/// for floats, isInf, isSubnormal, kSign, ulp.
template <DataType T> struct Element;

template <>
struct Element<DataType::F64> : FloatFormat<uint64_t, 11, 52, 1023, true> {
  static double decode(uint64_t b) { return bitCast<double>(b); }
  static uint64_t encode(double x) { return bitCast<uint64_t>(x); }
};
template <>
struct Element<DataType::F32> : FloatFormat<uint32_t, 8, 23, 127, true> {
  static double decode(uint32_t b) { return bitCast<float>(b); }
  static uint32_t encode(double x) {
    return bitCast<uint32_t>(static_cast<float>(x)); // rounds to nearest even
  }
};
template <>
struct Element<DataType::BF16> : FloatFormat<uint16_t, 8, 7, 127, true> {
  // bf16 is the upper half of an f32.
  static double decode(uint16_t b) { return bitCast<float>(uint32_t(b) << 16); }
  static uint16_t encode(double x) { return encodeSmall(x); }
};
template <>
struct Element<DataType::F16> : FloatFormat<uint16_t, 5, 10, 15, true> {
  static double decode(uint16_t b) { return decodeTable(DataType::F16)[b]; }
  static uint16_t encode(double x) { return encodeSmall(x); }
};
template <>
struct Element<DataType::F8E4M3FN> : FloatFormat<uint8_t, 4, 3, 7, false> {
  static double decode(uint8_t b) { return decodeTable(DataType::F8E4M3FN)[b]; }
  static uint8_t encode(double x) { return encodeSmall(x); }
};
template <>
struct Element<DataType::F8E5M2> : FloatFormat<uint8_t, 5, 2, 15, true> {
  static double decode(uint8_t b) { return decodeTable(DataType::F8E5M2)[b]; }
  static uint8_t encode(double x) { return encodeSmall(x); }
};

/// Two's complement integers; values are converted as C++ converts them
/// (doubles truncated toward zero; callers store exact integers).
template <typename S, typename I> struct IntegerFormat {
  using Storage = S;
  static constexpr bool kFloat = false;
  static bool isNaN(S) { return false; }
  static double decode(S b) { return static_cast<double>(static_cast<I>(b)); }
  static S encode(double x) { return static_cast<S>(static_cast<I>(x)); }
  static double ulp(double) { return 1; }
};
template <> struct Element<DataType::I64> : IntegerFormat<uint64_t, int64_t> {};
template <> struct Element<DataType::I32> : IntegerFormat<uint32_t, int32_t> {};
template <> struct Element<DataType::I8> : IntegerFormat<uint8_t, int8_t> {};

/// `visitType(type, f)` calls `f(Element<T>{})` for the DataType T that
/// `type` names (a generic lambda then runs the typed loop).
template <typename F> auto visitType(DataType type, F &&f) {
  switch (type) {
  case DataType::F64:
    return f(Element<DataType::F64>{});
  case DataType::F32:
    return f(Element<DataType::F32>{});
  case DataType::F16:
    return f(Element<DataType::F16>{});
  case DataType::BF16:
    return f(Element<DataType::BF16>{});
  case DataType::F8E4M3FN:
    return f(Element<DataType::F8E4M3FN>{});
  case DataType::F8E5M2:
    return f(Element<DataType::F8E5M2>{});
  case DataType::I64:
    return f(Element<DataType::I64>{});
  case DataType::I32:
    return f(Element<DataType::I32>{});
  case DataType::I8:
    return f(Element<DataType::I8>{});
  }
  return f(Element<DataType::I8>{});
}

} // namespace typed
} // namespace check
} // namespace collrt

#endif

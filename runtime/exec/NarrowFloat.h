//===- NarrowFloat.h - f16, bf16 and f8 to and from f32 ---------*- C++ -*-===//
//
// The conversions the reduction kernels use to accumulate the narrow floating
// point types in f32. Branch-free integer and float arithmetic (selects, no
// tables), so that loops over arrays vectorize.
//
// Decoding is exact. Encoding rounds to nearest, ties to even, and keeps the
// sign. Overflow: f16, bf16 and f8E5M2 have infinities and overflow to them
// (IEEE 754); f8E4M3FN has none and saturates: every value of magnitude above
// its largest finite value 448, infinities included, becomes +-448. A NaN
// stays a NaN (the type's quiet NaN with the input's sign; the payload is not
// kept). Subnormals of every type are kept (no flush to zero).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_NARROWFLOAT_H
#define COLLRT_EXEC_NARROWFLOAT_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace collrt {
namespace exec {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// A binary floating point format of 1 + ExpBits + ManBits bits with
/// exponent bias Bias. IEEE-like formats (HasInfinity) reserve the top
/// exponent for infinities and NaNs; the "FN" formats (finite, NaN) have one
/// NaN pattern (all exponent and mantissa bits set) and no infinity.
template <int ExpBits, int ManBits, int Bias, bool HasInfinity>
struct NarrowFloatFormat {
  static constexpr int kBits = 1 + ExpBits + ManBits;
  using Storage = std::conditional_t<(kBits <= 8), uint8_t, uint16_t>;
  static constexpr int kShift = 23 - ManBits;
  static constexpr uint32_t kMagnitudeMask = (1u << (ExpBits + ManBits)) - 1;
  static constexpr uint32_t kSignBit = 1u << (ExpBits + ManBits);
  static constexpr uint32_t kExponentAllOnes = ((1u << ExpBits) - 1) << ManBits;
  static constexpr uint32_t kNaN =
      HasInfinity ? kExponentAllOnes | (1u << (ManBits - 1)) : kMagnitudeMask;
  /// The largest finite magnitude's pattern.
  static constexpr uint32_t kMaxFinite =
      HasInfinity ? kExponentAllOnes - 1 : kMagnitudeMask - 1;

  /// 2^(127 - Bias): moves a format exponent to f32's.
  static float rebias() { return bitsFloat(uint32_t(254 - Bias) << 23); }

  static float decode(Storage value) {
    uint32_t h = value;
    uint32_t sign = (h & kSignBit) << (31 - ExpBits - ManBits);
    uint32_t magnitude = h & kMagnitudeMask;
    // Exponent and mantissa placed in f32's fields, then rebiased by a
    // multiplication, which is exact and also normalizes subnormals.
    float scaled = bitsFloat(magnitude << kShift) * rebias();
    uint32_t bits = floatBits(scaled);
    if (HasInfinity) {
      uint32_t special = 0x7f800000u | ((magnitude << kShift) & 0x7fffffu);
      bits = magnitude >= kExponentAllOnes ? special : bits;
    } else {
      bits = magnitude == kMagnitudeMask ? 0x7fc00000u : bits;
    }
    return bitsFloat(bits | sign);
  }

  static Storage encode(float value) {
    uint32_t x = floatBits(value);
    uint32_t sign = (x >> 31) << (ExpBits + ManBits);
    uint32_t ax = x & 0x7fffffffu;

    // Normal results: drop the low kShift bits rounding to nearest even,
    // after rebiasing the exponent (a carry out of the mantissa moves to the
    // next exponent, and for IEEE formats to infinity).
    uint32_t odd = (ax >> kShift) & 1u;
    uint32_t normal = (ax + (uint32_t(Bias - 127) << 23) +
                       ((1u << (kShift - 1)) - 1u) + odd) >>
                      kShift;
    // Subnormal results: adding 2^(24 - Bias - ManBits) aligns the value's
    // bits so that f32's own rounding (to nearest even) rounds at the
    // format's subnormal spacing.
    constexpr uint32_t kMagicBits = uint32_t((127 - Bias) + kShift + 1) << 23;
    float aligned = bitsFloat(ax) + bitsFloat(kMagicBits);
    uint32_t subnormal = floatBits(aligned) - kMagicBits;
    constexpr uint32_t kMinNormalBits = uint32_t(127 + 1 - Bias) << 23;
    uint32_t result = ax < kMinNormalBits ? subnormal : normal;

    if (HasInfinity) {
      // 2^(emax + 1) and above (infinity included) overflow.
      constexpr uint32_t kOverflowBits =
          uint32_t(127 + ((1 << ExpBits) - 2) - Bias + 1) << 23;
      result = ax >= kOverflowBits ? kExponentAllOnes : result;
    } else {
      result = result > kMaxFinite ? kMaxFinite : result;
      result = ax >= 0x7f800000u ? kMaxFinite : result;
    }
    result = ax > 0x7f800000u ? kNaN : result;
    return Storage(result | sign);
  }
};

using F16Format = NarrowFloatFormat<5, 10, 15, true>;
using BF16Format = NarrowFloatFormat<8, 7, 127, true>;
using F8E5M2Format = NarrowFloatFormat<5, 2, 15, true>;
using F8E4M3FNFormat = NarrowFloatFormat<4, 3, 7, false>;

inline float f16ToF32(uint16_t v) { return F16Format::decode(v); }
inline uint16_t f32ToF16(float v) { return F16Format::encode(v); }
inline float bf16ToF32(uint16_t v) { return BF16Format::decode(v); }
inline uint16_t f32ToBF16(float v) { return BF16Format::encode(v); }
inline float f8E5M2ToF32(uint8_t v) { return F8E5M2Format::decode(v); }
inline uint8_t f32ToF8E5M2(float v) { return F8E5M2Format::encode(v); }
inline float f8E4M3FNToF32(uint8_t v) { return F8E4M3FNFormat::decode(v); }
inline uint8_t f32ToF8E4M3FN(float v) { return F8E4M3FNFormat::encode(v); }

} // namespace exec
} // namespace collrt

#endif

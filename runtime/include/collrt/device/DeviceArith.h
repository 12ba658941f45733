//===- DeviceArith.h - element arithmetic of the device runtime -*- C++ -*-===//
//
// The arithmetic of collrt::dev::Channel, for the GPU (nvcc) and for the
// host emulation alike: the same code compiles as __host__ __device__ under
// nvcc and as plain C++17 elsewhere, so that what the emulator runs on this
// machine is what the GPU runs.
//
// It is bit-exact with the CPU executor (runtime/exec/ElementKernels.cpp,
// NarrowFloat.h; test/runtime/device/DeviceArithTest.cpp compares every bit
// pattern of the narrow types and every type x reduction):
//  - f64 and f32 compute in their own type; f16, bf16, f8E4M3FN and f8E5M2
//    decode to f32, combine in f32 and round back to nearest even once per
//    operation, with the CPU executor's overflow and NaN rules (the encoder
//    below is NarrowFloat.h's branch-free integer code, not CUDA's
//    intrinsics, whose NaN results differ in sign and payload).
//  - min and max propagate NaN; integers wrap (two's complement).
//  - avg's final division: f64 in f64, the other floats in f32, integers
//    truncated toward zero.
// NaN payloads are not part of the contract: when both operands of a sum
// or product are NaN, which payload survives (and, rounded to a narrow
// type, which sign) is the compiler's choice on a CPU (it may commute the
// operands) and the canonical NaN on a GPU; a single NaN operand's payload
// survives on a CPU. The result is a NaN everywhere. No checked data is NaN
// (runtime/check's domains).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_DEVICEARITH_H
#define COLLRT_DEVICE_DEVICEARITH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define COLLRT_HD __host__ __device__ __forceinline__
#else
#include <cstring>
#define COLLRT_HD inline
#endif

namespace collrt {
namespace dev {
namespace arith {

COLLRT_HD uint32_t floatBits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}
COLLRT_HD float bitsFloat(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

/// NarrowFloat.h's NarrowFloatFormat, for host and device: a binary format
/// of 1 + ExpBits + ManBits bits with bias Bias; HasInfinity formats reserve
/// the top exponent, the "FN" ones have one NaN and saturate.
template <int ExpBits, int ManBits, int Bias, bool HasInfinity, class S>
struct NarrowFormat {
  using Storage = S;
  static constexpr int kShift = 23 - ManBits;
  static constexpr uint32_t kMagnitudeMask = (1u << (ExpBits + ManBits)) - 1;
  static constexpr uint32_t kSignBit = 1u << (ExpBits + ManBits);
  static constexpr uint32_t kExponentAllOnes = ((1u << ExpBits) - 1) << ManBits;
  static constexpr uint32_t kNaN =
      HasInfinity ? kExponentAllOnes | (1u << (ManBits - 1)) : kMagnitudeMask;
  static constexpr uint32_t kMaxFinite =
      HasInfinity ? kExponentAllOnes - 1 : kMagnitudeMask - 1;

  COLLRT_HD static float decode(Storage value) {
    if constexpr (ExpBits == 8 && ManBits == 7) {
      // bf16 is the top half of an f32: the general path below gives
      // exactly this (its rebias is 1.0), in one instruction.
      return bitsFloat(uint32_t(value) << 16);
    }
    uint32_t h = value;
    uint32_t sign = (h & kSignBit) << (31 - ExpBits - ManBits);
    uint32_t magnitude = h & kMagnitudeMask;
    float scaled =
        bitsFloat(magnitude << kShift) * bitsFloat(uint32_t(254 - Bias) << 23);
    uint32_t bits = floatBits(scaled);
    if (HasInfinity) {
      uint32_t special = 0x7f800000u | ((magnitude << kShift) & 0x7fffffu);
      bits = magnitude >= kExponentAllOnes ? special : bits;
    } else {
      bits = magnitude == kMagnitudeMask ? 0x7fc00000u : bits;
    }
    return bitsFloat(bits | sign);
  }

  COLLRT_HD static Storage encode(float value) {
    uint32_t x = floatBits(value);
    uint32_t sign = (x >> 31) << (ExpBits + ManBits);
    uint32_t ax = x & 0x7fffffffu;
    if constexpr (ExpBits == 8 && ManBits == 7) {
      // bf16 shares f32's exponent: rounding the low 16 bits to nearest
      // even is right for subnormals too, and carries into infinity on
      // overflow; only NaN needs its own pattern (the general path below
      // gives the same results, in more instructions).
      uint32_t odd = (ax >> 16) & 1u;
      uint32_t rounded = (ax + 0x7fffu + odd) >> 16;
      return Storage((ax > 0x7f800000u ? kNaN : rounded) | sign);
    }
    uint32_t odd = (ax >> kShift) & 1u;
    uint32_t normal = (ax + (uint32_t(Bias - 127) << 23) +
                       ((1u << (kShift - 1)) - 1u) + odd) >>
                      kShift;
    const uint32_t magicBits = uint32_t((127 - Bias) + kShift + 1) << 23;
    float aligned = bitsFloat(ax) + bitsFloat(magicBits);
    uint32_t subnormal = floatBits(aligned) - magicBits;
    const uint32_t minNormalBits = uint32_t(127 + 1 - Bias) << 23;
    uint32_t result = ax < minNormalBits ? subnormal : normal;
    if (HasInfinity) {
      const uint32_t overflowBits =
          uint32_t(127 + ((1 << ExpBits) - 2) - Bias + 1) << 23;
      result = ax >= overflowBits ? kExponentAllOnes : result;
    } else {
      result = result > kMaxFinite ? kMaxFinite : result;
      result = ax >= 0x7f800000u ? kMaxFinite : result;
    }
    result = ax > 0x7f800000u ? kNaN : result;
    return Storage(result | sign);
  }
};

using F16 = NarrowFormat<5, 10, 15, true, uint16_t>;
using BF16 = NarrowFormat<8, 7, 127, true, uint16_t>;
using F8E5M2 = NarrowFormat<5, 2, 15, true, uint8_t>;
using F8E4M3FN = NarrowFormat<4, 3, 7, false, uint8_t>;

/// How an element is stored and computed with.
template <class S> struct Plain {
  using Storage = S;
  using Compute = S;
  static constexpr bool kInteger = S(1) / S(2) == S(0);
  COLLRT_HD static Compute load(Storage v) { return v; }
  COLLRT_HD static Storage store(Compute v) { return v; }
};
template <class Format> struct Narrow {
  using Storage = typename Format::Storage;
  using Compute = float;
  static constexpr bool kInteger = false;
  COLLRT_HD static Compute load(Storage v) { return Format::decode(v); }
  COLLRT_HD static Storage store(Compute v) { return Format::encode(v); }
};

/// Which unsigned type an integer type wraps in.
template <class T> struct Unsigned {
  using type = T;
};
template <> struct Unsigned<int8_t> {
  using type = uint8_t;
};
template <> struct Unsigned<int32_t> {
  using type = uint32_t;
};
template <> struct Unsigned<int64_t> {
  using type = uint64_t;
};

enum class Op { Sum, Prod, Min, Max };

/// One reduction step on computed values (ElementKernels.cpp's SumOp ...).
template <Op O, class C, bool Integer> struct Apply;
template <class C> struct Apply<Op::Sum, C, true> {
  COLLRT_HD static C apply(C a, C b) {
    using U = typename Unsigned<C>::type;
    return C(U(U(a) + U(b)));
  }
};
template <class C> struct Apply<Op::Sum, C, false> {
  COLLRT_HD static C apply(C a, C b) { return a + b; }
};
template <class C> struct Apply<Op::Prod, C, true> {
  COLLRT_HD static C apply(C a, C b) {
    using U = typename Unsigned<C>::type;
    return C(U(U(a) * U(b)));
  }
};
template <class C> struct Apply<Op::Prod, C, false> {
  COLLRT_HD static C apply(C a, C b) { return a * b; }
};
template <class C> struct Apply<Op::Min, C, true> {
  COLLRT_HD static C apply(C a, C b) { return b < a ? b : a; }
};
template <class C> struct Apply<Op::Min, C, false> {
  COLLRT_HD static C apply(C a, C b) { return (a != a || a < b) ? a : b; }
};
template <class C> struct Apply<Op::Max, C, true> {
  COLLRT_HD static C apply(C a, C b) { return b > a ? b : a; }
};
template <class C> struct Apply<Op::Max, C, false> {
  COLLRT_HD static C apply(C a, C b) { return (a != a || a > b) ? a : b; }
};

/// a (op) b on stored elements of Element (Plain<...> or Narrow<...>).
template <class Element, Op O>
COLLRT_HD typename Element::Storage combine(typename Element::Storage a,
                                            typename Element::Storage b) {
  using C = typename Element::Compute;
  return Element::store(Apply<O, C, Element::kInteger>::apply(
      Element::load(a), Element::load(b)));
}

/// avg's final step on one stored element (ElementKernels.cpp's
/// divideTyped): integers in int64_t truncating toward zero, floats in
/// their compute type.
template <class Element>
COLLRT_HD typename Element::Storage divide(typename Element::Storage v,
                                           int64_t divisor) {
  using C = typename Element::Compute;
  using S = typename Element::Storage;
  if constexpr (Element::kInteger)
    return S(int64_t(v) / divisor);
  else
    return Element::store(C(Element::load(v) / C(divisor)));
}

} // namespace arith
} // namespace dev
} // namespace collrt

#endif

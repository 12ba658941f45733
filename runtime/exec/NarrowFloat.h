//===- NarrowFloat.h - f16, bf16 and f8 to and from f32 ---------*- C++ -*-===//
//
// The conversions the reduction kernels use to accumulate the narrow floating
// point types in f32. Branch-free integer and float arithmetic (selects, no
// tables), so that loops over arrays vectorize.
//
// They are the device runtime's (collrt/device/DeviceArith.h, one code for
// the GPU, the host emulation and this executor), so the CPU executor and
// the generated kernels round alike by construction.
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

#include "collrt/device/DeviceArith.h"

#include <cstdint>

namespace collrt {
namespace exec {

using dev::arith::bitsFloat;
using dev::arith::floatBits;

using F16Format = dev::arith::F16;
using BF16Format = dev::arith::BF16;
using F8E5M2Format = dev::arith::F8E5M2;
using F8E4M3FNFormat = dev::arith::F8E4M3FN;

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

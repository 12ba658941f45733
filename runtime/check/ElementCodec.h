//===- ElementCodec.h - element values of any type, as doubles --*- C++ -*-===//
//
// The reference of collc-run --check reads and writes buffers of every
// element type of the coll dialect through doubles. It carries its own
// conversions (round to nearest even, written from the formats' definitions)
// rather than the executor's, so that a conversion bug in the executor cannot
// hide itself in the reference.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_CHECK_ELEMENTCODEC_H
#define COLLRT_CHECK_ELEMENTCODEC_H

#include "collrt/Types.h"

#include <cstdint>

namespace collrt {
namespace check {

/// The value of element `index` of `data`, a buffer of `type`.
double loadElement(DataType type, const void *data, int64_t index);

/// Stores `value` rounded to nearest even in `type` (integers: truncated
/// toward zero; callers store exact integers). Out-of-range floats become
/// infinity, or NaN in f8E4M3FN, which has no infinity.
void storeElement(DataType type, void *data, int64_t index, double value);

/// The bit pattern of element `index` (the low dataTypeSize(type) bytes).
uint64_t loadBits(DataType type, const void *data, int64_t index);
void storeBits(DataType type, void *data, int64_t index, uint64_t bits);

/// `value` rounded to `type` and back (what storing it keeps).
double roundToType(DataType type, double value);

/// Whether the bit pattern is a NaN of `type` (false for integers).
bool isNaNBits(DataType type, uint64_t bits);

/// The spacing of `type`'s values at `value` (its unit in the last place);
/// 1 for integers.
double ulpAt(DataType type, double value);

/// The smallest positive normal value of `type` (0 for integers).
double smallestNormal(DataType type);

/// The largest integer M such that every integer in [-M, M] is exact in
/// `type` (2^53 for f64, 2^24 for f32, 2048 for f16, 256 for bf16, 16 for
/// f8E4M3FN, 8 for f8E5M2, the type's limit for integers).
double exactIntegerLimit(DataType type);

} // namespace check
} // namespace collrt

#endif

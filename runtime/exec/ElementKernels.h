//===- ElementKernels.h - reductions and avg's division by type -*- C++ -*-===//
//
// The arithmetic of the CPU executor: element-wise reductions of two arrays
// and avg's final division, for every DataType. Plain loops the compiler
// vectorizes (no intrinsics).
//
// Semantics (docs/runtime.md):
//  - f64 and f32 compute in their own type; f16, bf16, f8E4M3FN and f8E5M2
//    are decoded to f32, combined in f32 and rounded back to nearest even
//    once per operation (NarrowFloat.h, which also says how overflow and NaN
//    are handled).
//  - min and max propagate NaN: if either operand is a NaN the result is a
//    NaN.
//  - Integers wrap on overflow (sum and prod are computed modulo 2^bits, in
//    two's complement).
//  - avg reduces as sum; divideElements then divides each reduced output
//    element by the group size: in f64 for f64, in f32 for the other
//    floating point types (rounded back once), and for integers with C++
//    integer division, which truncates toward zero.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_ELEMENTKERNELS_H
#define COLLRT_EXEC_ELEMENTKERNELS_H

#include "collrt/Types.h"

#include <cstddef>
#include <cstdint>

namespace collrt {
namespace exec {

/// dst[i] = a[i] (op) b[i] for i < n, elements of `type`. `dst` may be `a`
/// or `b` (but must not overlap them otherwise). Avg combines as Sum.
void reduceElements(DataType type, ReduceOp op, void *dst, const void *a,
                    const void *b, size_t n);

/// data[i] = data[i] / divisor for i < n (avg's last step); divisor >= 1.
void divideElements(DataType type, void *data, size_t n, int64_t divisor);

} // namespace exec
} // namespace collrt

#endif

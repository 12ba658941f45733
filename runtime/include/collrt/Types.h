//===- Types.h - element types and reductions of libcollrt ------*- C++ -*-===//
//
// The element types and reduction kinds of the coll dialect (CollBase.td),
// spelled the same way in plans, on collc-run's command line and in the API.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TYPES_H
#define COLLRT_TYPES_H

#include <cstddef>
#include <string_view>

namespace collrt {

enum class DataType {
  F64,
  F32,
  F16,
  BF16,
  F8E4M3FN,
  F8E5M2,
  I64,
  I32,
  I8,
};
constexpr int kNumDataTypes = 9;

enum class ReduceOp { Sum, Prod, Min, Max, Avg };
constexpr int kNumReduceOps = 5;

/// "f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "i64", "i32", "i8".
const char *dataTypeName(DataType type);
/// Parses the names above; false for anything else.
bool parseDataType(std::string_view name, DataType *type);
size_t dataTypeSize(DataType type);
bool isFloatingPoint(DataType type);

/// "sum", "prod", "min", "max", "avg".
const char *reduceOpName(ReduceOp op);
bool parseReduceOp(std::string_view name, ReduceOp *op);

} // namespace collrt

#endif

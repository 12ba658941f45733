//===- Types.cpp ----------------------------------------------------------===//
#include "collrt/Types.h"

namespace collrt {

namespace {
struct TypeInfo {
  DataType type;
  const char *name;
  size_t size;
  bool floating;
};
constexpr TypeInfo kTypes[kNumDataTypes] = {
    {DataType::F64, "f64", 8, true},
    {DataType::F32, "f32", 4, true},
    {DataType::F16, "f16", 2, true},
    {DataType::BF16, "bf16", 2, true},
    {DataType::F8E4M3FN, "f8E4M3FN", 1, true},
    {DataType::F8E5M2, "f8E5M2", 1, true},
    {DataType::I64, "i64", 8, false},
    {DataType::I32, "i32", 4, false},
    {DataType::I8, "i8", 1, false},
};
constexpr const char *kReduceNames[kNumReduceOps] = {"sum", "prod", "min",
                                                     "max", "avg"};
} // namespace

const char *dataTypeName(DataType type) {
  return kTypes[static_cast<int>(type)].name;
}

bool parseDataType(std::string_view name, DataType *type) {
  for (const TypeInfo &info : kTypes)
    if (name == info.name) {
      *type = info.type;
      return true;
    }
  return false;
}

size_t dataTypeSize(DataType type) {
  return kTypes[static_cast<int>(type)].size;
}

bool isFloatingPoint(DataType type) {
  return kTypes[static_cast<int>(type)].floating;
}

const char *reduceOpName(ReduceOp op) {
  return kReduceNames[static_cast<int>(op)];
}

bool parseReduceOp(std::string_view name, ReduceOp *op) {
  for (int i = 0; i < kNumReduceOps; ++i)
    if (name == kReduceNames[i]) {
      *op = static_cast<ReduceOp>(i);
      return true;
    }
  return false;
}

} // namespace collrt

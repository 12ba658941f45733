//===- ElementKinds.cpp - the element types collectives accept ------------===//
#include "dialects/Coll/IR/CollOps.h"

using namespace mlir;

namespace collc::coll {

std::optional<ElementKind> elementKindOf(Type type) {
  if (type.isF64())
    return ElementKind::f64;
  if (type.isF32())
    return ElementKind::f32;
  if (type.isF16())
    return ElementKind::f16;
  if (type.isBF16())
    return ElementKind::bf16;
  if (type.isFloat8E4M3FN())
    return ElementKind::f8E4M3FN;
  if (type.isFloat8E5M2())
    return ElementKind::f8E5M2;
  if (type.isSignlessInteger(64))
    return ElementKind::i64;
  if (type.isSignlessInteger(32))
    return ElementKind::i32;
  if (type.isSignlessInteger(8))
    return ElementKind::i8;
  return std::nullopt;
}

unsigned byteWidth(ElementKind kind) {
  switch (kind) {
  case ElementKind::f64:
  case ElementKind::i64:
    return 8;
  case ElementKind::f32:
  case ElementKind::i32:
    return 4;
  case ElementKind::f16:
  case ElementKind::bf16:
    return 2;
  case ElementKind::f8E4M3FN:
  case ElementKind::f8E5M2:
  case ElementKind::i8:
    return 1;
  }
  llvm_unreachable("unknown ElementKind");
}

bool isFloatKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::f64:
  case ElementKind::f32:
  case ElementKind::f16:
  case ElementKind::bf16:
  case ElementKind::f8E4M3FN:
  case ElementKind::f8E5M2:
    return true;
  case ElementKind::i64:
  case ElementKind::i32:
  case ElementKind::i8:
    return false;
  }
  llvm_unreachable("unknown ElementKind");
}

bool isValidReduction(ReductionKind kind, ElementKind element) {
  bool isF8 =
      element == ElementKind::f8E4M3FN || element == ElementKind::f8E5M2;
  switch (kind) {
  case ReductionKind::avg:
    return isFloatKind(element);
  case ReductionKind::prod:
    return !isF8;
  case ReductionKind::sum:
  case ReductionKind::min:
  case ReductionKind::max:
    return true;
  }
  llvm_unreachable("unknown ReductionKind");
}

} // namespace collc::coll

//===- ShapeRules.cpp - shape and attribute rules shared by the verifiers -===//
#include "dialects/Coll/IR/ShapeRules.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace collc::coll::rules {

/// A dimension as written in a type: its size, or ? when dynamic.
std::string dimString(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Checks that `axis` (the attribute `name`) indexes a dimension of `type`.
LogicalResult verifyAxis(Operation *op, StringRef name, int64_t axis,
                         RankedTensorType type) {
  if (axis < 0 || axis >= type.getRank())
    return op->emitOpError()
           << name << " " << axis << " is out of range for an input of rank "
           << type.getRank();
  return success();
}

LogicalResult verifyRoot(Operation *op, int64_t root, int64_t groupSize) {
  if (root < 0 || root >= groupSize)
    return op->emitOpError("root ")
           << root << " is outside the group of " << groupSize << " ranks";
  return success();
}

LogicalResult verifyReduction(Operation *op, ReductionKind kind,
                              Type elementType) {
  ElementKind element = *elementKindOf(elementType);
  if (isValidReduction(kind, element))
    return success();
  InFlightDiagnostic diag = op->emitOpError("reduction ")
                            << stringifyReductionKind(kind)
                            << " is not valid for element type " << elementType;
  if (kind == ReductionKind::avg)
    diag << ": avg is defined for floating-point types only";
  else
    diag << ": a product of 8-bit floats overflows or loses all precision";
  return diag;
}

/// Checks that the input's dimension along `axis` is divisible by the group
/// size (dynamic dimensions are checked at run time).
LogicalResult verifyDivisible(Operation *op, RankedTensorType input,
                              int64_t axis, int64_t groupSize) {
  int64_t dim = input.getDimSize(axis);
  if (!ShapedType::isDynamic(dim) && dim % groupSize != 0)
    return op->emitOpError("input dim ")
           << axis << " (" << dim << ") is not divisible by the group size "
           << groupSize;
  return success();
}

/// The input's dimension `axis` times the group size, or a located error
/// when it does not fit in 64 bits.
FailureOr<int64_t> multiplyDim(Operation *op, RankedTensorType input,
                               int64_t axis, int64_t groupSize) {
  int64_t dim = input.getDimSize(axis), product;
  if (ShapedType::isDynamic(dim))
    return dim;
  if (llvm::MulOverflow(dim, groupSize, product))
    return op->emitOpError("input dim ")
           << axis << " (" << dim << ") times the group size " << groupSize
           << " overflows 64 bits";
  return product;
}

int64_t divideDim(int64_t dim, int64_t groupSize) {
  return ShapedType::isDynamic(dim) ? dim : dim / groupSize;
}

/// Checks that `result` has the input's element type and rank and the
/// dimensions `expected`; `why(d)` explains the expected size of dim d.
LogicalResult verifyResultType(Operation *op, RankedTensorType input,
                               RankedTensorType result,
                               ArrayRef<int64_t> expected,
                               llvm::function_ref<std::string(int64_t)> why) {
  if (result.getElementType() != input.getElementType())
    return op->emitOpError("result element type ")
           << result.getElementType() << " differs from the input's "
           << input.getElementType();
  if (result.getRank() != input.getRank())
    return op->emitOpError("result has rank ")
           << result.getRank() << " but the input has rank " << input.getRank();
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (result.getDimSize(d) != expected[d])
      return op->emitOpError("result dim ")
             << d << " is " << dimString(result.getDimSize(d))
             << " but must be " << dimString(expected[d]) << " (" << why(d)
             << ")";
  return success();
}

std::string sameAsInput(int64_t) { return "as in the input"; }

/// Checks a result that has exactly the input's type.
LogicalResult verifySameType(Operation *op, Value input, Value result) {
  return verifyResultType(op, tensorType(input), tensorType(result),
                          tensorType(input).getShape(), sameAsInput);
}

/// Checks the result of a collective that concatenates group-size blocks
/// along `axis` (all_gather, gather).
LogicalResult verifyGathered(Operation *op, Value inputValue, Value result,
                             int64_t axis, int64_t groupSize) {
  RankedTensorType input = tensorType(inputValue);
  SmallVector<int64_t> expected(input.getShape());
  FailureOr<int64_t> gathered = multiplyDim(op, input, axis, groupSize);
  if (failed(gathered))
    return failure();
  expected[axis] = *gathered;
  return verifyResultType(
      op, input, tensorType(result), expected, [&](int64_t d) -> std::string {
        if (d != axis)
          return sameAsInput(d);
        return "input dim " + std::to_string(d) + " = " +
               dimString(input.getDimSize(d)) + " times the group size " +
               std::to_string(groupSize);
      });
}

/// Checks the result of a collective that splits the input into group-size
/// blocks along `axis` (reduce_scatter, scatter).
LogicalResult verifyScattered(Operation *op, Value inputValue, Value result,
                              int64_t axis, int64_t groupSize) {
  RankedTensorType input = tensorType(inputValue);
  if (failed(verifyDivisible(op, input, axis, groupSize)))
    return failure();
  SmallVector<int64_t> expected(input.getShape());
  expected[axis] = divideDim(expected[axis], groupSize);
  return verifyResultType(
      op, input, tensorType(result), expected, [&](int64_t d) -> std::string {
        if (d != axis)
          return sameAsInput(d);
        return "input dim " + std::to_string(d) + " = " +
               dimString(input.getDimSize(d)) + " divided by the group size " +
               std::to_string(groupSize);
      });
}

} // namespace collc::coll::rules

//===- ShapeRules.h - rules shared by the coll verifiers --------*- C++ -*-===//
//
// Internal to the coll dialect: each function checks one rule and emits a
// located, precise diagnostic on the op when it is broken.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_COLL_IR_SHAPERULES_H
#define COLLC_DIALECTS_COLL_IR_SHAPERULES_H

#include "dialects/Coll/IR/CollOps.h"

#include <string>

namespace collc::coll::rules {

/// A dimension as written in a type: its size, or ? when dynamic.
std::string dimString(int64_t dim);

/// The type of a value constrained to a ranked tensor by ODS.
mlir::RankedTensorType tensorType(mlir::Value value);

/// Checks that `axis` (the attribute `name`) indexes a dimension of `type`.
mlir::LogicalResult verifyAxis(mlir::Operation *op, llvm::StringRef name,
                               int64_t axis, mlir::RankedTensorType type);

/// Checks that the root is a group index: in [0, groupSize).
mlir::LogicalResult verifyRoot(mlir::Operation *op, int64_t root,
                               int64_t groupSize);

/// Checks that `kind` is a valid reduction of `elementType`.
mlir::LogicalResult verifyReduction(mlir::Operation *op, ReductionKind kind,
                                    mlir::Type elementType);

/// Checks that the input's dimension `axis` is divisible by the group size
/// (dynamic dimensions are checked at run time).
mlir::LogicalResult verifyDivisible(mlir::Operation *op,
                                    mlir::RankedTensorType input, int64_t axis,
                                    int64_t groupSize);

/// The input's dimension `axis` times the group size (dynamic stays
/// dynamic), or a located error when it does not fit in 64 bits.
mlir::FailureOr<int64_t> multiplyDim(mlir::Operation *op,
                                     mlir::RankedTensorType input, int64_t axis,
                                     int64_t groupSize);

/// `dim` divided by the group size (dynamic stays dynamic).
int64_t divideDim(int64_t dim, int64_t groupSize);

/// Checks that `result` has the input's element type and rank and the
/// dimensions `expected`; `why(d)` explains the expected size of dim d.
mlir::LogicalResult
verifyResultType(mlir::Operation *op, mlir::RankedTensorType input,
                 mlir::RankedTensorType result,
                 llvm::ArrayRef<int64_t> expected,
                 llvm::function_ref<std::string(int64_t)> why);

/// The explanation of a dimension that is the input's.
std::string sameAsInput(int64_t dim);

/// Checks a result that has exactly the input's type.
mlir::LogicalResult verifySameType(mlir::Operation *op, mlir::Value input,
                                   mlir::Value result);

/// Checks the result of a collective that concatenates group-size blocks
/// along `axis` (all_gather, gather).
mlir::LogicalResult verifyGathered(mlir::Operation *op, mlir::Value input,
                                   mlir::Value result, int64_t axis,
                                   int64_t groupSize);

/// Checks the result of a collective that splits the input into group-size
/// blocks along `axis` (reduce_scatter, scatter).
mlir::LogicalResult verifyScattered(mlir::Operation *op, mlir::Value input,
                                    mlir::Value result, int64_t axis,
                                    int64_t groupSize);

} // namespace collc::coll::rules

#endif

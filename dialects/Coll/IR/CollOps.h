//===- CollOps.h - the coll dialect's operations ----------------*- C++ -*-===//
//
// The ops, enums and attributes of the coll dialect, and the helpers that
// describe element kinds, groups and buffers for passes and the driver.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_COLL_IR_COLLOPS_H
#define COLLC_DIALECTS_COLL_IR_COLLOPS_H

#include "dialects/Coll/IR/CollDialect.h"
#include "dialects/Coll/IR/PeerFunction.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

#include "dialects/Coll/IR/CollEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Coll/IR/CollAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Coll/IR/CollMeshOp.h.inc"

namespace collc::coll {

/// The largest mesh collc accepts. It keeps every per-rank check (peer
/// functions, send/recv matching) fast and every rank count in 64 bits.
constexpr int64_t kMaxMeshRanks = int64_t(1) << 20;

/// The element kind of `type`, or std::nullopt when collectives do not
/// support it (integers must be signless i64, i32 or i8).
std::optional<ElementKind> elementKindOf(mlir::Type type);

/// The bytes of one element of `kind`.
unsigned byteWidth(ElementKind kind);

/// Whether `kind` is a floating-point kind.
bool isFloatKind(ElementKind kind);

/// Whether a reduction of `kind` is defined on `element`: avg is
/// floating-point only, and prod is not allowed on f8 (a product of a few
/// dozen f8 values overflows or loses all precision).
bool isValidReduction(ReductionKind kind, ElementKind element);

/// The indices into `mesh`'s axes of the named `axes` (all axes when `axes`
/// is null), skipping names that are not axes; empty when `mesh` is null.
llvm::SmallVector<int64_t> groupAxisIndices(MeshOp mesh, mlir::ArrayAttr axes);

/// The product of the sizes of `mesh`'s axes `axisIndices`; 0 when `mesh` is
/// null.
int64_t groupSize(MeshOp mesh, llvm::ArrayRef<int64_t> axisIndices);

/// The bytes of a ranked tensor of `type`; ShapedType::kDynamic when it has
/// a dynamic dimension, an unsupported element type, or more than 2^63 - 1
/// bytes.
int64_t bufferBytes(mlir::Type type);

/// The verifier shared by all collectives (CollectiveOpInterface): the mesh,
/// the group axes and the element types.
mlir::LogicalResult verifyCollectiveGroup(mlir::Operation *op);

} // namespace collc::coll

#include "dialects/Coll/IR/CollInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/Coll/IR/CollOps.h.inc"

#endif

//===- CollInterfaces.cpp - groups, buffers and the collective verifier ---===//
#include "dialects/Coll/IR/CollOps.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace collc::coll {

#include "dialects/Coll/IR/CollInterfaces.cpp.inc"

SmallVector<int64_t> groupAxisIndices(MeshOp mesh, ArrayAttr axes) {
  SmallVector<int64_t> indices;
  if (!mesh)
    return indices;
  ArrayAttr names = mesh.getNames();
  int64_t numAxes = std::min<int64_t>(names.size(), mesh.getShape().size());
  if (!axes) {
    for (int64_t i = 0; i < numAxes; ++i)
      indices.push_back(i);
    return indices;
  }
  for (Attribute axis : axes) {
    for (int64_t i = 0; i < numAxes; ++i) {
      if (names[i] == axis) {
        indices.push_back(i);
        break;
      }
    }
  }
  return indices;
}

int64_t groupSize(MeshOp mesh, ArrayRef<int64_t> axisIndices) {
  if (!mesh)
    return 0;
  ArrayRef<int64_t> shape = mesh.getShape();
  int64_t size = 1;
  for (int64_t axis : axisIndices) {
    // A malformed mesh (reported by its own verifier) must not overflow.
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) ||
        llvm::MulOverflow(size, shape[axis], size))
      return 0;
  }
  return size;
}

int64_t bufferBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return ShapedType::kDynamic;
  std::optional<ElementKind> kind = elementKindOf(tensor.getElementType());
  if (!kind)
    return ShapedType::kDynamic;
  int64_t bytes = byteWidth(*kind);
  for (int64_t dim : tensor.getShape())
    if (llvm::MulOverflow(bytes, dim, bytes))
      return ShapedType::kDynamic;
  return bytes;
}

/// Whether `mesh` satisfies its own verifier's rules; collectives do not
/// compute groups on a malformed mesh.
static bool isWellFormed(MeshOp mesh) {
  if (mesh.getShape().empty() ||
      mesh.getShape().size() != mesh.getNames().size())
    return false;
  int64_t ranks = 1;
  for (int64_t extent : mesh.getShape())
    if (extent <= 0 || llvm::MulOverflow(ranks, extent, ranks) ||
        ranks > kMaxMeshRanks)
      return false;
  return true;
}

/// Checks that the tensor `value` has a supported element type and fits in
/// 64 bits of bytes.
static LogicalResult verifyBuffer(Operation *op, Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return success(); // The op's type constraints report it.
  if (!elementKindOf(tensor.getElementType()))
    return op->emitOpError("element type ")
           << tensor.getElementType()
           << " is not supported by collectives; supported: f64, f32, f16, "
              "bf16, f8E4M3FN, f8E5M2, i64, i32, i8";
  if (tensor.hasStaticShape() && bufferBytes(tensor) == ShapedType::kDynamic)
    return op->emitOpError("buffer ")
           << tensor << " has more than 2^63 - 1 bytes";
  return success();
}

LogicalResult verifyCollectiveGroup(Operation *op) {
  auto collective = cast<CollectiveOpInterface>(op);
  FlatSymbolRefAttr meshRef = collective.getMeshRef();
  Operation *symbol = SymbolTable::lookupNearestSymbolFrom(op, meshRef);
  if (!symbol)
    return op->emitOpError("mesh ") << meshRef << " is not defined";
  auto mesh = dyn_cast<MeshOp>(symbol);
  if (!mesh)
    return op->emitOpError("mesh ")
           << meshRef << " is a '" << symbol->getName() << "', not a coll.mesh";
  if (!isWellFormed(mesh))
    return op->emitOpError("uses mesh ")
           << meshRef << ", which is invalid (see its error)";

  if (ArrayAttr axes = collective.getAxesAttr()) {
    if (axes.empty())
      return op->emitOpError("axes must name at least one axis of mesh ")
             << meshRef << " (omit them for the whole mesh)";
    llvm::SmallSet<StringRef, 4> seen;
    for (Attribute axis : axes) {
      StringRef name = cast<StringAttr>(axis).getValue();
      if (!llvm::is_contained(mesh.getNames(), axis)) {
        InFlightDiagnostic diag = op->emitOpError("mesh ")
                                  << meshRef << " has no axis \"" << name
                                  << "\"; its axes are";
        for (Attribute meshAxis : mesh.getNames())
          diag << " \"" << cast<StringAttr>(meshAxis).getValue() << "\"";
        return diag;
      }
      if (!seen.insert(name).second)
        return op->emitOpError("axis \"") << name << "\" is listed twice";
    }
  }

  for (Value operand : op->getOperands().take_front(1))
    if (failed(verifyBuffer(op, operand)))
      return failure();
  for (Value result : op->getResults())
    if (failed(verifyBuffer(op, result)))
      return failure();
  return success();
}

} // namespace collc::coll

//===- MeshOp.cpp - coll.mesh ---------------------------------------------===//
//
// Generated apart from the other ops (see CMakeLists.txt), so its ODS
// definitions live in their own translation unit.
//
//===----------------------------------------------------------------------===//
#include "dialects/Coll/IR/CollOps.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace collc::coll;

int64_t MeshOp::getNumRanks() {
  int64_t ranks = 1;
  for (int64_t extent : getShape())
    ranks *= extent;
  return ranks;
}

LogicalResult MeshOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (shape.empty())
    return emitOpError("must have at least one axis");
  if (shape.size() != getNames().size())
    return emitOpError("has ") << shape.size() << " dimensions but "
                               << getNames().size() << " axis names";
  llvm::SmallSet<StringRef, 4> seen;
  for (auto [index, nameAttr] : llvm::enumerate(getNames())) {
    StringRef name = cast<StringAttr>(nameAttr).getValue();
    if (name.empty())
      return emitOpError("axis ") << index << " has an empty name";
    if (!seen.insert(name).second)
      return emitOpError("axis name \"") << name << "\" is used twice";
  }
  int64_t ranks = 1;
  for (auto [index, extent] : llvm::enumerate(shape)) {
    if (extent <= 0)
      return emitOpError("axis \"")
             << cast<StringAttr>(getNames()[index]).getValue() << "\" has size "
             << extent << "; sizes must be positive";
    if (llvm::MulOverflow(ranks, extent, ranks) || ranks > kMaxMeshRanks)
      return emitOpError("has more than ")
             << kMaxMeshRanks << " ranks (2^20), the most collc supports";
  }
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Coll/IR/CollMeshOp.cpp.inc"

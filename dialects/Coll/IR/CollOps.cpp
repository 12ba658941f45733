//===- CollOps.cpp - verifiers of the coll dialect's operations -----------===//
#include "dialects/Coll/IR/CollOps.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace collc::coll;

LogicalResult MeshOp::verify() {
  if (getShape().size() != getNames().size())
    return emitOpError("has ") << getShape().size() << " dimensions but "
                               << getNames().size() << " axis names";
  return success();
}

LogicalResult AllReduceOp::verify() { return success(); }

#define GET_OP_CLASSES
#include "dialects/Coll/IR/CollOps.cpp.inc"

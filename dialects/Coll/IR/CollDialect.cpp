//===- CollDialect.cpp - the coll dialect's registration ------------------===//
#include "dialects/Coll/IR/CollDialect.h"
#include "dialects/Coll/IR/CollOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::coll;

#include "dialects/Coll/IR/CollDialect.cpp.inc"
#include "dialects/Coll/IR/CollEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Coll/IR/CollAttrs.cpp.inc"

void CollDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Coll/IR/CollAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Coll/IR/CollMeshOp.cpp.inc"
      ,
#define GET_OP_LIST
#include "dialects/Coll/IR/CollOps.cpp.inc"
      >();
}

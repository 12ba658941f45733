//===- SchedDialect.cpp - the sched dialect's registration ----------------===//
#include "dialects/Sched/IR/SchedDialect.h"
#include "dialects/Sched/IR/SchedOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::sched;

#include "dialects/Sched/IR/SchedDialect.cpp.inc"
#include "dialects/Sched/IR/SchedEnums.cpp.inc"
#include "dialects/Sched/IR/SchedInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Sched/IR/SchedAttrs.cpp.inc"

void SchedDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Sched/IR/SchedAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Sched/IR/SchedOps.cpp.inc"
      >();
}

//===- SchedOps.h - the sched dialect's operations --------------*- C++ -*-===//
#ifndef COLLC_DIALECTS_SCHED_IR_SCHEDOPS_H
#define COLLC_DIALECTS_SCHED_IR_SCHEDOPS_H

#include "common/Program/Program.h"
#include "dialects/Sched/IR/SchedDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include "dialects/Sched/IR/SchedEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Sched/IR/SchedAttrs.h.inc"

#include "dialects/Sched/IR/SchedInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/Sched/IR/SchedOps.h.inc"

#endif

//===- CollOps.h - the coll dialect's operations ----------------*- C++ -*-===//
#ifndef COLLC_DIALECTS_COLL_IR_COLLOPS_H
#define COLLC_DIALECTS_COLL_IR_COLLOPS_H

#include "dialects/Coll/IR/CollDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Coll/IR/CollEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Coll/IR/CollAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Coll/IR/CollOps.h.inc"

#endif

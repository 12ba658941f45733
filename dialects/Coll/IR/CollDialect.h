//===- CollDialect.h - the coll dialect -------------------------*- C++ -*-===//
#ifndef COLLC_DIALECTS_COLL_IR_COLLDIALECT_H
#define COLLC_DIALECTS_COLL_IR_COLLDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Coll/IR/CollDialect.h.inc"

#endif

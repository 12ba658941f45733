//===- SchedDialect.h - the sched dialect -----------------------*- C++ -*-===//
#ifndef COLLC_DIALECTS_SCHED_IR_SCHEDDIALECT_H
#define COLLC_DIALECTS_SCHED_IR_SCHEDDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Sched/IR/SchedDialect.h.inc"

#endif

//===- Passes.h - passes and registration of the sched dialect --*- C++ -*-===//
#ifndef COLLC_DIALECTS_SCHED_TRANSFORMS_PASSES_H
#define COLLC_DIALECTS_SCHED_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace collc {
namespace sched {

#define GEN_PASS_DECL
#include "dialects/Sched/Transforms/Passes.h.inc"

/// Adds the sched dialect to `registry`.
void registerSchedDialect(mlir::DialectRegistry &registry);

/// Registers sched-expand and sched-expand-check with the pass registry
/// (registerSchedPasses is generated).
#define GEN_PASS_REGISTRATION
#include "dialects/Sched/Transforms/Passes.h.inc"

} // namespace sched
} // namespace collc

#endif

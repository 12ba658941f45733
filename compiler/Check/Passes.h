//===- Passes.h - checks of lowered schedules -------------------*- C++ -*-===//
#ifndef COLLC_COMPILER_CHECK_PASSES_H
#define COLLC_COMPILER_CHECK_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace collc {

/// sched-verify: expands and verifies every sched.schedule of a module.
std::unique_ptr<mlir::Pass> createSchedVerifyPass();

/// Registers the passes above (for collc-opt).
void registerCheckPasses();

/// all_to_all_v send counts for n ranks by pattern name ("uniform",
/// "skewed", "zero-row", "zero-col", "random"); empty for an unknown name.
std::vector<int64_t> sendCountPattern(llvm::StringRef pattern, int32_t n);

} // namespace collc

#endif

//===- Passes.h - checks of lowered schedules -------------------*- C++ -*-===//
#ifndef COLLC_COMPILER_CHECK_PASSES_H
#define COLLC_COMPILER_CHECK_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <optional>
#include <vector>

namespace collc {

/// sched-verify: expands and verifies every sched.schedule of a module.
std::unique_ptr<mlir::Pass> createSchedVerifyPass();

/// Registers the passes above (for collc-opt).
void registerCheckPasses();

/// all_to_all_v send counts for n ranks by pattern name ("uniform",
/// "skewed", "zero-row", "zero-col", "random"); empty for an unknown name.
std::vector<int64_t> sendCountPattern(llvm::StringRef pattern, int32_t n);

/// send_recv permutations for n ranks by pattern name ("schedule": empty,
/// the schedule's own; "shift", "chain", "reverse", "pairs") or as a table
/// of colon-separated receivers ("1:2:0:-1", of any length); std::nullopt
/// for anything else.
std::optional<std::vector<int32_t>> sendToPattern(llvm::StringRef pattern,
                                                  int32_t n);

} // namespace collc

#endif

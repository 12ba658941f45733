//===- CheckLowered.h - expand and verify lowered collectives --*- C++ -*-===//
//
// collc always runs this after lowering: every collective's schedule is
// expanded with exactly the options the lowering chose and proven correct
// and deadlock-free by sched-verify before anything is reported, simulated
// or run.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_CHECK_CHECKLOWERED_H
#define COLLC_COMPILER_CHECK_CHECKLOWERED_H

#include "compiler/Verify/Verifier.h"
#include "lowering/CollToSched/LowerCollectives.h"

#include <optional>
#include <vector>

namespace collc {

struct CheckedCollective {
  lowering::LoweredCollective lowered;
  /// The expanded schedule; absent when no algorithm applied or the
  /// expansion failed (reported as a diagnostic).
  std::optional<sched::Program> program;
  sched::VerifyResult verify;
  bool verified() const { return program && verify.ok(); }
};

/// Expands and verifies every lowered collective. Expansion and
/// verification errors are reported as errors at the collective (the
/// verifier's messages as notes); the result says which passed.
std::vector<CheckedCollective>
checkLowered(std::vector<lowering::LoweredCollective> lowered,
             const sched::VerifyOptions &options);

} // namespace collc

#endif

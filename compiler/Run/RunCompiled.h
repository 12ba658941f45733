//===- RunCompiled.h - collc --run on a compiled module ---------*- C++ -*-===//
//
// The MLIR side of collc --run: what RunPlan.h needs of the compiled
// collectives besides their plan (how to draw the send counts of an
// all_to_all_v whose counts come at run time), and the run of a plan built
// from them.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_RUN_RUNCOMPILED_H
#define COLLC_COMPILER_RUN_RUNCOMPILED_H

#include "compiler/Check/CheckLowered.h"
#include "compiler/Run/RunPlan.h"

#include <string>
#include <vector>

namespace collc {

/// --run's rule for an all_to_all_v whose counts come at run time, by plan
/// index: counts in whole rows of its split axis, and the transpose of an
/// earlier one's counts where its send_counts operand is a linalg.transpose
/// (permutation [1, 0]) of that one's (a MoE combine).
std::vector<RunCounts>
runCountsOf(const std::vector<CheckedCollective> &checked);

/// Runs `plan`, built from `checked`, on the CPU executor with every
/// collective's watchdog at `timeoutSeconds` (runPlanInProcess, with the
/// counts of runCountsOf; an all_to_all_v whose counts come at run time runs
/// with random counts, RunPlanOptions::countsSeed). Appends its lines to
/// `out`; false when a collective failed.
bool runCompiledPlan(const collrt::Plan &plan,
                     const std::vector<CheckedCollective> &checked,
                     double timeoutSeconds, std::string &out);

} // namespace collc

#endif

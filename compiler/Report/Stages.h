//===- Stages.h - what collc says of each collective's lowering -*- C++ -*-===//
//
// The parts of collc's summary and report that come from the lowered and
// checked collectives: each collective's algorithm, chunks, verification
// and bytes sent in the summary's rows, the collectives with no schedule
// and why, and the stages of the path from program to run.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_REPORT_STAGES_H
#define COLLC_COMPILER_REPORT_STAGES_H

#include "compiler/Check/CheckLowered.h"
#include "compiler/Summary/CollectiveSummary.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace collc {

/// Prints the stages of the path from program to run, and whether each
/// exists yet (with how many collectives were lowered and verified).
void printStages(const std::vector<CheckedCollective> &checked,
                 llvm::raw_ostream &os);

/// Adds each collective's algorithm, chunk count, verification result and
/// the most bytes any rank sends to the summary's rows.
void addLoweringToSummary(const std::vector<CheckedCollective> &checked,
                          ProgramSummary &summary);

/// Prints a line per collective that has no schedule yet, and why.
void printNotLowered(const std::vector<CheckedCollective> &checked,
                     llvm::raw_ostream &os);

} // namespace collc

#endif

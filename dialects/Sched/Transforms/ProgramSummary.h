//===- ProgramSummary.h - a Program as compact text -------------*- C++ -*-===//
#ifndef COLLC_DIALECTS_SCHED_TRANSFORMS_PROGRAMSUMMARY_H
#define COLLC_DIALECTS_SCHED_TRANSFORMS_PROGRAMSUMMARY_H

#include "common/Program/Program.h"

#include "llvm/Support/raw_ostream.h"

namespace collc {
namespace sched {

struct SummaryOptions {
  int64_t ranks = -1;        ///< ranks listed in detail; -1: all
  int64_t instructions = -1; ///< instructions listed per channel; -1: all
};

/// Writes one instruction in the explicit form's syntax, e.g.
/// "recv_copy_send from 2 to 1 dst = output[2] step = 1".
void printInstruction(llvm::raw_ostream &os, const Instruction &instruction,
                      const RankProgram &rank);

/// Writes a header line (collective, algorithm, n, k, root, peer, buffers,
/// instruction count), then for the first ranks their channels and the
/// first instructions of each, one per line.
void printProgramSummary(llvm::raw_ostream &os, const Program &program,
                         const SummaryOptions &options = {});

} // namespace sched
} // namespace collc

#endif

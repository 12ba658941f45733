//===- Expand.h - sched IR to and from the explicit Program -----*- C++ -*-===//
//
// expandSchedule turns a sched.schedule (parametric or explicit) into the
// Program of one group size and chunk count; buildExplicitSchedule turns any
// Program back into explicit-form IR, so that every Program can be printed
// and re-read as sched IR.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECTS_SCHED_TRANSFORMS_EXPAND_H
#define COLLC_DIALECTS_SCHED_TRANSFORMS_EXPAND_H

#include "common/Program/Program.h"
#include "dialects/Sched/IR/SchedOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <vector>

namespace collc {
namespace sched {

/// What to expand a schedule for.
struct ExpandOptions {
  /// The group size n; 0 takes the schedule's group_size.
  int32_t groupSize = 0;
  /// The chunks per part k; 0 takes the schedule's chunks_per_part, or 1.
  uint32_t chunksPerPart = 0;
  /// Values for the schedule's parameters, replacing the defaults in its
  /// `params`; naming a parameter the schedule lacks is an error.
  llvm::StringMap<int64_t> params;
  /// all_to_all_v's n*n send counts; empty takes the schedule's
  /// send_counts, if any.
  std::vector<int64_t> sendCounts;
  /// send_recv's permutation: the rank each rank sends its input to, -1 for
  /// none (n entries; no rank receiving from two). Empty takes the
  /// schedule's send_to, or its peer (and root).
  std::vector<int32_t> sendTo;
  /// Expansion stops with an error beyond this many instructions ...
  uint64_t maxInstructions = uint64_t(1) << 26;
  /// ... or this many loop iterations in all (a guard against runaway
  /// bounds such as `0 to 1000000000`).
  uint64_t maxLoopIterations = uint64_t(1) << 28;
};

/// Expands `schedule` into the Program for `options`' group size and chunk
/// count: algorithm, collective, numRanks, root, peer, sendTo (send_recv:
/// always n entries; root and peer name its pair when there is only one, and
/// the parameters send_peer and recv_peer, if declared, take each rank's
/// receiver and sender, -1 for none), chunksPerPart,
/// buffers (input and output from the collective's table in Program.h,
/// scratch from the schedule's expression) and every rank's channel
/// streams. Every peer is checked to be in the group and not the rank
/// itself, every chunk range to lie in its buffer, every dependency to name
/// an instruction that exists. A failure is reported as an error located at
/// the op responsible, with the rank, channel and loop values as a note.
/// The schedule must have passed the verifier.
llvm::FailureOr<Program> expandSchedule(ScheduleOp schedule,
                                        const ExpandOptions &options);

/// expandSchedule for a group size and a chunk count.
llvm::FailureOr<Program> expandSchedule(ScheduleOp schedule, int32_t groupSize,
                                        uint32_t chunksPerPart = 0);

/// Builds the explicit form of `program` at the builder's insertion point: a
/// sched.schedule named `name` (the algorithm's name, made a valid symbol,
/// when empty) with group_size, chunks_per_part, root, peer, scratch and
/// send_counts fixed, and one sched.rank per rank that has channels, every
/// channel kept (empty ones too, so that expanding the result gives
/// `program` back). Fails, with an error at `loc`, only on an instruction
/// whose source and destination ranges differ in length, which the dialect
/// cannot express.
llvm::FailureOr<ScheduleOp> buildExplicitSchedule(mlir::OpBuilder &builder,
                                                  mlir::Location loc,
                                                  const Program &program,
                                                  llvm::StringRef name = {});

} // namespace sched
} // namespace collc

#endif

//===- Plan.h - the plan: what every rank runs ------------------*- C++ -*-===//
//
// The contract between the compiler and the runtime. collc writes it
// (`collc --emit=plan -o X.plan.json`), libcollrt and collc-run read it. A
// plan holds one entry per collective of the compiled program: the expanded
// schedule (sched::Program: buffers in chunks, every rank's channel streams,
// the postcondition) and what the runtime needs around it: the element type,
// the reduction, the world ranks of every group it runs on, and the
// connection slots it was verified with. The JSON form is documented in
// docs/plan-format.md; its opcodes are sched::opcodeName's, shared by the
// writer and the reader.
//
// Plain C++17 with no MLIR: the runtime builds on machines without LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_PLAN_H
#define COLLRT_PLAN_H

#include "collrt/Status.h"
#include "collrt/Types.h"
#include "dialects/Sched/Program/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {

/// The plan format's version; a reader refuses any other.
constexpr int kPlanVersion = 1;

struct PlanCollective {
  /// Where the collective is in the compiled source ("moe.mlir:12:8"), or
  /// what generated it ("--collective all_reduce").
  std::string location;
  DataType dtype = DataType::F32;
  /// The reduction of reducing collectives (all_reduce, reduce_scatter,
  /// reduce); Sum elsewhere, where it is unused.
  ReduceOp reduction = ReduceOp::Sum;
  /// Elements of each rank's input buffer the collective was compiled for;
  /// -1 when known only at run time. The schedule works for any size (its
  /// chunks are cut at run time, see sched::ChunkLayout) except
  /// all_to_all_v, whose program.sendCounts fix the sizes.
  int64_t elementsPerRank = -1;
  /// The groups the schedule runs on, each the world ranks of group ranks
  /// 0..N-1 (N = program.numRanks). Groups are disjoint; a world rank in no
  /// group takes no part. One group of all ranks for a whole-world
  /// collective; e.g. 8 groups of 8 for a collective over one mesh axis.
  std::vector<std::vector<int32_t>> groups;
  /// Sends a connection must hold before a further send blocks: the value
  /// sched-verify proved the schedule deadlock-free with. A runtime must
  /// provide at least this many.
  uint32_t connectionSlots = 8;
  /// The schedule (group ranks, not world ranks).
  collc::sched::Program program;
};

struct Plan {
  int version = kPlanVersion;
  /// What wrote it ("collc 0.1").
  std::string producer;
  /// The topology it was compiled for (name), informative.
  std::string topology;
  /// Ranks of the world the plan is for: every group rank maps into
  /// [0, worldSize).
  int32_t worldSize = 0;
  std::vector<PlanCollective> collectives;
};

/// The plan as JSON text (docs/plan-format.md).
std::string planToJson(const Plan &plan);

/// Parses and validates `text` (named `sourceName` in errors). Every rule of
/// docs/plan-format.md is checked before anything runs: the version, every
/// field's type and range (errors name the JSON path, e.g.
/// "$.collectives[0].program.ranks[3].channels[1].instructions[7]"),
/// buffers and chunk ranges, peers, dependencies, and that every connection
/// is matched (the k-th send of (a, b, channel) has a k-th recv of the same
/// size in chunks). Returns InvalidPlan on any violation.
Status planFromJson(const std::string &text, const std::string &sourceName,
                    Plan *plan);

/// Reads and validates a plan file; errors name the file.
Status loadPlanFile(const std::string &path, Plan *plan);

/// Writes `plan` to `path` atomically (a temporary file renamed into place),
/// so that a failure never leaves a half-written plan.
Status savePlanFile(const std::string &path, const Plan &plan);

/// PlanMismatch when the plan cannot run on a world of `worldSize` ranks.
Status checkPlanWorld(const Plan &plan, int32_t worldSize);

} // namespace collrt

#endif

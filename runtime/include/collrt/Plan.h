//===- Plan.h - the plan: what every rank runs ------------------*- C++ -*-===//
//
// The contract between the compiler and the runtime. collc writes it
// (`collc --emit=plan -o X.plan.json`), libcollrt and collc-run read it. A
// plan holds one entry per collective of the compiled program: the expanded
// schedule (sched::Program: buffers in chunks, every rank's channel streams,
// the postcondition) and what the runtime needs around it: the element type,
// the reduction, the world ranks of every group it runs on, and the
// connection slots it was verified with. The JSON form is documented in
// docs/plan-format.md; its opcodes are the names of collrt/Opcodes.h's table
// (sched::opcodeName), shared by the writer and the reader.
//
// Plain C++17 with no MLIR: the runtime builds on machines without LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_PLAN_H
#define COLLRT_PLAN_H

#include "collrt/Status.h"
#include "collrt/Types.h"
#include "common/Program/Program.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collrt {

/// The newest plan format version; a reader reads versions
/// kPlanOldestVersion to kPlanVersion and refuses any other.
/// Version 2 adds all_to_all_v send counts given at run time
/// (`"send_counts": null`); the writer writes the oldest version that
/// describes the plan (planVersionNeeded), so that a plan without them
/// still reads with a version-1 reader.
constexpr int kPlanVersion = 2;
constexpr int kPlanOldestVersion = 1;

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
  /// all_to_all_v, whose program.sendCounts fix the sizes, unless they are
  /// empty: then the counts are given at run time (sendCountsAtRunTime).
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
  /// The version the plan was read in (1 for a plan built in memory). The
  /// writer ignores it and writes planVersionNeeded().
  int version = kPlanOldestVersion;
  /// What wrote it ("collc 0.1").
  std::string producer;
  /// The topology it was compiled for (name), informative.
  std::string topology;
  /// Ranks of the world the plan is for: every group rank maps into
  /// [0, worldSize).
  int32_t worldSize = 0;
  std::vector<PlanCollective> collectives;
};

/// Whether `collective` is an all_to_all_v whose send counts are given at
/// run time (Communicator::run's sendCounts): its program.sendCounts is
/// empty. Its schedule does not depend on the counts; only the chunk sizes
/// do. Inline, so that the executor needs no plan reader.
inline bool sendCountsAtRunTime(const PlanCollective &collective) {
  return collective.program.collective == collc::sched::Collective::AllToAllV &&
         collective.program.sendCounts.empty();
}

/// The oldest format version that can describe `plan`: 2 when an
/// all_to_all_v has its counts at run time, else 1.
int planVersionNeeded(const Plan &plan);

/// The plan as JSON text (docs/plan-format.md), in version
/// planVersionNeeded(plan).
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

/// Writes `text` to `path` atomically: into a fresh temporary file next to
/// it, renamed into place only when the whole text is written (savePlanFile,
/// the tuning file of collrt/Tuning.h). On failure nothing is left behind
/// and `path` is untouched.
Status writeFileAtomically(const std::string &path, const std::string &text);

/// PlanMismatch when the plan cannot run on a world of `worldSize` ranks:
/// a plan runs only on a world of exactly plan.worldSize ranks.
Status checkPlanWorld(const Plan &plan, int32_t worldSize);

/// InvalidArgument when `index` names no collective of the plan.
Status checkCollectiveIndex(const Plan &plan, size_t index);

/// The group rank of world rank `worldRank` in `collective` (its index in
/// the group that holds it), or -1 when it is in no group.
int32_t groupRankOf(const PlanCollective &collective, int32_t worldRank);

/// The plan format's names are sched's (opcodeName, collrt/Opcodes.h's;
/// collectiveName, bufferName); these parse them back, false for anything
/// else. One table serves the writer and the reader.
bool parseOpcode(std::string_view name, collc::sched::Opcode *opcode);
bool parseCollective(std::string_view name,
                     collc::sched::Collective *collective);
bool parseBuffer(std::string_view name, collc::sched::Buffer *buffer);

/// The range of a buffer a message has the size of: what a send puts on the
/// wire and what a recv stores the arrival into or combines it with (`dst`
/// for the opcodes that store, `src` for send and recv_reduce_send).
const collc::sched::ChunkRange &
messageRange(const collc::sched::Instruction &instruction);

/// One connection of a rank, from that rank's side: the peer (a group rank)
/// and channel, and how many messages the rank sends on it (or receives on
/// it) per run of the stream (per tile).
struct PlanConnection {
  int32_t peer = -1;
  uint32_t channel = 0;
  uint64_t messages = 0;
  bool operator==(const PlanConnection &o) const {
    return peer == o.peer && channel == o.channel && messages == o.messages;
  }
};

/// Every connection group rank `rank` of `program` uses, counted from its
/// instructions, each list sorted by (peer, channel). The plan's
/// "connections" summary of a rank holds exactly this.
struct RankConnections {
  std::vector<PlanConnection> send;
  std::vector<PlanConnection> recv;
};
RankConnections rankConnections(const collc::sched::Program &program,
                                int32_t rank);

} // namespace collrt

#endif

//===- PlanBuilder.h - checked collectives to a collrt::Plan ---*- C++ -*-===//
//
// What `collc --emit=plan` writes: every collective's verified schedule with
// the element type, reduction, groups of world ranks and connection slots a
// runtime needs (runtime/include/collrt/Plan.h, docs/plan-format.md).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PLAN_PLANBUILDER_H
#define COLLC_COMPILER_PLAN_PLANBUILDER_H

#include "collrt/Plan.h"
#include "compiler/Check/CheckLowered.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {

struct PlanBuildOptions {
  /// What wrote the plan.
  std::string producer = "collc";
  /// The topology's name.
  std::string topology;
  /// The slots every schedule was verified with (sched::VerifyOptions).
  uint32_t connectionSlots = 8;
  /// When not empty, every collective's location: what generated the
  /// program ("--collective all_reduce --bytes 1MiB"), since a generated
  /// program has no file.
  std::string generatedBy;
};

/// The plan's element type of a collective op (its first operand's, else
/// its result's element type); false when it has none.
bool planDataType(mlir::Operation *op, collrt::DataType &type);

/// The plan's reduction of a collective op: its `reduce` attribute, left
/// as it is when the op has none; false when it has no plan name.
bool planReduceOp(mlir::Operation *op, collrt::ReduceOp &reduction);

/// Every group of a collective over `groupAxes` of a mesh of `meshShape`,
/// each listing its mesh ranks in group-rank order (as groupOfRankZero).
/// Groups are ordered row-major by the coordinates of the other axes, so
/// the first is the group of mesh rank 0.
std::vector<std::vector<int32_t>> allGroups(llvm::ArrayRef<int64_t> meshShape,
                                            llvm::ArrayRef<int64_t> groupAxes);

/// Builds the plan of every collective of `checked` (a coll.recv travels
/// with its coll.send). Fails, appending one message per collective to
/// `errors`, when a collective has no verified schedule or cannot be
/// described by a plan, and when the program has no collective at all. An
/// all_to_all_v whose counts are known only at run time gets an empty
/// program.sendCounts: its counts are given at run time
/// (collrt::sendCountsAtRunTime).
bool buildPlan(const std::vector<CheckedCollective> &checked,
               const PlanBuildOptions &options, collrt::Plan &plan,
               std::vector<std::string> &errors);

} // namespace collc

#endif

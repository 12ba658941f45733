//===- PlanBuilder.cpp - checked collectives to a collrt::Plan ------------===//
#include "compiler/Plan/PlanBuilder.h"

#include "compiler/Summary/CollectiveSummary.h"
#include "lowering/CollToSched/GroupLayout.h"

#include <algorithm>

namespace collc {

std::vector<std::vector<int32_t>> allGroups(llvm::ArrayRef<int64_t> meshShape,
                                            llvm::ArrayRef<int64_t> groupAxes) {
  std::vector<int32_t> base = lowering::groupOfRankZero(meshShape, groupAxes);
  std::vector<int64_t> strides(meshShape.size(), 1);
  for (int64_t i = int64_t(meshShape.size()) - 2; i >= 0; --i)
    strides[size_t(i)] = strides[size_t(i) + 1] * meshShape[size_t(i) + 1];
  // The offsets of the groups: row-major over the axes not in the group.
  std::vector<int64_t> offsets = {0};
  for (size_t axis = 0; axis < meshShape.size(); ++axis) {
    if (llvm::is_contained(groupAxes, int64_t(axis)))
      continue;
    std::vector<int64_t> next;
    next.reserve(offsets.size() * size_t(meshShape[axis]));
    for (int64_t offset : offsets)
      for (int64_t c = 0; c < meshShape[axis]; ++c)
        next.push_back(offset + c * strides[axis]);
    offsets = std::move(next);
  }
  std::vector<std::vector<int32_t>> groups;
  groups.reserve(offsets.size());
  for (int64_t offset : offsets) {
    std::vector<int32_t> group(base);
    for (int32_t &rank : group)
      rank += int32_t(offset);
    groups.push_back(std::move(group));
  }
  return groups;
}

namespace {

/// The collective's description at its source location, for messages.
std::string describeOp(const CheckedCollective &c) {
  return c.lowered.op->getName().getStringRef().str() + " at " +
         formatLocation(c.lowered.op->getLoc());
}

} // namespace

bool planDataType(mlir::Operation *op, collrt::DataType &type) {
  mlir::Type shaped = op->getNumOperands() ? op->getOperand(0).getType()
                                           : op->getResult(0).getType();
  auto shapedType = mlir::dyn_cast<mlir::ShapedType>(shaped);
  if (!shapedType)
    return false;
  std::optional<coll::ElementKind> kind =
      coll::elementKindOf(shapedType.getElementType());
  return kind &&
         collrt::parseDataType(coll::stringifyElementKind(*kind).str(), &type);
}

bool planReduceOp(mlir::Operation *op, collrt::ReduceOp &reduction) {
  auto reduce = op->getAttrOfType<coll::ReductionKindAttr>("reduce");
  if (!reduce)
    return true;
  return collrt::parseReduceOp(
      coll::stringifyReductionKind(reduce.getValue()).str(), &reduction);
}

bool buildPlan(const std::vector<CheckedCollective> &checked,
               const PlanBuildOptions &options, collrt::Plan &plan,
               std::vector<std::string> &errors) {
  plan = collrt::Plan();
  plan.producer = options.producer;
  plan.topology = options.topology;
  size_t errorsBefore = errors.size();
  for (const CheckedCollective &c : checked) {
    mlir::Operation *op = c.lowered.op;
    // A recv is lowered, verified and run with its send.
    if (c.lowered.withItsSend())
      continue;
    auto collective = mlir::cast<coll::CollectiveOpInterface>(op);
    coll::MeshOp mesh = collective.getMeshOp();
    if (!c.lowered.algorithm) {
      errors.push_back(describeOp(c) + " is not lowered (" + c.lowered.whyNot +
                       "), so it has no schedule to plan");
      continue;
    }
    if (!c.verified()) {
      errors.push_back(
          describeOp(c) + ": its " + c.lowered.algorithm->name + " schedule " +
          (c.program ? "failed sched-verify" : "could not be expanded") +
          ", and a plan holds only verified schedules");
      continue;
    }
    if (!mesh) {
      errors.push_back(describeOp(c) + ": its mesh is missing");
      continue;
    }
    collrt::PlanCollective entry;
    entry.location = options.generatedBy.empty() ? formatLocation(op->getLoc())
                                                 : options.generatedBy;
    if (!planDataType(op, entry.dtype)) {
      errors.push_back(describeOp(c) + ": its element type has no plan dtype");
      continue;
    }
    if (!planReduceOp(op, entry.reduction)) {
      errors.push_back(describeOp(c) + ": its reduction has no plan name");
      continue;
    }
    entry.elementsPerRank = c.lowered.elementsPerRank;
    entry.groups = allGroups(mesh.getShape(), collective.getGroupAxisIndices());
    if (entry.groups.empty() ||
        entry.groups.front() != c.lowered.layout.meshRanks) {
      errors.push_back(describeOp(c) +
                       ": internal error: the groups built for the plan do "
                       "not start with the lowered group of rank 0");
      continue;
    }
    entry.connectionSlots = options.connectionSlots;
    entry.program = *c.program;
    // Counts known only at run time: the plan leaves them to the runtime
    // (`"send_counts": null`, format version 2). The schedule was expanded
    // with uniform counts, but its instruction streams do not depend on
    // them: sched's expansion copies ExpandOptions::sendCounts into
    // Program::sendCounts and nothing else reads them (a schedule's
    // expressions cannot name them), so every all_to_all_v algorithm,
    // built-in or a user's, moves the same chunks for any counts; only the
    // chunk sizes change, and the runtime cuts them from the counts it is
    // given (sched::ChunkLayout).
    if (c.lowered.countsAtRunTime)
      entry.program.sendCounts.clear();
    plan.worldSize = std::max(plan.worldSize, int32_t(mesh.getNumRanks()));
    plan.collectives.push_back(std::move(entry));
  }
  if (errors.size() == errorsBefore && plan.collectives.empty())
    errors.push_back("the program has no collectives: there is nothing to "
                     "plan");
  return errors.size() == errorsBefore;
}

} // namespace collc

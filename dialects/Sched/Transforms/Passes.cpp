//===- Passes.cpp - sched-expand and sched-expand-check -------------------===//
#include "dialects/Sched/Transforms/Passes.h"
#include "dialects/Sched/IR/SchedDialect.h"
#include "dialects/Sched/Transforms/Expand.h"
#include "dialects/Sched/Transforms/ProgramSummary.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace collc {
namespace sched {
#define GEN_PASS_DEF_SCHEDEXPAND
#define GEN_PASS_DEF_SCHEDEXPANDCHECK
#include "dialects/Sched/Transforms/Passes.h.inc"
} // namespace sched
} // namespace collc

using namespace mlir;
using namespace collc::sched;

void collc::sched::registerSchedDialect(DialectRegistry &registry) {
  registry.insert<SchedDialect>();
}

/// Parses `name=value` parameter overrides into `options`.
static LogicalResult parseParamOverrides(Operation *anchor,
                                         ArrayRef<std::string> params,
                                         ExpandOptions &options) {
  for (const std::string &param : params) {
    auto [name, value] = StringRef(param).split('=');
    int64_t number;
    if (name.empty() || value.trim().getAsInteger(10, number))
      return emitError(anchor->getLoc(), "parameter override '")
             << param << "' is not of the form name=integer";
    options.params[name.trim()] = number;
  }
  return success();
}

/// The schedules a pass works on: all, or the one named `only`.
static SmallVector<ScheduleOp> selectSchedules(ModuleOp module,
                                               StringRef only) {
  SmallVector<ScheduleOp> schedules;
  for (ScheduleOp schedule : module.getOps<ScheduleOp>())
    if (only.empty() || schedule.getSymName() == only)
      schedules.push_back(schedule);
  return schedules;
}

/// `options` for one of `schedules`, keeping the parameter overrides that
/// schedule declares. Fails if an override matches none of the schedules.
static FailureOr<SmallVector<ExpandOptions>>
optionsPerSchedule(ModuleOp module, ArrayRef<ScheduleOp> schedules,
                   const ExpandOptions &options) {
  SmallVector<ExpandOptions> result;
  llvm::StringSet<> used;
  for (ScheduleOp schedule : schedules) {
    ExpandOptions own = options;
    own.params.clear();
    DictionaryAttr declared = schedule.getParamsAttr();
    for (const auto &entry : options.params) {
      if (declared && declared.contains(entry.getKey())) {
        own.params[entry.getKey()] = entry.getValue();
        used.insert(entry.getKey());
      }
    }
    result.push_back(std::move(own));
  }
  for (const auto &entry : options.params)
    if (!used.contains(entry.getKey()))
      return emitError(module.getLoc(), "no schedule has the parameter '")
             << entry.getKey() << "' (params option)";
  return result;
}

namespace {

struct SchedExpandCheckPass
    : public collc::sched::impl::SchedExpandCheckBase<SchedExpandCheckPass> {
  using Base::Base;

  void runOnOperation() override {
    ExpandOptions options;
    options.groupSize = groupSize;
    options.chunksPerPart = chunks;
    options.maxInstructions = maxInstructions;
    options.maxLoopIterations = maxLoopIterations;
    if (failed(parseParamOverrides(getOperation(), params, options)))
      return signalPassFailure();
    SummaryOptions summary;
    summary.ranks = ranks;
    summary.instructions = instructions;
    SmallVector<ScheduleOp> schedules =
        selectSchedules(getOperation(), schedule);
    FailureOr<SmallVector<ExpandOptions>> perSchedule =
        optionsPerSchedule(getOperation(), schedules, options);
    if (failed(perSchedule))
      return signalPassFailure();
    for (auto [schedule, own] : llvm::zip(schedules, *perSchedule)) {
      auto start = std::chrono::steady_clock::now();
      FailureOr<Program> program = expandSchedule(schedule, own);
      auto end = std::chrono::steady_clock::now();
      if (failed(program))
        return signalPassFailure();
      llvm::raw_ostream &os = llvm::outs();
      os << "schedule @" << schedule.getSymName() << ": ";
      printProgramSummary(os, *program, summary);
      if (timing)
        os << "expanded " << program->instructionCount() << " instructions in "
           << llvm::format(
                  "%.1f", std::chrono::duration<double, std::milli>(end - start)
                              .count())
           << " ms\n";
    }
    llvm::outs().flush();
  }
};

struct SchedExpandPass
    : public collc::sched::impl::SchedExpandBase<SchedExpandPass> {
  using Base::Base;

  void runOnOperation() override {
    ExpandOptions options;
    options.groupSize = groupSize;
    options.chunksPerPart = chunks;
    options.maxInstructions = maxInstructions;
    options.maxLoopIterations = maxLoopIterations;
    if (failed(parseParamOverrides(getOperation(), params, options)))
      return signalPassFailure();
    SmallVector<ScheduleOp> schedules =
        selectSchedules(getOperation(), schedule);
    FailureOr<SmallVector<ExpandOptions>> perSchedule =
        optionsPerSchedule(getOperation(), schedules, options);
    if (failed(perSchedule))
      return signalPassFailure();
    for (auto [schedule, own] : llvm::zip(schedules, *perSchedule)) {
      FailureOr<Program> program = expandSchedule(schedule, own);
      if (failed(program))
        return signalPassFailure();
      OpBuilder builder(schedule);
      FailureOr<ScheduleOp> replacement = buildExplicitSchedule(
          builder, schedule.getLoc(), *program, schedule.getSymName());
      if (failed(replacement))
        return signalPassFailure();
      if (auto description = schedule.getDescriptionAttr())
        replacement->setDescriptionAttr(description);
      schedule.erase();
    }
  }
};

} // namespace

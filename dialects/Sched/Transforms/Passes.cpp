//===- Passes.cpp - sched-expand and sched-expand-check -------------------===//
#include "dialects/Sched/Transforms/Passes.h"
#include "dialects/Sched/IR/SchedDialect.h"
#include "dialects/Sched/Transforms/Expand.h"
#include "dialects/Sched/Transforms/ProgramSummary.h"

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
      return anchor->emitError("parameter override '")
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

namespace {

struct SchedExpandCheckPass
    : public collc::sched::impl::SchedExpandCheckBase<SchedExpandCheckPass> {
  using Base::Base;

  void runOnOperation() override {
    ExpandOptions options;
    options.groupSize = groupSize;
    options.chunksPerPart = chunks;
    if (failed(parseParamOverrides(getOperation(), params, options)))
      return signalPassFailure();
    SummaryOptions summary;
    summary.ranks = ranks;
    summary.instructions = instructions;
    for (ScheduleOp schedule : selectSchedules(getOperation(), schedule)) {
      auto start = std::chrono::steady_clock::now();
      FailureOr<Program> program = expandSchedule(schedule, options);
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
    if (failed(parseParamOverrides(getOperation(), params, options)))
      return signalPassFailure();
    for (ScheduleOp schedule : selectSchedules(getOperation(), schedule)) {
      FailureOr<Program> program = expandSchedule(schedule, options);
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

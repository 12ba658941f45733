//===- Passes.h - coll collectives to sched schedules -----------*- C++ -*-===//
//
// convert-coll-to-sched: the lowering as a pass. On its own (collc-opt) it
// chooses by the documented default rule; collc's pipeline
// (compiler/Pipeline) gives it hooks: the library, the chooser (selection
// by simulation) and a receiver of what was lowered. The hooks keep the
// dependency direction: the lowering never depends on compiler/.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_COLLTOSCHED_PASSES_H
#define COLLC_LOWERING_COLLTOSCHED_PASSES_H

#include "lowering/CollToSched/LowerCollectives.h"

#include "mlir/Pass/Pass.h"

#include <functional>
#include <memory>
#include <vector>

namespace collc {
namespace lowering {

#define GEN_PASS_DECL_CONVERTCOLLTOSCHED
#include "lowering/CollToSched/Passes.h.inc"

/// What a pipeline plugs into convert-coll-to-sched. Every hook is asked when
/// the pass runs (an earlier stage may have made what it returns).
struct ConvertCollToSchedHooks {
  /// The algorithms to choose from; null (or a null result): the pass loads
  /// the built-ins and its `algo-file`s itself.
  std::function<const AlgorithmLibrary *()> library;
  /// Chooses among each collective's applicable candidates (collc: the
  /// Selector's simulation); null: the documented default rule.
  Chooser choose;
  /// Receives every collective of the module as lowered (choice, group
  /// layout, expansion options), in module order, for the stages after the
  /// pass; a failure (e.g. the chooser could not simulate a user's
  /// algorithm, which it reported) fails the pass.
  std::function<mlir::LogicalResult(std::vector<LoweredCollective> &&)> lowered;
  /// Schedules made for a collective from the topology (lowering/Synthesis),
  /// offered to `choose` beside the library's (LoweringOptions::synthesize);
  /// null: none.
  Synthesizer synthesize;
  /// Offer only them where there are any (--synthesize=only).
  bool synthesizedOnly = false;
};

/// convert-coll-to-sched with `options` and the pipeline's `hooks`.
std::unique_ptr<mlir::Pass>
createConvertCollToSchedPass(const ConvertCollToSchedOptions &options,
                             ConvertCollToSchedHooks hooks);

#define GEN_PASS_REGISTRATION
#include "lowering/CollToSched/Passes.h.inc"

} // namespace lowering
} // namespace collc

#endif

//===- LowerCollectives.h - coll collectives to sched schedules -*- C++ -*-===//
//
// Chooses an algorithm for every collective of a module, copies its
// sched.schedule into the module and links the collective to it
// (`sched.schedule = @name`, `sched.chunks_per_part = k`). What the schedule
// is expanded with (group size, chunks, parameters, send counts) is returned
// so that verification, volumes and simulation use exactly the same values.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_COLLTOSCHED_LOWERCOLLECTIVES_H
#define COLLC_LOWERING_COLLTOSCHED_LOWERCOLLECTIVES_H

#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/CollToSched/GroupLayout.h"

#include "dialects/Coll/IR/CollOps.h"
#include "dialects/Sched/Transforms/Expand.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace collc {
namespace lowering {

struct LoweredCollective;

/// An algorithm and chunk count chosen for a collective, and why.
struct Choice {
  const Algorithm *algorithm = nullptr;
  unsigned chunks = 1; ///< chunks per algorithm unit
  /// Parameters the chooser set (the channel count of
  /// Algorithm::channelParam), applied after --algo-param's.
  llvm::StringMap<int64_t> params;
  std::string why;
};

/// Chooses among `candidates` (applicable, in library order; one when --algo
/// names it) for `lowered`; `chunks` is --chunks (0: free to choose).
/// Returning nullopt applies the documented default rule. This is how the
/// compiler's cost model (simulation) plugs into the lowering without the
/// lowering depending on it.
using Chooser = std::function<std::optional<Choice>(
    const LoweredCollective &lowered,
    llvm::ArrayRef<const Algorithm *> candidates, unsigned chunks)>;

/// Schedules derived for `lowered` from the topology (synthesis), owned by
/// the synthesizer; none where it has nothing for this collective. A
/// synthesis that fails says so at the collective (a warning) and returns
/// none: the library's candidates stay.
using Synthesizer = std::function<std::vector<const Algorithm *>(
    const LoweredCollective &lowered)>;

struct LoweringOptions {
  /// --algo: "NAME" for every collective that has an algorithm of that name
  /// (an error if none has), or "all_reduce=ring,all_to_all=direct".
  std::string algo;
  /// --chunks: chunks per algorithm unit (see collc.chunk_unit); 0 = 1.
  unsigned chunks = 0;
  /// --algo-param: "name=value,..." set on every chosen algorithm that
  /// declares the parameter (e.g. rings=4).
  std::string params;
  /// Optional: picks the algorithm and chunks (see Chooser).
  Chooser choose;
  /// Optional: synthesized candidates, offered beside the library's (after
  /// them), or alone with `synthesizedOnly` where there are any.
  Synthesizer synthesize;
  bool synthesizedOnly = false;
};

/// One collective of the module and the schedule chosen for it.
struct LoweredCollective {
  mlir::Operation *op = nullptr;
  sched::Collective collective = sched::Collective::AllReduce;
  GroupLayout layout;
  /// Elements of each rank's input buffer (-1: known only at run time) and
  /// their width.
  int64_t elementsPerRank = 0;
  unsigned elementBytes = 0;
  /// all_to_all_v whose send counts are an SSA value: the schedule is
  /// expanded with uniform counts, which fixes its structure; the sizes are
  /// known at run time.
  bool countsAtRunTime = false;
  /// The chosen algorithm and why it was chosen; null when none applies
  /// (`whyNot` then says why).
  const Algorithm *algorithm = nullptr;
  std::string choice;
  std::string whyNot;
  sched::ScheduleOp schedule; ///< the copy in the module
  /// --algo-param values, applied to the algorithms that declare them.
  llvm::StringMap<int64_t> userParams;
  /// Parameters the chooser set for the chosen algorithm (Choice::params).
  llvm::StringMap<int64_t> chosenParams;
  sched::ExpandOptions expand;

  /// A coll.recv is lowered with its coll.send, as one send_recv: it has no
  /// schedule, plan entry, kernel or report row of its own.
  bool withItsSend() const { return mlir::isa<coll::RecvOp>(op); }
};

/// Whether `algorithm` can run `lowered` (its group size, node layout);
/// on false, `why` says what is missing.
bool isApplicable(const Algorithm &algorithm, const LoweredCollective &lowered,
                  std::string &why);

/// The expansion options of `algorithm` for `lowered`: k = chunks x unit,
/// gpus_per_node and root parameters, all_to_all_v counts, send/recv's
/// permutation, --algo-param values, then `chosen` (a chooser's values,
/// Choice::params) over them.
sched::ExpandOptions
expandOptionsFor(const Algorithm &algorithm, const LoweredCollective &lowered,
                 unsigned chunks, const llvm::StringMap<int64_t> &chosen = {});

/// --algo-param's "NAME=INTEGER,..." as a map; nullopt, with `error`
/// saying why, for an item that is not NAME=INTEGER or a parameter collc
/// sets itself (root, gpus_per_node).
std::optional<llvm::StringMap<int64_t>> parseAlgoParams(llvm::StringRef text,
                                                        std::string &error);

/// Describes every collective of `module` (group layout, sizes), without
/// choosing algorithms.
std::vector<LoweredCollective> describeCollectives(mlir::ModuleOp module);

/// Chooses an algorithm for every collective (per `options`, else the
/// documented default), copies the schedules into the module and links
/// them. Errors (an unknown --algo name, an algorithm that does not apply)
/// are diagnostics at the collective.
mlir::FailureOr<std::vector<LoweredCollective>>
lowerCollectives(mlir::ModuleOp module, const AlgorithmLibrary &library,
                 const LoweringOptions &options);

} // namespace lowering
} // namespace collc

#endif

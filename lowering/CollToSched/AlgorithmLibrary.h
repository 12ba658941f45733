//===- AlgorithmLibrary.h - the algorithms collc can lower to --*- C++ -*-===//
//
// Every algorithm is a sched.schedule: the built-in ones live in
// lowering/CollToSched/algorithms/*.mlir (embedded into the binary), and a
// researcher's own are read from files (`collc --algo-file`). Both are
// indexed the same way, by collective and name, so a hand-written algorithm
// is verified, reported and used like a built-in one.
//
// What collc needs to know of an algorithm beyond its schedule travels as
// discardable attributes of the sched.schedule:
//   collc.chunk_unit = "n" | "gpus_per_node" | 1   (default 1)
//       the expansion's chunks per part k is `--chunks` times this unit, so
//       an algorithm that needs a chunk per rank (a ring all-reduce) gets
//       k = chunks * n.
//   collc.requires = ["nodes"]
//       "nodes": the group spans at least two nodes, with the same number
//       (at least two) of consecutive group ranks on each; the algorithm
//       reads that number from its `gpus_per_node` parameter.
//   collc.channel_param = "rings"
//       the parameter that sets how many channels (thread blocks on a GPU)
//       the schedule runs in parallel. Where the topology caps what one
//       channel moves (channel_bandwidth_GBps), selection tries it at
//       1, 2, 3, 4, 6, 8, 12, 16, 24 and 32 unless --algo-param
//       sets it.
//   collc.volume = "2 (n-1)/n M", collc.steps = "2 (n-1)"   (documentation)
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_COLLTOSCHED_ALGORITHMLIBRARY_H
#define COLLC_LOWERING_COLLTOSCHED_ALGORITHMLIBRARY_H

#include "common/Program/Program.h"
#include "dialects/Sched/IR/SchedOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <deque>
#include <string>
#include <vector>

namespace collc {
namespace lowering {

/// An algorithm of the library.
struct Algorithm {
  std::string name; ///< the schedule's `algorithm`, e.g. "ring"
  sched::Collective collective = sched::Collective::AllReduce;
  /// "built-in (ring_all_reduce.mlir)" or the path of the user's file.
  std::string source;
  sched::ScheduleOp schedule;
  /// See collc.chunk_unit above: "1", "n" or a parameter name.
  std::string chunkUnit = "1";
  bool needsNodes = false;
  std::string volume; ///< bytes sent per rank, as a formula of n and M
  std::string steps;  ///< number of steps, as a formula of n
  /// See collc.channel_param above: the parameter that sets the channel
  /// count, or empty.
  std::string channelParam;
  std::string description;
  bool builtin = true;
};

class AlgorithmLibrary {
public:
  explicit AlgorithmLibrary(mlir::MLIRContext *context) : context(context) {}

  /// Parses the built-in algorithms; a broken built-in is reported as a
  /// diagnostic and fails.
  mlir::LogicalResult loadBuiltins();

  /// Parses a user's file of sched.schedule ops; each becomes an algorithm.
  /// Fails, with a diagnostic, on a parse or verifier error, on a schedule
  /// without an `algorithm` name, or on a name that the library already has
  /// for the same collective.
  mlir::LogicalResult loadFile(llvm::StringRef path);

  /// The same for schedules held as text (synthesis writes them): `source`
  /// names them in diagnostics and the report. The schedules are not
  /// built-ins: selection reports one that fails instead of passing it
  /// over. Returns the algorithms added, or failure with a diagnostic.
  mlir::FailureOr<std::vector<const Algorithm *>>
  loadSource(llvm::StringRef text, llvm::StringRef source);

  /// The built-ins, then each of `files` (--algo-file) in order: what collc
  /// selects among. Fails, with a diagnostic, as the two calls above do.
  mlir::LogicalResult loadBuiltinsAndFiles(llvm::ArrayRef<std::string> files);

  /// The algorithms of a collective, built-ins first, in file order.
  std::vector<const Algorithm *> forCollective(sched::Collective c) const;
  const Algorithm *find(sched::Collective c, llvm::StringRef name) const;
  const std::deque<Algorithm> &all() const { return algorithms; }

private:
  mlir::LogicalResult addModule(mlir::OwningOpRef<mlir::ModuleOp> module,
                                llvm::StringRef source, bool builtin);

  mlir::MLIRContext *context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::deque<Algorithm> algorithms;
};

/// Reads what collc knows of an algorithm from its schedule (name,
/// collective, collc.* attributes); a diagnostic at the schedule on error.
/// The library needs a name; sched-verify, which only checks the schedule,
/// passes `requireName = false`.
mlir::FailureOr<Algorithm> describeAlgorithm(sched::ScheduleOp schedule,
                                             llvm::StringRef source,
                                             bool builtin,
                                             bool requireName = true);

/// The value of an algorithm's chunk unit for a group of n ranks and the
/// given parameter values (falling back to the schedule's defaults).
int64_t chunkUnitValue(const Algorithm &algorithm, int64_t n,
                       const llvm::StringMap<int64_t> &params);

/// "all_reduce" -> Collective::AllReduce; the names of the coll dialect's
/// collectives ("send_recv" for a send/recv pair).
std::optional<sched::Collective> collectiveFromName(llvm::StringRef name);

} // namespace lowering
} // namespace collc

#endif

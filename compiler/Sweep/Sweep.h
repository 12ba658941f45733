//===- Sweep.h - nccl-tests-like sweeps of one collective ------*- C++ -*-===//
//
// `collc --collective C --bytes MIN:MAX[:FACTOR] --topo T`: for every size,
// the one-op program of SweepSpec.h goes through the whole pipeline (front
// end, lowering with selection by simulation, sched-verify, simulation,
// report), and the NCCL-style baselines of Baselines.h are simulated beside
// it. The result prints as a table of one row per size, as JSON
// (collc-sweep/1, docs/report.md) and as a plot (Plot.h).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SWEEP_SWEEP_H
#define COLLC_COMPILER_SWEEP_SWEEP_H

#include "compiler/Pipeline/Compile.h"
#include "compiler/Sweep/Baselines.h"
#include "compiler/Sweep/SweepSpec.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace collc {
namespace sweep {

/// One size of a sweep: collc's choice and the baselines.
struct SweepRow {
  int64_t requestedBytes = 0;
  int64_t bytes = 0; ///< per rank, after rounding down to the granule
  std::string algorithm;
  unsigned chunks = 0;
  /// What selection set besides the chunks (the channel count), as in
  /// CollectiveRow::chosenParams.
  std::vector<std::pair<std::string, int64_t>> chosenParams;
  double predictedUs = -1;
  double algbwGBps = -1, busbwGBps = -1;
  double boundUs = -1;
  bool latencyBound = false; ///< the bound's latency term dominates
  double efficiency = -1;    ///< bound / predicted
  std::string note;          ///< the report's note, if any
  std::vector<BaselineResult> baselines;
  std::string reportJson; ///< the collc-report/1 document of this size
};

struct SweepResult {
  ProgramSpec spec;
  std::string topology; ///< its name
  std::string machine;  ///< "64 GPUs: 8 nodes x 8"
  /// Report::channelCap and channelBandwidth of the simulation.
  std::string channelCap;
  double channelBandwidth = -1;
  ByteSizes sizes;
  int64_t granule = 1;
  std::vector<BaselineSpec> baselines;
  std::string noBaseline; ///< which NCCL baseline does not apply, and why
  std::vector<SweepRow> rows;
  /// Requested sizes below one granule: not run.
  std::vector<int64_t> skipped;
};

/// Parses a generated program and runs the front end on it; errors are
/// printed against `bufferName`.
mlir::OwningOpRef<mlir::ModuleOp> parseProgram(mlir::MLIRContext &context,
                                               llvm::StringRef text,
                                               llvm::StringRef bufferName);

/// The row of a compiled one-collective program, with its baselines.
SweepRow makeRow(const CollcCompilation &compiled, const ProgramSpec &spec,
                 const lowering::AlgorithmLibrary &library,
                 const topo::Topology &topology, const CompileOptions &options);

/// Prints progress lines while long work runs, at most one per
/// `everySeconds`: on a terminal one line rewritten in place, elsewhere a
/// line each. A sweep's ("collc: sweep 3/31: 32 B per rank: ring x1 ...",
/// update()) show at once on a terminal and after `quietSeconds`
/// elsewhere; show()'s (collc's selection progress) after `quietSeconds`
/// everywhere.
class Progress {
public:
  Progress(llvm::raw_ostream *os, bool terminal, double quietSeconds = 10,
           double everySeconds = 0)
      : os(os), terminal(terminal), quietSeconds(quietSeconds),
        everySeconds(everySeconds) {}
  void update(size_t done, size_t total, const SweepRow &row, double elapsed);
  /// Shows `line` for work that has run `elapsed` seconds (an elapsed time
  /// below the last one shown starts a new series: the next piece of work).
  void show(const std::string &line, double elapsed);
  /// Clears a terminal's line.
  void finish();

private:
  void print(const std::string &line, double elapsed);

  llvm::raw_ostream *os;
  bool terminal;
  double quietSeconds, everySeconds;
  double lastShown = -1;
  bool printed = false;
};

/// Runs the sweep. Fails (after printing diagnostics) when a size cannot be
/// compiled.
mlir::FailureOr<SweepResult>
runSweep(mlir::MLIRContext &context, const ProgramSpec &spec,
         const ByteSizes &sizes, const lowering::AlgorithmLibrary &library,
         const topo::Topology &topology, llvm::StringRef topologyPath,
         const CompileOptions &options, Progress *progress);

/// The baselines of a generated single-size program (the report's
/// "baselines on the same model" lines).
void printBaselines(const SweepRow &row, const ProgramSpec &spec,
                    llvm::raw_ostream &os);

/// The table of docs/report.md ("Sweeps").
void printSweep(const SweepResult &result, llvm::raw_ostream &os);

/// The collc-sweep/1 JSON document.
std::string sweepToJson(const SweepResult &result);

/// "64 GPUs: 8 nodes x 8", as the report's header says it.
std::string describeMachine(const topo::Topology &topology);

} // namespace sweep
} // namespace collc

#endif

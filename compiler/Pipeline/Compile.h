//===- Compile.h - the collc pipeline's state and its use -------*- C++ -*-===//
//
// What collc does with a verified coll module and a topology: check that
// the meshes fit and attach the topology, lower every collective (choosing
// algorithms and chunk counts by simulation), expand and prove each
// schedule with sched-verify, and build the report. These are the stages of
// the collc pipeline (Pipeline.h); a CollcCompilation is what they share:
// the inputs, and what each stage leaves for the next, so that nothing is
// handed from one to the next by hand. compileModule runs the stages after
// the front end on one module: collc on the user's file, a sweep once per
// size, --emit=candidates once per candidate.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PIPELINE_COMPILE_H
#define COLLC_COMPILER_PIPELINE_COMPILE_H

#include "compiler/Check/CheckLowered.h"
#include "compiler/Report/Report.h"
#include "compiler/Select/Select.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/Synthesis/Synthesizer.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace collc {

/// What the pipeline compiles with (collc's options that shape the
/// compilation; collc-opt --collc-pipeline's options).
struct CompileOptions {
  std::string algo;    ///< --algo
  unsigned chunks = 0; ///< --chunks (0: chosen by simulation)
  /// --max-race-streams (sched::VerifyOptions::maxRaceStreams)
  uint32_t maxRaceStreams = sched::VerifyOptions().maxRaceStreams;
  std::string params; ///< --algo-param name=value,...
  bool recordTimelines = false;
  /// Selection's options. A tuning table is loaded by the pipeline from
  /// `select.tuningPath` when `select.tuning` is null; routes are made for
  /// the topology when missing or of another topology.
  SelectOptions select;
  /// Where the pipeline finds its inputs when it is not handed them
  /// (collc-opt --collc-pipeline; collc loads them first, to say its errors
  /// in its own order): --topo NAME|FILE, --topology-dir, --algo-file.
  std::string topology;
  std::vector<std::string> topologyDirs;
  std::vector<std::string> algoFiles;
  /// --synthesize: "on" (synthesized candidates beside the library's),
  /// "off", "only" (them alone where synthesis has any).
  std::string synthesize = "on";
  /// --synthesis-time-limit: seconds each tree packing's column generation
  /// may run (Synthesizer's timeLimit; 0: none).
  double synthesisTimeLimit = 10;
  /// Packings of earlier compiles of the same topology (a sweep's sizes
  /// share them); made by the pipeline when missing or of another topology.
  std::shared_ptr<synth::PackingMemo> packings;
};

/// The directories searched for a bundled topology name, in order: `dirs`
/// (--topology-dir), $COLLC_TOPOLOGY_PATH, the bundled topologies/.
std::vector<std::string>
topologySearchDirs(const std::vector<std::string> &dirs);

/// A topology loaded from --topo NAME|FILE.
struct LoadedTopology {
  std::unique_ptr<topo::Topology> topology;
  std::string name; ///< the topology's own name
  std::string path; ///< the file it was read from
  /// Why there is none: one line, "FILE:LINE:COL: error: ..." or "FILE:
  /// error: ..." when `located` (the file's own error), else a message that
  /// needs a "collc: error: " before it.
  std::string error;
  bool located = false;
};

/// Resolves `nameOrPath` (a file, else a bundled name in `searchDirs`) and
/// loads it.
LoadedTopology loadTopology(const std::string &nameOrPath,
                            const std::vector<std::string> &searchDirs);

/// What the stages of the collc pipeline share. Held by pointer: the report
/// points into `checked`, the lowering's chooser into `selector`, and the
/// stage passes hold it (shared) for as long as their pass manager lives.
struct CollcCompilation {
  CompileOptions options;

  /// Inputs: handed in by the caller, or loaded by the first stage from
  /// `options` (then owned below). The library's schedules are copied into
  /// the module; the lowered collectives point at its algorithms.
  const topo::Topology *topology = nullptr;
  std::string topologyName, topologyPath;
  const lowering::AlgorithmLibrary *library = nullptr;
  std::unique_ptr<topo::Topology> ownedTopology;
  std::unique_ptr<lowering::AlgorithmLibrary> ownedLibrary;

  /// collc-attach-topology: selection by simulation on the topology (the
  /// lowering's chooser).
  std::unique_ptr<Selector> selector;
  /// collc-attach-topology too, unless --synthesize=off: schedules derived
  /// from the topology (lowering/Synthesis), offered beside the library's.
  std::unique_ptr<synth::Synthesizer> synthesizer;
  /// convert-coll-to-sched: every collective as lowered, in module order
  /// (moved into `checked` by the next stage).
  std::vector<lowering::LoweredCollective> lowered;
  /// collc-check-lowered: each lowered collective expanded and verified.
  std::vector<CheckedCollective> checked;
  /// collc-report: the report of the checked module.
  Report report;
};

/// Runs the stages after the front end (buildCollcLoweringPipeline) on
/// `module`, which passed the front end. Errors (a mesh that does not fit,
/// a lowering or verification failure) are diagnostics; the result is then
/// a failure.
mlir::FailureOr<std::shared_ptr<CollcCompilation>>
compileModule(mlir::ModuleOp module, const topo::Topology &topology,
              llvm::StringRef topologyName, llvm::StringRef topologyPath,
              const lowering::AlgorithmLibrary &library,
              const CompileOptions &options);

} // namespace collc

#endif

//===- Compile.h - the collc pipeline after the front end ------*- C++ -*-===//
//
// What collc does with a verified coll module and a topology, as one call:
// check that the meshes fit and attach the topology, lower every collective
// (choosing algorithms and chunk counts by simulation), expand and prove each
// schedule with sched-verify, and build the report. The driver runs it on
// the user's file; a sweep runs it once per size on a generated program.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SWEEP_COMPILE_H
#define COLLC_COMPILER_SWEEP_COMPILE_H

#include "compiler/Check/CheckLowered.h"
#include "compiler/Report/Report.h"
#include "compiler/Select/Select.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace collc {
namespace sweep {

struct CompileOptions {
  std::string algo;    ///< --algo
  unsigned chunks = 0; ///< --chunks (0: chosen by simulation)
  /// --max-race-streams (sched::VerifyOptions::maxRaceStreams)
  uint32_t maxRaceStreams = sched::VerifyOptions().maxRaceStreams;
  std::string params; ///< --algo-param name=value,...
  bool recordTimelines = false;
  SelectOptions select;
};

/// The result of compiling one module. Held by pointer: the report points
/// into `checked`, the lowering's chooser into `selector`.
struct Compiled {
  std::unique_ptr<Selector> selector;
  std::vector<CheckedCollective> checked;
  Report report;
};

/// Runs the pipeline on `module` (which passed the front end). Errors (a
/// mesh that does not fit, a lowering or verification failure) are
/// diagnostics; the result is then a failure.
mlir::FailureOr<std::unique_ptr<Compiled>>
compileModule(mlir::ModuleOp module, const topo::Topology &topology,
              llvm::StringRef topologyName, llvm::StringRef topologyPath,
              const lowering::AlgorithmLibrary &library,
              const CompileOptions &options);

} // namespace sweep
} // namespace collc

#endif

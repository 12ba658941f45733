//===- Compile.cpp - the collc pipeline after the front end ---------------===//
#include "compiler/Sweep/Compile.h"

#include "compiler/Pipeline/Pipeline.h"

namespace collc {
namespace sweep {

mlir::FailureOr<std::unique_ptr<Compiled>>
compileModule(mlir::ModuleOp module, const topo::Topology &topology,
              llvm::StringRef topologyName, llvm::StringRef topologyPath,
              const lowering::AlgorithmLibrary &library,
              const CompileOptions &options) {
  if (mlir::failed(checkMeshesFitTopology(module, topology, topologyName)))
    return mlir::failure();
  attachTopology(module, topology, topologyPath);

  auto compiled = std::make_unique<Compiled>();
  // Selection, the report and the baselines simulate the same topology:
  // they share its routes (a sweep passes one memo for all its sizes).
  SelectOptions select = options.select;
  if (!select.simulation.routes ||
      &select.simulation.routes->topology() != &topology)
    select.simulation.routes = std::make_shared<RouteMemo>(topology);
  lowering::LoweringOptions loweringOptions;
  loweringOptions.algo = options.algo;
  loweringOptions.params = options.params;
  loweringOptions.chunks = options.chunks;
  // Algorithms and chunk counts are chosen by simulating every candidate.
  compiled->selector = std::make_unique<Selector>(topology, select);
  loweringOptions.choose = compiled->selector->asChooser();
  mlir::FailureOr<std::vector<lowering::LoweredCollective>> lowered =
      lowering::lowerCollectives(module, library, loweringOptions);
  if (mlir::failed(lowered) || compiled->selector->userAlgorithmFailed())
    return mlir::failure();
  sched::VerifyOptions verifyOptions;
  verifyOptions.maxRaceStreams = options.maxRaceStreams;
  compiled->checked = checkLowered(std::move(*lowered), verifyOptions);
  for (const CheckedCollective &c : compiled->checked)
    if (c.lowered.algorithm && !c.verified())
      return mlir::failure();

  ReportOptions reportOptions;
  reportOptions.simulation = select.simulation;
  reportOptions.recordTimelines = options.recordTimelines;
  compiled->report = buildReport(module, topology, compiled->checked,
                                 compiled->selector.get(), reportOptions);
  return compiled;
}

} // namespace sweep
} // namespace collc

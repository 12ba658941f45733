//===- Compile.cpp - the collc pipeline's stages after the front end ------===//
#include "compiler/Pipeline/Compile.h"

#include "common/Topology/Topology.h"
#include "compiler/Pipeline/Pipeline.h"
#include "lowering/CollToSched/Passes.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Process.h"

using namespace mlir;

namespace collc {

std::vector<std::string>
topologySearchDirs(const std::vector<std::string> &given) {
  std::vector<std::string> dirs(given.begin(), given.end());
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("COLLC_TOPOLOGY_PATH")) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(*env).split(parts, ':', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts)
      dirs.push_back(part.str());
  }
  dirs.push_back(COLLC_BUNDLED_TOPOLOGIES_DIR);
  return dirs;
}

LoadedTopology loadTopology(const std::string &nameOrPath,
                            const std::vector<std::string> &dirs) {
  LoadedTopology result;
  if (nameOrPath.empty()) {
    result.error = "no topology given; pass --topo NAME|FILE (bundled: see "
                   "topologies/ or `collc --help`)";
    return result;
  }
  std::optional<std::string> resolved = topo::resolveTopology(nameOrPath, dirs);
  if (!resolved) {
    result.error = "topology '" + nameOrPath +
                   "' is neither a file nor a bundled name; searched:";
    for (const std::string &dir : dirs)
      result.error += " " + dir;
    return result;
  }
  topo::LoadResult loaded = topo::loadTopologyFile(*resolved);
  if (!loaded.topology) {
    result.error = loaded.error;
    result.located = true;
    return result;
  }
  result.name = loaded.topology->name();
  result.path = *resolved;
  result.topology = std::move(loaded.topology);
  return result;
}

namespace {

/// The stages share the compilation; each is a module pass of the collc
/// pipeline (Pipeline.h says the order and what each leaves behind).
template <typename Derived>
struct Stage : PassWrapper<Derived, OperationPass<ModuleOp>> {
  explicit Stage(std::shared_ptr<CollcCompilation> compilation)
      : compilation(std::move(compilation)) {}
  std::shared_ptr<CollcCompilation> compilation;
};

/// collc-attach-topology: loads what the caller did not hand in (topology,
/// algorithm library, tuning table), checks that every mesh fits the
/// topology, attaches it as `coll.topology` and makes the Selector that the
/// lowering chooses with.
struct AttachTopologyStage : Stage<AttachTopologyStage> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AttachTopologyStage)
  using Stage::Stage;
  llvm::StringRef getArgument() const override {
    return "collc-attach-topology";
  }
  llvm::StringRef getDescription() const override {
    return "check that the meshes fit the topology, attach it and prepare "
           "selection (a stage of the collc pipeline)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    CollcCompilation &c = *compilation;
    // collc checks its own --synthesize; collc-opt's pipeline option
    // arrives here unchecked.
    if (c.options.synthesize != "on" && c.options.synthesize != "off" &&
        c.options.synthesize != "only") {
      emitError(module.getLoc()) << "synthesize: '" << c.options.synthesize
                                 << "' is not on, off or only";
      return signalPassFailure();
    }
    if (!c.topology) {
      LoadedTopology loaded = loadTopology(
          c.options.topology, topologySearchDirs(c.options.topologyDirs));
      if (!loaded.topology) {
        emitError(module.getLoc()) << loaded.error;
        return signalPassFailure();
      }
      c.ownedTopology = std::move(loaded.topology);
      c.topology = c.ownedTopology.get();
      c.topologyName = loaded.name;
      c.topologyPath = loaded.path;
    }
    if (!c.library) {
      auto library =
          std::make_unique<lowering::AlgorithmLibrary>(module.getContext());
      if (failed(library->loadBuiltinsAndFiles(c.options.algoFiles)))
        return signalPassFailure();
      c.ownedLibrary = std::move(library);
      c.library = c.ownedLibrary.get();
    }
    SelectOptions &select = c.options.select;
    if (!select.tuning && !select.tuningPath.empty()) {
      auto table = std::make_shared<collrt::TuningTable>();
      collrt::Status loaded =
          collrt::loadTuningFile(select.tuningPath, table.get());
      if (!loaded.ok()) {
        emitError(module.getLoc()) << "--tuning: " << loaded.message();
        return signalPassFailure();
      }
      select.tuning = std::move(table);
    }
    if (failed(checkMeshesFitTopology(module, *c.topology, c.topologyName)))
      return signalPassFailure();
    attachTopology(module, *c.topology, c.topologyPath);
    // Selection, the report and the baselines simulate the same topology:
    // they share its routes (a sweep passes one memo for all its sizes).
    if (!select.simulation.routes ||
        &select.simulation.routes->topology() != c.topology)
      select.simulation.routes = std::make_shared<RouteMemo>(*c.topology);
    // Algorithms and chunk counts are chosen by simulating every candidate.
    c.selector = std::make_unique<Selector>(*c.topology, select);
    if (c.options.synthesize != "off")
      c.synthesizer = std::make_unique<synth::Synthesizer>(
          module.getContext(), *c.topology, select.simulation.routes,
          c.options.packings, sched::VerifyOptions().maxChannelsPerRank,
          c.options.synthesisTimeLimit);
  }
};

/// collc-check-lowered: expands every lowered collective with exactly the
/// options the lowering chose and proves it with sched-verify
/// (checkLowered); fails when a chosen schedule is wrong.
struct CheckLoweredStage : Stage<CheckLoweredStage> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckLoweredStage)
  using Stage::Stage;
  llvm::StringRef getArgument() const override { return "collc-check-lowered"; }
  llvm::StringRef getDescription() const override {
    return "expand and verify every lowered collective (a stage of the "
           "collc pipeline)";
  }

  void runOnOperation() override {
    CollcCompilation &c = *compilation;
    sched::VerifyOptions verifyOptions;
    verifyOptions.maxRaceStreams = c.options.maxRaceStreams;
    c.checked = checkLowered(std::move(c.lowered), verifyOptions);
    c.lowered.clear();
    for (const CheckedCollective &checked : c.checked)
      if (checked.lowered.algorithm && !checked.verified())
        return signalPassFailure();
  }
};

/// collc-report: the report of the checked module (simulations, bounds,
/// the graph's critical path).
struct ReportStage : Stage<ReportStage> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReportStage)
  using Stage::Stage;
  llvm::StringRef getArgument() const override { return "collc-report"; }
  llvm::StringRef getDescription() const override {
    return "build the report of the checked collectives (a stage of the "
           "collc pipeline)";
  }

  void runOnOperation() override {
    CollcCompilation &c = *compilation;
    ReportOptions reportOptions;
    reportOptions.simulation = c.options.select.simulation;
    reportOptions.recordTimelines = c.options.recordTimelines;
    if (c.synthesizer) {
      synth::Synthesizer *synthesizer = c.synthesizer.get();
      reportOptions.routedBound =
          [synthesizer](const lowering::LoweredCollective &l, double bytes,
                        std::string *why) {
            return synthesizer->routedBoundSeconds(l, bytes, why);
          };
      reportOptions.synthesisDeclined =
          [synthesizer](const lowering::LoweredCollective &l) {
            return synthesizer->declined(l);
          };
    }
    c.report = buildReport(getOperation(), *c.topology, c.checked,
                           c.selector.get(), reportOptions);
  }
};

} // namespace

void buildCollcLoweringPipeline(
    OpPassManager &pm, const std::shared_ptr<CollcCompilation> &compilation) {
  pm.addPass(std::make_unique<AttachTopologyStage>(compilation));
  lowering::ConvertCollToSchedOptions lowerOptions;
  lowerOptions.algo = compilation->options.algo;
  lowerOptions.chunks = compilation->options.chunks;
  lowerOptions.algoParam = compilation->options.params;
  lowering::ConvertCollToSchedHooks hooks;
  CollcCompilation *c = compilation.get();
  hooks.library = [c] { return c->library; };
  hooks.choose = [c](const lowering::LoweredCollective &l,
                     llvm::ArrayRef<const lowering::Algorithm *> candidates,
                     unsigned chunks) {
    return c->selector->choose(l, candidates, chunks);
  };
  hooks.lowered = [c](std::vector<lowering::LoweredCollective> &&lowered) {
    c->lowered = std::move(lowered);
    // A user's algorithm that selection could not simulate was reported
    // at its collective.
    return failure(c->selector->userAlgorithmFailed());
  };
  hooks.synthesize = [c](const lowering::LoweredCollective &l) {
    return c->synthesizer ? c->synthesizer->candidates(l)
                          : std::vector<const lowering::Algorithm *>();
  };
  hooks.synthesizedOnly = compilation->options.synthesize == "only";
  pm.addPass(
      lowering::createConvertCollToSchedPass(lowerOptions, std::move(hooks)));
  pm.addPass(std::make_unique<CheckLoweredStage>(compilation));
  pm.addPass(std::make_unique<ReportStage>(compilation));
}

FailureOr<std::shared_ptr<CollcCompilation>>
compileModule(ModuleOp module, const topo::Topology &topology,
              llvm::StringRef topologyName, llvm::StringRef topologyPath,
              const lowering::AlgorithmLibrary &library,
              const CompileOptions &options) {
  auto compilation = std::make_shared<CollcCompilation>();
  compilation->options = options;
  compilation->topology = &topology;
  compilation->topologyName = topologyName.str();
  compilation->topologyPath = topologyPath.str();
  compilation->library = &library;
  PassManager pm(module.getContext());
  buildCollcLoweringPipeline(pm, compilation);
  if (failed(pm.run(module)))
    return failure();
  return compilation;
}

} // namespace collc

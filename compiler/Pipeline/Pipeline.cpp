//===- Pipeline.cpp - pass pipelines shared by collc and collc-opt --------===//
#include "compiler/Pipeline/Pipeline.h"

#include "common/Topology/Topology.h"
#include "compiler/Check/Passes.h"
#include "compiler/Pipeline/Compile.h"
#include "dialects/Coll/IR/CollOps.h"
#include "dialects/Coll/Transforms/Passes.h"
#include "dialects/Sched/Transforms/Passes.h"
#include "lowering/CollToSched/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace collc {

void registerCollcDialects(DialectRegistry &registry) {
  registry.insert<coll::CollDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
  sched::registerSchedDialect(registry);
}

void registerCollcPasses() {
  coll::registerCollPasses();
  sched::registerSchedPasses();
  registerCheckPasses();
  lowering::registerCollToSchedPasses();
  registerCollcPipelines();
}

void buildCollcFrontendPipeline(OpPassManager &pm) {
  pm.addPass(coll::createCollVerifyGraphPass());
}

void buildCollcPipeline(OpPassManager &pm,
                        const std::shared_ptr<CollcCompilation> &compilation) {
  buildCollcFrontendPipeline(pm);
  buildCollcLoweringPipeline(pm, compilation);
}

namespace {
/// --collc-pipeline's options: collc's, under the same names.
struct CollcPipelineOptions : public PassPipelineOptions<CollcPipelineOptions> {
  Option<std::string> topo{*this, "topo",
                           llvm::cl::desc("the topology: a bundled name or a "
                                          "topology JSON file (collc --topo)")};
  ListOption<std::string> topologyDirs{
      *this, "topology-dir",
      llvm::cl::desc("also look for bundled names here (collc "
                     "--topology-dir)")};
  Option<std::string> algo{*this, "algo",
                           llvm::cl::desc("NAME or COLLECTIVE=NAME,... (collc "
                                          "--algo)")};
  Option<unsigned> chunks{
      *this, "chunks",
      llvm::cl::desc("chunks per algorithm unit; 0: chosen (collc --chunks)"),
      llvm::cl::init(0)};
  Option<std::string> algoParam{
      *this, "algo-param",
      llvm::cl::desc("NAME=VALUE,... (collc --algo-param)")};
  ListOption<std::string> algoFiles{
      *this, "algo-file",
      llvm::cl::desc("add the algorithms of these files (collc --algo-file)")};
  Option<unsigned> maxRaceStreams{
      *this, "max-race-streams", llvm::cl::desc("collc --max-race-streams"),
      llvm::cl::init(sched::VerifyOptions().maxRaceStreams)};
  Option<bool> selectPrune{*this, "select-prune",
                           llvm::cl::desc("collc --select-prune"),
                           llvm::cl::init(true)};
  Option<unsigned> selectThreads{*this, "select-threads",
                                 llvm::cl::desc("collc --select-threads"),
                                 llvm::cl::init(0)};
  Option<double> channelBandwidth{
      *this, "channel-bandwidth",
      llvm::cl::desc("GB/s of one channel, 0: no cap (collc "
                     "--channel-bandwidth; default: the topology's)"),
      llvm::cl::init(-1)};
  Option<std::string> tuning{*this, "tuning",
                             llvm::cl::desc("collc --tuning FILE")};
  Option<std::string> synthesize{
      *this, "synthesize",
      llvm::cl::desc("on, off or only (collc --synthesize)"),
      llvm::cl::init("on")};
};
} // namespace

void registerCollcPipelines() {
  PassPipelineRegistration<>(
      "collc-frontend",
      "The checks collc runs on every program before lowering",
      [](OpPassManager &pm) { buildCollcFrontendPipeline(pm); });
  PassPipelineRegistration<CollcPipelineOptions>(
      "collc-pipeline",
      "What collc does to a program: the front end, then lowering with "
      "selection by simulation, sched-verify and the report; prints the "
      "lowered module (collc --emit=sched)",
      [](OpPassManager &pm, const CollcPipelineOptions &o) {
        auto compilation = std::make_shared<CollcCompilation>();
        CompileOptions &options = compilation->options;
        options.topology = o.topo;
        options.topologyDirs.assign(o.topologyDirs.begin(),
                                    o.topologyDirs.end());
        options.algo = o.algo;
        options.chunks = o.chunks;
        options.params = o.algoParam;
        options.algoFiles.assign(o.algoFiles.begin(), o.algoFiles.end());
        options.maxRaceStreams = o.maxRaceStreams;
        options.select.prune = o.selectPrune;
        options.select.threads = o.selectThreads;
        if (o.channelBandwidth >= 0)
          options.select.simulation.channelBandwidth = o.channelBandwidth * 1e9;
        options.select.tuningPath = o.tuning;
        options.synthesize = o.synthesize;
        buildCollcPipeline(pm, compilation);
      });
}

void attachTopology(ModuleOp module, const topo::Topology &topology,
                    StringRef source) {
  Builder b(module.getContext());
  NamedAttrList fields;
  fields.append("name", b.getStringAttr(topology.name()));
  fields.append("source", b.getStringAttr(source));
  fields.append("gpus", b.getI64IntegerAttr(topology.numGpus()));
  fields.append("nodes", b.getI64IntegerAttr(topology.numNodes()));
  fields.append("gpus_per_node", b.getI64IntegerAttr(topology.gpusPerNode()));
  module->setAttr("coll.topology", fields.getDictionary(module.getContext()));
}

LogicalResult checkMeshesFitTopology(ModuleOp module,
                                     const topo::Topology &topology,
                                     StringRef topologyName) {
  bool ok = true;
  module.walk([&](coll::MeshOp mesh) {
    int64_t ranks = 1;
    for (int64_t extent : mesh.getShape())
      ranks *= extent;
    if (ranks != static_cast<int64_t>(topology.numGpus())) {
      mesh.emitError("mesh @")
          << mesh.getSymName() << " has " << ranks << " ranks but topology '"
          << topologyName << "' has " << topology.numGpus()
          << " GPUs; collc places rank r on GPU r, so they must be equal";
      ok = false;
    }
  });
  return success(ok);
}

} // namespace collc

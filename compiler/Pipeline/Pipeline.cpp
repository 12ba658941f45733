//===- Pipeline.cpp - pass pipelines shared by collc and collc-opt --------===//
#include "compiler/Pipeline/Pipeline.h"

#include "common/Topology/Topology.h"
#include "compiler/Check/Passes.h"
#include "dialects/Coll/IR/CollOps.h"
#include "dialects/Coll/Transforms/Passes.h"
#include "dialects/Sched/Transforms/Passes.h"

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
  registerCollcPipelines();
}

void buildCollcFrontendPipeline(OpPassManager &pm) {
  pm.addPass(coll::createCollVerifyGraphPass());
}

void registerCollcPipelines() {
  PassPipelineRegistration<>(
      "collc-frontend",
      "The checks collc runs on every program before lowering",
      [](OpPassManager &pm) { buildCollcFrontendPipeline(pm); });
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

//===- Pipeline.h - pass pipelines shared by collc, collc-opt ---*- C++ -*-===//
//
// collc and collc-opt build their pipelines from these functions so that the
// driver never repeats a pass list (as CIRCT's firtool does).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PIPELINE_PIPELINE_H
#define COLLC_COMPILER_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace collc {
namespace topo {
class Topology;
} // namespace topo

/// Registers every dialect a collc program may use: coll (and sched, once
/// lowered) and the upstream dialects accepted as compute.
void registerCollcDialects(mlir::DialectRegistry &registry);

/// Registers every pass and pipeline of the project (collc-opt).
void registerCollcPasses();

/// The front end: graph-level checks of a verified coll program (send/recv
/// matching). Lowering and scheduling passes are appended by later stages.
void buildCollcFrontendPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines above with the pass registry (`collc-frontend`).
void registerCollcPipelines();

/// Attaches the facts about the target that later passes need as the module
/// attribute `coll.topology` (name, source, GPU and node counts).
void attachTopology(mlir::ModuleOp module, const topo::Topology &topology,
                    llvm::StringRef source);

/// Checks that every coll.mesh of the module has exactly as many ranks as the
/// topology has GPUs (rank r runs on GPU r). Emits located errors.
mlir::LogicalResult checkMeshesFitTopology(mlir::ModuleOp module,
                                           const topo::Topology &topology,
                                           llvm::StringRef topologyName);

} // namespace collc

#endif

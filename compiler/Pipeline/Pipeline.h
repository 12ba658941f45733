//===- Pipeline.h - pass pipelines shared by collc, collc-opt ---*- C++ -*-===//
//
// collc and collc-opt build their pipelines from these functions so that the
// driver never repeats a pass list (as CIRCT's firtool does). The collc
// pipeline, in order:
//
//   coll-verify-graph        the front end (send/recv matching)
//   collc-attach-topology    loads what the caller did not hand in, checks
//                            that the meshes fit, attaches coll.topology,
//                            makes the Selector
//   convert-coll-to-sched    lowers every collective, choosing by
//                            simulation (the Selector as its chooser);
//                            leaves CollcCompilation::lowered
//   collc-check-lowered      expands and verifies each (checkLowered);
//                            leaves CollcCompilation::checked
//   collc-report             leaves CollcCompilation::report
//
// The stages after the front end share one CollcCompilation (Compile.h):
// its inputs and what each stage leaves for the next. A later stage (graph
// passes on the lowered module, a schedule synthesizer) is one more pass
// here and, where it needs them, one more field there.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PIPELINE_PIPELINE_H
#define COLLC_COMPILER_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace collc {
namespace topo {
class Topology;
} // namespace topo
struct CollcCompilation;

/// Registers every dialect a collc program may use: coll (and sched, once
/// lowered) and the upstream dialects accepted as compute.
void registerCollcDialects(mlir::DialectRegistry &registry);

/// Registers every pass and pipeline of the project (collc-opt).
void registerCollcPasses();

/// The front end: graph-level checks of a verified coll program (send/recv
/// matching). Lowering and scheduling passes are appended by later stages.
void buildCollcFrontendPipeline(mlir::OpPassManager &pm);

/// The stages after the front end: attach the topology, lower, check,
/// report, all sharing `compilation` (which the passes hold; see above).
void buildCollcLoweringPipeline(
    mlir::OpPassManager &pm,
    const std::shared_ptr<CollcCompilation> &compilation);

/// The whole collc pipeline: the front end, then the stages after it. What
/// `collc-opt --collc-pipeline` runs; collc runs the front end before it
/// loads the topology (so that its errors come in their order), then the
/// rest (compileModule).
void buildCollcPipeline(mlir::OpPassManager &pm,
                        const std::shared_ptr<CollcCompilation> &compilation);

/// Registers the pipelines above with the pass registry: `collc-frontend`
/// and `collc-pipeline` (topo=NAME|FILE algo=... chunks=...: the lowered
/// module, as `collc --emit=sched` prints it).
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

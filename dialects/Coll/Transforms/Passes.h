//===- Passes.h - passes over the coll dialect ------------------*- C++ -*-===//
#ifndef COLLC_DIALECTS_COLL_TRANSFORMS_PASSES_H
#define COLLC_DIALECTS_COLL_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace collc::coll {

/// coll-verify-graph: matches every coll.send with a coll.recv of the same
/// mesh, axes, tag and type and the inverse peer function, per function.
std::unique_ptr<mlir::Pass> createCollVerifyGraphPass();

/// Registers the coll passes with the global pass registry (for collc-opt).
void registerCollPasses();

} // namespace collc::coll

#endif

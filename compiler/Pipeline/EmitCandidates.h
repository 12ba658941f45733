//===- EmitCandidates.h - collc --emit=candidates ---------------*- C++ -*-===//
//
// collc --emit=candidates: the generated collective compiled once per
// candidate schedule, each candidate's plan (and, with --candidate-kernels,
// its kernels) written into a directory for collc-run --tuning to measure
// (docs/tuning.md).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PIPELINE_EMITCANDIDATES_H
#define COLLC_COMPILER_PIPELINE_EMITCANDIDATES_H

#include "compiler/Pipeline/Emit.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace collc {

/// --emit=candidates: one plan per candidate schedule of the generated
/// collective (collc::candidateSchedules: each applicable algorithm of the
/// library, with --chunks or 1, 2 and 4 chunks per unit; where the
/// topology caps a channel, each channel count C of an algorithm that has
/// one, with C, 2C and 4C chunks per unit too) into the directory -o DIR,
/// the same program only once, for collc-run --tuning (docs/tuning.md). A
/// candidate collc cannot compile (not applicable, an explicit schedule's
/// other chunk count) is named with the reason and left out. Says each
/// candidate's fate on `out` as it is decided and writes its files then;
/// fails, with no message of its own, when no plan was written.
EmitStatus emitCandidates(
    const CollcOptions &o, mlir::MLIRContext &context,
    const GeneratedProgram &generated, const topo::Topology &topology,
    const std::string &topologyName, const std::string &topologyPath,
    const lowering::AlgorithmLibrary &library, const CompileOptions &options,
    const std::string &generatedBy, llvm::raw_ostream &out);

} // namespace collc

#endif

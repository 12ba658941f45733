//===- Emit.h - what collc writes of a compiled module ----------*- C++ -*-===//
//
// What each --emit kind of collc produces from a compiled module (the
// summary, the report, the module, volumes, a dot graph, the plan, CUDA
// kernels or a fatbin), the files written beside it (--report-json,
// --trace, --plot), a sweep's outputs, and how collc writes its files. Each
// step builds its whole text first and returns it: nothing here writes to
// stdout, and only writeOutputFile(s) write files. A failure is an
// EmitStatus whose messages collc says as "collc: error: MESSAGE".
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PIPELINE_EMIT_H
#define COLLC_COMPILER_PIPELINE_EMIT_H

#include "compiler/Pipeline/CollcOptions.h"
#include "compiler/Pipeline/Compile.h"
#include "compiler/Plan/PlanBuilder.h"
#include "compiler/Sweep/Sweep.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <utility>
#include <vector>

namespace collc {

/// What an emit step came to: `ok`, or failed with `errors`, each for collc
/// to say as "collc: error: MESSAGE", in order (none where the diagnostics
/// already printed say why).
struct EmitStatus {
  bool ok = true;
  std::vector<std::string> errors;

  static EmitStatus success() { return EmitStatus(); }
  static EmitStatus failure(std::vector<std::string> errors = {}) {
    EmitStatus status;
    status.ok = false;
    status.errors = std::move(errors);
    return status;
  }
};

/// A file collc writes: its path and its whole text.
using OutputFile = std::pair<std::string, std::string>;

/// What every plan collc writes is built with: the topology's name, the
/// connection slots every schedule was proven with (compileModule proves
/// with the default sched::VerifyOptions), and what generated the program
/// (empty for a file's program).
PlanBuildOptions collcPlanOptions(const std::string &topologyName,
                                  const std::string &generatedBy);

/// The plan of `checked` (what --emit=plan writes, --emit=cuda generates
/// from and --run runs). On failure, every reason and then `failed`.
EmitStatus buildCollcPlan(const std::vector<CheckedCollective> &checked,
                          const std::string &topologyName,
                          const std::string &generatedBy,
                          const std::string &failed, collrt::Plan &plan);

/// --emit=cuda and --emit=fatbin: a kernel per collective of the plan (in
/// the plan's order, with the same refusals as --emit=plan; `source` names
/// the program in the kernels' header), and for `fatbin` those kernels
/// compiled by nvcc (--nvcc, --cuda-arch, --cuda-include of `o`).
/// docs/codegen.md.
EmitStatus emitCudaKernels(const CollcOptions &o,
                           const std::vector<CheckedCollective> &checked,
                           const std::string &topologyName,
                           const std::string &source, bool fatbin,
                           std::string &output);

/// A generated program's one size as a sweep of one row: its baselines for
/// the report and the plot.
sweep::SweepResult singleSizeSweep(const CollcCompilation &compiled,
                                   const GeneratedProgram &generated,
                                   const lowering::AlgorithmLibrary &library,
                                   const CompileOptions &options);

/// A compiled module and what names it, for emitOutput.
struct CompiledModule {
  /// The module compiled (--emit=mlir takes its schedules out).
  mlir::ModuleOp module;
  const CollcCompilation *compiled = nullptr;
  /// The program's file name (or the generated program's
  /// "<collective>.mlir").
  std::string displayName;
  /// What generated the program ("--collective ... --bytes ..."); empty
  /// for a file's program.
  std::string generatedBy;
  /// The generated program and its singleSizeSweep; null for a file's.
  const GeneratedProgram *generated = nullptr;
  const sweep::SweepResult *single = nullptr;
};

/// The output of `o.emit` (any kind but candidates) for `in`, whole.
EmitStatus emitOutput(const CollcOptions &o, const CompiledModule &in,
                      std::string &output);

/// The files of a compiled module's run, in the order collc writes them:
/// --report-json, --trace, --plot (a generated program's, from `single`)
/// and -o FILE's `output`.
std::vector<OutputFile> outputFiles(const CollcOptions &o, const Report &report,
                                    const sweep::SweepResult *single,
                                    const std::string &output);

/// A sweep's (--bytes MIN:MAX[:FACTOR]) table as `output`, and its files:
/// --report-json's JSON, --plot's plot and -o FILE's table. `tuningPath`
/// is the tuning table it chose with, if any.
void emitSweep(const CollcOptions &o, const sweep::SweepResult &result,
               const std::string *tuningPath, std::string &output,
               std::vector<OutputFile> &files);

/// Selection's progress line (--progress-after): candidates decided and
/// the fastest so far.
std::string selectionProgressLine(const SelectProgress &p);

/// Writes `text` to `path` through a temporary file and a rename (LLVM's
/// writeToOutput); fails with "cannot write 'PATH': WHY".
EmitStatus writeOutputFile(const std::string &path, const std::string &text);

/// Writes every file, each in one go, in order; stops at the first that
/// fails (those before it stay written).
EmitStatus writeOutputFiles(const std::vector<OutputFile> &files);

} // namespace collc

#endif

//===- collc.cpp - the collc driver ---------------------------------------===//
//
// Parses and verifies a coll program (a file, or the one-collective program
// that --collective and --bytes describe), loads the topology it runs on,
// runs the collc pipeline on it (compiler/Pipeline: lowering with
// algorithms chosen by simulation, every schedule proven, the report) and
// writes what --emit asks for. With a --bytes range it sweeps sizes as
// nccl-tests does (compiler/Sweep). Stages that do not exist yet are named
// as such on every run. The options and their checks are
// compiler/Pipeline/CollcOptions, what each --emit kind writes is
// compiler/Pipeline/Emit (and EmitCandidates); this file only drives.
//
//===----------------------------------------------------------------------===//
#include "common/Topology/Topology.h"
#include "compiler/Pipeline/CollcOptions.h"
#include "compiler/Pipeline/Compile.h"
#include "compiler/Pipeline/Emit.h"
#include "compiler/Pipeline/EmitCandidates.h"
#include "compiler/Pipeline/Pipeline.h"
#include "compiler/Run/RunCompiled.h"
#include "compiler/Sweep/Sweep.h"
#include "compiler/Sweep/SweepSpec.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <sstream>

using namespace mlir;
namespace sched = collc::sched;
namespace cl = llvm::cl;
using collc::CollcOptions;
using collc::EmitKind;

/// Says "collc: error: MESSAGE" on stderr; returns 1, collc's exit code
/// for every error.
static int fail(const std::string &message) {
  llvm::errs() << "collc: error: " << message << "\n";
  return 1;
}

/// Loads --topo, printing a precise error on failure.
static std::unique_ptr<collc::topo::Topology>
loadTopology(const CollcOptions &o, std::string &name, std::string &path) {
  std::vector<std::string> dirs(o.topologyDirs.begin(), o.topologyDirs.end());
  collc::LoadedTopology loaded =
      collc::loadTopology(o.topology, collc::topologySearchDirs(dirs));
  if (!loaded.topology) {
    llvm::errs() << (loaded.located ? "" : "collc: error: ") << loaded.error
                 << "\n";
    return nullptr;
  }
  name = loaded.name;
  path = loaded.path;
  return std::move(loaded.topology);
}

/// Says each of `status`'s messages as "collc: error: MESSAGE"; returns its
/// exit code (0 when it succeeded).
static int said(const collc::EmitStatus &status) {
  for (const std::string &error : status.errors)
    fail(error);
  return status.ok ? 0 : 1;
}

/// Writes every file of `files` (each in one go), then `output` to stdout
/// when there is no -o FILE; 1 after a write failed.
static int writeOutputs(const CollcOptions &o,
                        const std::vector<collc::OutputFile> &files,
                        const std::string &output) {
  if (int rc = said(collc::writeOutputFiles(files)))
    return rc;
  if (o.outputFilename == "-")
    llvm::outs() << output;
  return 0;
}

/// --run: builds the plan of every collective and runs it on the CPU
/// executor, printing a line per collective; 1 on any failure.
static int runCompiled(const CollcOptions &o,
                       const std::vector<collc::CheckedCollective> &checked,
                       const std::string &topologyName,
                       const std::string &generatedBy) {
  collrt::Plan plan;
  if (int rc = said(collc::buildCollcPlan(checked, topologyName, generatedBy,
                                          "--run: nothing run", plan)))
    return rc;
  std::string out;
  llvm::outs().flush();
  bool ok = collc::runCompiledPlan(plan, checked, o.runTimeout, out);
  llvm::outs() << out;
  llvm::outs().flush();
  if (!ok)
    return fail("--run: a collective failed (above)");
  return 0;
}

/// --bytes MIN:MAX[:FACTOR]: the sweep table, JSON and plot.
static int runSweep(const CollcOptions &o, MLIRContext &context,
                    const collc::GeneratedProgram &generated,
                    const collc::topo::Topology &topology,
                    const std::string &topologyPath,
                    const collc::lowering::AlgorithmLibrary &library,
                    const collc::CompileOptions &options) {
  collc::sweep::Progress progress(&llvm::errs(),
                                  llvm::sys::Process::StandardErrIsDisplayed());
  FailureOr<collc::sweep::SweepResult> result =
      collc::sweep::runSweep(context, generated.spec, generated.sizes, library,
                             topology, topologyPath, options, &progress);
  if (failed(result))
    return 1;
  std::string output;
  std::vector<collc::OutputFile> files;
  collc::emitSweep(o, *result,
                   options.select.tuning ? &options.select.tuningPath : nullptr,
                   output, files);
  return writeOutputs(o, files, output);
}

static int run(const CollcOptions &o) {
  std::string topologyName, topologyPath;
  if (o.dumpTopology) {
    std::unique_ptr<collc::topo::Topology> topology =
        loadTopology(o, topologyName, topologyPath);
    if (!topology)
      return 1;
    std::ostringstream text;
    topology->print(text);
    llvm::outs() << text.str();
    return 0;
  }
  if (std::optional<std::string> error = o.validate())
    return fail(*error);

  DialectRegistry registry;
  collc::registerCollcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic op dump adds noise.
  context.printOpOnDiagnostic(false);

  // The generated program needs the topology's shape first.
  std::unique_ptr<collc::topo::Topology> topology;
  std::optional<collc::GeneratedProgram> generated;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::string displayName;
  // What generated a program without a file (names it in plans, kernels
  // and --run); empty for a file's program.
  std::string generatedBy;
  if (o.generated()) {
    topology = loadTopology(o, topologyName, topologyPath);
    if (!topology)
      return 1;
    std::string error;
    generated = o.checkGenerated(*topology, error);
    if (!generated)
      return fail(error);
    generatedBy = "--collective " + o.collective + " --bytes " + o.bytes;
    if (o.group.getNumOccurrences())
      generatedBy += " --group " + o.group;
    displayName =
        std::string(sched::collectiveName(generated->spec.collective)) +
        ".mlir";
    if (!generated->sizes.range)
      buffer = llvm::MemoryBuffer::getMemBufferCopy(
          collc::sweep::generateProgram(generated->spec, generated->sizes.min),
          displayName);
  } else {
    std::string errorMessage;
    buffer = openInputFile(o.inputFilename, &errorMessage);
    if (!buffer)
      return fail("cannot read '" + o.inputFilename + "': " + errorMessage);
    displayName = llvm::sys::path::filename(o.inputFilename).str();
  }

  collc::lowering::AlgorithmLibrary library(&context);
  if (failed(library.loadBuiltinsAndFiles(
          std::vector<std::string>(o.algoFiles.begin(), o.algoFiles.end()))))
    return 1;
  std::string optionError;
  std::optional<collc::CompileOptions> compileOptionsOr =
      o.compileOptions(optionError);
  if (!compileOptionsOr)
    return fail(optionError);
  collc::CompileOptions &compileOptions = *compileOptionsOr;

  if (generated && generated->sizes.range)
    return runSweep(o, context, *generated, *topology, topologyPath, library,
                    compileOptions);
  if (o.emit == EmitKind::Candidates) {
    if (!generated)
      return fail("--emit=candidates needs --collective C --bytes SIZE (one "
                  "collective); for a program file, make a plan per --algo "
                  "and --chunks with --emit=plan");
    return said(collc::emitCandidates(
        o, context, *generated, *topology, topologyName, topologyPath, library,
        compileOptions, generatedBy, llvm::outs()));
  }

  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(*sourceMgr, &context);

  // Some upstream op parsers (linalg.transpose in MLIR 19, for one) can
  // crash after reporting a syntax error; the error they reported is the
  // user's, so turn the crash into a failed run rather than a core dump.
  OwningOpRef<ModuleOp> module;
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  bool parsed = recovery.RunSafely([&] {
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  });
  if (!parsed) {
    llvm::errs() << "collc: error: the MLIR parser failed while reading '"
                 << displayName
                 << "' (a bug in an upstream op parser); the error reported "
                    "above, if any, is what to fix\n";
    // The context may be in any state after the parser's crash.
    std::_Exit(1);
  }
  if (!module)
    return 1;

  // The front end, then (once the topology is loaded: its errors come
  // after the program's) the rest of the collc pipeline.
  PassManager pm(&context);
  collc::buildCollcFrontendPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;

  if (!topology) {
    topology = loadTopology(o, topologyName, topologyPath);
    if (!topology)
      return 1;
  }

  // Lower every collective (choosing by simulation), prove each schedule
  // and build the report; selection, report and baselines share the
  // topology's routes.
  compileOptions.select.simulation.routes =
      std::make_shared<collc::RouteMemo>(*topology);
  // Selection's progress: after --progress-after seconds (1 on a
  // terminal, rewritten at most every 0.1 s; 10 elsewhere, a line every as
  // many seconds).
  bool terminal = llvm::sys::Process::StandardErrIsDisplayed();
  double after = o.progressAfter.getNumOccurrences() ? double(o.progressAfter)
                 : terminal                          ? 1.0
                                                     : 10.0;
  auto progressLine = std::make_shared<collc::sweep::Progress>(
      &llvm::errs(), terminal, after, terminal ? 0.1 : after);
  compileOptions.select.progress =
      [progressLine](const collc::SelectProgress &p) {
        progressLine->show(collc::selectionProgressLine(p), p.elapsedSeconds);
      };
  FailureOr<std::shared_ptr<collc::CollcCompilation>> compiledOr =
      collc::compileModule(*module, *topology, topologyName, topologyPath,
                           library, compileOptions);
  progressLine->finish();
  if (failed(compiledOr))
    return 1;
  collc::CollcCompilation &compiled = **compiledOr;

  // A generated program's baselines, for the report and the plot.
  std::optional<collc::sweep::SweepResult> single;
  if (generated)
    single =
        collc::singleSizeSweep(compiled, *generated, library, compileOptions);

  // Build every output first, then write each in one go, so that a failure
  // never leaves a half-written file behind.
  std::string output;
  collc::CompiledModule in;
  in.module = *module;
  in.compiled = &compiled;
  in.displayName = displayName;
  in.generatedBy = generatedBy;
  in.generated = generated ? &*generated : nullptr;
  in.single = single ? &*single : nullptr;
  if (int rc = said(collc::emitOutput(o, in, output)))
    return rc;
  if (int rc = writeOutputs(
          o, collc::outputFiles(o, compiled.report, in.single, output), output))
    return rc;
  if (o.run)
    return runCompiled(o, compiled.checked, topologyName, generatedBy);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CollcOptions options;
  cl::HideUnrelatedOptions(options.category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "collc: compile collectives for a GPU topology\n\n"
      "  collc PROGRAM.mlir --topo NAME|FILE     report what PROGRAM "
      "communicates on the topology\n"
      "  collc --topo NAME|FILE --dump-topology  print a topology\n"
      "  collc --collective all_reduce --bytes 8:8GiB --topo NAME|FILE\n"
      "                                          sweep sizes as nccl-tests "
      "does, against NCCL-style baselines\n\n"
      "Bundled topologies: dgx8x8, dgx-h100, dgx-a100-2, dgx1-v100, mi300x,\n"
      "pcie-2numa, torus4x4, dgx128x8 (files in topologies/).\n");
  return run(options);
}

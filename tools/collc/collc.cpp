//===- collc.cpp - the collc driver ---------------------------------------===//
//
// Parses and verifies a coll program, loads the topology it runs on, attaches
// it to the module and reports what the program communicates. Stages that do
// not exist yet are named as such on every run.
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipeline/Pipeline.h"
#include "compiler/Summary/CollectiveSummary.h"
#include "compiler/Topology/Topology.h"

#include "mlir/IR/AsmState.h"
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
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <sstream>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory collcCategory("collc options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir>"),
                                          cl::cat(collcCategory));

static cl::opt<std::string> topologyOption(
    "topo",
    cl::desc("Topology: a bundled name (dgx8x8, dgx-h100, ...) or a path to "
             "a topology JSON file. Required."),
    cl::value_desc("NAME|FILE"), cl::cat(collcCategory));

static cl::list<std::string> topologyDirs(
    "topology-dir",
    cl::desc("Also look for bundled topology names in DIR (searched before "
             "$COLLC_TOPOLOGY_PATH and the bundled topologies/)"),
    cl::value_desc("DIR"), cl::cat(collcCategory));

static cl::opt<bool> dumpTopology(
    "dump-topology",
    cl::desc("Print the loaded topology (devices, links, fabric, network) "
             "and exit; no input program is needed"),
    cl::cat(collcCategory));

enum class EmitKind { Summary, Mlir };
static cl::opt<EmitKind>
    emitKind("emit", cl::desc("What to write"), cl::init(EmitKind::Summary),
             cl::values(clEnumValN(EmitKind::Summary, "summary",
                                   "the collectives and compute of the program "
                                   "(default)"),
                        clEnumValN(EmitKind::Mlir, "mlir",
                                   "the verified module with the coll.topology "
                                   "attribute attached")),
             cl::cat(collcCategory));

static cl::opt<std::string>
    outputFilename("o", cl::desc("Write the output to FILE (default: stdout)"),
                   cl::value_desc("FILE"), cl::init("-"),
                   cl::cat(collcCategory));

/// The directories searched for a bundled topology name, in order.
static std::vector<std::string> topologySearchDirs() {
  std::vector<std::string> dirs(topologyDirs.begin(), topologyDirs.end());
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

/// Loads --topo, printing a precise error on failure.
static std::unique_ptr<collc::topo::Topology> loadTopology(std::string &name,
                                                           std::string &path) {
  if (topologyOption.empty()) {
    llvm::errs() << "collc: error: no topology given; pass --topo NAME|FILE "
                    "(bundled: see topologies/ or `collc --help`)\n";
    return nullptr;
  }
  std::vector<std::string> dirs = topologySearchDirs();
  std::optional<std::string> resolved =
      collc::topo::resolveTopology(topologyOption, dirs);
  if (!resolved) {
    llvm::errs() << "collc: error: topology '" << topologyOption
                 << "' is neither a file nor a bundled name; searched:";
    for (const std::string &dir : dirs)
      llvm::errs() << " " << dir;
    llvm::errs() << "\n";
    return nullptr;
  }
  collc::topo::LoadResult loaded = collc::topo::loadTopologyFile(*resolved);
  if (!loaded.topology) {
    llvm::errs() << loaded.error << "\n";
    return nullptr;
  }
  name = loaded.topology->name();
  path = *resolved;
  return std::move(loaded.topology);
}

/// The stages of the path from program to run, and whether each exists yet.
static void printStages(llvm::raw_ostream &os) {
  os << "stages:\n"
     << "  parse and verify (coll dialect)        done\n"
     << "  graph checks (coll-verify-graph)       done\n"
     << "  topology loaded and attached           done\n"
     << "  lowering to sched (algorithm library)  not implemented yet\n"
     << "  schedule verification (sched-verify)   not implemented yet\n"
     << "  simulation, algorithm selection        not implemented yet\n"
     << "  plan / CUDA emission, running          not implemented yet\n";
}

static int run() {
  std::string topologyName, topologyPath;
  if (dumpTopology) {
    std::unique_ptr<collc::topo::Topology> topology =
        loadTopology(topologyName, topologyPath);
    if (!topology)
      return 1;
    std::ostringstream text;
    topology->print(text);
    llvm::outs() << text.str();
    return 0;
  }
  if (inputFilename.empty()) {
    llvm::errs() << "collc: error: no input file; usage: collc FILE.mlir "
                    "--topo NAME|FILE (see --help)\n";
    return 1;
  }

  DialectRegistry registry;
  collc::registerCollcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic op dump adds noise.
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      openInputFile(inputFilename, &errorMessage);
  if (!buffer) {
    llvm::errs() << "collc: error: cannot read '" << inputFilename
                 << "': " << errorMessage << "\n";
    return 1;
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
                 << inputFilename
                 << "' (a bug in an upstream op parser); the error reported "
                    "above, if any, is what to fix\n";
    // The context may be in any state after the parser's crash.
    std::_Exit(1);
  }
  if (!module)
    return 1;

  PassManager pm(&context);
  collc::buildCollcFrontendPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;

  std::unique_ptr<collc::topo::Topology> topology =
      loadTopology(topologyName, topologyPath);
  if (!topology)
    return 1;
  if (failed(collc::checkMeshesFitTopology(*module, *topology, topologyName)))
    return 1;
  collc::attachTopology(*module, *topology, topologyPath);

  // Build the whole output first, then write it in one go, so that a failure
  // never leaves a half-written file behind.
  std::string output;
  llvm::raw_string_ostream os(output);
  if (emitKind == EmitKind::Mlir) {
    module->print(os);
    os << "\n";
  } else {
    os << "collc: " << llvm::sys::path::filename(inputFilename)
       << " on topology " << topologyName << " (" << topology->numGpus()
       << " GPUs: " << topology->numNodes() << " node"
       << (topology->numNodes() == 1 ? "" : "s") << " x "
       << topology->gpusPerNode() << ")\n";
    collc::printProgramSummary(collc::summarizeProgram(*module, *topology), os);
    printStages(os);
  }
  os.flush();

  if (outputFilename == "-") {
    llvm::outs() << output;
    return 0;
  }
  if (llvm::Error err = llvm::writeToOutput(
          outputFilename, [&](llvm::raw_ostream &out) -> llvm::Error {
            out << output;
            return llvm::Error::success();
          })) {
    llvm::errs() << "collc: error: cannot write '" << outputFilename
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(collcCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "collc: compile collectives for a GPU topology\n\n"
      "  collc PROGRAM.mlir --topo NAME|FILE     report what PROGRAM "
      "communicates on the topology\n"
      "  collc --topo NAME|FILE --dump-topology  print a topology\n\n"
      "Bundled topologies: dgx8x8, dgx-h100, dgx-a100-2, dgx1-v100, mi300x,\n"
      "pcie-2numa, torus4x4, dgx128x8 (files in topologies/).\n");
  return run();
}

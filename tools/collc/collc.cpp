//===- collc.cpp - the collc driver ---------------------------------------===//
//
// Parses and verifies a coll program (a file, or the one-collective program
// that --collective and --bytes describe), loads the topology it runs on,
// runs the collc pipeline on it (compiler/Pipeline: lowering with
// algorithms chosen by simulation, every schedule proven, the report) and
// writes what --emit asks for. With a --bytes range it sweeps sizes as
// nccl-tests does (compiler/Sweep). Stages that do not exist yet are named
// as such on every run. The options and their checks are
// compiler/Pipeline/CollcOptions; this file only drives.
//
//===----------------------------------------------------------------------===//
#include "collrt/Tuning.h"
#include "common/Topology/Topology.h"
#include "compiler/Check/CheckLowered.h"
#include "compiler/Pipeline/CollcOptions.h"
#include "compiler/Pipeline/Compile.h"
#include "compiler/Pipeline/Pipeline.h"
#include "compiler/Plan/PlanBuilder.h"
#include "compiler/Report/Dot.h"
#include "compiler/Report/Report.h"
#include "compiler/Run/RunPlan.h"
#include "compiler/Select/Candidates.h"
#include "compiler/Select/Select.h"
#include "compiler/Summary/CollectiveSummary.h"
#include "compiler/Sweep/Plot.h"
#include "compiler/Sweep/Sweep.h"
#include "compiler/Sweep/SweepSpec.h"
#include "compiler/Volume/PrintVolumes.h"
#include "compiler/Volume/Volume.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/CollToSched/LowerCollectives.h"
#include "lowering/SchedToCUDA/CudaEmitter.h"
#include "lowering/SchedToCUDA/Fatbin.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>
#include <numeric>
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

/// The stages of the path from program to run, and whether each exists yet.
static void printStages(const std::vector<collc::CheckedCollective> &checked,
                        llvm::raw_ostream &os) {
  // A recv is lowered with its send, so it is not counted on its own.
  size_t lowered = 0, verified = 0, total = 0;
  for (const collc::CheckedCollective &c : checked) {
    if (c.lowered.withItsSend())
      continue;
    ++total;
    lowered += c.lowered.algorithm != nullptr;
    verified += c.verified();
  }
  os << "stages:\n"
     << "  parse and verify (coll dialect)        done\n"
     << "  graph checks (coll-verify-graph)       done\n"
     << "  topology loaded and attached           done\n"
     << "  lowering to sched (algorithm library)  done for " << lowered
     << " of " << total << " collectives\n"
     << "  schedule verification (sched-verify)   done: " << verified << " of "
     << lowered << " schedules verified\n"
     << "  simulation, algorithm selection        done\n"
     << "  plan, CUDA emission                    --emit=plan, --emit=cuda, "
        "--emit=fatbin\n"
     << "  running on the CPU                     --run, or collc-run on the "
        "plan\n"
     << "  running on GPUs                        collc-run --backend cuda "
        "(built, tested on a fake driver; not yet run on a real GPU)\n";
}

/// Adds each collective's algorithm, chunk count, verification result and
/// the most bytes any rank sends to the summary's rows.
static void
addLoweringToSummary(const std::vector<collc::CheckedCollective> &checked,
                     const collc::topo::Topology &topology,
                     collc::ProgramSummary &summary) {
  for (collc::CollectiveInfo &info : summary.collectives) {
    for (const collc::CheckedCollective &c : checked) {
      if (c.lowered.op != info.operation)
        continue;
      if (!c.lowered.algorithm) {
        info.verified = "-";
        break;
      }
      info.algorithm = c.lowered.algorithm->name;
      info.chunks = c.lowered.expand.chunksPerPart;
      info.verified = c.verified() ? "yes" : "NO";
      if (c.program && c.lowered.elementsPerRank >= 0)
        info.sentPerRank =
            collc::computeVolumes(*c.program, c.lowered.elementsPerRank,
                                  c.lowered.elementBytes)
                .maxBytesSent();
      break;
    }
  }
  (void)topology;
}

/// Says which collectives have no schedule yet, and why.
static void
printNotLowered(const std::vector<collc::CheckedCollective> &checked,
                llvm::raw_ostream &os) {
  for (const collc::CheckedCollective &c : checked) {
    if (c.lowered.algorithm || c.lowered.withItsSend())
      continue;
    std::string location = collc::formatLocation(c.lowered.op->getLoc());
    os << "not lowered: " << c.lowered.op->getName().getStringRef() << " at "
       << location << ": " << c.lowered.whyNot << "\n";
  }
}

/// Writes `text` to `path` through a temporary file and a rename.
static bool writeFileAtomically(const std::string &path,
                                const std::string &text) {
  if (llvm::Error err =
          llvm::writeToOutput(path, [&](llvm::raw_ostream &out) -> llvm::Error {
            out << text;
            return llvm::Error::success();
          })) {
    llvm::errs() << "collc: error: cannot write '" << path
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return false;
  }
  return true;
}

/// Writes every (path, text) pair, each in one go; false after an error.
static bool
writeFiles(const std::vector<std::pair<std::string, std::string>> &files) {
  for (const auto &[path, text] : files)
    if (!writeFileAtomically(path, text))
      return false;
  return true;
}

/// --emit=plan: the plan of every collective (docs/plan-format.md); refuses,
/// naming them, collectives without a verified schedule.
/// The plan of `checked` (what --emit=plan writes, --emit=cuda generates
/// from and --run runs). On failure, prints every reason and then
/// "collc: error: <failed>".
/// What every plan collc writes is built with.
static collc::PlanBuildOptions planOptions(const std::string &topologyName,
                                           const std::string &generatedBy) {
  collc::PlanBuildOptions options;
  options.topology = topologyName;
  // compileModule proves every schedule with the default VerifyOptions.
  options.connectionSlots = sched::VerifyOptions().connectionSlots;
  options.generatedBy = generatedBy;
  return options;
}

static bool buildPlanOrSay(const std::vector<collc::CheckedCollective> &checked,
                           const std::string &topologyName,
                           const std::string &generatedBy,
                           const std::string &failed, collrt::Plan &plan) {
  std::vector<std::string> errors;
  if (collc::buildPlan(checked, planOptions(topologyName, generatedBy), plan,
                       errors))
    return true;
  for (const std::string &error : errors)
    llvm::errs() << "collc: error: " << error << "\n";
  llvm::errs() << "collc: error: " << failed << "\n";
  return false;
}

static bool emitPlan(const std::vector<collc::CheckedCollective> &checked,
                     const std::string &topologyName,
                     const std::string &generatedBy, std::string &output) {
  collrt::Plan plan;
  if (!buildPlanOrSay(checked, topologyName, generatedBy, "no plan written",
                      plan))
    return false;
  output = collrt::planToJson(plan);
  return true;
}

/// --run's rule for an all_to_all_v whose counts come at run time, by plan
/// index: counts in whole rows of its split axis, and the transpose of an
/// earlier one's counts where its send_counts operand is a linalg.transpose
/// (permutation [1, 0]) of that one's (a MoE combine).
static std::vector<collc::RunCounts>
runCountsOf(const std::vector<collc::CheckedCollective> &checked) {
  std::vector<collc::RunCounts> result;
  // The counts operand of each plan collective so far.
  std::vector<mlir::Value> operands;
  for (const collc::CheckedCollective &c : checked) {
    if (c.lowered.withItsSend())
      continue;
    collc::RunCounts how;
    mlir::Value counts;
    auto v = mlir::dyn_cast<collc::coll::AllToAllVOp>(c.lowered.op);
    if (c.lowered.countsAtRunTime && v && v.getDynamicSendCounts()) {
      counts = v.getDynamicSendCounts();
      RankedTensorType input = v.getInput().getType();
      int64_t axis = int64_t(v.getSplitAxis());
      int64_t row = 1;
      for (int64_t d = 0; d < input.getRank(); ++d)
        if (d != axis && !input.isDynamicDim(d))
          row *= input.getDimSize(d);
      how.rowElements = row;
      if (auto transpose = counts.getDefiningOp<mlir::linalg::TransposeOp>();
          transpose &&
          transpose.getPermutation() == llvm::ArrayRef<int64_t>{1, 0})
        for (size_t j = 0; j < operands.size(); ++j)
          if (operands[j] && operands[j] == transpose.getInput())
            how.transposeOf = int64_t(j);
    }
    operands.push_back(counts);
    result.push_back(how);
  }
  return result;
}

/// --run: builds the plan of every collective and runs it on the CPU
/// executor, printing a line per collective; false on any failure.
static bool runCompiled(const CollcOptions &o,
                        const std::vector<collc::CheckedCollective> &checked,
                        const std::string &topologyName,
                        const std::string &generatedBy) {
  // An all_to_all_v whose counts come at run time runs with random counts
  // (RunPlanOptions::countsSeed; RunPlan.h says how they are drawn).
  collrt::Plan plan;
  if (!buildPlanOrSay(checked, topologyName, generatedBy, "--run: nothing run",
                      plan))
    return false;
  collc::RunPlanOptions runOptions;
  runOptions.timeoutSeconds = o.runTimeout;
  runOptions.counts = runCountsOf(checked);
  std::string out;
  llvm::outs().flush();
  bool ok = collc::runPlanInProcess(plan, runOptions, out);
  llvm::outs() << out;
  llvm::outs().flush();
  if (!ok)
    llvm::errs() << "collc: error: --run: a collective failed (above)\n";
  return ok;
}

/// --emit=cuda and --emit=fatbin: a kernel per collective of the plan (in
/// the plan's order, with the same refusals as --emit=plan), and for fatbin
/// those kernels compiled by nvcc. docs/codegen.md.
static bool
emitCudaKernels(const CollcOptions &o,
                const std::vector<collc::CheckedCollective> &checked,
                const std::string &topologyName, const std::string &source,
                bool fatbin, std::string &output) {
  collrt::Plan plan;
  const char *what = fatbin ? "fatbin" : "CUDA";
  // A plan leaves such counts to run time; a kernel folds them in.
  bool refused = false;
  for (const collc::CheckedCollective &c : checked)
    if (c.lowered.countsAtRunTime) {
      llvm::errs() << "collc: error: " << c.lowered.op->getName().getStringRef()
                   << " at " << collc::formatLocation(c.lowered.op->getLoc())
                   << ": its send counts are known only at run time, but a "
                      "generated kernel fixes an all_to_all_v's counts (give "
                      "the op a constant send_counts attribute)\n";
      refused = true;
    }
  if (refused) {
    llvm::errs() << "collc: error: no " << what << " written\n";
    return false;
  }
  if (!buildPlanOrSay(checked, topologyName, "",
                      std::string("no ") + what + " written", plan))
    return false;
  std::vector<collc::cuda::KernelInput> kernels;
  for (const collc::CheckedCollective &c : checked) {
    // A recv travels with its send, as in the plan.
    if (c.lowered.withItsSend())
      continue;
    const collrt::PlanCollective &entry = plan.collectives[kernels.size()];
    collc::cuda::KernelInput kernel;
    kernel.schedule = c.lowered.schedule;
    kernel.expand = &c.lowered.expand;
    kernel.program = &*c.program;
    kernel.dtype = entry.dtype;
    if (c.lowered.collective == sched::Collective::AllReduce ||
        c.lowered.collective == sched::Collective::ReduceScatter ||
        c.lowered.collective == sched::Collective::Reduce)
      kernel.reduction = entry.reduction;
    kernel.planIndex = int(kernels.size());
    kernel.location = collc::formatLocation(c.lowered.op->getLoc());
    kernels.push_back(kernel);
  }
  collc::cuda::EmitOptions emitOptions;
  emitOptions.kernelPrefix = o.kernelPrefix;
  emitOptions.source = source + " on topology " + topologyName;
  std::string cuda;
  if (failed(collc::cuda::emitCuda(kernels, emitOptions, cuda))) {
    llvm::errs() << "collc: error: no " << what << " written\n";
    return false;
  }
  if (!fatbin) {
    output = std::move(cuda);
    return true;
  }
  collc::cuda::FatbinOptions fatbinOptions;
  fatbinOptions.nvcc = o.nvcc;
  fatbinOptions.includeDirs = {o.cudaInclude};
  std::string error;
  if (!collc::cuda::parseArchitectures(o.cudaArch, fatbinOptions.architectures,
                                       error) ||
      !collc::cuda::compileFatbin(cuda, fatbinOptions, output, error)) {
    llvm::errs() << "collc: error: " << error << "\n";
    llvm::errs() << "collc: error: no fatbin written\n";
    return false;
  }
  return true;
}

/// --emit=candidates: one plan per candidate schedule of the generated
/// collective (collc::candidateSchedules: each applicable algorithm of the
/// library, with --chunks or 1, 2 and 4 chunks per unit; where the
/// topology caps a channel, each channel count C of an algorithm that has
/// one, with C, 2C and 4C chunks per unit too) into the directory -o DIR,
/// the same program only once, for collc-run --tuning (docs/tuning.md). A
/// candidate collc cannot compile (not applicable, an explicit schedule's
/// other chunk count) is named with the reason and left out.
static int emitCandidates(const CollcOptions &o, MLIRContext &context,
                          const collc::GeneratedProgram &generated,
                          const collc::topo::Topology &topology,
                          const std::string &topologyName,
                          const std::string &topologyPath,
                          const collc::lowering::AlgorithmLibrary &library,
                          const collc::CompileOptions &options,
                          const std::string &generatedBy) {
  auto fail = [](const std::string &message) {
    return ::fail("--emit=candidates: " + message);
  };
  const std::string &dir = o.outputFilename;
  if (dir == "-")
    return fail("needs -o DIR, the directory the plans go into");
  if (!options.algo.empty())
    return fail("--algo does not go with it: every applicable algorithm is a "
                "candidate");
  if (llvm::sys::fs::exists(dir) && !llvm::sys::fs::is_directory(dir))
    return fail("-o '" + dir + "' is not a directory (the plans go into one)");
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot make the directory '" + dir + "': " + ec.message());
  const sched::Collective collective = generated.spec.collective;
  const std::string name = sched::collectiveName(collective);
  std::string text =
      collc::sweep::generateProgram(generated.spec, generated.sizes.min);
  std::map<uint64_t, std::string> written; // fingerprint -> file
  // Where the topology caps a channel's rate, an algorithm's channel count
  // is a choice (as in selection): each count is a candidate, unless
  // --algo-param sets it.
  std::vector<int> gpus(size_t(topology.numGpus()));
  std::iota(gpus.begin(), gpus.end(), 0);
  bool capped =
      collc::sim::anyChannelCapped(topology, gpus, options.select.simulation);
  std::vector<collc::CandidateSchedule> candidates = collc::candidateSchedules(
      library, collective, options.params, options.chunks,
      options.select.channelCounts, capped);
  collc::MoreChannelsAtWork worthTrying;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const collc::CandidateSchedule &candidate = candidates[i];
    if (i > 0 && candidates[i - 1].algorithm != candidate.algorithm)
      worthTrying = collc::MoreChannelsAtWork();
    const std::string &label = candidate.label;
    collc::CompileOptions compileOptions = options;
    compileOptions.algo = candidate.algo;
    compileOptions.chunks = candidate.chunks;
    compileOptions.params = candidate.params;
    // Why a candidate does not compile is said in one line, not as the
    // diagnostics of a compilation the user did not ask for.
    std::string why;
    FailureOr<std::shared_ptr<collc::CollcCompilation>> compiled = failure();
    // The compiled collectives point into the module: it lives as long.
    OwningOpRef<ModuleOp> module;
    {
      ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diag) {
        if (why.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
          why = diag.str();
        return success();
      });
      module = collc::sweep::parseProgram(context, text, name + ".mlir");
      if (module)
        compiled = collc::compileModule(*module, topology, topologyName,
                                        topologyPath, library, compileOptions);
    }
    collrt::Plan plan;
    std::vector<std::string> errors;
    if (succeeded(compiled) &&
        !collc::buildPlan((*compiled)->checked,
                          planOptions(topologyName, generatedBy), plan, errors))
      why = errors.empty() ? "no plan" : errors.front();
    if (failed(compiled) || !why.empty()) {
      llvm::outs() << "  " << label << ": left out: "
                   << (why.empty() ? "it did not compile" : why) << "\n";
      continue;
    }
    const sched::Program &program = plan.collectives.front().program;
    uint32_t busy = collc::channelsInUse(program);
    if (!worthTrying.admit(candidate.channels, busy)) {
      llvm::outs() << "  " << label << ": left out: only " << busy
                   << " of its channels get work at k = "
                   << program.chunksPerPart
                   << ", no more than with fewer (they run the same)\n";
      continue;
    }
    uint64_t fp = sched::fingerprint(program);
    if (auto it = written.find(fp); it != written.end()) {
      llvm::outs() << "  " << label << ": left out: the same program as "
                   << it->second << "\n";
      continue;
    }
    std::string file = dir + "/" + candidate.fileStem + ".plan.json";
    std::string kernels;
    if (!o.candidateKernels.empty()) {
      // The candidate's kernels, before its plan: a plan is written only
      // with them.
      bool fatbin = o.candidateKernels == "fatbin";
      std::string code;
      if (!emitCudaKernels(o, (*compiled)->checked, topologyName, generatedBy,
                           fatbin, code))
        return fail(label + ": its kernels (above)");
      kernels = dir + "/" + candidate.fileStem + (fatbin ? ".fatbin" : ".cu");
      if (!writeFileAtomically(kernels, code))
        return 1;
    }
    collrt::Status saved = collrt::savePlanFile(file, plan);
    if (!saved.ok())
      return fail(saved.message());
    written[fp] = file;
    llvm::outs() << "  " << label
                 << " (k=" << plan.collectives.front().program.chunksPerPart
                 << "): " << file << (kernels.empty() ? "" : ", " + kernels)
                 << "\n";
  }
  llvm::outs() << "collc: " << written.size() << " candidate plan(s) of "
               << candidates.size() << " tried for " << name << " ("
               << generatedBy << ") in " << dir
               << "; measure them with collc-run "
               << (o.candidateKernels.empty() ? "PLANS... --tuning FILE"
                   : o.candidateKernels == "fatbin"
                       ? "PLANS... --backend cuda --kernels "
                         "FATBINS,... --tuning FILE (a rank per "
                         "process, under a launcher)"
                       : "PLANS... --backend cuda --kernels "
                         "FATBINS,... --tuning FILE, the .cu files "
                         "compiled by nvcc --fatbin where the GPU is")
               << "\n";
  return written.empty() ? 1 : 0;
}

/// Selection's progress line (--progress-after): candidates decided and
/// the fastest so far.
static std::string selectionProgressLine(const collc::SelectProgress &p) {
  return llvm::formatv(
      "collc: choosing {0} at {1}: {2} candidates decided ({3} simulated, "
      "{4} ruled out by a lower bound), fastest so far {5} ({6:F1} s)",
      p.op->getName().stripDialect(), collc::formatLocation(p.op->getLoc()),
      p.decided, p.simulated, p.pruned,
      p.bestSeconds < 0
          ? std::string("none")
          : llvm::formatv("{0}, {1:F1} us", p.best, p.bestSeconds * 1e6).str(),
      p.elapsedSeconds);
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
  llvm::raw_string_ostream os(output);
  collc::sweep::printSweep(*result, os);
  if (options.select.tuning)
    os << "tuning " << options.select.tuningPath
       << ": where it has a measurement (docs/tuning.md), the algorithm and "
          "chunks are the measured fastest; every time above is the model's\n";
  os.flush();
  std::vector<std::pair<std::string, std::string>> files;
  if (!o.reportJsonFile.empty())
    files.emplace_back(o.reportJsonFile, collc::sweep::sweepToJson(*result));
  if (!o.plotFile.empty())
    files.emplace_back(o.plotFile, collc::sweep::sweepToSvg(*result));
  if (o.outputFilename != "-")
    files.emplace_back(o.outputFilename, output);
  if (!writeFiles(files))
    return 1;
  if (o.outputFilename == "-")
    llvm::outs() << output;
  return 0;
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
  if (failed(library.loadBuiltins()))
    return 1;
  for (const std::string &file : o.algoFiles)
    if (failed(library.loadFile(file)))
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
    return emitCandidates(o, context, *generated, *topology, topologyName,
                          topologyPath, library, compileOptions, generatedBy);
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
        progressLine->show(selectionProgressLine(p), p.elapsedSeconds);
      };
  FailureOr<std::shared_ptr<collc::CollcCompilation>> compiledOr =
      collc::compileModule(*module, *topology, topologyName, topologyPath,
                           library, compileOptions);
  progressLine->finish();
  if (failed(compiledOr))
    return 1;
  collc::CollcCompilation &compiled = **compiledOr;
  const std::vector<collc::CheckedCollective> &checked = compiled.checked;
  const collc::Report &report = compiled.report;

  // A generated program's baselines, for the report and the plot.
  std::optional<collc::sweep::SweepResult> single;
  if (generated) {
    collc::sweep::SweepRow row = collc::sweep::makeRow(
        compiled, generated->spec, library, *topology, compileOptions);
    single.emplace();
    single->spec = generated->spec;
    single->topology = topology->name();
    single->machine = collc::sweep::describeMachine(*topology);
    single->sizes = generated->sizes;
    single->granule = collc::sweep::sizeGranule(generated->spec);
    single->baselines = collc::sweep::baselinesFor(generated->spec.collective,
                                                   single->noBaseline);
    single->rows.push_back(std::move(row));
  }

  // Build every output first, then write each in one go, so that a failure
  // never leaves a half-written file behind.
  std::string output;
  llvm::raw_string_ostream os(output);
  std::string header =
      generated
          ? "collc: " + collc::sweep::describeSpec(generated->spec) + ", " +
                collc::formatBytes(generated->sizes.min) + " per rank"
          : "collc: " + displayName;
  header += " on topology " + topologyName + " (" +
            collc::sweep::describeMachine(*topology) + ")\n";
  EmitKind emit = o.emit;
  if (emit == EmitKind::Mlir || emit == EmitKind::Sched) {
    if (emit == EmitKind::Mlir) {
      // The program as written, with the topology attached.
      module->walk([](Operation *op) {
        op->removeAttr("sched.schedule");
        op->removeAttr("sched.chunks_per_part");
      });
      for (auto schedule : llvm::make_early_inc_range(
               module->getOps<collc::sched::ScheduleOp>()))
        schedule.erase();
    }
    module->print(os);
    os << "\n";
  } else if (emit == EmitKind::Report) {
    os << header;
    collc::printReport(report, os);
    printNotLowered(checked, os);
    if (single)
      collc::sweep::printBaselines(single->rows.front(), generated->spec, os);
    if (!o.run)
      os << "not run: --run runs the plan on the CPU executor; on GPUs "
            "collc-run --backend cuda runs --emit=plan's plan with "
            "--emit=fatbin's kernels (docs/gpu-runtime.md; built, not yet run "
            "on a real GPU)\n";
  } else if (emit == EmitKind::Volumes) {
    collc::printVolumes(checked, *topology, os);
  } else if (emit == EmitKind::Dot) {
    os.flush();
    std::string error;
    if (!collc::writeCheckedDot(checked, o.dotLimit, output, error))
      return fail(error);
  } else if (emit == EmitKind::Cuda || emit == EmitKind::Fatbin) {
    os.flush();
    if (!emitCudaKernels(o, checked, topologyName,
                         generated ? generatedBy : displayName,
                         emit == EmitKind::Fatbin, output))
      return 1;
  } else if (emit == EmitKind::Plan) {
    os.flush();
    if (!emitPlan(checked, topologyName, generatedBy, output))
      return 1;
  } else {
    os << header;
    collc::ProgramSummary summary = collc::summarizeProgram(*module, *topology);
    addLoweringToSummary(checked, *topology, summary);
    collc::printProgramSummary(summary, os);
    printNotLowered(checked, os);
    printStages(checked, os);
  }
  os.flush();

  std::vector<std::pair<std::string, std::string>> files;
  if (!o.reportJsonFile.empty())
    files.emplace_back(o.reportJsonFile, collc::reportToJson(report));
  if (!o.traceFile.empty())
    files.emplace_back(o.traceFile, collc::reportToChromeTrace(report));
  if (!o.plotFile.empty() && single)
    files.emplace_back(o.plotFile, collc::sweep::sweepToSvg(*single));
  if (o.outputFilename != "-")
    files.emplace_back(o.outputFilename, output);
  if (!writeFiles(files))
    return 1;
  if (o.outputFilename == "-")
    llvm::outs() << output;
  if (o.run)
    return runCompiled(o, checked, topologyName, generatedBy) ? 0 : 1;
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

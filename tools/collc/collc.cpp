//===- collc.cpp - the collc driver ---------------------------------------===//
//
// Parses and verifies a coll program (a file, or the one-collective program
// that --collective and --bytes describe), loads the topology it runs on,
// lowers every collective with algorithms chosen by simulation, proves each
// schedule and reports what the program communicates. With a --bytes range
// it sweeps sizes as nccl-tests does (compiler/Sweep). Stages that do not
// exist yet are named as such on every run.
//
//===----------------------------------------------------------------------===//
#include "collrt/Tuning.h"
#include "common/Topology/Topology.h"
#include "compiler/Check/CheckLowered.h"
#include "compiler/Pipeline/Pipeline.h"
#include "compiler/Plan/PlanBuilder.h"
#include "compiler/Report/Report.h"
#include "compiler/Run/RunPlan.h"
#include "compiler/Select/Select.h"
#include "compiler/Summary/CollectiveSummary.h"
#include "compiler/Sweep/Compile.h"
#include "compiler/Sweep/Dot.h"
#include "compiler/Sweep/Plot.h"
#include "compiler/Sweep/Sweep.h"
#include "compiler/Sweep/SweepSpec.h"
#include "compiler/Volume/Volume.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/CollToSched/LowerCollectives.h"
#include "lowering/SchedToCUDA/CudaEmitter.h"
#include "lowering/SchedToCUDA/Fatbin.h"

#include "mlir/IR/AsmState.h"
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

#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <sstream>

using namespace mlir;
namespace sched = collc::sched;
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

static cl::opt<bool> runOption(
    "run",
    cl::desc("Then run the compiled plan: every collective on the plan's "
             "world of ranks as threads of this process (libcollrt's CPU "
             "executor), on position-dependent inputs at the compiled "
             "size, every output element checked (docs/collc-run.md)"),
    cl::cat(collcCategory));

static cl::opt<double>
    runTimeout("run-timeout",
               cl::desc("With --run: the watchdog of each collective, seconds "
                        "(default 60)"),
               cl::init(60), cl::value_desc("SECONDS"), cl::cat(collcCategory));

enum class EmitKind {
  Report,
  Summary,
  Mlir,
  Sched,
  Volumes,
  Dot,
  Plan,
  Cuda,
  Fatbin,
  Candidates
};
static cl::opt<EmitKind>
    emitKind("emit", cl::desc("What to write"), cl::init(EmitKind::Report),
             cl::values(clEnumValN(EmitKind::Report, "report",
                                   "per collective the chosen algorithm, "
                                   "predicted time, bandwidth and bound; the "
                                   "graph's critical path (default)"),
                        clEnumValN(EmitKind::Summary, "summary",
                                   "the collectives and compute of the "
                                   "program, how groups lie on nodes"),
                        clEnumValN(EmitKind::Mlir, "mlir",
                                   "the verified module with the coll.topology "
                                   "attribute attached"),
                        clEnumValN(EmitKind::Sched, "sched",
                                   "the lowered module: every collective "
                                   "linked to its sched.schedule"),
                        clEnumValN(EmitKind::Volumes, "volumes",
                                   "the bytes each rank sends and receives "
                                   "and each link carries, per collective"),
                        clEnumValN(EmitKind::Dot, "dot",
                                   "every schedule's dependency graph in "
                                   "Graphviz DOT (small schedules only)"),
                        clEnumValN(EmitKind::Plan, "plan",
                                   "the plan libcollrt and collc-run run: "
                                   "every collective's verified schedule, "
                                   "groups and element type as JSON "
                                   "(docs/plan-format.md)"),
                        clEnumValN(EmitKind::Cuda, "cuda",
                                   "CUDA C++: a kernel per collective of the "
                                   "plan (docs/codegen.md)"),
                        clEnumValN(EmitKind::Fatbin, "fatbin",
                                   "those kernels compiled by nvcc for "
                                   "--cuda-arch (needs -o FILE)"),
                        clEnumValN(EmitKind::Candidates, "candidates",
                                   "with --collective: a plan per candidate "
                                   "schedule (every applicable algorithm x "
                                   "--chunks, else 1, 2, 4; x its channel "
                                   "counts where channels are capped) into "
                                   "the directory -o DIR, for collc-run "
                                   "--tuning (docs/tuning.md)")),
             cl::cat(collcCategory));

static cl::opt<std::string> algoOption(
    "algo",
    cl::desc("Algorithm: NAME for every collective that has one of that "
             "name, or COLLECTIVE=NAME,... (e.g. all_reduce=ring)"),
    cl::value_desc("NAME|COLL=NAME,..."), cl::cat(collcCategory));

static cl::opt<std::string> algoParamOption(
    "algo-param",
    cl::desc("Set parameters of the chosen algorithms, e.g. rings=4 for "
             "parallel rings; a parameter applies to every algorithm that "
             "declares it, and one that none declares is an error"),
    cl::value_desc("NAME=VALUE,..."), cl::cat(collcCategory));

static cl::opt<unsigned> chunksOption(
    "chunks",
    cl::desc("Chunks per algorithm unit (pipelining depth); default 1"),
    cl::value_desc("K"), cl::init(0), cl::cat(collcCategory));

static cl::opt<unsigned> maxRaceStreams(
    "max-race-streams",
    cl::desc("How many channel streams sched-verify's race check follows "
             "before it is skipped (the report then says 'verified except "
             "for races'); default 2048"),
    cl::value_desc("N"), cl::init(sched::VerifyOptions().maxRaceStreams),
    cl::cat(collcCategory));

static cl::opt<bool> selectPrune(
    "select-prune",
    cl::desc("Skip candidates whose cheap lower bound shows they can be "
             "neither the fastest nor the runner-up (default on; the choice "
             "and every predicted time are the same off, only the count of "
             "simulated candidates differs)"),
    cl::init(true), cl::cat(collcCategory));

static cl::opt<double> progressAfter(
    "progress-after",
    cl::desc("Once a collective's selection has run this many seconds, say "
             "on stderr how it stands (candidates decided, the fastest so "
             "far), and again every as many seconds (default: 1 where "
             "stderr is a terminal, whose one line is rewritten in place "
             "and cleared at the end; 10 elsewhere). Sweeps report each "
             "size instead"),
    cl::value_desc("SECONDS"), cl::cat(collcCategory));

static cl::opt<unsigned> selectThreads(
    "select-threads",
    cl::desc("Threads that simulate selection's candidates (default 0: the "
             "host's cores, at most 8; 1: only the main thread). The answer "
             "never depends on it"),
    cl::value_desc("N"), cl::init(0), cl::cat(collcCategory));

static cl::opt<std::string> channelBandwidthOption(
    "channel-bandwidth",
    cl::desc("GB/s one channel (a thread block on a GPU) reads and writes, "
             "for the simulator: 0 turns the cap off (default: each GPU "
             "model's channel_bandwidth_GBps in the topology, no cap where "
             "it gives none). Where channels are capped, selection also "
             "chooses an algorithm's channel count (docs/simulator.md)"),
    cl::value_desc("GBPS"), cl::cat(collcCategory));

static cl::opt<std::string> tuningFile(
    "tuning",
    cl::desc("Choose by measurement where FILE has one: the fastest of the "
             "candidate schedules collc-run --tuning measured for the same "
             "collective, group size, element type and reduction at the "
             "nearest size (within a factor of 2); elsewhere by simulation "
             "(docs/tuning.md)"),
    cl::value_desc("FILE"), cl::cat(collcCategory));

static cl::list<std::string> algoFiles(
    "algo-file",
    cl::desc("Add the sched.schedule algorithms of FILE to the library; "
             "they are verified and used like built-in ones"),
    cl::value_desc("FILE"), cl::cat(collcCategory));

static cl::opt<std::string>
    reportJsonFile("report-json",
                   cl::desc("Also write the report as JSON to FILE"),
                   cl::value_desc("FILE"), cl::cat(collcCategory));

static cl::opt<std::string> traceFile(
    "trace",
    cl::desc("Also write the simulated timeline as a Chrome trace (opens in "
             "Perfetto) to FILE"),
    cl::value_desc("FILE"), cl::cat(collcCategory));

static cl::opt<std::string> collectiveOption(
    "collective",
    cl::desc("Compile a one-collective program instead of a file: "
             "all_reduce, all_gather, reduce_scatter, all_to_all, "
             "all_to_all_v, broadcast, reduce, scatter or gather (roots 0) "
             "on a mesh of the topology's shape; needs --bytes"),
    cl::value_desc("NAME"), cl::cat(collcCategory));

static cl::opt<std::string> bytesOption(
    "bytes",
    cl::desc("With --collective: the input buffer per rank, SIZE (8, 64K, "
             "1MiB, 8G: powers of 1024), or MIN:MAX[:FACTOR] to sweep sizes "
             "MIN, MIN*FACTOR, ... (FACTOR 2 by default), a table row each"),
    cl::value_desc("SIZE|MIN:MAX[:F]"), cl::cat(collcCategory));

static cl::opt<std::string> groupOption(
    "group",
    cl::desc("With --collective: all (every rank, default), gpu (the GPUs "
             "of one node) or node (one GPU per node)"),
    cl::value_desc("all|gpu|node"), cl::init("all"), cl::cat(collcCategory));

static cl::opt<std::string> dtypeOption(
    "dtype",
    cl::desc("With --collective: the element type, f32 (default, as "
             "nccl-tests), bf16, f16, f64, f8E4M3FN, f8E5M2, i64, i32, i8"),
    cl::value_desc("TYPE"), cl::init("f32"), cl::cat(collcCategory));

static cl::opt<std::string> reduceOption(
    "op",
    cl::desc("With --collective: the reduction of all_reduce, reduce_scatter "
             "and reduce: sum (default), prod, min, max, avg"),
    cl::value_desc("KIND"), cl::init("sum"), cl::cat(collcCategory));

static cl::opt<std::string> plotFile(
    "plot",
    cl::desc("With --collective: write busbw against size for collc's choice "
             "and the baselines as an SVG plot to FILE"),
    cl::value_desc("FILE.svg"), cl::cat(collcCategory));

static cl::opt<unsigned> dotLimit(
    "dot-limit",
    cl::desc("--emit=dot refuses schedules of more instructions than this "
             "(default 2000)"),
    cl::value_desc("N"), cl::init(collc::sweep::kDotInstructionLimit),
    cl::cat(collcCategory));

static cl::opt<std::string>
    outputFilename("o", cl::desc("Write the output to FILE (default: stdout)"),
                   cl::value_desc("FILE"), cl::init("-"),
                   cl::cat(collcCategory));

static cl::opt<std::string> cudaArchOption(
    "cuda-arch",
    cl::desc("With --emit=fatbin: the architectures to compile for, "
             "comma-separated (default sm_80,sm_90)"),
    cl::value_desc("sm_NN,..."), cl::init("sm_80,sm_90"),
    cl::cat(collcCategory));

static cl::opt<std::string> nvccOption(
    "nvcc",
    cl::desc("With --emit=fatbin: the nvcc to run (default: nvcc on PATH, "
             "else /usr/local/cuda/bin/nvcc)"),
    cl::value_desc("PATH"), cl::cat(collcCategory));

static cl::opt<std::string> cudaIncludeOption(
    "cuda-include",
    cl::desc("With --emit=fatbin: the directory holding "
             "collrt/device/Channel.h (default: the source tree's "
             "runtime/include)"),
    cl::value_desc("DIR"), cl::init(COLLC_RUNTIME_INCLUDE_DIR),
    cl::cat(collcCategory));

static cl::opt<std::string> candidateKernelsOption(
    "candidate-kernels",
    cl::desc("With --emit=candidates: also each candidate's kernels, 'cuda' "
             "(NAME.cu, the CUDA source) or 'fatbin' (NAME.fatbin, compiled "
             "by nvcc for --cuda-arch), for collc-run --backend cuda "
             "--tuning (docs/tuning.md)"),
    cl::value_desc("cuda|fatbin"), cl::cat(collcCategory));

static cl::opt<std::string> kernelPrefixOption(
    "kernel-prefix",
    cl::desc("With --emit=cuda or fatbin: kernel names start with this "
             "(default collc: collc_k0_ring_all_reduce)"),
    cl::value_desc("NAME"), cl::init("collc"), cl::cat(collcCategory));

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
static void printStages(const std::vector<collc::CheckedCollective> &checked,
                        llvm::raw_ostream &os) {
  // A recv is lowered with its send, so it is not counted on its own.
  size_t lowered = 0, verified = 0, total = 0;
  for (const collc::CheckedCollective &c : checked) {
    if (c.lowered.op->getName().getStringRef() == "coll.recv")
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
    if (c.lowered.algorithm ||
        c.lowered.op->getName().getStringRef() == "coll.recv")
      continue;
    std::string location = collc::formatLocation(c.lowered.op->getLoc());
    os << "not lowered: " << c.lowered.op->getName().getStringRef() << " at "
       << location << ": " << c.lowered.whyNot << "\n";
  }
}

/// --emit=volumes: per collective, the bytes every rank sends and receives
/// and the busiest links of the topology.
static void printVolumes(const std::vector<collc::CheckedCollective> &checked,
                         const collc::topo::Topology &topology,
                         llvm::raw_ostream &os) {
  for (const collc::CheckedCollective &c : checked) {
    if (!c.program)
      continue;
    const collc::lowering::LoweredCollective &l = c.lowered;
    std::string location = collc::formatLocation(l.op->getLoc());
    os << sched::collectiveName(l.collective) << " at " << location << ": "
       << l.algorithm->name;
    for (const auto &entry : l.chosenParams)
      os << " " << entry.getKey() << "=" << entry.getValue();
    os << ", n = " << l.layout.size << ", k = " << l.expand.chunksPerPart;
    if (l.elementsPerRank < 0) {
      os << ": sizes known only at run time\n";
      continue;
    }
    int64_t bytes = l.elementsPerRank * l.elementBytes;
    os << ", M = " << bytes << " B per rank\n";
    if (!l.algorithm->volume.empty())
      os << "  closed form of the bytes sent: " << l.algorithm->volume << "\n";
    std::vector<int> gpus(l.layout.meshRanks.begin(), l.layout.meshRanks.end());
    collc::VolumeReport volumes = collc::computeVolumes(
        *c.program, l.elementsPerRank, l.elementBytes, &topology, gpus);
    os << "  rank        sent    received\n";
    for (size_t r = 0; r < volumes.ranks.size(); ++r)
      os << llvm::formatv("  {0,4} {1,11} {2,11}\n", r,
                          volumes.ranks[r].bytesSent,
                          volumes.ranks[r].bytesReceived);
    os << "  total sent: " << volumes.totalBytesSent() << " B\n";
    // The busiest links, by bytes carried.
    std::vector<size_t> order(volumes.linkBytes.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return volumes.linkBytes[a] > volumes.linkBytes[b];
    });
    os << "  busiest links:\n";
    for (size_t i = 0; i < order.size() && i < 5; ++i) {
      if (volumes.linkBytes[order[i]] == 0)
        break;
      const collc::topo::Link &link = topology.link(order[i]);
      os << llvm::formatv(
          "    {0} -> {1}: {2} B\n", topology.device(link.src).name,
          topology.device(link.dst).name, volumes.linkBytes[order[i]]);
    }
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

/// --emit=dot: the dependency graph of every verified schedule.
static bool emitDot(const std::vector<collc::CheckedCollective> &checked,
                    std::string &output) {
  std::vector<collc::sweep::DotGraph> graphs;
  for (const collc::CheckedCollective &c : checked) {
    if (!c.program)
      continue;
    const collc::lowering::LoweredCollective &l = c.lowered;
    collc::sweep::DotGraph graph;
    graph.title =
        llvm::formatv("{0} at {1}: {2}, n = {3}, k = {4}",
                      sched::collectiveName(l.collective),
                      collc::formatLocation(l.op->getLoc()), l.algorithm->name,
                      l.layout.size, l.expand.chunksPerPart)
            .str();
    graph.program = &*c.program;
    graphs.push_back(graph);
  }
  std::string error;
  if (!collc::sweep::writeDot(graphs, dotLimit, output, error)) {
    llvm::errs() << "collc: error: " << error << "\n";
    return false;
  }
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
    mlir::Operation *op = c.lowered.op;
    if (op->getName().getStringRef() == "coll.recv")
      continue;
    collc::RunCounts how;
    mlir::Value counts;
    if (c.lowered.countsAtRunTime && op->getNumOperands() > 1) {
      counts = op->getOperand(1);
      auto input =
          mlir::dyn_cast<mlir::RankedTensorType>(op->getOperand(0).getType());
      auto axis = op->getAttrOfType<mlir::IntegerAttr>("split_axis");
      if (input && axis) {
        int64_t row = 1;
        for (int64_t d = 0; d < input.getRank(); ++d)
          if (d != axis.getInt() && !input.isDynamicDim(d))
            row *= input.getDimSize(d);
        how.rowElements = row;
      }
      mlir::Operation *def = counts.getDefiningOp();
      auto perm =
          def ? def->getAttrOfType<mlir::DenseI64ArrayAttr>("permutation")
              : nullptr;
      if (def && def->getName().getStringRef() == "linalg.transpose" && perm &&
          perm.asArrayRef() == llvm::ArrayRef<int64_t>{1, 0} &&
          def->getNumOperands() > 0)
        for (size_t j = 0; j < operands.size(); ++j)
          if (operands[j] && operands[j] == def->getOperand(0))
            how.transposeOf = int64_t(j);
    }
    operands.push_back(counts);
    result.push_back(how);
  }
  return result;
}

/// --run: builds the plan of every collective and runs it on the CPU
/// executor, printing a line per collective; false on any failure.
static bool runCompiled(const std::vector<collc::CheckedCollective> &checked,
                        const std::string &topologyName,
                        const std::string &generatedBy) {
  // An all_to_all_v whose counts come at run time runs with random counts
  // (RunPlanOptions::countsSeed; RunPlan.h says how they are drawn).
  collrt::Plan plan;
  if (!buildPlanOrSay(checked, topologyName, generatedBy, "--run: nothing run",
                      plan))
    return false;
  collc::RunPlanOptions runOptions;
  runOptions.timeoutSeconds = runTimeout;
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
emitCudaKernels(const std::vector<collc::CheckedCollective> &checked,
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
    if (c.lowered.op->getName().getStringRef() == "coll.recv")
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
  emitOptions.kernelPrefix = kernelPrefixOption;
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
  fatbinOptions.nvcc = nvccOption;
  fatbinOptions.includeDirs = {cudaIncludeOption};
  std::string error;
  if (!collc::cuda::parseArchitectures(cudaArchOption,
                                       fatbinOptions.architectures, error) ||
      !collc::cuda::compileFatbin(cuda, fatbinOptions, output, error)) {
    llvm::errs() << "collc: error: " << error << "\n";
    llvm::errs() << "collc: error: no fatbin written\n";
    return false;
  }
  return true;
}

static std::string emitName(EmitKind kind) {
  switch (kind) {
  case EmitKind::Report:
    return "report";
  case EmitKind::Summary:
    return "summary";
  case EmitKind::Mlir:
    return "mlir";
  case EmitKind::Sched:
    return "sched";
  case EmitKind::Volumes:
    return "volumes";
  case EmitKind::Dot:
    return "dot";
  case EmitKind::Plan:
    return "plan";
  case EmitKind::Cuda:
    return "cuda";
  case EmitKind::Fatbin:
    return "fatbin";
  case EmitKind::Candidates:
    return "candidates";
  }
  return "report";
}

/// The options of a generated program, checked; the topology is loaded.
struct Generated {
  collc::sweep::ProgramSpec spec;
  collc::sweep::ByteSizes sizes;
};

/// Checks the --collective options against each other and the topology.
static std::optional<Generated>
checkGeneratedOptions(const collc::topo::Topology &topology) {
  auto fail = [](const std::string &message) -> std::optional<Generated> {
    llvm::errs() << "collc: error: " << message << "\n";
    return std::nullopt;
  };
  if (bytesOption.empty())
    return fail("--collective " + collectiveOption +
                " needs --bytes SIZE or --bytes MIN:MAX[:FACTOR] (the input "
                "buffer per rank, e.g. --bytes 1GiB or --bytes 8:8GiB)");
  std::string error;
  std::optional<collc::sweep::ByteSizes> sizes =
      collc::sweep::parseByteSizes(bytesOption, error);
  if (!sizes)
    return fail("--bytes " + error);
  std::optional<collc::sweep::ElementType> element =
      collc::sweep::parseElementType(dtypeOption, error);
  if (!element)
    return fail(error);
  std::optional<collc::sweep::GroupKind> group =
      collc::sweep::parseGroup(groupOption, error);
  if (!group)
    return fail(error);
  std::optional<collc::sweep::ProgramSpec> spec = collc::sweep::makeProgramSpec(
      collectiveOption, *element, reduceOption, *group, topology, error);
  if (!spec)
    return fail(error);
  if (!sizes->range && !collc::sweep::checkExactSize(*spec, sizes->min, error))
    return fail(error);
  if (sizes->range && runOption)
    return fail("--run needs a single --bytes SIZE, not the range '" +
                bytesOption + "' (collc-run sweeps the sizes of a plan)");
  if (sizes->range && emitKind == EmitKind::Plan)
    return fail("--emit=plan needs a single --bytes SIZE, not the range '" +
                bytesOption +
                "': a plan is size-free (its chunks are cut at run time) and "
                "collc-run sweeps sizes");
  if (sizes->range) {
    if (emitKind != EmitKind::Report)
      return fail("--emit=" + emitName(emitKind) +
                  " needs a single size; a --bytes MIN:MAX sweep prints its "
                  "table");
    if (!traceFile.empty())
      return fail("--trace needs a single size, not the --bytes range '" +
                  bytesOption + "'");
  }
  return Generated{*spec, *sizes};
}

/// The (channel count, chunks per unit) pairs --emit=candidates tries for
/// `algorithm`: every chunk count of `counts` with the algorithm's own
/// channels (0); where channels are capped (`capped`) and --algo-param
/// leaves the algorithm's channel parameter free, with each channel count
/// of selection instead, C channels also with C chunks per unit (so that
/// each has work) unless --chunks is given.
static std::vector<std::pair<int64_t, unsigned>>
candidateGrid(const collc::lowering::Algorithm &algorithm,
              const collc::sweep::CompileOptions &options,
              const std::vector<unsigned> &counts, bool capped) {
  // A malformed --algo-param fails every candidate's compile, with its
  // reason; here it only means the channel count is not known to be set.
  std::string malformed;
  std::optional<llvm::StringMap<int64_t>> userParams =
      collc::lowering::parseAlgoParams(options.params, malformed);
  bool userSetsChannels =
      userParams && userParams->count(algorithm.channelParam);
  std::vector<int64_t> channelCounts = {0};
  if (capped && !algorithm.channelParam.empty() && !userSetsChannels)
    channelCounts = options.select.channelCounts;
  std::vector<std::pair<int64_t, unsigned>> grid;
  for (int64_t channels : channelCounts) {
    std::vector<unsigned> chunkCounts =
        options.chunks ? counts
                       : collc::chunkCountsWithChannels(counts, channels);
    for (unsigned chunks : chunkCounts)
      grid.emplace_back(channels, chunks);
  }
  return grid;
}

/// --emit=candidates: one plan per candidate schedule of the generated
/// collective (each applicable algorithm of the library, with --chunks or
/// 1, 2 and 4 chunks per unit; where the topology caps a channel, each
/// channel count C of an algorithm that has one, with C, 2C and 4C chunks
/// per unit too) into the directory -o DIR, the same program only once, for
/// collc-run --tuning (docs/tuning.md). A candidate collc
/// cannot compile (not applicable, an explicit schedule's other chunk
/// count) is named with the reason and left out.
static int emitCandidates(MLIRContext &context, const Generated &generated,
                          const collc::topo::Topology &topology,
                          const std::string &topologyName,
                          const std::string &topologyPath,
                          const collc::lowering::AlgorithmLibrary &library,
                          const collc::sweep::CompileOptions &options,
                          const std::string &generatedBy) {
  auto fail = [](const std::string &message) {
    llvm::errs() << "collc: error: --emit=candidates: " << message << "\n";
    return 1;
  };
  if (outputFilename == "-")
    return fail("needs -o DIR, the directory the plans go into");
  if (!options.algo.empty())
    return fail("--algo does not go with it: every applicable algorithm is a "
                "candidate");
  if (llvm::sys::fs::exists(outputFilename) &&
      !llvm::sys::fs::is_directory(outputFilename))
    return fail("-o '" + outputFilename +
                "' is not a directory (the plans go into one)");
  if (std::error_code ec = llvm::sys::fs::create_directories(outputFilename))
    return fail("cannot make the directory '" + outputFilename +
                "': " + ec.message());
  const sched::Collective collective = generated.spec.collective;
  const std::string name = sched::collectiveName(collective);
  std::string text =
      collc::sweep::generateProgram(generated.spec, generated.sizes.min);
  std::vector<unsigned> counts = options.chunks
                                     ? std::vector<unsigned>{options.chunks}
                                     : std::vector<unsigned>{1, 2, 4};
  std::map<uint64_t, std::string> written; // fingerprint -> file
  size_t tried = 0;
  // Where the topology caps a channel's rate, an algorithm's channel count
  // is a choice (as in selection): each count is a candidate, unless
  // --algo-param sets it.
  std::vector<int> gpus(size_t(topology.numGpus()));
  std::iota(gpus.begin(), gpus.end(), 0);
  bool capped =
      collc::sim::anyChannelCapped(topology, gpus, options.select.simulation);
  for (const collc::lowering::Algorithm *algorithm :
       library.forCollective(collective)) {
    collc::MoreChannelsAtWork worthTrying;
    for (auto [channels, chunks] :
         candidateGrid(*algorithm, options, counts, capped)) {
      ++tried;
      std::string label = algorithm->name + " x" + std::to_string(chunks);
      collc::sweep::CompileOptions o = options;
      o.algo = name + "=" + algorithm->name;
      o.chunks = chunks;
      if (channels > 0) {
        std::string param =
            algorithm->channelParam + "=" + std::to_string(channels);
        label += " " + param;
        o.params += (o.params.empty() ? "" : ",") + param;
      }
      // Why a candidate does not compile is said in one line, not as the
      // diagnostics of a compilation the user did not ask for.
      std::string why;
      mlir::FailureOr<std::unique_ptr<collc::sweep::Compiled>> compiled =
          mlir::failure();
      // The compiled collectives point into the module: it lives as long.
      OwningOpRef<ModuleOp> module;
      {
        ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diag) {
          if (why.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
            why = diag.str();
          return success();
        });
        module = collc::sweep::parseProgram(context, text,
                                            std::string(name) + ".mlir");
        if (module)
          compiled = collc::sweep::compileModule(
              *module, topology, topologyName, topologyPath, library, o);
      }
      collrt::Plan plan;
      std::vector<std::string> errors;
      if (succeeded(compiled) &&
          !collc::buildPlan((*compiled)->checked,
                            planOptions(topologyName, generatedBy), plan,
                            errors))
        why = errors.empty() ? "no plan" : errors.front();
      if (failed(compiled) || !why.empty()) {
        llvm::outs() << "  " << label << ": left out: "
                     << (why.empty() ? "it did not compile" : why) << "\n";
        continue;
      }
      const sched::Program &program = plan.collectives.front().program;
      uint32_t busy = collc::channelsInUse(program);
      if (!worthTrying.admit(channels, busy)) {
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
      std::string file = algorithm->name;
      for (char &c : file)
        if (c == '/' || c == ' ')
          c = '_';
      file = outputFilename + "/" + file + "-x" + std::to_string(chunks) +
             (channels > 0
                  ? "-" + algorithm->channelParam + std::to_string(channels)
                  : std::string()) +
             ".plan.json";
      std::string kernels;
      if (!candidateKernelsOption.empty()) {
        // The candidate's kernels, before its plan: a plan is written only
        // with them.
        bool fatbin = candidateKernelsOption == "fatbin";
        std::string code;
        if (!emitCudaKernels((*compiled)->checked, topologyName, generatedBy,
                             fatbin, code))
          return fail(label + ": its kernels (above)");
        kernels =
            file.substr(0, file.size() - std::string(".plan.json").size()) +
            (fatbin ? ".fatbin" : ".cu");
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
  }
  llvm::outs() << "collc: " << written.size() << " candidate plan(s) of "
               << tried << " tried for " << name << " (" << generatedBy
               << ") in " << outputFilename << "; measure them with collc-run "
               << (candidateKernelsOption.empty() ? "PLANS... --tuning FILE"
                   : candidateKernelsOption == "fatbin"
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
static int runSweep(MLIRContext &context, const Generated &generated,
                    const collc::topo::Topology &topology,
                    const std::string &topologyPath,
                    const collc::lowering::AlgorithmLibrary &library,
                    const collc::sweep::CompileOptions &options) {
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
  if (!reportJsonFile.empty())
    files.emplace_back(reportJsonFile, collc::sweep::sweepToJson(*result));
  if (!plotFile.empty())
    files.emplace_back(plotFile, collc::sweep::sweepToSvg(*result));
  if (outputFilename != "-")
    files.emplace_back(outputFilename, output);
  if (!writeFiles(files))
    return 1;
  if (outputFilename == "-")
    llvm::outs() << output;
  return 0;
}

/// The baselines of a generated single-size program, one line each.
static void printBaselines(const collc::sweep::SweepRow &row,
                           const collc::sweep::ProgramSpec &spec,
                           llvm::raw_ostream &os) {
  std::string none;
  collc::sweep::baselinesFor(spec.collective, none);
  os << "baselines on the same model (docs/report.md):\n";
  for (const collc::sweep::BaselineResult &b : row.baselines) {
    os << "  " << b.spec.label << " [" << b.spec.algorithm << "]: ";
    if (b.seconds < 0) {
      os << "not run: " << b.error << "\n";
      continue;
    }
    os << llvm::formatv("x{0}, {1:F1} us, busbw {2:F2} GB/s", b.chunks,
                        b.seconds * 1e6, b.busbwGBps);
    if (row.predictedUs > 0)
      os << llvm::formatv("; collc's choice is {0:F2}x as fast",
                          b.seconds * 1e6 / row.predictedUs);
    os << "\n";
  }
  if (!none.empty())
    os << "  (" << none << ")\n";
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

  // A generated program (--collective) or the user's file.
  bool generatedMode = !collectiveOption.empty();
  if (generatedMode && !inputFilename.empty()) {
    llvm::errs() << "collc: error: give a program file or --collective, not "
                    "both ('"
                 << inputFilename << "' and --collective " << collectiveOption
                 << ")\n";
    return 1;
  }
  if (!generatedMode) {
    for (const cl::Option *option : std::initializer_list<const cl::Option *>{
             &bytesOption, &groupOption, &dtypeOption, &reduceOption,
             &plotFile})
      if (option->getNumOccurrences()) {
        llvm::errs() << "collc: error: --" << option->ArgStr
                     << " describes a generated program and needs "
                        "--collective NAME (e.g. collc --collective "
                        "all_reduce --bytes 8:8GiB --topo dgx8x8)\n";
        return 1;
      }
  }
  if (!generatedMode && inputFilename.empty()) {
    llvm::errs() << "collc: error: no input file; usage: collc FILE.mlir "
                    "--topo NAME|FILE, or collc --collective NAME --bytes "
                    "SIZE|MIN:MAX --topo NAME|FILE (see --help)\n";
    return 1;
  }

  // The CUDA options (docs/codegen.md) belong to the CUDA emit kinds (and
  // to candidates' kernels, docs/tuning.md).
  if (candidateKernelsOption.getNumOccurrences() &&
      emitKind != EmitKind::Candidates) {
    llvm::errs() << "collc: error: --candidate-kernels applies to "
                    "--emit=candidates only\n";
    return 1;
  }
  if (candidateKernelsOption.getNumOccurrences() &&
      candidateKernelsOption != "cuda" && candidateKernelsOption != "fatbin") {
    llvm::errs() << "collc: error: --candidate-kernels takes cuda or fatbin, "
                    "not '"
                 << candidateKernelsOption << "'\n";
    return 1;
  }
  bool emitsCuda = emitKind == EmitKind::Cuda || emitKind == EmitKind::Fatbin;
  bool compiles =
      emitKind == EmitKind::Fatbin ||
      (emitKind == EmitKind::Candidates && candidateKernelsOption == "fatbin");
  for (const cl::Option *option : std::initializer_list<const cl::Option *>{
           &cudaArchOption, &nvccOption, &cudaIncludeOption,
           &kernelPrefixOption})
    if (option->getNumOccurrences() &&
        (option == &kernelPrefixOption ? !emitsCuda : !compiles)) {
      llvm::errs() << "collc: error: --" << option->ArgStr
                   << " applies to --emit="
                   << (option == &kernelPrefixOption
                           ? "cuda and --emit=fatbin only"
                           : "fatbin and --candidate-kernels=fatbin only")
                   << "\n";
      return 1;
    }
  if (emitKind == EmitKind::Fatbin && outputFilename == "-") {
    llvm::errs() << "collc: error: --emit=fatbin writes a binary file; give "
                    "-o FILE.fatbin\n";
    return 1;
  }
  if (emitsCuda) {
    std::vector<std::string> archs;
    std::string error;
    if (emitKind == EmitKind::Fatbin &&
        !collc::cuda::parseArchitectures(cudaArchOption, archs, error)) {
      llvm::errs() << "collc: error: " << error << "\n";
      return 1;
    }
    if (!collc::cuda::isKernelPrefix(kernelPrefixOption)) {
      llvm::errs() << "collc: error: --kernel-prefix '" << kernelPrefixOption
                   << "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)\n";
      return 1;
    }
  }

  DialectRegistry registry;
  collc::registerCollcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic op dump adds noise.
  context.printOpOnDiagnostic(false);

  // The generated program needs the topology's shape first.
  std::unique_ptr<collc::topo::Topology> topology;
  std::optional<Generated> generated;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::string displayName;
  // What generated a program without a file (names it in plans, kernels
  // and --run); empty for a file's program.
  std::string generatedBy;
  if (generatedMode) {
    topology = loadTopology(topologyName, topologyPath);
    if (!topology)
      return 1;
    generated = checkGeneratedOptions(*topology);
    if (!generated)
      return 1;
    generatedBy =
        "--collective " + collectiveOption + " --bytes " + bytesOption;
    if (groupOption.getNumOccurrences())
      generatedBy += " --group " + groupOption;
    displayName =
        std::string(sched::collectiveName(generated->spec.collective)) +
        ".mlir";
    if (!generated->sizes.range)
      buffer = llvm::MemoryBuffer::getMemBufferCopy(
          collc::sweep::generateProgram(generated->spec, generated->sizes.min),
          displayName);
  } else {
    std::string errorMessage;
    buffer = openInputFile(inputFilename, &errorMessage);
    if (!buffer) {
      llvm::errs() << "collc: error: cannot read '" << inputFilename
                   << "': " << errorMessage << "\n";
      return 1;
    }
    displayName = llvm::sys::path::filename(inputFilename).str();
  }

  collc::lowering::AlgorithmLibrary library(&context);
  if (failed(library.loadBuiltins()))
    return 1;
  for (const std::string &file : algoFiles)
    if (failed(library.loadFile(file)))
      return 1;
  collc::sweep::CompileOptions compileOptions;
  compileOptions.algo = algoOption;
  compileOptions.chunks = chunksOption;
  compileOptions.maxRaceStreams = maxRaceStreams;
  compileOptions.params = algoParamOption;
  compileOptions.recordTimelines = !traceFile.empty();
  compileOptions.select.prune = selectPrune;
  compileOptions.select.threads = selectThreads;
  if (progressAfter.getNumOccurrences() &&
      (!std::isfinite(progressAfter) || progressAfter < 0)) {
    llvm::errs() << "collc: error: --progress-after: " << progressAfter
                 << " is not a number of seconds >= 0\n";
    return 1;
  }
  if (channelBandwidthOption.getNumOccurrences()) {
    double gbps = 0;
    if (llvm::StringRef(channelBandwidthOption).trim().getAsDouble(gbps) ||
        !std::isfinite(gbps) || gbps < 0) {
      llvm::errs() << "collc: error: --channel-bandwidth: '"
                   << channelBandwidthOption
                   << "' is not a number of GB/s >= 0 (0: no cap)\n";
      return 1;
    }
    compileOptions.select.simulation.channelBandwidth = gbps * 1e9;
  }
  if (!tuningFile.empty()) {
    auto table = std::make_shared<collrt::TuningTable>();
    collrt::Status loaded = collrt::loadTuningFile(tuningFile, table.get());
    if (!loaded.ok()) {
      llvm::errs() << "collc: error: --tuning: " << loaded.message() << "\n";
      return 1;
    }
    compileOptions.select.tuning = std::move(table);
    compileOptions.select.tuningPath = tuningFile;
  }

  if (generated && generated->sizes.range)
    return runSweep(context, *generated, *topology, topologyPath, library,
                    compileOptions);
  if (emitKind == EmitKind::Candidates) {
    if (!generated) {
      llvm::errs() << "collc: error: --emit=candidates needs --collective C "
                      "--bytes SIZE (one collective); for a program file, "
                      "make a plan per --algo and --chunks with --emit=plan\n";
      return 1;
    }
    return emitCandidates(context, *generated, *topology, topologyName,
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

  PassManager pm(&context);
  collc::buildCollcFrontendPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;

  if (!topology) {
    topology = loadTopology(topologyName, topologyPath);
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
  double after = progressAfter.getNumOccurrences() ? double(progressAfter)
                 : terminal                        ? 1.0
                                                   : 10.0;
  auto progressLine = std::make_shared<collc::sweep::Progress>(
      &llvm::errs(), terminal, after, terminal ? 0.1 : after);
  compileOptions.select.progress =
      [progressLine](const collc::SelectProgress &p) {
        progressLine->show(selectionProgressLine(p), p.elapsedSeconds);
      };
  FailureOr<std::unique_ptr<collc::sweep::Compiled>> compiledOr =
      collc::sweep::compileModule(*module, *topology, topologyName,
                                  topologyPath, library, compileOptions);
  progressLine->finish();
  if (failed(compiledOr))
    return 1;
  collc::sweep::Compiled &compiled = **compiledOr;
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
  if (emitKind == EmitKind::Mlir || emitKind == EmitKind::Sched) {
    if (emitKind == EmitKind::Mlir) {
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
  } else if (emitKind == EmitKind::Report) {
    os << header;
    collc::printReport(report, os);
    printNotLowered(checked, os);
    if (single)
      printBaselines(single->rows.front(), generated->spec, os);
    if (!runOption)
      os << "not run: --run runs the plan on the CPU executor; on GPUs "
            "collc-run --backend cuda runs --emit=plan's plan with "
            "--emit=fatbin's kernels (docs/gpu-runtime.md; built, not yet run "
            "on a real GPU)\n";
  } else if (emitKind == EmitKind::Volumes) {
    printVolumes(checked, *topology, os);
  } else if (emitKind == EmitKind::Dot) {
    os.flush();
    if (!emitDot(checked, output))
      return 1;
  } else if (emitKind == EmitKind::Cuda || emitKind == EmitKind::Fatbin) {
    os.flush();
    if (!emitCudaKernels(checked, topologyName,
                         generated ? generatedBy : displayName,
                         emitKind == EmitKind::Fatbin, output))
      return 1;
  } else if (emitKind == EmitKind::Plan) {
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
  if (!reportJsonFile.empty())
    files.emplace_back(reportJsonFile, collc::reportToJson(report));
  if (!traceFile.empty())
    files.emplace_back(traceFile, collc::reportToChromeTrace(report));
  if (!plotFile.empty() && single)
    files.emplace_back(plotFile, collc::sweep::sweepToSvg(*single));
  if (outputFilename != "-")
    files.emplace_back(outputFilename, output);
  if (!writeFiles(files))
    return 1;
  if (outputFilename == "-")
    llvm::outs() << output;
  if (runOption)
    return runCompiled(checked, topologyName, generatedBy) ? 0 : 1;
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
      "  collc --topo NAME|FILE --dump-topology  print a topology\n"
      "  collc --collective all_reduce --bytes 8:8GiB --topo NAME|FILE\n"
      "                                          sweep sizes as nccl-tests "
      "does, against NCCL-style baselines\n\n"
      "Bundled topologies: dgx8x8, dgx-h100, dgx-a100-2, dgx1-v100, mi300x,\n"
      "pcie-2numa, torus4x4, dgx128x8 (files in topologies/).\n");
  return run();
}

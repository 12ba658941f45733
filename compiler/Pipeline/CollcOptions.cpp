//===- CollcOptions.cpp - collc's command line as a library ---------------===//
#include "compiler/Pipeline/CollcOptions.h"

#include "collrt/Tuning.h"
#include "compiler/Report/Dot.h"
#include "lowering/SchedToCUDA/CudaEmitter.h"
#include "lowering/SchedToCUDA/Fatbin.h"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <memory>

namespace cl = llvm::cl;

namespace collc {

std::string emitName(EmitKind kind) {
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
  case EmitKind::Synthesis:
    return "synthesis";
  case EmitKind::Candidates:
    return "candidates";
  }
  return "report";
}

CollcOptions::CollcOptions()
    : category("collc options"),
      inputFilename(cl::Positional, cl::desc("<input .mlir>"),
                    cl::cat(category)),
      topology(
          "topo",
          cl::desc(
              "Topology: a bundled name (dgx8x8, dgx-h100, ...) or a path to "
              "a topology JSON file. Required."),
          cl::value_desc("NAME|FILE"), cl::cat(category)),
      topologyDirs(
          "topology-dir",
          cl::desc(
              "Also look for bundled topology names in DIR (searched before "
              "$COLLC_TOPOLOGY_PATH and the bundled topologies/)"),
          cl::value_desc("DIR"), cl::cat(category)),
      dumpTopology(
          "dump-topology",
          cl::desc(
              "Print the loaded topology (devices, links, fabric, network) "
              "and exit; no input program is needed"),
          cl::cat(category)),
      run("run",
          cl::desc("Then run the compiled plan: every collective on the plan's "
                   "world of ranks as threads of this process (libcollrt's CPU "
                   "executor), on position-dependent inputs at the compiled "
                   "size, every output element checked (docs/collc-run.md)"),
          cl::cat(category)),
      runTimeout(
          "run-timeout",
          cl::desc("With --run: the watchdog of each collective, seconds "
                   "(default 60)"),
          cl::init(60), cl::value_desc("SECONDS"), cl::cat(category)),
      emit("emit", cl::desc("What to write"), cl::init(EmitKind::Report),
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
                      clEnumValN(EmitKind::Synthesis, "synthesis",
                                 "per collective the schedule synthesized "
                                 "from the topology (broadcast, reduce: its "
                                 "trees, their rates and bytes), as text "
                                 "and as Graphviz DOT"),
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
           cl::cat(category)),
      algo("algo",
           cl::desc("Algorithm: NAME for every collective that has one of that "
                    "name, or COLLECTIVE=NAME,... (e.g. all_reduce=ring)"),
           cl::value_desc("NAME|COLL=NAME,..."), cl::cat(category)),
      algoParam(
          "algo-param",
          cl::desc(
              "Set parameters of the chosen algorithms, e.g. rings=4 for "
              "parallel rings; a parameter applies to every algorithm that "
              "declares it, and one that none declares is an error"),
          cl::value_desc("NAME=VALUE,..."), cl::cat(category)),
      chunks(
          "chunks",
          cl::desc("Chunks per algorithm unit (pipelining depth); default 1"),
          cl::value_desc("K"), cl::init(0), cl::cat(category)),
      maxRaceStreams(
          "max-race-streams",
          cl::desc(
              "How many channel streams sched-verify's race check follows "
              "before it is skipped (the report then says 'verified except "
              "for races'); default 2048"),
          cl::value_desc("N"), cl::init(sched::VerifyOptions().maxRaceStreams),
          cl::cat(category)),
      selectPrune(
          "select-prune",
          cl::desc(
              "Skip candidates whose cheap lower bound shows they can be "
              "neither the fastest nor the runner-up (default on; the choice "
              "and every predicted time are the same off, only the count of "
              "simulated candidates differs)"),
          cl::init(true), cl::cat(category)),
      progressAfter(
          "progress-after",
          cl::desc(
              "Once a collective's selection has run this many seconds, say "
              "on stderr how it stands (candidates decided, the fastest so "
              "far), and again every as many seconds (default: 1 where "
              "stderr is a terminal, whose one line is rewritten in place "
              "and cleared at the end; 10 elsewhere). Sweeps report each "
              "size instead"),
          cl::value_desc("SECONDS"), cl::cat(category)),
      selectThreads(
          "select-threads",
          cl::desc(
              "Threads that simulate selection's candidates (default 0: the "
              "host's cores, at most 8; 1: only the main thread). The answer "
              "never depends on it"),
          cl::value_desc("N"), cl::init(0), cl::cat(category)),
      channelBandwidth(
          "channel-bandwidth",
          cl::desc(
              "GB/s one channel (a thread block on a GPU) reads and writes, "
              "for the simulator: 0 turns the cap off (default: each GPU "
              "model's channel_bandwidth_GBps in the topology, no cap where "
              "it gives none). Where channels are capped, selection also "
              "chooses an algorithm's channel count (docs/simulator.md)"),
          cl::value_desc("GBPS"), cl::cat(category)),
      tuningFile(
          "tuning",
          cl::desc(
              "Choose by measurement where FILE has one: the fastest of the "
              "candidate schedules collc-run --tuning measured for the same "
              "collective, group size, element type and reduction at the "
              "nearest size (within a factor of 2); elsewhere by simulation "
              "(docs/tuning.md)"),
          cl::value_desc("FILE"), cl::cat(category)),
      algoFiles(
          "algo-file",
          cl::desc("Add the sched.schedule algorithms of FILE to the library; "
                   "they are verified and used like built-in ones"),
          cl::value_desc("FILE"), cl::cat(category)),
      synthesize(
          "synthesize",
          cl::desc("on: also choose among schedules derived from the "
                   "topology (trees for broadcast, reduce, all_gather, "
                   "reduce_scatter and all_reduce; flows for all_to_all(_v), "
                   "scatter and gather: docs/synthesis.md); off: the library "
                   "alone; only: the synthesized ones alone where there are "
                   "any"),
          cl::value_desc("on|off|only"), cl::init("on"), cl::cat(category)),
      synthesisTimeLimit(
          "synthesis-time-limit",
          cl::desc("Seconds each tree packing's column generation may run "
                   "(default 10; 0: no limit); past it the trees found so far "
                   "are offered, not proven optimal, and a remark and the "
                   "report say so (docs/synthesis.md)"),
          cl::value_desc("SECONDS"), cl::init(10.0), cl::cat(category)),
      reportJsonFile("report-json",
                     cl::desc("Also write the report as JSON to FILE"),
                     cl::value_desc("FILE"), cl::cat(category)),
      traceFile(
          "trace",
          cl::desc(
              "Also write the simulated timeline as a Chrome trace (opens in "
              "Perfetto) to FILE"),
          cl::value_desc("FILE"), cl::cat(category)),
      collective(
          "collective",
          cl::desc(
              "Compile a one-collective program instead of a file: "
              "all_reduce, all_gather, reduce_scatter, all_to_all, "
              "all_to_all_v, broadcast, reduce, scatter or gather (roots 0) "
              "on a mesh of the topology's shape; needs --bytes"),
          cl::value_desc("NAME"), cl::cat(category)),
      bytes("bytes",
            cl::desc(
                "With --collective: the input buffer per rank, SIZE (8, 64K, "
                "1MiB, 8G: powers of 1024), or MIN:MAX[:FACTOR] to sweep sizes "
                "MIN, MIN*FACTOR, ... (FACTOR 2 by default), a table row each"),
            cl::value_desc("SIZE|MIN:MAX[:F]"), cl::cat(category)),
      group("group",
            cl::desc(
                "With --collective: all (every rank, default), gpu (the GPUs "
                "of one node) or node (one GPU per node)"),
            cl::value_desc("all|gpu|node"), cl::init("all"), cl::cat(category)),
      dtype("dtype",
            cl::desc(
                "With --collective: the element type, f32 (default, as "
                "nccl-tests), bf16, f16, f64, f8E4M3FN, f8E5M2, i64, i32, i8"),
            cl::value_desc("TYPE"), cl::init("f32"), cl::cat(category)),
      reduce(
          "op",
          cl::desc(
              "With --collective: the reduction of all_reduce, reduce_scatter "
              "and reduce: sum (default), prod, min, max, avg"),
          cl::value_desc("KIND"), cl::init("sum"), cl::cat(category)),
      plotFile(
          "plot",
          cl::desc(
              "With --collective: write busbw against size for collc's choice "
              "and the baselines as an SVG plot to FILE"),
          cl::value_desc("FILE.svg"), cl::cat(category)),
      dotLimit(
          "dot-limit",
          cl::desc(
              "--emit=dot refuses schedules of more instructions than this "
              "(default 2000)"),
          cl::value_desc("N"), cl::init(kDotInstructionLimit),
          cl::cat(category)),
      outputFilename("o",
                     cl::desc("Write the output to FILE (default: stdout)"),
                     cl::value_desc("FILE"), cl::init("-"), cl::cat(category)),
      cudaArch("cuda-arch",
               cl::desc("With --emit=fatbin: the architectures to compile for, "
                        "comma-separated (default sm_80,sm_90)"),
               cl::value_desc("sm_NN,..."), cl::init("sm_80,sm_90"),
               cl::cat(category)),
      nvcc("nvcc",
           cl::desc(
               "With --emit=fatbin: the nvcc to run (default: nvcc on PATH, "
               "else /usr/local/cuda/bin/nvcc)"),
           cl::value_desc("PATH"), cl::cat(category)),
      cudaInclude(
          "cuda-include",
          cl::desc("With --emit=fatbin: the directory holding "
                   "collrt/device/Channel.h (default: the source tree's "
                   "runtime/include)"),
          cl::value_desc("DIR"), cl::init(COLLC_RUNTIME_INCLUDE_DIR),
          cl::cat(category)),
      candidateKernels(
          "candidate-kernels",
          cl::desc(
              "With --emit=candidates: also each candidate's kernels, 'cuda' "
              "(NAME.cu, the CUDA source) or 'fatbin' (NAME.fatbin, compiled "
              "by nvcc for --cuda-arch), for collc-run --backend cuda "
              "--tuning (docs/tuning.md)"),
          cl::value_desc("cuda|fatbin"), cl::cat(category)),
      kernelPrefix(
          "kernel-prefix",
          cl::desc("With --emit=cuda or fatbin: kernel names start with this "
                   "(default collc: collc_k0_ring_all_reduce)"),
          cl::value_desc("NAME"), cl::init("collc"), cl::cat(category)) {}

CollcOptions::~CollcOptions() = default;

std::optional<std::string> CollcOptions::validate() const {
  // A generated program (--collective) or the user's file.
  if (generated() && !inputFilename.empty())
    return "give a program file or --collective, not both ('" + inputFilename +
           "' and --collective " + collective + ")";
  if (!generated()) {
    for (const cl::Option *option : std::initializer_list<const cl::Option *>{
             &bytes, &group, &dtype, &reduce, &plotFile})
      if (option->getNumOccurrences())
        return "--" + option->ArgStr.str() +
               " describes a generated program and needs --collective NAME "
               "(e.g. collc --collective all_reduce --bytes 8:8GiB --topo "
               "dgx8x8)";
  }
  if (!generated() && inputFilename.empty())
    return std::string("no input file; usage: collc FILE.mlir --topo "
                       "NAME|FILE, or collc --collective NAME --bytes "
                       "SIZE|MIN:MAX --topo NAME|FILE (see --help)");

  // The CUDA options (docs/codegen.md) belong to the CUDA emit kinds (and
  // to candidates' kernels, docs/tuning.md).
  if (candidateKernels.getNumOccurrences() && emit != EmitKind::Candidates)
    return std::string("--candidate-kernels applies to --emit=candidates only");
  if (candidateKernels.getNumOccurrences() && candidateKernels != "cuda" &&
      candidateKernels != "fatbin")
    return "--candidate-kernels takes cuda or fatbin, not '" +
           candidateKernels + "'";
  bool emitsCuda = emit == EmitKind::Cuda || emit == EmitKind::Fatbin;
  bool compiles = emit == EmitKind::Fatbin || (emit == EmitKind::Candidates &&
                                               candidateKernels == "fatbin");
  for (const cl::Option *option : std::initializer_list<const cl::Option *>{
           &cudaArch, &nvcc, &cudaInclude, &kernelPrefix})
    if (option->getNumOccurrences() &&
        (option == &kernelPrefix ? !emitsCuda : !compiles))
      return "--" + option->ArgStr.str() + " applies to --emit=" +
             (option == &kernelPrefix
                  ? "cuda and --emit=fatbin only"
                  : "fatbin and --candidate-kernels=fatbin only");
  if (emit == EmitKind::Fatbin && outputFilename == "-")
    return std::string(
        "--emit=fatbin writes a binary file; give -o FILE.fatbin");
  if (emitsCuda) {
    std::vector<std::string> archs;
    std::string error;
    if (emit == EmitKind::Fatbin &&
        !cuda::parseArchitectures(cudaArch, archs, error))
      return error;
    if (!cuda::isKernelPrefix(kernelPrefix))
      return "--kernel-prefix '" + kernelPrefix +
             "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)";
  }
  return std::nullopt;
}

std::optional<GeneratedProgram>
CollcOptions::checkGenerated(const topo::Topology &topology,
                             std::string &error) const {
  auto fail = [&](const std::string &message) {
    error = message;
    return std::nullopt;
  };
  if (bytes.empty())
    return fail("--collective " + collective +
                " needs --bytes SIZE or --bytes MIN:MAX[:FACTOR] (the input "
                "buffer per rank, e.g. --bytes 1GiB or --bytes 8:8GiB)");
  std::string why;
  std::optional<sweep::ByteSizes> sizes = sweep::parseByteSizes(bytes, why);
  if (!sizes)
    return fail("--bytes " + why);
  std::optional<sweep::ElementType> element =
      sweep::parseElementType(dtype, why);
  if (!element)
    return fail(why);
  std::optional<sweep::GroupKind> groupKind = sweep::parseGroup(group, why);
  if (!groupKind)
    return fail(why);
  std::optional<sweep::ProgramSpec> spec = sweep::makeProgramSpec(
      collective, *element, reduce, *groupKind, topology, why);
  if (!spec)
    return fail(why);
  if (!sizes->range && !sweep::checkExactSize(*spec, sizes->min, why))
    return fail(why);
  if (sizes->range && run)
    return fail("--run needs a single --bytes SIZE, not the range '" + bytes +
                "' (collc-run sweeps the sizes of a plan)");
  if (sizes->range && emit == EmitKind::Plan)
    return fail("--emit=plan needs a single --bytes SIZE, not the range '" +
                bytes +
                "': a plan is size-free (its chunks are cut at run time) and "
                "collc-run sweeps sizes");
  if (sizes->range) {
    if (emit != EmitKind::Report)
      return fail("--emit=" + emitName(emit) +
                  " needs a single size; a --bytes MIN:MAX sweep prints its "
                  "table");
    if (!traceFile.empty())
      return fail("--trace needs a single size, not the --bytes range '" +
                  bytes + "'");
  }
  return GeneratedProgram{*spec, *sizes};
}

std::optional<CompileOptions>
CollcOptions::compileOptions(std::string &error) const {
  CompileOptions options;
  options.algo = algo;
  options.chunks = chunks;
  options.maxRaceStreams = maxRaceStreams;
  options.params = algoParam;
  options.recordTimelines = !traceFile.empty();
  options.select.prune = selectPrune;
  options.select.threads = selectThreads;
  options.topology = topology;
  options.topologyDirs.assign(topologyDirs.begin(), topologyDirs.end());
  options.algoFiles.assign(algoFiles.begin(), algoFiles.end());
  if (synthesize != "on" && synthesize != "off" && synthesize != "only") {
    error =
        "--synthesize: '" + synthesize.getValue() + "' is not on, off or only";
    return std::nullopt;
  }
  options.synthesize = synthesize;
  if (!std::isfinite(synthesisTimeLimit) || synthesisTimeLimit < 0) {
    char text[128];
    std::snprintf(text, sizeof text,
                  "--synthesis-time-limit: %g is not a number of seconds >= 0",
                  double(synthesisTimeLimit));
    error = text;
    return std::nullopt;
  }
  options.synthesisTimeLimit = synthesisTimeLimit;
  if (progressAfter.getNumOccurrences() &&
      (!std::isfinite(progressAfter) || progressAfter < 0)) {
    std::string text;
    llvm::raw_string_ostream(text) << "--progress-after: " << progressAfter
                                   << " is not a number of seconds >= 0";
    error = text;
    return std::nullopt;
  }
  if (channelBandwidth.getNumOccurrences()) {
    double gbps = 0;
    if (llvm::StringRef(channelBandwidth).trim().getAsDouble(gbps) ||
        !std::isfinite(gbps) || gbps < 0) {
      error = "--channel-bandwidth: '" + channelBandwidth +
              "' is not a number of GB/s >= 0 (0: no cap)";
      return std::nullopt;
    }
    options.select.simulation.channelBandwidth = gbps * 1e9;
  }
  if (!tuningFile.empty()) {
    auto table = std::make_shared<collrt::TuningTable>();
    collrt::Status loaded = collrt::loadTuningFile(tuningFile, table.get());
    if (!loaded.ok()) {
      error = "--tuning: " + loaded.message();
      return std::nullopt;
    }
    options.select.tuning = std::move(table);
    options.select.tuningPath = tuningFile;
  }
  return options;
}

} // namespace collc

//===- CollcOptions.h - collc's command line as a library ------*- C++ -*-===//
//
// Every option of collc, registered with LLVM's command-line parser when a
// CollcOptions is made (one per process, before cl::ParseCommandLineOptions;
// as CIRCT's FirtoolOptions), and the checks that span several options. The
// driver (tools/collc) reads the values and runs; what shapes the
// compilation reaches the pipeline as a CompileOptions (compileOptions()).
// Every check returns its message without collc's "collc: error: " prefix,
// which the driver adds.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_PIPELINE_COLLCOPTIONS_H
#define COLLC_COMPILER_PIPELINE_COLLCOPTIONS_H

#include "compiler/Pipeline/Compile.h"
#include "compiler/Sweep/SweepSpec.h"

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace collc {

/// --emit's kinds.
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
  Candidates,
  Synthesis
};

/// --emit's name of `kind` ("report", "sched", ...).
std::string emitName(EmitKind kind);

/// A generated program's options (--collective), checked against each
/// other and the topology.
struct GeneratedProgram {
  sweep::ProgramSpec spec;
  sweep::ByteSizes sizes;
};

class CollcOptions {
public:
  /// Registers every option (in category()). Only one may exist at a time.
  CollcOptions();
  ~CollcOptions();
  CollcOptions(const CollcOptions &) = delete;
  CollcOptions &operator=(const CollcOptions &) = delete;

  /// The category of collc's options (`collc --help` shows only it).
  llvm::cl::OptionCategory category;

  // What to compile and where.
  llvm::cl::opt<std::string> inputFilename;
  llvm::cl::opt<std::string> topology;
  llvm::cl::list<std::string> topologyDirs;
  llvm::cl::opt<bool> dumpTopology;
  llvm::cl::opt<bool> run;
  llvm::cl::opt<double> runTimeout;
  llvm::cl::opt<EmitKind> emit;
  // Lowering, selection, verification.
  llvm::cl::opt<std::string> algo;
  llvm::cl::opt<std::string> algoParam;
  llvm::cl::opt<unsigned> chunks;
  llvm::cl::opt<unsigned> maxRaceStreams;
  llvm::cl::opt<bool> selectPrune;
  llvm::cl::opt<double> progressAfter;
  llvm::cl::opt<unsigned> selectThreads;
  llvm::cl::opt<std::string> channelBandwidth;
  llvm::cl::opt<std::string> tuningFile;
  llvm::cl::list<std::string> algoFiles;
  llvm::cl::opt<std::string> synthesize;
  llvm::cl::opt<double> synthesisTimeLimit;
  // Outputs beside -o.
  llvm::cl::opt<std::string> reportJsonFile;
  llvm::cl::opt<std::string> traceFile;
  // A generated program (--collective).
  llvm::cl::opt<std::string> collective;
  llvm::cl::opt<std::string> bytes;
  llvm::cl::opt<std::string> group;
  llvm::cl::opt<std::string> dtype;
  llvm::cl::opt<std::string> reduce;
  llvm::cl::opt<std::string> plotFile;
  llvm::cl::opt<unsigned> dotLimit;
  llvm::cl::opt<std::string> outputFilename;
  // CUDA (docs/codegen.md) and candidates' kernels (docs/tuning.md).
  llvm::cl::opt<std::string> cudaArch;
  llvm::cl::opt<std::string> nvcc;
  llvm::cl::opt<std::string> cudaInclude;
  llvm::cl::opt<std::string> candidateKernels;
  llvm::cl::opt<std::string> kernelPrefix;

  /// Whether the program is generated (--collective) rather than a file.
  bool generated() const { return !collective.empty(); }

  /// The checks among the options themselves (a program file or
  /// --collective, what a generated program's options need, the CUDA
  /// options and their emit kinds, --kernel-prefix, --cuda-arch): the first
  /// broken rule's message, or nothing.
  std::optional<std::string> validate() const;

  /// The --collective options checked against each other and `topology`
  /// (sizes, element type, group, the emit kinds and outputs a --bytes range
  /// allows); on failure `error` says why.
  std::optional<GeneratedProgram> checkGenerated(const topo::Topology &topology,
                                                 std::string &error) const;

  /// What the pipeline compiles with; fails, with `error`, on a bad
  /// --progress-after or --channel-bandwidth, or a --tuning file that does
  /// not load. (Selection's progress callback is the driver's.)
  std::optional<CompileOptions> compileOptions(std::string &error) const;
};

} // namespace collc

#endif

//===- EmitCandidates.cpp - collc --emit=candidates -----------------------===//
#include "compiler/Pipeline/EmitCandidates.h"

#include "compiler/Select/Candidates.h"
#include "compiler/Select/Select.h"
#include "compiler/Simulate/Simulator.h"
#include "compiler/Sweep/SweepSpec.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"

#include <map>
#include <numeric>

namespace collc {

EmitStatus emitCandidates(
    const CollcOptions &o, mlir::MLIRContext &context,
    const GeneratedProgram &generated, const topo::Topology &topology,
    const std::string &topologyName, const std::string &topologyPath,
    const lowering::AlgorithmLibrary &library, const CompileOptions &options,
    const std::string &generatedBy, llvm::raw_ostream &out) {
  auto fail = [](const std::string &message) {
    return EmitStatus::failure({"--emit=candidates: " + message});
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
      sweep::generateProgram(generated.spec, generated.sizes.min);
  std::map<uint64_t, std::string> written; // fingerprint -> file
  // Where the topology caps a channel's rate, an algorithm's channel count
  // is a choice (as in selection): each count is a candidate, unless
  // --algo-param sets it.
  std::vector<int> gpus(size_t(topology.numGpus()));
  std::iota(gpus.begin(), gpus.end(), 0);
  bool capped =
      sim::anyChannelCapped(topology, gpus, options.select.simulation);
  std::vector<CandidateSchedule> candidates =
      candidateSchedules(library, collective, options.params, options.chunks,
                         options.select.channelCounts, capped);
  MoreChannelsAtWork worthTrying;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const CandidateSchedule &candidate = candidates[i];
    if (i > 0 && candidates[i - 1].algorithm != candidate.algorithm)
      worthTrying = MoreChannelsAtWork();
    const std::string &label = candidate.label;
    CompileOptions compileOptions = options;
    compileOptions.algo = candidate.algo;
    compileOptions.chunks = candidate.chunks;
    compileOptions.params = candidate.params;
    // Why a candidate does not compile is said in one line, not as the
    // diagnostics of a compilation the user did not ask for.
    std::string why;
    mlir::FailureOr<std::shared_ptr<CollcCompilation>> compiled =
        mlir::failure();
    // The compiled collectives point into the module: it lives as long.
    mlir::OwningOpRef<mlir::ModuleOp> module;
    {
      mlir::ScopedDiagnosticHandler quiet(
          &context, [&](mlir::Diagnostic &diag) {
            if (why.empty() &&
                diag.getSeverity() == mlir::DiagnosticSeverity::Error)
              why = diag.str();
            return mlir::success();
          });
      module = sweep::parseProgram(context, text, name + ".mlir");
      if (module)
        compiled = compileModule(*module, topology, topologyName, topologyPath,
                                 library, compileOptions);
    }
    collrt::Plan plan;
    std::vector<std::string> errors;
    if (mlir::succeeded(compiled) &&
        !buildPlan((*compiled)->checked,
                   collcPlanOptions(topologyName, generatedBy), plan, errors))
      why = errors.empty() ? "no plan" : errors.front();
    if (mlir::failed(compiled) || !why.empty()) {
      out << "  " << label
          << ": left out: " << (why.empty() ? "it did not compile" : why)
          << "\n";
      continue;
    }
    const sched::Program &program = plan.collectives.front().program;
    uint32_t busy = channelsInUse(program);
    if (!worthTrying.admit(candidate.channels, busy)) {
      out << "  " << label << ": left out: only " << busy
          << " of its channels get work at k = " << program.chunksPerPart
          << ", no more than with fewer (they run the same)\n";
      continue;
    }
    uint64_t fp = sched::fingerprint(program);
    if (auto it = written.find(fp); it != written.end()) {
      out << "  " << label << ": left out: the same program as " << it->second
          << "\n";
      continue;
    }
    std::string file = dir + "/" + candidate.fileStem + ".plan.json";
    std::string kernels;
    if (!o.candidateKernels.empty()) {
      // The candidate's kernels, before its plan: a plan is written only
      // with them.
      bool fatbin = o.candidateKernels == "fatbin";
      std::string code;
      EmitStatus emitted = emitCudaKernels(
          o, (*compiled)->checked, topologyName, generatedBy, fatbin, code);
      if (!emitted.ok) {
        emitted.errors.push_back("--emit=candidates: " + label +
                                 ": its kernels (above)");
        return emitted;
      }
      kernels = dir + "/" + candidate.fileStem + (fatbin ? ".fatbin" : ".cu");
      if (EmitStatus saved = writeOutputFile(kernels, code); !saved.ok)
        return saved;
    }
    collrt::Status saved = collrt::savePlanFile(file, plan);
    if (!saved.ok())
      return fail(saved.message());
    written[fp] = file;
    out << "  " << label
        << " (k=" << plan.collectives.front().program.chunksPerPart
        << "): " << file << (kernels.empty() ? "" : ", " + kernels) << "\n";
  }
  out << "collc: " << written.size() << " candidate plan(s) of "
      << candidates.size() << " tried for " << name << " (" << generatedBy
      << ") in " << dir << "; measure them with collc-run "
      << (o.candidateKernels.empty() ? "PLANS... --tuning FILE"
          : o.candidateKernels == "fatbin"
              ? "PLANS... --backend cuda --kernels "
                "FATBINS,... --tuning FILE (a rank per "
                "process, under a launcher)"
              : "PLANS... --backend cuda --kernels "
                "FATBINS,... --tuning FILE, the .cu files "
                "compiled by nvcc --fatbin where the GPU is")
      << "\n";
  return written.empty() ? EmitStatus::failure() : EmitStatus::success();
}

} // namespace collc

//===- Emit.cpp - what collc writes of a compiled module ------------------===//
#include "compiler/Pipeline/Emit.h"

#include "compiler/Report/Dot.h"
#include "compiler/Report/Stages.h"
#include "compiler/Summary/CollectiveSummary.h"
#include "compiler/Sweep/Baselines.h"
#include "compiler/Sweep/Plot.h"
#include "compiler/Volume/PrintVolumes.h"
#include "lowering/SchedToCUDA/CudaEmitter.h"
#include "lowering/SchedToCUDA/Fatbin.h"
#include "lowering/Synthesis/ForestSchedule.h"
#include "lowering/Synthesis/TreeSchedule.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

namespace {
/// --emit=synthesis: per collective, the schedule synthesized for it (its
/// trees as text, then as DOT), or why there is none.
void printSynthesis(const CollcCompilation &compiled, llvm::raw_ostream &os) {
  for (const CheckedCollective &c : compiled.checked) {
    const lowering::LoweredCollective &l = c.lowered;
    if (l.withItsSend())
      continue;
    std::string where = formatLocation(l.op->getLoc());
    const char *name = sched::collectiveName(l.collective);
    const synth::TreePacking *packing =
        compiled.synthesizer ? compiled.synthesizer->packingFor(l) : nullptr;
    const synth::ForestPacking *reduce = nullptr, *gather = nullptr;
    bool forests = compiled.synthesizer &&
                   compiled.synthesizer->forestsFor(l, &reduce, &gather);
    using sched::Collective;
    const synth::AllToAllFlows *flows =
        compiled.synthesizer ? compiled.synthesizer->flowsFor(l) : nullptr;
    if (flows) {
      bool chosen = l.algorithm && compiled.synthesizer->made(l.algorithm);
      os << where << ": " << name << " of " << l.layout.size << " ranks, "
         << (chosen ? "chosen" : "not chosen (the report says what was)")
         << ": " << synth::describeFlows(*flows);
      continue;
    }
    std::vector<synth::LatencyTreeMade> latency =
        compiled.synthesizer ? compiled.synthesizer->latencyTreesFor(l)
                             : std::vector<synth::LatencyTreeMade>();
    auto printLatencyTrees = [&] {
      for (const synth::LatencyTreeMade &tree : latency) {
        bool picked = l.algorithm && l.algorithm->name == tree.algorithm &&
                      compiled.synthesizer->made(l.algorithm);
        os << where << ": " << tree.algorithm << ", "
           << (picked ? "chosen" : "not chosen") << ": " << tree.summary
           << "\n  edges:";
        for (size_t c = 0; c < tree.parent.size(); ++c)
          if (tree.parent[c] >= 0)
            os << " " << tree.parent[c] << "->" << c;
        os << "\n";
      }
    };
    if (!packing && !forests && !latency.empty()) {
      os << where << ": " << name
         << ": no tree packing (see the report's remark); latency trees:\n";
      printLatencyTrees();
      continue;
    }
    if (!packing && !forests) {
      os << where << ": " << name << ": nothing synthesized ("
         << (!compiled.synthesizer ? "--synthesize=off"
             : l.collective != Collective::SendRecv
                 ? "see the report's remark or warning"
                 : "a send/recv is one transfer over the runtime's route; "
                   "synthesis makes trees for broadcast, reduce, "
                   "all_gather, reduce_scatter and all_reduce and flows "
                   "for all_to_all(_v), scatter and gather")
         << ")\n";
      continue;
    }
    bool chosen = l.algorithm && compiled.synthesizer->made(l.algorithm) &&
                  (forests || l.algorithm->name == "synthesized_trees");
    double bytes = l.elementsPerRank < 0
                       ? -1
                       : double(l.elementsPerRank) * double(l.elementBytes);
    os << where << ": " << name << " of " << l.layout.size << " ranks, "
       << (chosen ? "chosen" : "not chosen (the report says what was)") << ": ";
    if (forests) {
      // Each tree moves its units of its root's part.
      int units = 1;
      for (const synth::ForestPacking *f : {reduce, gather})
        if (f)
          units = std::max(units, synth::forestUnits(*f));
      for (const synth::ForestPacking *f : {reduce, gather}) {
        if (!f)
          continue;
        if (f == gather && reduce)
          os << "  then ";
        os << synth::describeForest(*f);
        std::vector<int> share = synth::forestTreeUnits(*f, units);
        for (size_t t = 0; t < share.size(); ++t)
          os << llvm::formatv("  tree {0}: {1} of the {2} units of root {3}'s "
                              "part\n",
                              t, share[t], units, f->trees[t].root);
        os << synth::forestDot(*f,
                               where + (f == reduce ? " reduce" : " gather"));
      }
      // Bytes of a root's part: all_gather's input, else one of the n
      // parts (-1: unknown).
      const double partBytes = bytes <= 0 ? -1
                               : l.collective == Collective::AllGather
                                   ? bytes
                                   : bytes / double(l.layout.size);
      if (const synth::RoundSchedule *rounds =
              compiled.synthesizer->roundsFor(l)) {
        os << "  synthesized_tree_rounds, the trees in rounds sharing "
              "channels:\n";
        os << synth::describeRounds(*rounds, partBytes);
      }
      // The equal-rate packings (synthesized_even_trees, _2) and their
      // rounds.
      std::vector<const synth::ForestPacking *> evenReduce, evenGather;
      std::vector<const synth::RoundSchedule *> evenRounds;
      const synth::RoundSchedule *evenOverlapped = nullptr;
      compiled.synthesizer->evenFor(l, &evenReduce, &evenGather, &evenRounds,
                                    &evenOverlapped);
      for (size_t i = 0; i < evenRounds.size(); ++i) {
        os << "  synthesized_even_trees"
           << (i ? "_" + std::to_string(i + 1) : "")
           << ", trees of equal rate:\n";
        for (const synth::ForestPacking *f :
             {i < evenReduce.size() ? evenReduce[i] : nullptr,
              i < evenGather.size() ? evenGather[i] : nullptr})
          if (f)
            os << "  " << synth::describeForest(*f);
        os << synth::describeRounds(*evenRounds[i], partBytes);
      }
      if (evenOverlapped)
        os << "  synthesized_even_trees_overlapped, the same trees with the "
              "phases overlapped:\n"
           << synth::describeRounds(*evenOverlapped, partBytes);
      if (const synth::RingPacking *rings = compiled.synthesizer->ringsFor(l))
        os << "  synthesized_rings (and synthesized_rings_2, each ring "
              "twice): "
           << synth::describeRings(*rings) << "\n";
      continue;
    }
    os << synth::describePacking(*packing);
    // What the schedule moves on each tree: its units of every round.
    if (const synth::RoundSchedule *rounds = compiled.synthesizer->roundsFor(l))
      os << synth::describeRounds(*rounds, bytes);
    if (const synth::RoundSchedule *more =
            compiled.synthesizer->roundsFor(l, /*moreCopies=*/true))
      os << llvm::formatv("  synthesized_trees_copies, one copy more ({0} "
                          "streams shared):\n",
                          synth::sharedStreams(*more))
         << synth::describeRounds(*more, bytes);
    os << synth::packingDot(*packing, where);
    printLatencyTrees();
  }
}
} // namespace

PlanBuildOptions collcPlanOptions(const std::string &topologyName,
                                  const std::string &generatedBy) {
  PlanBuildOptions options;
  options.topology = topologyName;
  // compileModule proves every schedule with the default VerifyOptions.
  options.connectionSlots = sched::VerifyOptions().connectionSlots;
  options.generatedBy = generatedBy;
  return options;
}

EmitStatus buildCollcPlan(const std::vector<CheckedCollective> &checked,
                          const std::string &topologyName,
                          const std::string &generatedBy,
                          const std::string &failed, collrt::Plan &plan) {
  std::vector<std::string> errors;
  if (buildPlan(checked, collcPlanOptions(topologyName, generatedBy), plan,
                errors))
    return EmitStatus::success();
  errors.push_back(failed);
  return EmitStatus::failure(std::move(errors));
}

EmitStatus emitCudaKernels(const CollcOptions &o,
                           const std::vector<CheckedCollective> &checked,
                           const std::string &topologyName,
                           const std::string &source, bool fatbin,
                           std::string &output) {
  collrt::Plan plan;
  const char *what = fatbin ? "fatbin" : "CUDA";
  const std::string nothing = std::string("no ") + what + " written";
  // A plan leaves such counts to run time; a kernel folds them in.
  std::vector<std::string> refusals;
  for (const CheckedCollective &c : checked)
    if (c.lowered.countsAtRunTime)
      refusals.push_back(
          c.lowered.op->getName().getStringRef().str() + " at " +
          formatLocation(c.lowered.op->getLoc()) +
          ": its send counts are known only at run time, but a generated "
          "kernel fixes an all_to_all_v's counts (give the op a constant "
          "send_counts attribute)");
  if (!refusals.empty()) {
    refusals.push_back(nothing);
    return EmitStatus::failure(std::move(refusals));
  }
  if (EmitStatus built =
          buildCollcPlan(checked, topologyName, "", nothing, plan);
      !built.ok)
    return built;
  std::vector<cuda::KernelInput> kernels;
  for (const CheckedCollective &c : checked) {
    // A recv travels with its send, as in the plan.
    if (c.lowered.withItsSend())
      continue;
    const collrt::PlanCollective &entry = plan.collectives[kernels.size()];
    cuda::KernelInput kernel;
    kernel.schedule = c.lowered.schedule;
    kernel.expand = &c.lowered.expand;
    kernel.program = &*c.program;
    kernel.dtype = entry.dtype;
    if (c.lowered.collective == sched::Collective::AllReduce ||
        c.lowered.collective == sched::Collective::ReduceScatter ||
        c.lowered.collective == sched::Collective::Reduce)
      kernel.reduction = entry.reduction;
    kernel.planIndex = int(kernels.size());
    kernel.location = formatLocation(c.lowered.op->getLoc());
    kernels.push_back(kernel);
  }
  cuda::EmitOptions emitOptions;
  emitOptions.kernelPrefix = o.kernelPrefix;
  emitOptions.source = source + " on topology " + topologyName;
  std::string code;
  if (mlir::failed(cuda::emitCuda(kernels, emitOptions, code)))
    return EmitStatus::failure({nothing});
  if (!fatbin) {
    output = std::move(code);
    return EmitStatus::success();
  }
  cuda::FatbinOptions fatbinOptions;
  fatbinOptions.nvcc = o.nvcc;
  fatbinOptions.includeDirs = {o.cudaInclude};
  std::string error;
  if (!cuda::parseArchitectures(o.cudaArch, fatbinOptions.architectures,
                                error) ||
      !cuda::compileFatbin(code, fatbinOptions, output, error))
    return EmitStatus::failure({error, "no fatbin written"});
  return EmitStatus::success();
}

sweep::SweepResult singleSizeSweep(const CollcCompilation &compiled,
                                   const GeneratedProgram &generated,
                                   const lowering::AlgorithmLibrary &library,
                                   const CompileOptions &options) {
  const topo::Topology &topology = *compiled.topology;
  sweep::SweepRow row =
      sweep::makeRow(compiled, generated.spec, library, topology, options);
  sweep::SweepResult single;
  single.spec = generated.spec;
  single.topology = topology.name();
  single.machine = sweep::describeMachine(topology);
  single.sizes = generated.sizes;
  single.granule = sweep::sizeGranule(generated.spec);
  single.baselines =
      sweep::baselinesFor(generated.spec.collective, single.noBaseline);
  single.rows.push_back(std::move(row));
  return single;
}

EmitStatus emitOutput(const CollcOptions &o, const CompiledModule &in,
                      std::string &output) {
  const CollcCompilation &compiled = *in.compiled;
  const std::vector<CheckedCollective> &checked = compiled.checked;
  const topo::Topology &topology = *compiled.topology;
  const std::string &topologyName = compiled.topologyName;
  mlir::ModuleOp module = in.module;
  llvm::raw_string_ostream os(output);
  std::string header =
      in.generated
          ? "collc: " + sweep::describeSpec(in.generated->spec) + ", " +
                formatBytes(in.generated->sizes.min) + " per rank"
          : "collc: " + in.displayName;
  header += " on topology " + topologyName + " (" +
            sweep::describeMachine(topology) + ")\n";
  EmitKind emit = o.emit;
  if (emit == EmitKind::Mlir || emit == EmitKind::Sched) {
    if (emit == EmitKind::Mlir) {
      // The program as written, with the topology attached.
      module->walk([](mlir::Operation *op) {
        op->removeAttr("sched.schedule");
        op->removeAttr("sched.chunks_per_part");
      });
      for (auto schedule :
           llvm::make_early_inc_range(module.getOps<sched::ScheduleOp>()))
        schedule.erase();
    }
    module->print(os);
    os << "\n";
  } else if (emit == EmitKind::Report) {
    os << header;
    printReport(compiled.report, os);
    printNotLowered(checked, os);
    if (in.single)
      sweep::printBaselines(in.single->rows.front(), in.generated->spec, os);
    if (!o.run)
      os << "not run: --run runs the plan on the CPU executor; on GPUs "
            "collc-run --backend cuda runs --emit=plan's plan with "
            "--emit=fatbin's kernels (docs/gpu-runtime.md; built, not yet run "
            "on a real GPU)\n";
  } else if (emit == EmitKind::Volumes) {
    printVolumes(checked, topology, os);
  } else if (emit == EmitKind::Synthesis) {
    printSynthesis(compiled, os);
  } else if (emit == EmitKind::Dot) {
    os.flush();
    std::string error;
    if (!writeCheckedDot(checked, o.dotLimit, output, error))
      return EmitStatus::failure({error});
  } else if (emit == EmitKind::Cuda || emit == EmitKind::Fatbin) {
    os.flush();
    return emitCudaKernels(o, checked, topologyName,
                           in.generated ? in.generatedBy : in.displayName,
                           emit == EmitKind::Fatbin, output);
  } else if (emit == EmitKind::Plan) {
    os.flush();
    collrt::Plan plan;
    if (EmitStatus built = buildCollcPlan(checked, topologyName, in.generatedBy,
                                          "no plan written", plan);
        !built.ok)
      return built;
    output = collrt::planToJson(plan);
  } else {
    os << header;
    ProgramSummary summary = summarizeProgram(module, topology);
    addLoweringToSummary(checked, summary);
    printProgramSummary(summary, os);
    printNotLowered(checked, os);
    printStages(checked, os);
  }
  os.flush();
  return EmitStatus::success();
}

std::vector<OutputFile> outputFiles(const CollcOptions &o, const Report &report,
                                    const sweep::SweepResult *single,
                                    const std::string &output) {
  std::vector<OutputFile> files;
  if (!o.reportJsonFile.empty())
    files.emplace_back(o.reportJsonFile, reportToJson(report));
  if (!o.traceFile.empty())
    files.emplace_back(o.traceFile, reportToChromeTrace(report));
  if (!o.plotFile.empty() && single)
    files.emplace_back(o.plotFile, sweep::sweepToSvg(*single));
  if (o.outputFilename != "-")
    files.emplace_back(o.outputFilename, output);
  return files;
}

void emitSweep(const CollcOptions &o, const sweep::SweepResult &result,
               const std::string *tuningPath, std::string &output,
               std::vector<OutputFile> &files) {
  llvm::raw_string_ostream os(output);
  sweep::printSweep(result, os);
  if (tuningPath)
    os << "tuning " << *tuningPath
       << ": where it has a measurement (docs/tuning.md), the algorithm and "
          "chunks are the measured fastest; every time above is the model's\n";
  os.flush();
  if (!o.reportJsonFile.empty())
    files.emplace_back(o.reportJsonFile, sweep::sweepToJson(result));
  if (!o.plotFile.empty())
    files.emplace_back(o.plotFile, sweep::sweepToSvg(result));
  if (o.outputFilename != "-")
    files.emplace_back(o.outputFilename, output);
}

std::string selectionProgressLine(const SelectProgress &p) {
  return llvm::formatv(
      "collc: choosing {0} at {1}: {2} candidates decided ({3} simulated, "
      "{4} ruled out by a lower bound), fastest so far {5} ({6:F1} s)",
      p.op->getName().stripDialect(), formatLocation(p.op->getLoc()), p.decided,
      p.simulated, p.pruned,
      p.bestSeconds < 0
          ? std::string("none")
          : llvm::formatv("{0}, {1:F1} us", p.best, p.bestSeconds * 1e6).str(),
      p.elapsedSeconds);
}

EmitStatus writeOutputFile(const std::string &path, const std::string &text) {
  if (llvm::Error err =
          llvm::writeToOutput(path, [&](llvm::raw_ostream &out) -> llvm::Error {
            out << text;
            return llvm::Error::success();
          }))
    return EmitStatus::failure(
        {"cannot write '" + path + "': " + llvm::toString(std::move(err))});
  return EmitStatus::success();
}

EmitStatus writeOutputFiles(const std::vector<OutputFile> &files) {
  for (const auto &[path, text] : files)
    if (EmitStatus written = writeOutputFile(path, text); !written.ok)
      return written;
  return EmitStatus::success();
}

} // namespace collc

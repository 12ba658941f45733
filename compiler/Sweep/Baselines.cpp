//===- Baselines.cpp - NCCL-style baselines on the same model -------------===//
#include "compiler/Sweep/Baselines.h"

#include "compiler/Simulate/BusBandwidth.h"
#include "dialects/Sched/Transforms/Expand.h"

#include "mlir/IR/Diagnostics.h"

namespace collc {
namespace sweep {

using sched::Collective;

std::vector<BaselineSpec> baselinesFor(Collective collective,
                                       std::string &none) {
  none.clear();
  const BaselineSpec ring{"flat ring (1 channel)", "ring", "ring"};
  switch (collective) {
  case Collective::AllReduce:
    return {ring, {"double binary tree", "double_binary_tree", "tree"}};
  case Collective::AllGather:
  case Collective::ReduceScatter:
    none = "no tree baseline: NCCL runs this collective on rings only";
    return {ring};
  case Collective::Broadcast:
  case Collective::Reduce:
    none = "NCCL's ring for this collective is a pipelined chain; no tree "
           "baseline";
    return {{"NCCL ring (pipelined chain)", "chain", "chain"}};
  case Collective::AllToAll:
  case Collective::AllToAllV:
  case Collective::Scatter:
  case Collective::Gather:
    none = "no ring or tree baseline: NCCL runs this collective as grouped "
           "send/recv to every peer";
    return {{"NCCL send/recv to every peer", "direct", "p2p"}};
  case Collective::SendRecv:
    break;
  }
  none = "no baseline";
  return {};
}

BaselineResult runBaseline(const BaselineSpec &spec,
                           const lowering::LoweredCollective &lowered,
                           const lowering::AlgorithmLibrary &library,
                           const topo::Topology &topology,
                           const SelectOptions &options, unsigned chunks) {
  BaselineResult result;
  result.spec = spec;
  const lowering::Algorithm *algorithm =
      library.find(lowered.collective, spec.algorithm);
  if (!algorithm) {
    result.error = "the library has no " +
                   std::string(sched::collectiveName(lowered.collective)) +
                   " algorithm named '" + spec.algorithm + "'";
    return result;
  }
  std::string why;
  if (!lowering::isApplicable(*algorithm, lowered, why)) {
    result.error = spec.algorithm + " does not apply: " + why;
    return result;
  }
  if (lowered.elementsPerRank < 0) {
    result.error = "sizes known only at run time";
    return result;
  }
  mlir::DictionaryAttr params =
      sched::ScheduleOp(algorithm->schedule).getParamsAttr();
  bool oneRing = spec.algorithm == "ring" && params && params.get("rings");
  std::vector<unsigned> counts =
      chunks ? std::vector<unsigned>{chunks} : options.chunkCounts;
  sim::SimOptions simOptions = options.simulation;
  simOptions.recordTimeline = false;
  simOptions.recordLinkLoad = false;
  std::string lastError;
  for (unsigned c : counts) {
    sched::ExpandOptions expand =
        lowering::expandOptionsFor(*algorithm, lowered, c);
    if (oneRing) {
      expand.params["rings"] = 1;
      int64_t unit = lowering::chunkUnitValue(*algorithm, lowered.layout.size,
                                              expand.params);
      expand.chunksPerPart =
          static_cast<uint32_t>(c * std::max<int64_t>(1, unit));
    }
    // As the selection does: chunks smaller than an element pipeline
    // nothing.
    if (c > 1 && lowered.elementsPerRank > 0 &&
        static_cast<int64_t>(expand.chunksPerPart) > lowered.elementsPerRank)
      continue;
    mlir::FailureOr<sched::Program> program =
        expandQuietly(*algorithm, expand, &lastError);
    if (mlir::failed(program))
      continue;
    // A count whose cheap lower bound (Select.h) is no better than the
    // best time so far cannot replace it: not simulated.
    if (options.prune && result.seconds >= 0 &&
        quickLowerBound(*program, lowered, topology, simOptions) >=
            result.seconds)
      continue;
    sim::SimResult sim =
        simulateLowered(*program, lowered, topology, simOptions);
    if (!sim.ok()) {
      lastError = sim.error;
      continue;
    }
    if (result.seconds < 0 || sim.totalTime < result.seconds) {
      result.seconds = sim.totalTime;
      result.chunks = c;
      // Channels that hold instructions on some rank.
      size_t channels = 0;
      for (const sched::RankProgram &rank : program->ranks)
        for (size_t ch = 0; ch < rank.channels.size(); ++ch)
          if (!rank.channels[ch].instructions.empty())
            channels = std::max(channels, ch + 1);
      result.channels = static_cast<int>(channels);
    }
  }
  if (result.seconds < 0) {
    result.error =
        lastError.empty() ? "no chunk count could be simulated" : lastError;
    return result;
  }
  if (result.seconds > 0) {
    double bytes =
        static_cast<double>(lowered.elementsPerRank) * lowered.elementBytes;
    sim::Bandwidths bw = sim::ncclTestsBandwidths(
        lowered.collective, lowered.layout.size, bytes, result.seconds);
    result.algbwGBps = bw.algorithm / 1e9;
    result.busbwGBps = bw.bus / 1e9;
  }
  return result;
}

} // namespace sweep
} // namespace collc

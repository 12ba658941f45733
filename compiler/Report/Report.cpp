//===- Report.cpp - what collc predicts for a program ---------------------===//
#include "compiler/Report/Report.h"

#include "compiler/Bounds/Bounds.h"
#include "compiler/Simulate/BusBandwidth.h"
#include "compiler/Summary/CollectiveSummary.h"
#include "compiler/Volume/Volume.h"
#include "dialects/Coll/IR/CollOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>
#include <sstream>

using namespace mlir;

namespace collc {

static std::string functionOf(Operation *op) {
  if (auto f = op->getParentOfType<func::FuncOp>())
    return f.getSymName().str();
  return "";
}

/// Fills the simulated figures of a lowered, verified collective.
/// `selectedSeconds` >= 0: selection already simulated this very program
/// (the same algorithm, chunks and parameters, on the same model) and
/// predicted that; no timeline is wanted, so it is not simulated again.
static void simulateRow(CollectiveRow &row, const CheckedCollective &c,
                        const topo::Topology &topology,
                        const ReportOptions &options,
                        double selectedSeconds = -1) {
  const lowering::LoweredCollective &l = c.lowered;
  if (l.elementsPerRank < 0) {
    row.note = "sizes known only at run time: not simulated";
    return;
  }
  double bytes = static_cast<double>(l.elementsPerRank) * l.elementBytes;
  sim::SimOptions simOptions = options.simulation;
  simOptions.recordTimeline = options.recordTimelines;
  simOptions.recordLinkLoad = options.recordTimelines;
  sim::SimResult result;
  if (selectedSeconds >= 0 && !options.recordTimelines)
    result.totalTime = selectedSeconds;
  else
    result = simulateLowered(*c.program, l, topology, simOptions);
  if (!result.ok()) {
    row.note = "simulation failed: " + result.error;
    return;
  }
  row.predictedUs = result.totalTime * 1e6;
  if (result.totalTime > 0) {
    sim::Bandwidths bw = sim::ncclTestsBandwidths(l.collective, l.layout.size,
                                                  bytes, result.totalTime);
    row.algbwGBps = bw.algorithm / 1e9;
    row.busbwGBps = bw.bus / 1e9;
  }
  std::vector<int> gpus(l.layout.meshRanks.begin(), l.layout.meshRanks.end());
  bounds::CollectiveSpec spec;
  spec.collective = l.collective;
  spec.gpus = gpus;
  spec.bytes = bytes;
  if (auto root = l.op->getAttrOfType<IntegerAttr>("root"))
    spec.root = static_cast<int>(root.getInt());
  for (int64_t count : l.expand.sendCounts)
    spec.sendBytes.push_back(static_cast<double>(count) * l.elementBytes);
  // The latency bound charges one fixed cost per hop, as the simulator
  // charges every send before its bytes move.
  bounds::BoundOptions boundOptions;
  boundOptions.perHopOverhead = options.simulation.fixedCost;
  bounds::LowerBound bound = bounds::lowerBound(spec, topology, boundOptions);
  if (bound.error.empty()) {
    row.boundUs = bound.seconds * 1e6;
    row.boundReason = bound.reason;
    // Over the runtime's routes the cuts may not be reachable: synthesis's
    // optimum is then the tight bound, and the report says so.
    std::string why;
    double routed =
        options.routedBound ? options.routedBound(l, bytes, &why) : 0;
    if (routed > bound.seconds) {
      row.boundUs = routed * 1e6;
      row.boundReason = why + "; tighter than the cut bound (" +
                        bounds::formatSeconds(bound.seconds) + ", " +
                        bound.reason + ")";
    }
    if (row.predictedUs > 0)
      row.efficiency = row.boundUs / row.predictedUs;
  } else {
    row.note = "no bound: " + bound.error;
  }
  row.closedFormBytes = static_cast<int64_t>(
      sim::busBandwidthFactor(l.collective, l.layout.size) *
      sim::ncclTestsSize(l.collective, l.layout.size, bytes));
  row.bytesSentPerRank =
      computeVolumes(*c.program, l.elementsPerRank, l.elementBytes)
          .maxBytesSent();
  row.simulation = std::move(result);
}

/// "bf16", "f32", ...: the key of the topology's peak FLOP/s table.
static std::string dtypeKey(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isFloat8E4M3FN() || type.isFloat8E5M2())
    return "f8";
  if (type.isInteger(8))
    return "i8";
  return "f32";
}

static double tensorBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return static_cast<double>(shaped.getNumElements()) *
         std::max<unsigned>(1, shaped.getElementTypeBitWidth() / 8);
}

/// The duration of a compute op from its flops and bytes and the GPU's
/// figures: the slower of the math and the memory traffic.
static GraphNode costCompute(Operation *op, const topo::Topology &topology) {
  GraphNode node;
  node.location = formatLocation(op->getLoc());
  double flops = 0, bytes = 0;
  if (auto compute = dyn_cast<coll::ComputeOp>(op)) {
    node.name = compute.getKernel().str();
    flops = compute.getFlops().convertToDouble();
    bytes = compute.getBytes().convertToDouble();
  } else {
    node.name = op->getName().getStringRef().str();
    for (Value v : op->getOperands())
      bytes += tensorBytes(v.getType());
    for (Value v : op->getResults())
      bytes += tensorBytes(v.getType());
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
      auto a = dyn_cast<ShapedType>(matmul.getInputs()[0].getType());
      auto c = dyn_cast<ShapedType>(matmul.getOutputs()[0].getType());
      if (a && c && a.hasStaticShape() && c.hasStaticShape())
        flops = 2.0 * c.getDimSize(0) * c.getDimSize(1) * a.getDimSize(1);
    } else if (op->getNumResults()) {
      // Elementwise: one operation per result element.
      if (auto shaped = dyn_cast<ShapedType>(op->getResult(0).getType());
          shaped && shaped.hasStaticShape())
        flops = static_cast<double>(shaped.getNumElements());
    }
  }
  std::string dtype =
      dtypeKey(op->getNumResults() ? op->getResult(0).getType()
                                   : op->getOperand(0).getType());
  double memoryTime = bytes / topology.gpuMemoryBandwidth(0);
  std::optional<double> peak = topology.gpuPeakFlops(0, dtype);
  double mathTime = peak && *peak > 0 ? flops / *peak : 0;
  node.durationUs = std::max(memoryTime, mathTime) * 1e6;
  if (!peak && flops > 0)
    node.costNote = "no " + dtype + " peak in the topology: memory time only";
  else
    node.costNote = mathTime >= memoryTime ? "compute-bound" : "memory-bound";
  return node;
}

/// Schedules a function's ops on a compute and a communication stream in
/// program order: an op starts when its operands are ready and its stream
/// is free. Marks the critical path.
static FunctionReport scheduleFunction(
    func::FuncOp function, const topo::Topology &topology,
    const llvm::DenseMap<Operation *, const CollectiveRow *> &rows) {
  FunctionReport report;
  report.name = function.getSymName().str();
  llvm::DenseMap<Value, std::pair<double, int>> ready; // time, node
  double streamFree[2] = {0, 0};
  int streamLast[2] = {-1, -1};
  std::vector<int> predecessor;
  for (Operation &op : function.getBody().getOps()) {
    double readyAt = 0;
    int readyNode = -1;
    for (Value v : op.getOperands()) {
      auto it = ready.find(v);
      if (it != ready.end() && it->second.first >= readyAt) {
        readyAt = it->second.first;
        readyNode = it->second.second;
      }
    }
    std::optional<GraphNode> node;
    if (isa<coll::CollectiveOpInterface>(op)) {
      GraphNode n;
      n.communication = true;
      n.location = formatLocation(op.getLoc());
      n.name = cast<coll::CollectiveOpInterface>(op).getCollectiveName().str();
      auto it = rows.find(&op);
      if (it != rows.end() && it->second->predictedUs >= 0) {
        n.durationUs = it->second->predictedUs;
        n.costNote = it->second->algorithm;
      } else {
        n.costNote = "not simulated";
      }
      node = n;
    } else if (isa<coll::ComputeOp>(op) ||
               ((op.getDialect() &&
                 (op.getDialect()->getNamespace() == "linalg" ||
                  op.getDialect()->getNamespace() == "arith")) &&
                op.getNumResults() && !op.hasTrait<OpTrait::ConstantLike>())) {
      node = costCompute(&op, topology);
    }
    if (!node) {
      for (Value r : op.getResults())
        ready[r] = {readyAt, readyNode};
      continue;
    }
    int stream = node->communication ? 1 : 0;
    int index = static_cast<int>(report.nodes.size());
    int pred = readyNode;
    node->startUs = readyAt;
    if (streamFree[stream] > readyAt) {
      node->startUs = streamFree[stream];
      pred = streamLast[stream];
    }
    node->finishUs = node->startUs + node->durationUs;
    streamFree[stream] = node->finishUs;
    streamLast[stream] = index;
    for (Value r : op.getResults())
      ready[r] = {node->finishUs, index};
    report.nodes.push_back(*node);
    predecessor.push_back(pred);
  }
  int last = -1;
  for (size_t i = 0; i < report.nodes.size(); ++i)
    if (last < 0 || report.nodes[i].finishUs > report.nodes[last].finishUs)
      last = static_cast<int>(i);
  if (last >= 0)
    report.criticalPathUs = report.nodes[last].finishUs;
  for (int i = last; i >= 0; i = predecessor[i])
    report.nodes[i].critical = true;
  return report;
}

std::string describeChannelCap(const topo::Topology &topology,
                               const sim::SimOptions &options, double &common) {
  common = -1;
  auto gbps = [](double bytes) {
    std::ostringstream text;
    text << bytes / 1e9 << " GB/s";
    return text.str();
  };
  if (options.channelBandwidth) {
    if (*options.channelBandwidth <= 0)
      return "";
    common = *options.channelBandwidth;
    return "at most " + gbps(common) +
           " of reads and writes (--channel-bandwidth)";
  }
  std::string models, uncapped;
  size_t capped = 0;
  for (const topo::GpuModel &model : topology.gpuModels()) {
    if (model.channelBandwidth > 0) {
      ++capped;
      common = model.channelBandwidth;
      models += (models.empty() ? "" : ", ") + model.name + " " +
                gbps(model.channelBandwidth);
    } else {
      uncapped += (uncapped.empty() ? "" : ", ") + model.name;
    }
  }
  if (!capped)
    return "";
  std::string text;
  if (capped == 1 && uncapped.empty())
    text = "at most " + gbps(common) +
           " of reads and writes (channel_bandwidth_GBps of " +
           topology.gpuModels().front().name;
  else
    text = "at most its GPU model's channel_bandwidth_GBps of reads and "
           "writes (" +
           models + (uncapped.empty() ? "" : "; not capped: " + uncapped);
  if (capped > 1 || !uncapped.empty())
    common = -1;
  return text + "; --channel-bandwidth 0 lifts the cap)";
}

std::string
chosenParamsText(const std::vector<std::pair<std::string, int64_t>> &params) {
  std::string text;
  for (const auto &[name, value] : params)
    text += " " + name + "=" + std::to_string(value);
  return text;
}

std::string channelModelLine(const std::string &channelCap) {
  if (channelCap.empty())
    return "model: channels are not capped: one channel (a thread block on "
           "a GPU) may fill any link alone (--channel-bandwidth GBPS caps "
           "them; docs/simulator.md)";
  return "model: a channel (a thread block on a GPU) moves " + channelCap;
}

/// Channels that some rank of `program` gives an instruction.
static size_t channelsAnyRankUses(const sched::Program &program) {
  size_t channels = 0, used = 0;
  for (const auto &rank : program.ranks)
    channels = std::max(channels, rank.channels.size());
  for (size_t ch = 0; ch < channels; ++ch) {
    bool busy = false;
    for (const auto &rank : program.ranks)
      busy |=
          ch < rank.channels.size() && !rank.channels[ch].instructions.empty();
    used += busy;
  }
  return used;
}

/// What would give a schedule's idle channels work: more chunks (the
/// program with twice the chunks per part uses more channels: a ring's
/// `rings` above its chunks), or nothing (hierarchical_direct's `folders`
/// above the nodes): then fewer channels run the same.
static std::string idleRemedy(const lowering::LoweredCollective &l,
                              size_t used) {
  if (l.algorithm &&
      !sched::ScheduleOp(l.algorithm->schedule).getChunksPerPart()) {
    sched::ExpandOptions more = l.expand;
    more.chunksPerPart *= 2;
    std::string error;
    mlir::FailureOr<sched::Program> program =
        expandQuietly(*l.algorithm, more, &error);
    if (succeeded(program) && channelsAnyRankUses(*program) > used)
      return "more chunks give the others work";
  }
  return "no more chunks give the others work: fewer channels run the same";
}

Report buildReport(ModuleOp module, const topo::Topology &topology,
                   const std::vector<CheckedCollective> &checked,
                   const Selector *selector, const ReportOptions &options) {
  Report report;
  report.topology = topology.name();
  report.ranks = topology.numGpus();
  report.channelCap =
      describeChannelCap(topology, options.simulation, report.channelBandwidth);
  report.verified = true;
  for (const CheckedCollective &c : checked) {
    const lowering::LoweredCollective &l = c.lowered;
    if (l.withItsSend())
      continue; // lowered with its send
    CollectiveRow row;
    row.op = l.op;
    row.function = functionOf(l.op);
    row.location = formatLocation(l.op->getLoc());
    row.collective =
        cast<coll::CollectiveOpInterface>(l.op).getCollectiveName().str();
    row.groupSize = l.layout.size;
    row.bytesPerRank =
        l.elementsPerRank < 0 ? -1 : l.elementsPerRank * l.elementBytes;
    if (!l.algorithm) {
      row.note = "not lowered: " + l.whyNot;
      report.verified = false;
      report.collectives.push_back(std::move(row));
      continue;
    }
    row.algorithm = l.algorithm->name;
    row.k = l.expand.chunksPerPart;
    for (const auto &entry : l.chosenParams)
      row.chosenParams.emplace_back(entry.getKey().str(), entry.getValue());
    llvm::sort(row.chosenParams);
    row.choice = l.choice;
    row.verified = c.verified();
    row.raceCheckSkipped = c.verify.raceCheckSkipped;
    report.verified &= row.verified;
    double selectedSeconds = -1;
    if (selector)
      if (const SelectionRecord *record = selector->record(l.op)) {
        // The chosen program as selection simulated it (not a measured
        // choice, which may not have been simulated).
        if (record->best && !record->measurement &&
            record->best->algorithm == l.algorithm &&
            record->best->k == l.expand.chunksPerPart)
          selectedSeconds = record->best->seconds;
        row.runnerUp = record->runnerUp;
        row.measured = record->measurement;
        if (record->measurement)
          row.modelChoice = record->modelBest;
        if (record->best)
          row.chunks = record->best->chunks;
        if (!record->note.empty())
          row.note = record->note;
        if (!record->tuningNote.empty())
          row.note += (row.note.empty() ? "" : "; ") + record->tuningNote;
      }
    // A synthesized schedule says what it was made of (its trees, their
    // rate and share of the optimum: lowering/Synthesis).
    if (llvm::StringRef(l.algorithm->description).starts_with("synthesized: "))
      row.note += (row.note.empty() ? "" : "; ") + l.algorithm->description;
    // Synthesis that declined (a group too large, a packing that failed)
    // says so here too, not only in a remark.
    else if (options.synthesisDeclined) {
      std::string why = options.synthesisDeclined(l);
      if (!why.empty())
        row.note += (row.note.empty() ? "" : "; ") + ("synthesis: " + why);
    }
    if (!row.chunks)
      row.chunks = std::max<uint32_t>(
          1, l.expand.chunksPerPart /
                 std::max<int64_t>(
                     1, lowering::chunkUnitValue(*l.algorithm, l.layout.size,
                                                 l.expand.params)));
    if (c.verified()) {
      row.program = &*c.program;
      simulateRow(row, c, topology, options, selectedSeconds);
      // Channels no rank uses (a parameter such as `rings` asks for more
      // than the chunks give work to): say so, they do not run in parallel.
      size_t channels = 0;
      for (const auto &rank : c.program->ranks)
        channels = std::max(channels, rank.channels.size());
      size_t used = channelsAnyRankUses(*c.program);
      if (used > 0 && used < channels)
        row.note +=
            (row.note.empty() ? "" : "; ") +
            llvm::formatv("{0} of its {1} channels have no "
                          "instruction at k = {2} chunks per part, "
                          "so only {3} run in parallel ({4})",
                          channels - used, channels, c.program->chunksPerPart,
                          used, idleRemedy(l, used))
                .str();
    }
    report.collectives.push_back(std::move(row));
  }
  llvm::DenseMap<Operation *, const CollectiveRow *> rows;
  for (const CollectiveRow &row : report.collectives)
    rows[row.op] = &row;
  for (auto function : module.getOps<func::FuncOp>()) {
    report.functions.push_back(scheduleFunction(function, topology, rows));
    report.criticalPathUs =
        std::max(report.criticalPathUs, report.functions.back().criticalPathUs);
  }
  return report;
}

} // namespace collc

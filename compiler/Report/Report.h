//===- Report.h - what collc predicts for a program ------------*- C++ -*-===//
//
// The collc report: per collective, the chosen algorithm and its runner-up,
// the predicted time, nccl-tests' algbw and busbw, the lower bound and the
// efficiency against it, and the bytes a rank sends beside the collective's
// closed form; per function, the data-flow graph costed (collectives from
// the simulator, compute from its flops and bytes and the GPU's figures),
// scheduled on a compute stream and a communication stream, with its
// critical path. Printed as a table, written as JSON (docs/report.md).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_REPORT_REPORT_H
#define COLLC_COMPILER_REPORT_REPORT_H

#include "compiler/Check/CheckLowered.h"
#include "compiler/Select/Select.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace collc {

struct CollectiveRow {
  mlir::Operation *op = nullptr;
  std::string function;
  std::string location;
  std::string collective;
  int64_t groupSize = 0;
  int64_t bytesPerRank = -1; ///< -1: known only at run time
  std::string algorithm;     ///< empty: not lowered (see note)
  unsigned chunks = 0;       ///< chunks per algorithm unit
  uint32_t k = 0;            ///< chunks per part of the expansion
  /// The parameters selection set (the channel count, e.g. rings = 8;
  /// Choice::params), or none.
  std::vector<std::pair<std::string, int64_t>> chosenParams;
  std::string choice; ///< why this algorithm
  bool verified = false;
  /// Empty when sched-verify's race check ran (or races were ruled out);
  /// else why it did not (VerifyResult::raceCheckSkipped): the schedule is
  /// then proven correct except for races.
  std::string raceCheckSkipped;
  double predictedUs = -1;
  double algbwGBps = -1;
  double busbwGBps = -1;
  double boundUs = -1;
  std::string boundReason;
  double efficiency = -1;        ///< bound / predicted
  int64_t bytesSentPerRank = -1; ///< the most any rank sends
  int64_t closedFormBytes = -1;  ///< the collective's optimal per rank
  std::optional<Candidate> runnerUp;
  /// --tuning: the measurement the choice follows, and the model's choice.
  std::optional<SelectionRecord::Measurement> measured;
  std::optional<Candidate> modelChoice;
  std::string note;
  /// The simulation of the chosen schedule (with its timeline when a trace
  /// was asked for) and its program, for --trace.
  std::optional<sim::SimResult> simulation;
  const sched::Program *program = nullptr;
};

/// A node of a function's data-flow graph.
struct GraphNode {
  std::string location;
  std::string name; ///< collective or kernel name
  bool communication = false;
  double durationUs = 0;
  double startUs = 0;
  double finishUs = 0;
  bool critical = false;
  std::string costNote; ///< how the duration was derived
};

struct FunctionReport {
  std::string name;
  std::vector<GraphNode> nodes;
  double criticalPathUs = 0;
};

struct Report {
  std::string topology;
  int64_t ranks = 0;
  /// How the simulator caps a channel (sim::channelCap): "" when it does
  /// not, else e.g. "at most 37.5 GB/s of reads and writes per channel
  /// (H100-SXM5-80GB channel_bandwidth_GBps)".
  std::string channelCap;
  /// The cap in bytes/s when one applies to every GPU alike, else -1.
  double channelBandwidth = -1;
  bool verified = false;
  std::vector<CollectiveRow> collectives;
  std::vector<FunctionReport> functions;
  /// The longest critical path of any function.
  double criticalPathUs = 0;
};

struct ReportOptions {
  sim::SimOptions simulation;
  bool recordTimelines = false;
  /// A tighter bandwidth bound where one is known for a collective of
  /// `bytes` per rank (synthesis's optimum over the runtime's routes):
  /// seconds, and `why` its reason; 0 where none. Null: none.
  std::function<double(const lowering::LoweredCollective &, double bytes,
                       std::string *why)>
      routedBound;
  /// Why synthesis made nothing for a collective it would have tried
  /// ("" where it made something, or never tries that collective). Null:
  /// synthesis is off.
  std::function<std::string(const lowering::LoweredCollective &)>
      synthesisDeclined;
};

/// Report::channelCap for `topology` under `options`; `common` is set to
/// Report::channelBandwidth.
std::string describeChannelCap(const topo::Topology &topology,
                               const sim::SimOptions &options, double &common);

/// " rings=8" for CollectiveRow::chosenParams (what follows an algorithm's
/// name in the tables), or "".
std::string
chosenParamsText(const std::vector<std::pair<std::string, int64_t>> &params);

/// The report's and the sweep's "model:" line: how a channel is capped, or
/// that it is not (never left unsaid).
std::string channelModelLine(const std::string &channelCap);

/// Builds the report of a lowered, checked module.
Report buildReport(mlir::ModuleOp module, const topo::Topology &topology,
                   const std::vector<CheckedCollective> &checked,
                   const Selector *selector, const ReportOptions &options);

/// The human tables.
void printReport(const Report &report, llvm::raw_ostream &os);

/// The JSON document of docs/report.md.
std::string reportToJson(const Report &report);

/// The Chrome trace (Perfetto) of the whole program: per function a track
/// for each stream, then every collective's simulated ranks and channels,
/// shifted to where the graph schedule puts it.
std::string reportToChromeTrace(const Report &report);

} // namespace collc

#endif

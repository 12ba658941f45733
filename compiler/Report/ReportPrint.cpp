//===- ReportPrint.cpp - the collc report as tables -----------------------===//
#include "compiler/Report/Report.h"

#include "compiler/Summary/CollectiveSummary.h"

#include "llvm/Support/FormatVariadic.h"

namespace collc {

static std::string orDash(double value, const char *format) {
  if (value < 0)
    return "-";
  return llvm::formatv(format, value).str();
}

static std::string bytesOrDash(int64_t bytes) {
  return bytes < 0 ? std::string("-") : formatBytes(bytes);
}

/// `text` padded with spaces to `width` (never cut).
static std::string padded(std::string text, size_t width) {
  if (text.size() < width)
    text.resize(width, ' ');
  return text;
}

void printReport(const Report &report, llvm::raw_ostream &os) {
  std::vector<std::string> functions;
  for (const FunctionReport &f : report.functions)
    functions.push_back(f.name);
  // The location column is 21 wide, wider when a location is longer, so
  // that the other columns stay aligned.
  size_t locationWidth = 21;
  for (const CollectiveRow &row : report.collectives)
    locationWidth = std::max(locationWidth, row.location.size());
  for (const FunctionReport &function : report.functions)
    for (const GraphNode &node : function.nodes)
      locationWidth = std::max(locationWidth, node.location.size());
  os << channelModelLine(report.channelCap) << "\n";
  for (const FunctionReport &function : report.functions) {
    os << "func @" << function.name << "\n";
    os << llvm::formatv("  {0,-2} {1} {2,-14} {3,5} {4,11}  {5,-18} {6,5} "
                        "{7,11} {8,7} {9,7} {10,11} {11,5} {12,11} {13,11}\n",
                        "#", padded("location", locationWidth), "collective",
                        "group", "bytes/rank", "algorithm", "chunk",
                        "time (us)", "algbw", "busbw", "bound (us)", "eff",
                        "sent/rank", "optimal");
    int index = 0;
    for (const CollectiveRow &row : report.collectives) {
      if (row.function != function.name)
        continue;
      ++index;
      std::string bytes = row.bytesPerRank < 0 ? std::string("at run time")
                                               : formatBytes(row.bytesPerRank);
      os << llvm::formatv(
          "  {0,-2} {1} {2,-14} {3,5} {4,11}  {5,-18} {6,5} {7,11} {8,7} "
          "{9,7} {10,11} {11,5} {12,11} {13,11}\n",
          index, padded(row.location, locationWidth), row.collective,
          row.groupSize, bytes, row.algorithm.empty() ? "-" : row.algorithm,
          row.algorithm.empty() ? std::string("-") : std::to_string(row.chunks),
          orDash(row.predictedUs, "{0:F1}"), orDash(row.algbwGBps, "{0:F1}"),
          orDash(row.busbwGBps, "{0:F1}"), orDash(row.boundUs, "{0:F1}"),
          row.efficiency < 0
              ? std::string("-")
              : llvm::formatv("{0:F0}%", row.efficiency * 100).str(),
          bytesOrDash(row.bytesSentPerRank), bytesOrDash(row.closedFormBytes));
      // Why: the choice, the runner-up, the bound.
      std::string why;
      if (!row.algorithm.empty()) {
        why = "chose " + row.algorithm + chosenParamsText(row.chosenParams) +
              " (" + row.choice + ", " +
              (row.verified ? "verified" : "NOT verified") +
              (row.verified && !row.raceCheckSkipped.empty()
                   ? " except for races: race check " + row.raceCheckSkipped
                   : "") +
              ")";
        if (row.runnerUp)
          why += llvm::formatv("; runner-up {0}: {1:F1} us",
                               candidateLabel(*row.runnerUp),
                               row.runnerUp->seconds * 1e6)
                     .str();
      }
      if (!row.note.empty())
        why += (why.empty() ? "" : "; ") + row.note;
      os << "     " << why << "\n";
      if (!row.boundReason.empty())
        os << "     bound: " << row.boundReason << "\n";
    }
    if (index == 0)
      os << "     (no collectives)\n";
    os << llvm::formatv("  graph: {0} ops on a compute and a communication "
                        "stream; critical path {1:F1} us (* on the path)\n",
                        function.nodes.size(), function.criticalPathUs);
    os << llvm::formatv("     {0,10} {1,10} {2,10}  {3,-7} {4} {5}\n", "start",
                        "finish", "time (us)", "stream",
                        padded("location", locationWidth), "op");
    for (const GraphNode &node : function.nodes)
      os << llvm::formatv(
          "   {0} {1,10:F1} {2,10:F1} {3,10:F1}  {4,-7} {5} "
          "{6} ({7})\n",
          node.critical ? "*" : " ", node.startUs, node.finishUs,
          node.durationUs, node.communication ? "comm" : "compute",
          padded(node.location, locationWidth), node.name, node.costNote);
  }
  os << llvm::formatv("total: {0} collectives, {1}; longest critical path "
                      "{2:F1} us\n",
                      report.collectives.size(),
                      report.verified ? "all verified"
                                      : "NOT all lowered and verified",
                      report.criticalPathUs);
}

} // namespace collc

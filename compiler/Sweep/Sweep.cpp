//===- Sweep.cpp - nccl-tests-like sweeps of one collective ---------------===//
#include "compiler/Sweep/Sweep.h"

#include "common/Topology/Topology.h"
#include "compiler/Pipeline/Pipeline.h"
#include "compiler/Summary/CollectiveSummary.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>

using namespace mlir;

namespace collc {
namespace sweep {

using json = nlohmann::json;

std::string describeMachine(const topo::Topology &topology) {
  return llvm::formatv("{0} GPUs: {1} node{2} x {3}", topology.numGpus(),
                       topology.numNodes(), topology.numNodes() == 1 ? "" : "s",
                       topology.gpusPerNode())
      .str();
}

OwningOpRef<ModuleOp> parseProgram(MLIRContext &context, llvm::StringRef text,
                                   llvm::StringRef bufferName) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, bufferName), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return nullptr;
  PassManager pm(&context);
  buildCollcFrontendPipeline(pm);
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

SweepRow makeRow(const CollcCompilation &compiled, const ProgramSpec &spec,
                 const lowering::AlgorithmLibrary &library,
                 const topo::Topology &topology,
                 const CompileOptions &options) {
  SweepRow row;
  if (!compiled.report.collectives.empty()) {
    const CollectiveRow &r = compiled.report.collectives.front();
    row.bytes = r.bytesPerRank;
    row.algorithm = r.algorithm;
    row.chunks = r.chunks;
    row.chosenParams = r.chosenParams;
    row.predictedUs = r.predictedUs;
    row.algbwGBps = r.algbwGBps;
    row.busbwGBps = r.busbwGBps;
    row.boundUs = r.boundUs;
    row.latencyBound = llvm::StringRef(r.boundReason).starts_with("latency");
    row.efficiency = r.efficiency;
    row.note = r.note;
  }
  row.requestedBytes = row.bytes;
  for (const CheckedCollective &c : compiled.checked) {
    if (!c.lowered.algorithm)
      continue;
    std::string none;
    for (const BaselineSpec &b : baselinesFor(spec.collective, none))
      row.baselines.push_back(runBaseline(b, c.lowered, library, topology,
                                          options.select, options.chunks));
    break;
  }
  row.reportJson = reportToJson(compiled.report);
  return row;
}

void Progress::update(size_t done, size_t total, const SweepRow &row,
                      double elapsed) {
  if (!os || (!terminal && elapsed < quietSeconds))
    return;
  print(
      llvm::formatv(
          "collc: sweep {0}/{1}: {2} per rank: {3} x{4}, {5:F1} us ({6:F1} s)",
          done, total, formatBytes(row.bytes),
          row.algorithm.empty() ? "-" : row.algorithm, row.chunks,
          row.predictedUs, elapsed),
      elapsed);
}

void Progress::show(const std::string &line, double elapsed) {
  if (elapsed >= quietSeconds)
    print(line, elapsed);
}

void Progress::print(const std::string &line, double elapsed) {
  if (!os)
    return;
  if (lastShown >= 0 && elapsed >= lastShown &&
      elapsed - lastShown < everySeconds)
    return;
  lastShown = elapsed;
  if (terminal)
    *os << "\r\x1b[K" << line;
  else
    *os << line << "\n";
  os->flush();
  printed = true;
}

void Progress::finish() {
  if (os && terminal && printed) {
    *os << "\r\x1b[K";
    os->flush();
  }
  printed = false;
}

FailureOr<SweepResult>
runSweep(MLIRContext &context, const ProgramSpec &spec, const ByteSizes &sizes,
         const lowering::AlgorithmLibrary &library,
         const topo::Topology &topology, llvm::StringRef topologyPath,
         const CompileOptions &givenOptions, Progress *progress) {
  // Every size and baseline simulates the same topology: one route memo.
  CompileOptions options = givenOptions;
  if (!options.select.simulation.routes ||
      &options.select.simulation.routes->topology() != &topology)
    options.select.simulation.routes = std::make_shared<RouteMemo>(topology);
  // And their synthesized trees: one packing per collective, not per size.
  if (!options.packings || options.packings->topology != &topology)
    options.packings = std::make_shared<synth::PackingMemo>(topology);
  SweepResult result;
  result.spec = spec;
  result.topology = topology.name();
  result.machine = describeMachine(topology);
  result.channelCap = describeChannelCap(topology, options.select.simulation,
                                         result.channelBandwidth);
  result.sizes = sizes;
  result.granule = sizeGranule(spec);
  result.baselines = baselinesFor(spec.collective, result.noBaseline);

  // Sizes rounded down as nccl-tests does; the ones that round to nothing,
  // or to a size already run, are skipped.
  std::vector<std::pair<int64_t, int64_t>> todo; // requested, rounded
  for (int64_t requested : sizes.sizes()) {
    int64_t bytes = roundDownSize(spec, requested);
    if (bytes == 0 || (!todo.empty() && todo.back().second == bytes)) {
      result.skipped.push_back(requested);
      continue;
    }
    todo.emplace_back(requested, bytes);
  }

  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < todo.size(); ++i) {
    auto [requested, bytes] = todo[i];
    std::string text = generateProgram(spec, bytes);
    std::string name =
        std::string(sched::collectiveName(spec.collective)) + ".mlir";
    OwningOpRef<ModuleOp> module = parseProgram(context, text, name);
    if (!module)
      return failure();
    FailureOr<std::shared_ptr<CollcCompilation>> compiled = compileModule(
        *module, topology, topology.name(), topologyPath, library, options);
    if (failed(compiled))
      return failure();
    SweepRow row = makeRow(**compiled, spec, library, topology, options);
    row.requestedBytes = requested;
    row.bytes = bytes;
    result.rows.push_back(std::move(row));
    if (progress) {
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      progress->update(i + 1, todo.size(), result.rows.back(), elapsed);
    }
  }
  if (progress)
    progress->finish();
  return result;
}

/// The baselines of a generated single-size program, one line each.
void printBaselines(const SweepRow &row, const ProgramSpec &spec,
                    llvm::raw_ostream &os) {
  std::string none;
  baselinesFor(spec.collective, none);
  os << "baselines on the same model (docs/report.md):\n";
  for (const BaselineResult &b : row.baselines) {
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

static std::string orDash(double value, const char *format) {
  if (value < 0)
    return "-";
  return llvm::formatv(format, value).str();
}

void printSweep(const SweepResult &result, llvm::raw_ostream &os) {
  const ProgramSpec &spec = result.spec;
  os << "collc sweep: " << describeSpec(spec) << " on topology "
     << result.topology << " (" << result.machine << ")\n";
  const ByteSizes &sizes = result.sizes;
  os << "sizes per rank: " << formatBytes(sizes.min) << " .. "
     << formatBytes(sizes.max) << ", factor " << sizes.factor << " ("
     << result.rows.size() << " run";
  if (!result.skipped.empty())
    os << ", " << result.skipped.size() << " skipped";
  os << "); simulated; algbw, busbw in GB/s as nccl-tests; eff = bound / "
        "time\n";
  os << channelModelLine(result.channelCap) << "\n";
  os << "baselines on the same model:";
  for (size_t b = 0; b < result.baselines.size(); ++b)
    os << (b ? "," : "") << " " << result.baselines[b].column << " = "
       << result.baselines[b].label << " (" << result.baselines[b].algorithm
       << ")";
  if (result.baselines.empty())
    os << " none";
  os << "\n";
  if (!result.noBaseline.empty())
    os << "  (" << result.noBaseline << ")\n";

  std::string header =
      llvm::formatv("{0,11}  {1,-20} {2,6} {3,11} {4,8} {5,8} {6,11} {7,5}",
                    "bytes/rank", "algorithm", "chunks", "time (us)", "algbw",
                    "busbw", "bound (us)", "eff")
          .str();
  for (const BaselineSpec &b : result.baselines)
    header +=
        llvm::formatv(" | {0,11} {1,8}", b.column + " (us)", "busbw").str();
  if (!result.baselines.empty())
    header += llvm::formatv(" | {0,7}", "speedup").str();
  os << header << "\n";

  bool anyRounded = false;
  int faster = 0, equal = 0, slower = 0;
  for (const SweepRow &row : result.rows) {
    bool rounded = row.bytes != row.requestedBytes;
    anyRounded |= rounded;
    std::string eff =
        row.efficiency < 0
            ? std::string("-")
            : llvm::formatv("{0:F0}%", row.efficiency * 100).str();
    std::string line =
        llvm::formatv(
            "{0,11}  {1,-20} {2,6} {3,11} {4,8} {5,8} {6,11} {7,5}",
            formatBytes(row.bytes) + (rounded ? "*" : ""),
            row.algorithm.empty()
                ? "-"
                : row.algorithm + chosenParamsText(row.chosenParams),
            row.algorithm.empty() ? std::string("-")
                                  : std::to_string(row.chunks),
            orDash(row.predictedUs, "{0:F1}"), orDash(row.algbwGBps, "{0:F2}"),
            orDash(row.busbwGBps, "{0:F2}"),
            orDash(row.boundUs, "{0:F1}") + (row.boundUs < 0    ? ""
                                             : row.latencyBound ? "L"
                                                                : "B"),
            eff)
            .str();
    double best = -1;
    for (const BaselineResult &b : row.baselines) {
      line +=
          llvm::formatv(" | {0,11} {1,8}", orDash(b.seconds * 1e6, "{0:F1}"),
                        orDash(b.busbwGBps, "{0:F2}"))
              .str();
      if (b.seconds >= 0 && (best < 0 || b.seconds < best))
        best = b.seconds;
    }
    if (!result.baselines.empty()) {
      double ours = row.predictedUs * 1e-6;
      std::string speedup = "-";
      if (best > 0 && ours > 0) {
        speedup = llvm::formatv("{0:F2}x", best / ours).str();
        double ratio = best / ours;
        if (ratio > 1 + 1e-9)
          ++faster;
        else if (ratio < 1 - 1e-9)
          ++slower;
        else
          ++equal;
      }
      line += llvm::formatv(" | {0,7}", speedup).str();
    }
    os << line << "\n";
  }
  os << "bound: B = bandwidth term, L = latency term dominates; speedup = the "
        "fastest baseline's time / collc's\n";
  if (anyRounded)
    os << "* rounded down from the requested size to a multiple of "
       << formatBytes(result.granule) << ", as nccl-tests rounds its counts\n";
  if (!result.skipped.empty()) {
    os << "skipped (below " << formatBytes(result.granule)
       << " after rounding, or a size already run):";
    for (int64_t s : result.skipped)
      os << " " << formatBytes(s);
    os << "\n";
  }
  if (!result.baselines.empty())
    os << llvm::formatv("collc vs the fastest baseline: faster at {0}, equal "
                        "at {1}, slower at {2} of {3} sizes\n",
                        faster, equal, slower, result.rows.size());
}

static json numberOrNull(double value) {
  return value < 0 ? json(nullptr) : json(value);
}

std::string sweepToJson(const SweepResult &result) {
  const ProgramSpec &spec = result.spec;
  json doc;
  doc["schema"] = "collc-sweep/1";
  doc["collective"] = sched::collectiveName(spec.collective);
  doc["topology"] = result.topology;
  doc["group"] = groupName(spec.group);
  doc["group_size"] = spec.groupSize();
  doc["dtype"] = spec.element.mlirName;
  doc["element_bytes"] = spec.element.bytes;
  doc["op"] = spec.reduction;
  doc["min_bytes"] = result.sizes.min;
  doc["max_bytes"] = result.sizes.max;
  doc["factor"] = result.sizes.factor;
  doc["granule_bytes"] = result.granule;
  json baselines = json::array();
  for (const BaselineSpec &b : result.baselines)
    baselines.push_back(
        {{"name", b.column}, {"label", b.label}, {"algorithm", b.algorithm}});
  doc["baselines"] = std::move(baselines);
  doc["no_baseline"] = result.noBaseline;
  doc["channel_bandwidth_GBps"] = result.channelBandwidth < 0
                                      ? json(nullptr)
                                      : json(result.channelBandwidth / 1e9);
  json skipped = json::array();
  for (int64_t s : result.skipped)
    skipped.push_back(s);
  doc["skipped_bytes"] = std::move(skipped);
  json sizes = json::array();
  for (const SweepRow &row : result.rows) {
    json entry;
    entry["requested_bytes"] = row.requestedBytes;
    entry["bytes_per_rank"] = row.bytes;
    entry["algorithm"] =
        row.algorithm.empty() ? json(nullptr) : json(row.algorithm);
    entry["chunks"] = row.algorithm.empty() ? json(nullptr) : json(row.chunks);
    entry["chosen_params"] = std::map<std::string, int64_t>(
        row.chosenParams.begin(), row.chosenParams.end());
    entry["predicted_us"] = numberOrNull(row.predictedUs);
    entry["algbw_GBps"] = numberOrNull(row.algbwGBps);
    entry["busbw_GBps"] = numberOrNull(row.busbwGBps);
    entry["bound_us"] = numberOrNull(row.boundUs);
    entry["bound_term"] = row.boundUs < 0    ? json(nullptr)
                          : row.latencyBound ? json("latency")
                                             : json("bandwidth");
    entry["efficiency"] = numberOrNull(row.efficiency);
    json rowBaselines = json::array();
    for (const BaselineResult &b : row.baselines) {
      json jb;
      jb["name"] = b.spec.column;
      jb["algorithm"] = b.spec.algorithm;
      jb["chunks"] = b.seconds < 0 ? json(nullptr) : json(b.chunks);
      jb["channels"] = b.seconds < 0 ? json(nullptr) : json(b.channels);
      jb["predicted_us"] =
          b.seconds < 0 ? json(nullptr) : json(b.seconds * 1e6);
      jb["algbw_GBps"] = numberOrNull(b.algbwGBps);
      jb["busbw_GBps"] = numberOrNull(b.busbwGBps);
      jb["error"] = b.error;
      rowBaselines.push_back(std::move(jb));
    }
    entry["baselines"] = std::move(rowBaselines);
    entry["report"] = json::parse(row.reportJson, nullptr, false);
    sizes.push_back(std::move(entry));
  }
  doc["sizes"] = std::move(sizes);
  return doc.dump(2) + "\n";
}

} // namespace sweep
} // namespace collc

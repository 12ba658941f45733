//===- ReportJson.cpp - the collc report as JSON and as a trace -----------===//
#include "compiler/Report/Report.h"

#include "compiler/Simulate/Trace.h"

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace collc {

using json = nlohmann::json;

static json numberOrNull(double value) {
  return value < 0 ? json(nullptr) : json(value);
}

/// The parameters selection gave a candidate, as {"rings": 8}, or {}.
static json chosenParamsJson(const Candidate &candidate) {
  json params = json::object();
  for (const auto &entry : chosenParams(candidate))
    params[entry.getKey().str()] = entry.getValue();
  return params;
}

std::string reportToJson(const Report &report) {
  json doc;
  doc["schema"] = "collc-report/1";
  doc["topology"] = report.topology;
  doc["ranks"] = report.ranks;
  doc["channel_bandwidth_GBps"] = report.channelBandwidth < 0
                                      ? json(nullptr)
                                      : json(report.channelBandwidth / 1e9);
  doc["critical_path_us"] = report.criticalPathUs;
  doc["verified"] = report.verified;
  json collectives = json::array();
  for (const CollectiveRow &row : report.collectives) {
    json c;
    c["function"] = row.function;
    c["loc"] = row.location;
    c["op"] = row.collective;
    c["group_size"] = row.groupSize;
    c["bytes_per_rank"] =
        row.bytesPerRank < 0 ? json(nullptr) : json(row.bytesPerRank);
    c["algorithm"] =
        row.algorithm.empty() ? json(nullptr) : json(row.algorithm);
    c["chunks"] = row.algorithm.empty() ? json(nullptr) : json(row.chunks);
    c["chunks_per_part"] = row.algorithm.empty() ? json(nullptr) : json(row.k);
    c["chosen_params"] = std::map<std::string, int64_t>(
        row.chosenParams.begin(), row.chosenParams.end());
    c["choice"] = row.choice;
    c["verified"] = row.verified;
    c["race_check"] =
        row.raceCheckSkipped.empty() ? "ran" : row.raceCheckSkipped;
    c["predicted_us"] = numberOrNull(row.predictedUs);
    c["algbw_GBps"] = numberOrNull(row.algbwGBps);
    c["busbw_GBps"] = numberOrNull(row.busbwGBps);
    c["bound_us"] = numberOrNull(row.boundUs);
    c["bound"] = row.boundReason;
    c["efficiency"] = numberOrNull(row.efficiency);
    c["bytes_sent_per_rank"] =
        row.bytesSentPerRank < 0 ? json(nullptr) : json(row.bytesSentPerRank);
    c["closed_form_bytes_per_rank"] =
        row.closedFormBytes < 0 ? json(nullptr) : json(row.closedFormBytes);
    if (row.runnerUp)
      c["runner_up"] = {{"algorithm", row.runnerUp->algorithm->name},
                        {"chunks", row.runnerUp->chunks},
                        {"chosen_params", chosenParamsJson(*row.runnerUp)},
                        {"predicted_us", row.runnerUp->seconds * 1e6}};
    else
      c["runner_up"] = nullptr;
    if (row.measured) {
      const SelectionRecord::Measurement &m = *row.measured;
      json model = nullptr;
      if (row.modelChoice)
        model = {{"algorithm", row.modelChoice->algorithm->name},
                 {"chunks", row.modelChoice->chunks},
                 {"chosen_params", chosenParamsJson(*row.modelChoice)},
                 {"predicted_us", row.modelChoice->seconds * 1e6},
                 {"measured_us", m.modelSeconds < 0
                                     ? json(nullptr)
                                     : json(m.modelSeconds * 1e6)}};
      c["measured"] = {{"file", m.file},
                       {"entry", m.entry},
                       {"bytes_per_rank", m.bytesPerRank},
                       {"measured_us", m.seconds * 1e6},
                       {"candidates", m.candidates},
                       {"model_choice", model}};
    } else {
      c["measured"] = nullptr;
    }
    c["note"] = row.note;
    collectives.push_back(std::move(c));
  }
  doc["collectives"] = std::move(collectives);
  json functions = json::array();
  for (const FunctionReport &f : report.functions) {
    json nodes = json::array();
    for (const GraphNode &n : f.nodes)
      nodes.push_back({{"loc", n.location},
                       {"op", n.name},
                       {"stream", n.communication ? "comm" : "compute"},
                       {"start_us", n.startUs},
                       {"finish_us", n.finishUs},
                       {"duration_us", n.durationUs},
                       {"critical", n.critical},
                       {"cost", n.costNote}});
    functions.push_back({{"name", f.name},
                         {"critical_path_us", f.criticalPathUs},
                         {"nodes", std::move(nodes)}});
  }
  doc["functions"] = std::move(functions);
  return doc.dump(2) + "\n";
}

std::string reportToChromeTrace(const Report &report) {
  json events = json::array();
  int pid = 0;
  for (const FunctionReport &f : report.functions) {
    int functionPid = pid++;
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", functionPid},
                      {"args", {{"name", "func @" + f.name + " (graph)"}}}});
    for (int stream = 0; stream < 2; ++stream)
      events.push_back(
          {{"ph", "M"},
           {"name", "thread_name"},
           {"pid", functionPid},
           {"tid", stream},
           {"args", {{"name", stream ? "communication" : "compute"}}}});
    for (const GraphNode &n : f.nodes)
      events.push_back({{"ph", "X"},
                        {"name", n.name},
                        {"pid", functionPid},
                        {"tid", n.communication ? 1 : 0},
                        {"ts", n.startUs},
                        {"dur", n.durationUs},
                        {"args", {{"loc", n.location}, {"cost", n.costNote}}}});
    // Each simulated collective of the function, at its start in the graph.
    for (const CollectiveRow &row : report.collectives) {
      if (row.function != f.name || !row.simulation || !row.program)
        continue;
      double offset = 0;
      for (const GraphNode &n : f.nodes)
        if (n.communication && n.location == row.location)
          offset = n.startUs;
      std::ostringstream text;
      sim::writeChromeTrace(*row.simulation, *row.program, text);
      json trace = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
      if (trace.is_discarded())
        continue;
      json &inner = trace.is_object() ? trace["traceEvents"] : trace;
      int base = pid;
      int maxPid = pid;
      for (json &event : inner) {
        if (event.contains("pid") && event["pid"].is_number_integer()) {
          int p = base + event["pid"].get<int>();
          event["pid"] = p;
          maxPid = std::max(maxPid, p);
        }
        if (event.contains("ts") && event["ts"].is_number())
          event["ts"] = event["ts"].get<double>() + offset;
        if (event.value("name", "") == "process_name" && event.contains("args"))
          event["args"]["name"] = row.location + " " + row.collective + " " +
                                  event["args"].value("name", "");
        events.push_back(std::move(event));
      }
      pid = maxPid + 1;
    }
  }
  json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  return doc.dump() + "\n";
}

} // namespace collc

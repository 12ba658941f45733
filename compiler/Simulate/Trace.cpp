//===- Trace.cpp - a simulation as a Chrome trace -------------------------===//
//
// Events are written one at a time, so a trace of millions of instructions
// never exists as one JSON tree in memory.
//
//===----------------------------------------------------------------------===//
#include "compiler/Simulate/Trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

namespace collc::sim {

using nlohmann::json;

namespace {

constexpr double kMicroseconds = 1e6;

class EventWriter {
public:
  explicit EventWriter(std::ostream &os) : os_(os) {}
  void write(const json &event) {
    os_ << (first_ ? "\n" : ",\n") << event.dump();
    first_ = false;
  }

private:
  std::ostream &os_;
  bool first_ = true;
};

json metadata(const char *name, int pid, int tid, const std::string &value) {
  json event = {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}};
  event["args"] = {{"name", value}};
  return event;
}

json instructionEvent(const TimelineRecord &record) {
  json args = {{"bytes", record.bytes},
               {"step", record.step},
               {"instruction", record.instruction}};
  bool sends = sched::opcodeSends(record.opcode);
  bool receives = sched::opcodeReceives(record.opcode);
  if (sends || receives)
    args["peer"] = sends ? record.sendPeer : record.recvPeer;
  if (sends && receives)
    args["recv_peer"] = record.recvPeer;
  return {{"name", sched::opcodeName(record.opcode)},
          {"ph", "X"},
          {"pid", record.rank},
          {"tid", record.channel},
          {"ts", record.start * kMicroseconds},
          {"dur", (record.end - record.start) * kMicroseconds},
          {"args", std::move(args)}};
}

/// The links that carried the most bytes, at most `count`, busiest first.
std::vector<size_t> busiestLinks(const SimResult &result, size_t count) {
  std::vector<size_t> links(result.linkBytes.size());
  std::iota(links.begin(), links.end(), 0);
  links.erase(
      std::remove_if(links.begin(), links.end(),
                     [&](size_t l) { return result.linkBytes[l] <= 0; }),
      links.end());
  std::stable_sort(links.begin(), links.end(), [&](size_t a, size_t b) {
    return result.linkBytes[a] > result.linkBytes[b];
  });
  if (links.size() > count)
    links.resize(count);
  return links;
}

void writeLinkCounters(const SimResult &result, int pid,
                       const TraceOptions &options, EventWriter &out) {
  if (result.linkLoad.empty() ||
      result.linkNames.size() != result.linkBytes.size())
    return;
  std::vector<size_t> links = busiestLinks(result, options.counterLinks);
  if (links.empty())
    return;
  std::vector<bool> shown(result.linkBytes.size(), false);
  for (size_t l : links)
    shown[l] = true;
  out.write(metadata("process_name", pid, 0, "links"));
  for (const LinkLoadSample &sample : result.linkLoad) {
    size_t l = size_t(sample.link);
    if (!shown[l])
      continue;
    json event = {{"name", result.linkNames[l]},
                  {"ph", "C"},
                  {"pid", pid},
                  {"ts", sample.time * kMicroseconds}};
    event["args"] = {
        {"utilization", sample.bytesPerSecond / result.linkBandwidth[l]}};
    out.write(event);
  }
}

} // namespace

void writeChromeTrace(const SimResult &result, const sched::Program &program,
                      std::ostream &os, const TraceOptions &options) {
  os << "{\"displayTimeUnit\": \"ns\",\n\"otherData\": "
     << json({{"algorithm", program.algorithm},
              {"collective", sched::collectiveName(program.collective)},
              {"ranks", program.numRanks},
              {"total_time_us", result.totalTime * kMicroseconds}})
            .dump()
     << ",\n\"traceEvents\": [";
  EventWriter out(os);
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    int pid = int(r);
    out.write(metadata("process_name", pid, 0, "rank " + std::to_string(r)));
    for (size_t c = 0; c < program.ranks[r].channels.size(); ++c)
      out.write(
          metadata("thread_name", pid, int(c), "channel " + std::to_string(c)));
  }
  for (const TimelineRecord &record : result.timeline)
    if (record.end >= 0) // else it never ran
      out.write(instructionEvent(record));
  writeLinkCounters(result, program.numRanks, options, out);
  os << "\n]}\n";
}

} // namespace collc::sim

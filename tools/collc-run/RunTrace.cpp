//===- RunTrace.cpp - a run of the CPU executor as a Chrome trace ---------===//
#include "tools/collc-run/RunTrace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

namespace collcrun {

namespace {

/// A JSON string literal.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

} // namespace

std::string writeRunTrace(const std::vector<collrt::TraceEvent> &events,
                          const std::string &title, const std::string &path) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream os(tmp, std::ios::trunc);
    if (!os)
      return "cannot write " + tmp + ": " + std::strerror(errno);
    os << "{\"otherData\": {\"title\": " << quoted(title)
       << ", \"clock\": \"seconds from the start of each rank's run, in "
          "microseconds\"},\n\"traceEvents\": [";
    bool first = true;
    auto write = [&](const std::string &event) {
      os << (first ? "\n" : ",\n") << event;
      first = false;
    };
    std::set<std::pair<int32_t, uint32_t>> threads;
    std::set<int32_t> ranks;
    for (const collrt::TraceEvent &e : events) {
      ranks.insert(e.rank);
      threads.insert({e.rank, e.channel});
    }
    for (int32_t rank : ranks)
      write("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " +
            std::to_string(rank) + ", \"tid\": 0, \"args\": {\"name\": " +
            quoted("rank " + std::to_string(rank)) + "}}");
    for (const auto &[rank, channel] : threads)
      write("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " +
            std::to_string(rank) + ", \"tid\": " + std::to_string(channel) +
            ", \"args\": {\"name\": " +
            quoted("channel " + std::to_string(channel)) + "}}");
    for (const collrt::TraceEvent &e : events) {
      std::string args = "\"tile\": " + std::to_string(e.tile) +
                         ", \"step\": " + std::to_string(e.step) +
                         ", \"instruction\": " + std::to_string(e.instruction) +
                         ", \"bytes\": " + std::to_string(e.bytes) +
                         ", \"waited_us\": " + number(e.waited * 1e6);
      if (e.sendPeer >= 0)
        args += ", \"peer\": " + std::to_string(e.sendPeer);
      if (e.recvPeer >= 0)
        args += std::string(e.sendPeer >= 0 ? ", \"recv_peer\": "
                                            : ", \"peer\": ") +
                std::to_string(e.recvPeer);
      write("{\"name\": " + quoted(e.opcode) + ", \"ph\": \"X\", \"pid\": " +
            std::to_string(e.rank) + ", \"tid\": " + std::to_string(e.channel) +
            ", \"ts\": " + number(e.start * 1e6) + ", \"dur\": " +
            number((e.end - e.start) * 1e6) + ", \"args\": {" + args + "}}");
    }
    os << "\n]}\n";
    os.flush();
    if (!os) {
      std::string why = std::strerror(errno);
      std::remove(tmp.c_str()); // nothing half-written is left
      return "cannot write " + tmp + ": " + why;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return "cannot rename " + tmp + " to " + path + ": " + why;
  }
  return "";
}

std::string rankTracePath(const std::string &path, int32_t rank) {
  std::string tag = ".rank" + std::to_string(rank);
  const std::string json = ".json";
  if (path.size() > json.size() &&
      path.compare(path.size() - json.size(), json.size(), json) == 0)
    return path.substr(0, path.size() - json.size()) + tag + json;
  return path + tag;
}

} // namespace collcrun

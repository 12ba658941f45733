//===- DeadlockCheck.cpp - explain a stuck execution ----------------------===//
//
// Every stuck stream waits for exactly one other stream: the peer that must
// post a send, the receiver that must drain a slot, or the channel that must
// complete a dependency. Following these links from any stuck stream must
// revisit a stream; the links from there on are the wait-for cycle.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/Execution.h"
#include "compiler/Verify/Messages.h"

#include <unordered_map>

namespace collc {
namespace sched {
namespace {

/// Links of a long cycle spelled out before the rest is summarized.
constexpr size_t kShownLinks = 8;

class DeadlockReport {
public:
  DeadlockReport(const VerifyOptions &options, const StreamIndex &streams,
                 const ConnectionTable &table,
                 const std::vector<StreamProgress> &progress,
                 const std::vector<ConnectionProgress> &connections)
      : options(options), streams(streams), table(table), progress(progress),
        connections(connections) {}

  std::string message() const {
    uint32_t stuck = 0, first = UINT32_MAX;
    for (uint32_t s = 0; s < streams.streamCount(); ++s) {
      if (progress[s].pc < streams.length(s)) {
        ++stuck;
        first = std::min(first, s);
      }
    }
    std::vector<uint32_t> cycle = findCycle(first);

    std::string text =
        "deadlock: " + position(cycle[0]) + " " + waitsFor(cycle[0]);
    size_t shown = std::min(cycle.size(), kShownLinks);
    for (size_t i = 1; i < shown; ++i)
      text += ", but " + streamName(cycle[i]) + " is stuck at " +
              position(cycle[i], false) + ", which " + waitsFor(cycle[i]);
    if (cycle.size() > shown)
      text += ", and so on through " +
              countOf(cycle.size() - shown, "more channel stream") +
              " back to " + streamName(cycle[0]);
    else
      text += ", but " + streamName(cycle[0]) + " is stuck as said";
    text += " (a wait-for cycle of " + countOf(cycle.size(), "channel stream") +
            "; " + std::to_string(stuck) + " of " +
            std::to_string(streams.streamCount()) +
            " channel streams are stuck)";
    return text;
  }

private:
  /// The stream `s` waits for.
  uint32_t next(uint32_t s) const {
    const StreamProgress &p = progress[s];
    switch (p.wait) {
    case WaitKind::Dependency:
      return p.target;
    case WaitKind::Recv:
      return table.connections[p.target].senderStream;
    case WaitKind::SendSlot:
      return table.connections[p.target].receiverStream;
    case WaitKind::Nothing:
      break;
    }
    return s;
  }

  std::vector<uint32_t> findCycle(uint32_t start) const {
    std::vector<uint32_t> path;
    std::unordered_map<uint32_t, size_t> seen;
    uint32_t s = start;
    while (seen.emplace(s, path.size()).second) {
      path.push_back(s);
      s = next(s);
    }
    return std::vector<uint32_t>(path.begin() + seen[s], path.end());
  }

  std::string streamName(uint32_t s) const {
    return "rank " + std::to_string(streams.rankOf(s)) + " channel " +
           std::to_string(streams.channelOf(s));
  }

  /// "rank 0 channel 0 step 1 (instruction 0: recv from rank 1)", or
  /// without the rank and channel ("step 1 (...)") for "is stuck at".
  std::string position(uint32_t s, bool named = true) const {
    uint32_t pc = progress[s].pc;
    const Instruction &instruction = streams.instruction(s, pc);
    std::string text = "step " + std::to_string(instruction.step) +
                       " (instruction " + std::to_string(pc) + ": " +
                       describeInstruction(instruction) + ")";
    return named ? streamName(s) + " " + text : text;
  }

  /// "step 1, instruction 4" of instruction id `id`.
  std::string stepOf(uint32_t id) const {
    uint32_t s = streams.streamOf(id), index = streams.indexOf(id);
    return "step " + std::to_string(streams.instruction(s, index).step) +
           ", instruction " + std::to_string(index);
  }

  std::string waitsFor(uint32_t s) const {
    const StreamProgress &p = progress[s];
    if (p.wait == WaitKind::Dependency) {
      const Instruction &awaited = streams.instruction(p.target, p.instruction);
      return "waits for " + streamName(p.target) +
             " to complete its instruction " + std::to_string(p.instruction) +
             " (step " + std::to_string(awaited.step) + ": " +
             describeInstruction(awaited) + ")";
    }
    const Connection &c = table.connections[p.target];
    uint32_t k = connections[p.target].received;
    if (p.wait == WaitKind::Recv)
      return "waits for " + streamName(c.senderStream) + " to post its send #" +
             std::to_string(k + 1) + " to rank " + std::to_string(c.receiver) +
             " (" + stepOf(table.sends[c.firstSend + k]) + ")";
    return "waits for " + streamName(c.receiverStream) + " to post its recv #" +
           std::to_string(k + 1) + " from rank " + std::to_string(c.sender) +
           " (" + stepOf(table.recvs[c.firstRecv + k]) + "), which frees " +
           (options.connectionSlots == 1
                ? std::string("the only slot")
                : "one of the " + countOf(options.connectionSlots, "slot")) +
           " of that connection";
  }

  const VerifyOptions &options;
  const StreamIndex &streams;
  const ConnectionTable &table;
  const std::vector<StreamProgress> &progress;
  const std::vector<ConnectionProgress> &connections;
};

} // namespace

void reportDeadlock(const VerifyOptions &options, const StreamIndex &streams,
                    const ConnectionTable &table,
                    const std::vector<StreamProgress> &progress,
                    const std::vector<ConnectionProgress> &connections,
                    ErrorSink &errors) {
  DeadlockReport report(options, streams, table, progress, connections);
  errors.report(VerifyErrorKind::Deadlock, report.message());
}

} // namespace sched
} // namespace collc

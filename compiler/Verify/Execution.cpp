//===- Execution.cpp - run a program on symbolic data ---------------------===//
//
// Runs every (rank, channel) stream as far as it can, with a ready queue:
// a stream that blocks records what it waits for and is requeued only by
// the event that unblocks it (a send posted, a slot drained, an instruction
// completed), so the cost is linear in the instruction count.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/Execution.h"
#include "compiler/Verify/Checks.h"
#include "compiler/Verify/RaceCheck.h"
#include "compiler/Verify/SymbolicState.h"

#include <deque>
#include <functional>

namespace collc {
namespace sched {
namespace {

class Executor {
public:
  Executor(const Program &program, const VerifyOptions &options,
           const StreamIndex &streams, const ConnectionTable &table,
           SymbolicState &state, RaceCheck *races, ErrorSink &errors)
      : program(program), options(options), streams(streams), table(table),
        state(state), races(races), errors(errors),
        progress(streams.streamCount()), connections(table.connections.size()),
        messageOffset(table.sends.size()), dependents(streams.streamCount()) {}

  bool run() {
    for (uint32_t s = 0; s < streams.streamCount(); ++s)
      wake(s);
    while (!ready.empty()) {
      uint32_t s = ready.front();
      ready.pop_front();
      progress[s].queued = false;
      advance(s);
    }
    for (uint32_t s = 0; s < streams.streamCount(); ++s) {
      if (progress[s].pc < streams.length(s)) {
        reportDeadlock(options, streams, table, progress, connections, errors);
        return false;
      }
    }
    return true;
  }

private:
  /// (instruction, waiting stream), a min-heap on the instruction.
  using Waiter = std::pair<uint32_t, uint32_t>;

  void wake(uint32_t s) {
    progress[s].wait = WaitKind::Nothing;
    if (progress[s].queued)
      return;
    progress[s].queued = true;
    ready.push_back(s);
  }

  void block(uint32_t s, WaitKind kind, uint32_t target,
             uint32_t instruction = 0) {
    progress[s].wait = kind;
    progress[s].target = target;
    progress[s].instruction = instruction;
  }

  /// Whether the dependencies of `instruction` have completed; if not,
  /// blocks `s` on the first that has not.
  bool dependenciesDone(uint32_t s, uint32_t rank,
                        const Instruction &instruction) {
    const std::vector<Dependency> &deps = program.ranks[rank].dependencies;
    for (uint32_t d = 0; d < instruction.depCount; ++d) {
      const Dependency &dep = deps[instruction.depBegin + d];
      uint32_t other = streams.stream(rank, dep.channel);
      if (progress[other].pc > dep.instruction)
        continue;
      block(s, WaitKind::Dependency, other, dep.instruction);
      std::vector<Waiter> &heap = dependents[other];
      heap.emplace_back(dep.instruction, s);
      std::push_heap(heap.begin(), heap.end(), std::greater<Waiter>());
      return false;
    }
    return true;
  }

  /// Runs stream `s` until it blocks or ends.
  void advance(uint32_t s) {
    uint32_t rank = streams.rankOf(s), channel = streams.channelOf(s);
    uint32_t length = streams.length(s);
    StreamProgress &self = progress[s];
    while (self.pc < length) {
      uint32_t index = self.pc;
      const Instruction &instruction = streams.instruction(s, index);
      uint32_t id = streams.id(s, index);
      if (instruction.depCount && !dependenciesDone(s, rank, instruction))
        return;

      const SymbolicValue *received = nullptr;
      uint32_t recvEntry = ConnectionTable::kNone;
      uint32_t in = table.recvConnection[id];
      if (in != ConnectionTable::kNone) {
        ConnectionProgress &c = connections[in];
        if (c.posted <= c.received) {
          c.receiverWaits = true;
          return block(s, WaitKind::Recv, in);
        }
        recvEntry = table.connections[in].firstSend + c.received;
        received = state.message(messageOffset[recvEntry]);
      }
      uint32_t sendEntry = ConnectionTable::kNone;
      uint32_t out = table.sendConnection[id];
      if (out != ConnectionTable::kNone) {
        ConnectionProgress &c = connections[out];
        if (c.posted - c.received >= options.connectionSlots) {
          c.senderWaits = true;
          return block(s, WaitKind::SendSlot, out);
        }
        sendEntry = table.connections[out].firstSend + c.posted;
      }
      if (races)
        races->execute(s, index, recvEntry, sendEntry, errors);

      uint64_t posted =
          state.execute({rank, channel, index, instruction}, received, errors);
      ++self.pc;
      if (in != ConnectionTable::kNone) {
        ConnectionProgress &c = connections[in];
        ++c.received;
        if (c.senderWaits) {
          c.senderWaits = false;
          wake(table.connections[in].senderStream);
        }
      }
      if (out != ConnectionTable::kNone) {
        ConnectionProgress &c = connections[out];
        messageOffset[sendEntry] = posted;
        ++c.posted;
        if (c.receiverWaits) {
          c.receiverWaits = false;
          wake(table.connections[out].receiverStream);
        }
      }
      std::vector<Waiter> &heap = dependents[s];
      while (!heap.empty() && heap.front().first < self.pc) {
        wake(heap.front().second);
        std::pop_heap(heap.begin(), heap.end(), std::greater<Waiter>());
        heap.pop_back();
      }
    }
  }

  const Program &program;
  const VerifyOptions &options;
  const StreamIndex &streams;
  const ConnectionTable &table;
  SymbolicState &state;
  RaceCheck *races; ///< nullptr: no race check
  ErrorSink &errors;

  std::vector<StreamProgress> progress;
  std::vector<ConnectionProgress> connections;
  /// Per entry of table.sends: where its message is (SymbolicState).
  std::vector<uint64_t> messageOffset;
  /// Per stream: streams blocked until it completes an instruction.
  std::vector<std::vector<Waiter>> dependents;
  std::deque<uint32_t> ready;
};

} // namespace

bool executeProgram(const Program &program, const VerifyOptions &options,
                    const StreamIndex &streams, const ConnectionTable &table,
                    SymbolicState &state, RaceCheck *races, ErrorSink &errors) {
  return Executor(program, options, streams, table, state, races, errors).run();
}

} // namespace sched
} // namespace collc

//===- WellFormed.cpp - is the program a program at all? ------------------===//
//
// Checks everything later stages index with: rank counts, peers, chunk
// ranges, opcode fields, dependencies, buffer shapes and send counts.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/Checks.h"
#include "compiler/Verify/Messages.h"

namespace collc {
namespace sched {
namespace {

bool isRooted(Collective collective) {
  return collective == Collective::Broadcast ||
         collective == Collective::Reduce ||
         collective == Collective::Scatter ||
         collective == Collective::Gather || collective == Collective::SendRecv;
}

class WellFormedChecker {
public:
  WellFormedChecker(const Program &program, const VerifyOptions &options,
                    ErrorSink &errors)
      : program(program), options(options), errors(errors) {}

  bool check() {
    if (!checkHeader())
      return false;
    for (uint32_t r = 0; r < numRanks; ++r)
      checkRank(r);
    return errors.reported(VerifyErrorKind::Malformed) == 0;
  }

private:
  void error(std::string message) {
    errors.report(VerifyErrorKind::Malformed, std::move(message));
  }
  bool wants() const { return errors.wants(VerifyErrorKind::Malformed); }

  std::string rankRange() const {
    return numRanks == 1 ? "rank 0"
                         : "ranks 0.." + std::to_string(numRanks - 1);
  }

  /// Checks what every other check indexes with; false when instructions
  /// cannot even be looked at.
  bool checkHeader() {
    bool usable = true;
    if (options.connectionSlots == 0)
      error("VerifyOptions::connectionSlots is 0, but a connection needs at "
            "least one slot");
    if (program.numRanks < 1 ||
        uint32_t(program.numRanks) > kMaxVerifiedRanks) {
      error("numRanks is " + std::to_string(program.numRanks) +
            ", but the verifier handles 1 to " +
            std::to_string(kMaxVerifiedRanks) + " ranks");
      return false;
    }
    numRanks = uint32_t(program.numRanks);
    if (program.ranks.size() != numRanks) {
      error("numRanks is " + std::to_string(numRanks) +
            ", but the program has " + countOf(program.ranks.size(), "rank") +
            " in `ranks`");
      return false;
    }
    if (program.chunksPerPart == 0) {
      error("chunksPerPart is 0, but a part needs at least one chunk");
      usable = false;
    }
    const char *name = collectiveName(program.collective);
    bool permutation =
        program.collective == Collective::SendRecv && !program.sendTo.empty();
    if (!program.sendTo.empty() && program.collective != Collective::SendRecv)
      error(std::string(name) + " takes no sendTo, but the program has " +
            std::to_string(program.sendTo.size()) + " sendTo entries");
    if (isRooted(program.collective) && !permutation &&
        (program.root < 0 || uint32_t(program.root) >= numRanks)) {
      error(std::string(name) + " needs a root in " + rankRange() +
            ", but root is " + std::to_string(program.root));
      usable = false;
    }
    if (permutation) {
      usable &= checkSendTo();
    } else if (program.collective == Collective::SendRecv) {
      if (program.peer < 0 || uint32_t(program.peer) >= numRanks) {
        error(std::string(name) + " needs a peer in " + rankRange() +
              ", but peer is " + std::to_string(program.peer));
        usable = false;
      } else if (program.peer == program.root) {
        error(std::string(name) + " needs a peer other than its root, but " +
              "both are rank " + std::to_string(program.root));
      }
    }
    if (program.chunksPerPart != 0) {
      for (Buffer buffer : {Buffer::Input, Buffer::Output}) {
        uint64_t required = CollectiveLayout::requiredChunks(program, buffer);
        if (required != program.buffers.chunks(buffer))
          error(std::string(name) + " with " + countOf(numRanks, "rank") +
                " and " + countOf(program.chunksPerPart, "chunk") +
                " per part needs " + std::to_string(required) + " " +
                bufferName(buffer) + " chunks, but the program has " +
                std::to_string(program.buffers.chunks(buffer)));
      }
    }
    if (program.collective == Collective::AllToAllV)
      usable &= checkSendCounts();

    uint64_t instructions = 0;
    for (uint32_t r = 0; r < numRanks; ++r) {
      size_t channels = program.ranks[r].channels.size();
      if (channels > kMaxVerifiedChannels) {
        error("rank " + std::to_string(r) + " has " +
              countOf(channels, "channel") +
              ", but the verifier handles at "
              "most " +
              std::to_string(kMaxVerifiedChannels));
        usable = false;
      }
      for (const ChannelProgram &channel : program.ranks[r].channels)
        instructions += channel.instructions.size();
    }
    if (instructions >= UINT32_MAX) {
      error("the program has " + std::to_string(instructions) +
            " instructions, but the verifier handles fewer than 2^32");
      usable = false;
    }
    const BufferShape &shape = program.buffers;
    uint64_t slots = (uint64_t(shape.inputChunks) + shape.outputChunks +
                      shape.scratchChunks) *
                     numRanks;
    if (slots >= (uint64_t(1) << 32)) {
      error("the buffers of all ranks have " + std::to_string(slots) +
            " chunks in all, but the verifier handles fewer than 2^32");
      usable = false;
    }
    return usable;
  }

  /// send_recv's permutation: one entry per rank, each -1 or another rank,
  /// no rank receiving twice; root and peer, when set, one of its pairs.
  bool checkSendTo() {
    const std::vector<int32_t> &sendTo = program.sendTo;
    if (sendTo.size() != numRanks) {
      error("send_recv with " + countOf(numRanks, "rank") + " needs " +
            std::to_string(numRanks) + " sendTo entries, but the program has " +
            std::to_string(sendTo.size()));
      return false;
    }
    bool valid = true;
    std::vector<int32_t> sender(numRanks, -1);
    for (uint32_t r = 0; r < numRanks; ++r) {
      int32_t to = sendTo[r];
      if (to == -1)
        continue;
      if (to < 0 || uint32_t(to) >= numRanks) {
        error("send_recv's sendTo[" + std::to_string(r) + "] is " +
              std::to_string(to) + ", but it must be -1 (no send) or in " +
              rankRange());
        valid = false;
      } else if (uint32_t(to) == r) {
        error("send_recv's sendTo[" + std::to_string(r) + "] is " +
              std::to_string(to) + ", but a rank cannot send to itself");
        valid = false;
      } else if (sender[to] >= 0) {
        error("send_recv's sendTo has ranks " + std::to_string(sender[to]) +
              " and " + std::to_string(r) + " both sending to rank " +
              std::to_string(to) + ", but a rank receives from one at most");
        valid = false;
      } else {
        sender[to] = int32_t(r);
      }
    }
    if (program.root != -1 || program.peer != -1) {
      bool pair = program.root >= 0 && uint32_t(program.root) < numRanks &&
                  sendTo[program.root] == program.peer;
      if (!pair)
        error("send_recv's root " + std::to_string(program.root) +
              " and peer " + std::to_string(program.peer) +
              " must be -1 or a pair of its sendTo");
    }
    return valid;
  }

  bool checkSendCounts() {
    uint64_t required = uint64_t(numRanks) * numRanks;
    if (program.sendCounts.size() != required) {
      error("all_to_all_v with " + countOf(numRanks, "rank") + " needs " +
            std::to_string(required) + " send counts, but the program has " +
            std::to_string(program.sendCounts.size()));
      return false;
    }
    bool valid = true;
    for (size_t i = 0; i < program.sendCounts.size(); ++i) {
      if (program.sendCounts[i] >= 0)
        continue;
      error("the send count from rank " + std::to_string(i / numRanks) +
            " to rank " + std::to_string(i % numRanks) + " is " +
            std::to_string(program.sendCounts[i]) +
            ", but counts cannot be negative");
      valid = false;
    }
    return valid;
  }

  void checkRank(uint32_t rank) {
    const RankProgram &rankProgram = program.ranks[rank];
    for (uint32_t c = 0; c < rankProgram.channels.size(); ++c) {
      const auto &instructions = rankProgram.channels[c].instructions;
      for (uint32_t i = 0; i < instructions.size(); ++i)
        checkInstruction(rank, c, i, instructions[i]);
    }
  }

  /// Builds "<location>: <problem>" only when the message will be kept.
  template <typename Problem>
  void report(uint32_t rank, uint32_t channel, uint32_t index,
              const Instruction &instruction, Problem problem) {
    if (!wants()) {
      errors.count(VerifyErrorKind::Malformed);
      return;
    }
    error(instructionLocation(rank, channel, index, instruction) + ": " +
          problem());
  }

  void checkInstruction(uint32_t rank, uint32_t channel, uint32_t index,
                        const Instruction &instruction) {
    auto problem = [&](auto text) {
      report(rank, channel, index, instruction, text);
    };
    Opcode op = instruction.opcode;
    if (uint8_t(op) > uint8_t(Opcode::RecvReduceCopySend)) {
      problem([&] { return "unknown opcode " + std::to_string(int(op)); });
      return;
    }
    checkPeer(rank, instruction.sendPeer, opcodeSends(op), "sends to",
              "sendPeer", problem);
    checkPeer(rank, instruction.recvPeer, opcodeReceives(op), "receives from",
              "recvPeer", problem);
    if (opcodeReadsSrc(op))
      checkRange(instruction.src, "reads", problem);
    if (opcodeWritesDst(op))
      checkRange(instruction.dst, "writes", problem);
    if (std::string rule = checkRangeCounts(instruction); !rule.empty())
      problem([&] { return rule; });
    checkDependencies(rank, channel, index, instruction, problem);
  }

  template <typename Problem>
  void checkPeer(uint32_t rank, int32_t peer, bool used, const char *verb,
                 const char *field, Problem &problem) {
    if (!used) {
      if (peer != -1)
        problem([&] {
          return std::string("sets ") + field + " to " + std::to_string(peer) +
                 ", but the opcode does not use it (it must be -1)";
        });
      return;
    }
    if (peer == -1)
      problem([&] { return std::string("has no peer (") + field + " is -1)"; });
    else if (peer < 0 || uint32_t(peer) >= numRanks)
      problem([&] {
        return std::string(verb) + " rank " + std::to_string(peer) +
               ", outside " + rankRange();
      });
    else if (uint32_t(peer) == rank)
      problem([&] { return std::string(verb) + " itself"; });
  }

  template <typename Problem>
  void checkRange(const ChunkRange &range, const char *verb, Problem &problem) {
    if (uint8_t(range.buffer) > uint8_t(Buffer::Scratch)) {
      problem([&] {
        return std::string(verb) + " unknown buffer " +
               std::to_string(int(range.buffer));
      });
      return;
    }
    uint32_t chunks = program.buffers.chunks(range.buffer);
    if (range.count == 0)
      problem([&] {
        return std::string(verb) + " no chunks (an empty " +
               bufferName(range.buffer) + " range)";
      });
    else if (uint64_t(range.index) + range.count > chunks)
      problem([&] {
        return std::string(verb) + " " + describeRange(range) + ", but the " +
               bufferName(range.buffer) + " buffer has " +
               countOf(chunks, "chunk");
      });
  }

  template <typename Problem>
  void checkDependencies(uint32_t rank, uint32_t channel, uint32_t index,
                         const Instruction &instruction, Problem &problem) {
    const RankProgram &rankProgram = program.ranks[rank];
    if (instruction.depCount == 0)
      return;
    if (uint64_t(instruction.depBegin) + instruction.depCount >
        rankProgram.dependencies.size()) {
      problem([&] {
        return "has dependencies " + std::to_string(instruction.depBegin) +
               ".." +
               std::to_string(uint64_t(instruction.depBegin) +
                              instruction.depCount - 1) +
               ", but the rank has only " +
               std::to_string(rankProgram.dependencies.size()) +
               " dependencies";
      });
      return;
    }
    for (uint32_t d = 0; d < instruction.depCount; ++d) {
      const Dependency &dep =
          rankProgram.dependencies[instruction.depBegin + d];
      if (dep.channel >= rankProgram.channels.size()) {
        problem([&] {
          return "depends on channel " + std::to_string(dep.channel) +
                 ", but rank " + std::to_string(rank) + " has " +
                 countOf(rankProgram.channels.size(), "channel");
        });
        continue;
      }
      size_t length = rankProgram.channels[dep.channel].instructions.size();
      if (dep.instruction >= length)
        problem([&] {
          return "depends on channel " + std::to_string(dep.channel) +
                 " instruction " + std::to_string(dep.instruction) +
                 ", but that channel has " + countOf(length, "instruction");
        });
      else if (dep.channel == channel && dep.instruction == index)
        problem([&] { return std::string("depends on itself"); });
      else if (dep.channel == channel && dep.instruction > index)
        problem([&] {
          return "depends on instruction " + std::to_string(dep.instruction) +
                 " of its own channel, which comes after it";
        });
    }
  }

  const Program &program;
  const VerifyOptions &options;
  ErrorSink &errors;
  uint32_t numRanks = 0;
};

} // namespace

bool checkWellFormed(const Program &program, const VerifyOptions &options,
                     ErrorSink &errors) {
  return WellFormedChecker(program, options, errors).check();
}

} // namespace sched
} // namespace collc

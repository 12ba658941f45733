//===- ProgramSummary.cpp - a Program as compact text ---------------------===//
#include "dialects/Sched/Transforms/ProgramSummary.h"

#include "llvm/ADT/STLExtras.h"

using namespace collc::sched;

/// "1 channel", "2 channels".
static std::string plural(size_t count, llvm::StringRef noun) {
  return std::to_string(count) + " " + noun.str() + (count == 1 ? "" : "s");
}

void collc::sched::printInstruction(llvm::raw_ostream &os,
                                    const Instruction &instruction,
                                    const RankProgram &rank) {
  Opcode opcode = instruction.opcode;
  os << opcodeName(opcode);
  if (opcodeReceives(opcode))
    os << " from " << instruction.recvPeer;
  if (opcodeSends(opcode))
    os << " to " << instruction.sendPeer;
  if (opcodeReadsSrc(opcode))
    os << " src = " << bufferName(instruction.src.buffer) << '['
       << instruction.src.index << ']';
  if (opcodeWritesDst(opcode))
    os << " dst = " << bufferName(instruction.dst.buffer) << '['
       << instruction.dst.index << ']';
  uint32_t count = chunkCount(instruction);
  if (count != 1)
    os << " count = " << count;
  if (uint32_t fanin = reduceFanin(instruction); fanin > 1)
    os << " fanin = " << fanin;
  if (instruction.step != 0)
    os << " step = " << instruction.step;
  if (instruction.depCount) {
    os << " after = [";
    for (uint32_t d = 0; d < instruction.depCount; ++d) {
      const Dependency &dependency =
          rank.dependencies[instruction.depBegin + d];
      os << (d ? ", " : "") << "(channel " << dependency.channel << ", index "
         << dependency.instruction << ')';
    }
    os << ']';
  }
}

void collc::sched::printProgramSummary(llvm::raw_ostream &os,
                                       const Program &program,
                                       const SummaryOptions &options) {
  os << collectiveName(program.collective) << " \"" << program.algorithm
     << "\": n = " << program.numRanks << ", k = " << program.chunksPerPart;
  if (program.root >= 0)
    os << ", root = " << program.root;
  if (program.peer >= 0)
    os << ", peer = " << program.peer;
  if (program.root < 0 && !program.sendTo.empty()) {
    os << ", send_to = [";
    llvm::interleaveComma(program.sendTo, os);
    os << ']';
  }
  os << ", buffers input " << program.buffers.inputChunks << " output "
     << program.buffers.outputChunks << " scratch "
     << program.buffers.scratchChunks << ", "
     << plural(program.instructionCount(), "instruction") << '\n';
  int64_t shown = 0;
  for (auto [rankId, rank] : llvm::enumerate(program.ranks)) {
    if (options.ranks >= 0 && shown++ >= options.ranks)
      break;
    size_t count = 0;
    for (const ChannelProgram &channel : rank.channels)
      count += channel.instructions.size();
    os << "rank " << rankId << ": " << plural(rank.channels.size(), "channel")
       << ", " << plural(count, "instruction") << '\n';
    for (auto [channelId, channel] : llvm::enumerate(rank.channels)) {
      os << "  channel " << channelId << ": "
         << plural(channel.instructions.size(), "instruction") << '\n';
      for (auto [index, instruction] : llvm::enumerate(channel.instructions)) {
        if (options.instructions >= 0 &&
            static_cast<int64_t>(index) >= options.instructions)
          break;
        os << "    " << index << ": ";
        printInstruction(os, instruction, rank);
        os << '\n';
      }
    }
  }
}

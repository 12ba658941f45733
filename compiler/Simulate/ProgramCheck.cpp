//===- ProgramCheck.cpp - what the simulator needs of a program -----------===//
//
// Not sched-verify: only the facts without which the simulator would index
// out of range. A message names the first problem found.
//
//===----------------------------------------------------------------------===//
#include "compiler/Simulate/ProgramIndex.h"

namespace collc::sim {

using sched::Instruction;

namespace {

std::string where(size_t rank, size_t channel, size_t index) {
  return "rank " + std::to_string(rank) + " channel " +
         std::to_string(channel) + " instruction " + std::to_string(index) +
         ": ";
}

/// "" or what is wrong with a range the instruction uses.
std::string checkRange(const sched::Program &program,
                       const sched::ChunkRange &range, const char *role) {
  uint64_t end = uint64_t(range.index) + range.count;
  uint32_t chunks = program.buffers.chunks(range.buffer);
  if (end <= chunks)
    return "";
  return std::string(role) + " chunks " + std::to_string(range.index) + ".." +
         std::to_string(end - 1) + " are outside the " +
         sched::bufferName(range.buffer) + " buffer of " +
         std::to_string(chunks) + " chunks";
}

std::string checkInstruction(const sched::Program &program,
                             const sched::RankProgram &rank,
                             const Instruction &in) {
  int32_t n = program.numRanks;
  bool sends = sched::opcodeSends(in.opcode);
  bool receives = sched::opcodeReceives(in.opcode);
  if (sends != (in.sendPeer >= 0) || in.sendPeer >= n)
    return "send peer " + std::to_string(in.sendPeer) + " does not fit " +
           sched::opcodeName(in.opcode) + " in a group of " + std::to_string(n);
  if (receives != (in.recvPeer >= 0) || in.recvPeer >= n)
    return "recv peer " + std::to_string(in.recvPeer) + " does not fit " +
           sched::opcodeName(in.opcode) + " in a group of " + std::to_string(n);
  if (sched::opcodeReadsSrc(in.opcode)) {
    std::string problem = checkRange(program, in.src, "src");
    if (!problem.empty())
      return problem;
  }
  if (sched::opcodeWritesDst(in.opcode)) {
    std::string problem = checkRange(program, in.dst, "dst");
    if (!problem.empty())
      return problem;
  }
  if (uint64_t(in.depBegin) + in.depCount > rank.dependencies.size())
    return "dependencies " + std::to_string(in.depBegin) + "+" +
           std::to_string(in.depCount) + " are outside the rank's " +
           std::to_string(rank.dependencies.size());
  for (uint32_t d = 0; d < in.depCount; ++d) {
    const sched::Dependency &dep = rank.dependencies[in.depBegin + d];
    if (dep.channel >= rank.channels.size() ||
        dep.instruction >= rank.channels[dep.channel].instructions.size())
      return "depends on channel " + std::to_string(dep.channel) +
             " instruction " + std::to_string(dep.instruction) +
             ", which does not exist";
  }
  return "";
}

} // namespace

std::string checkProgram(const sched::Program &program) {
  if (program.numRanks <= 0 || size_t(program.numRanks) != program.ranks.size())
    return "the program has " + std::to_string(program.ranks.size()) +
           " rank programs for a group of " + std::to_string(program.numRanks);
  if (program.collective == sched::Collective::AllToAllV &&
      program.sendCounts.size() !=
          size_t(program.numRanks) * size_t(program.numRanks))
    return "all_to_all_v needs " +
           std::to_string(size_t(program.numRanks) * program.numRanks) +
           " send counts, but the program has " +
           std::to_string(program.sendCounts.size());
  if (program.instructionCount() >= kNone)
    return "the program has more than 2^32 - 2 instructions";
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    const sched::RankProgram &rank = program.ranks[r];
    if (rank.channels.size() > UINT16_MAX)
      return "rank " + std::to_string(r) + " has " +
             std::to_string(rank.channels.size()) +
             " channels; at most 65535 are supported";
    for (size_t c = 0; c < rank.channels.size(); ++c) {
      const auto &stream = rank.channels[c].instructions;
      for (size_t i = 0; i < stream.size(); ++i) {
        std::string problem = checkInstruction(program, rank, stream[i]);
        if (!problem.empty())
          return where(r, c, i) + problem;
      }
    }
  }
  return "";
}

} // namespace collc::sim

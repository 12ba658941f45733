//===- PlanNames.cpp - the plan's name tables and connection summary ------===//
//
// The plan format spells opcodes, collectives and buffers with sched's names
// (Program.h; the opcodes' are collrt/Opcodes.h's table); parsing walks the
// same functions, so the writer and the reader cannot disagree.
//
//===----------------------------------------------------------------------===//
#include "collrt/Plan.h"

#include <algorithm>
#include <map>
#include <utility>

namespace collrt {

namespace sched = collc::sched;

bool parseOpcode(std::string_view name, sched::Opcode *opcode) {
  return opcodeFromName(name.data(), name.size(), opcode);
}

bool parseCollective(std::string_view name, sched::Collective *collective) {
  for (int i = 0; i <= int(sched::Collective::SendRecv); ++i) {
    auto candidate = static_cast<sched::Collective>(i);
    if (name == sched::collectiveName(candidate)) {
      *collective = candidate;
      return true;
    }
  }
  return false;
}

bool parseBuffer(std::string_view name, sched::Buffer *buffer) {
  for (int i = 0; i <= int(sched::Buffer::Scratch); ++i) {
    auto candidate = static_cast<sched::Buffer>(i);
    if (name == sched::bufferName(candidate)) {
      *buffer = candidate;
      return true;
    }
  }
  return false;
}

const sched::ChunkRange &messageRange(const sched::Instruction &instruction) {
  return sched::opcodeWritesDst(instruction.opcode) ? instruction.dst
                                                    : instruction.src;
}

RankConnections rankConnections(const sched::Program &program, int32_t rank) {
  std::map<std::pair<int32_t, uint32_t>, uint64_t> sends, recvs;
  if (rank >= 0 && size_t(rank) < program.ranks.size()) {
    const sched::RankProgram &rankProgram = program.ranks[size_t(rank)];
    for (uint32_t c = 0; c < rankProgram.channels.size(); ++c)
      for (const sched::Instruction &instruction :
           rankProgram.channels[c].instructions) {
        if (sched::opcodeSends(instruction.opcode))
          ++sends[{instruction.sendPeer, c}];
        if (sched::opcodeReceives(instruction.opcode))
          ++recvs[{instruction.recvPeer, c}];
      }
  }
  RankConnections result;
  for (const auto &[key, count] : sends)
    result.send.push_back({key.first, key.second, count});
  for (const auto &[key, count] : recvs)
    result.recv.push_back({key.first, key.second, count});
  return result;
}

} // namespace collrt

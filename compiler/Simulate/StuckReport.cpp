//===- StuckReport.cpp - say why a simulated program stopped --------------===//
//
// A program that passed sched-verify never gets stuck; one that did not can.
// The message names the first stuck stream and what it waits for, in the
// words of sched-verify's messages (compiler/Verify/README.md).
//
//===----------------------------------------------------------------------===//
#include "compiler/Simulate/Engine.h"

namespace collc::sim {

namespace {

std::string streamName(const ProgramIndex &index, uint32_t s) {
  return "rank " + std::to_string(index.rankOf(s)) + " channel " +
         std::to_string(index.channelOf(s));
}

} // namespace

std::string Engine::waitReason(uint32_t s) const {
  uint32_t rank = index_.rankOf(s), channel = index_.channelOf(s);
  const sched::Instruction &in = index_.instruction(s, pc_[s]);
  const auto &deps = index_.program().ranks[rank].dependencies;
  for (uint32_t d = 0; d < in.depCount; ++d) {
    const sched::Dependency &dep = deps[in.depBegin + d];
    if (pc_[index_.stream(rank, dep.channel)] <= dep.instruction)
      return "waits for rank " + std::to_string(rank) + " channel " +
             std::to_string(dep.channel) + " to complete instruction " +
             std::to_string(dep.instruction);
  }
  uint32_t id = index_.id(s, pc_[s]);
  uint32_t c = index_.recvConnection(id);
  std::string peer = "rank " + std::to_string(in.recvPeer) + " channel " +
                     std::to_string(channel);
  if (sched::opcodeReceives(in.opcode) && c == kNone)
    return "waits for data from " + peer + ", which never sends to it";
  if (sched::opcodeReceives(in.opcode) && delivered_[c] <= received_[c])
    return "waits for " + peer + " to send its send #" +
           std::to_string(received_[c] + 1) + " to rank " +
           std::to_string(rank);
  c = index_.sendConnection(id);
  if (c != kNone)
    return "waits for a free slot: rank " + std::to_string(in.sendPeer) +
           " channel " + std::to_string(channel) + " has received " +
           std::to_string(received_[c]) + " of the " +
           std::to_string(posted_[c]) + " sends posted to it";
  return "is ready but did not run";
}

void Engine::reportStuck() {
  uint32_t stuck = 0, first = kNone;
  for (uint32_t s = 0; s < streams_; ++s) {
    if (pc_[s] >= index_.length(s))
      continue;
    ++stuck;
    if (first == kNone)
      first = s;
  }
  const sched::Instruction &in = index_.instruction(first, pc_[first]);
  result_.error =
      "stuck: " + std::to_string(stuck) + " of " + std::to_string(streams_) +
      " channel streams did not finish; " + streamName(index_, first) +
      " step " + std::to_string(in.step) + " (instruction " +
      std::to_string(pc_[first]) + ": " + sched::opcodeName(in.opcode) + ") " +
      waitReason(first);
}

} // namespace collc::sim

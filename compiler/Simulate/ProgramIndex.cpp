//===- ProgramIndex.cpp - a program flattened for simulation --------------===//
#include "compiler/Simulate/ProgramIndex.h"

#include <algorithm>

namespace collc::sim {

using sched::Instruction;
using sched::opcodeReadsSrc;
using sched::opcodeReceives;
using sched::opcodeSends;

ProgramIndex::ProgramIndex(const sched::Program &program, int64_t inputElements,
                           unsigned elementBytes)
    : program_(program) {
  rankFirstStream_.push_back(0);
  instructionBegin_.push_back(0);
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    for (const sched::ChannelProgram &channel : program.ranks[r].channels) {
      streamRank_.push_back(uint32_t(r));
      instructionBegin_.push_back(instructionBegin_.back() +
                                  uint32_t(channel.instructions.size()));
    }
    rankFirstStream_.push_back(uint32_t(streamRank_.size()));
  }

  sched::ChunkLayout layout(program, inputElements);
  bytes_.resize(instructionCount());
  uint32_t id = 0;
  for (uint32_t s = 0; s < streamCount(); ++s) {
    int32_t rank = int32_t(rankOf(s));
    for (uint32_t i = 0; i < length(s); ++i, ++id) {
      const Instruction &in = instruction(s, i);
      const sched::ChunkRange &range =
          opcodeReadsSrc(in.opcode) ? in.src : in.dst;
      bytes_[id] = layout.elements(rank, range) * int64_t(elementBytes);
    }
  }
  buildConnections();
}

uint32_t ProgramIndex::stream(uint32_t rank, uint32_t channel) const {
  uint32_t first = rankFirstStream_[rank];
  return channel < rankFirstStream_[rank + 1] - first ? first + channel : kNone;
}

void ProgramIndex::buildConnections() {
  uint32_t n = uint32_t(program_.numRanks);
  sendConnection_.assign(instructionCount(), kNone);
  recvConnection_.assign(instructionCount(), kNone);
  connectionBegin_.push_back(0);
  // Per sender stream: its distinct receivers, sorted, get consecutive ids.
  std::vector<uint32_t> idOfPeer(n, kNone), peers;
  for (uint32_t s = 0; s < streamCount(); ++s) {
    peers.clear();
    for (uint32_t i = 0; i < length(s); ++i) {
      const Instruction &in = instruction(s, i);
      if (!opcodeSends(in.opcode))
        continue;
      uint32_t peer = uint32_t(in.sendPeer);
      if (idOfPeer[peer] == kNone) {
        idOfPeer[peer] = 0;
        peers.push_back(peer);
      }
    }
    std::sort(peers.begin(), peers.end());
    for (uint32_t peer : peers) {
      idOfPeer[peer] = connectionCount();
      connectionSender_.push_back(s);
      connectionReceiverRank_.push_back(peer);
      connectionReceiverStream_.push_back(stream(peer, channelOf(s)));
    }
    for (uint32_t i = 0; i < length(s); ++i) {
      const Instruction &in = instruction(s, i);
      if (opcodeSends(in.opcode))
        sendConnection_[id(s, i)] = idOfPeer[uint32_t(in.sendPeer)];
    }
    for (uint32_t peer : peers)
      idOfPeer[peer] = kNone;
    connectionBegin_.push_back(connectionCount());
  }
  // A recv finds its connection among its sender stream's, by receiver.
  for (uint32_t s = 0; s < streamCount(); ++s) {
    uint32_t rank = rankOf(s), channel = channelOf(s);
    for (uint32_t i = 0; i < length(s); ++i) {
      const Instruction &in = instruction(s, i);
      if (!opcodeReceives(in.opcode))
        continue;
      uint32_t sender = stream(uint32_t(in.recvPeer), channel);
      if (sender == kNone)
        continue;
      auto begin = connectionReceiverRank_.begin() + connectionBegin_[sender];
      auto end = connectionReceiverRank_.begin() + connectionBegin_[sender + 1];
      auto it = std::lower_bound(begin, end, rank);
      if (it != end && *it == rank)
        recvConnection_[id(s, i)] =
            uint32_t(it - connectionReceiverRank_.begin());
    }
  }
}

} // namespace collc::sim

//===- ProgramIndex.h - a program flattened for simulation ------*- C++ -*-===//
//
// Internal: numbers the (rank, channel) streams and all instructions of a
// program, gives each instruction its payload bytes, and matches sends with
// recvs by connection (sender, receiver, channel), so that the simulator's
// state lives in flat arrays indexed by stream, instruction or connection.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_PROGRAMINDEX_H
#define COLLC_COMPILER_SIMULATE_PROGRAMINDEX_H

#include "common/Program/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc::sim {

constexpr uint32_t kNone = UINT32_MAX;

class ProgramIndex {
public:
  /// `program` must have passed checkProgram.
  ProgramIndex(const sched::Program &program, int64_t inputElements,
               unsigned elementBytes);

  const sched::Program &program() const { return program_; }
  uint32_t streamCount() const { return uint32_t(streamRank_.size()); }
  uint32_t instructionCount() const { return instructionBegin_.back(); }
  uint32_t connectionCount() const {
    return uint32_t(connectionSender_.size());
  }

  /// The stream (rank, channel), or kNone when the rank has no such channel.
  uint32_t stream(uint32_t rank, uint32_t channel) const;
  uint32_t rankOf(uint32_t stream) const { return streamRank_[stream]; }
  uint32_t channelOf(uint32_t stream) const {
    return stream - rankFirstStream_[streamRank_[stream]];
  }
  uint32_t length(uint32_t stream) const {
    return instructionBegin_[stream + 1] - instructionBegin_[stream];
  }
  /// Global id of instruction `index` of `stream`.
  uint32_t id(uint32_t stream, uint32_t index) const {
    return instructionBegin_[stream] + index;
  }
  const sched::Instruction &instruction(uint32_t stream, uint32_t index) const {
    return program_.ranks[rankOf(stream)]
        .channels[channelOf(stream)]
        .instructions[index];
  }

  /// Payload bytes of an instruction: its src range, or its dst range when
  /// it reads no src (recv).
  int64_t bytes(uint32_t id) const { return bytes_[id]; }
  /// The connection of an instruction's send part, or kNone.
  uint32_t sendConnection(uint32_t id) const { return sendConnection_[id]; }
  /// The connection of an instruction's recv part, or kNone when its sender
  /// has no stream on that channel or never sends to it.
  uint32_t recvConnection(uint32_t id) const { return recvConnection_[id]; }
  /// Sending and receiving streams of a connection; the receiving stream is
  /// kNone when the receiver has no such channel.
  uint32_t connectionSender(uint32_t c) const { return connectionSender_[c]; }
  uint32_t connectionReceiver(uint32_t c) const {
    return connectionReceiverStream_[c];
  }

private:
  void buildConnections();

  const sched::Program &program_;
  std::vector<uint32_t> rankFirstStream_;  ///< numRanks + 1
  std::vector<uint32_t> streamRank_;       ///< per stream
  std::vector<uint32_t> instructionBegin_; ///< streams + 1
  std::vector<int64_t> bytes_;             ///< per instruction
  std::vector<uint32_t> sendConnection_;   ///< per instruction
  std::vector<uint32_t> recvConnection_;   ///< per instruction
  /// Per connection; a sender stream's connections are consecutive and
  /// sorted by receiver rank, from connectionBegin_[stream].
  std::vector<uint32_t> connectionSender_;
  std::vector<uint32_t> connectionReceiverRank_;
  std::vector<uint32_t> connectionReceiverStream_;
  std::vector<uint32_t> connectionBegin_; ///< streams + 1
};

/// Checks what the simulator relies on: rank and channel counts, peers,
/// chunk ranges inside their buffers, dependencies that exist, send counts
/// of all_to_all_v. Returns the first problem in words, or "".
std::string checkProgram(const sched::Program &program);

} // namespace collc::sim

#endif

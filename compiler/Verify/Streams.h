//===- Streams.h - numbering channel streams and instructions ---*- C++ -*-===//
//
// Flat numbering of a program's (rank, channel) streams and of all its
// instructions, so that per-stream and per-instruction state lives in flat
// arrays instead of nested vectors.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_STREAMS_H
#define COLLC_COMPILER_VERIFY_STREAMS_H

#include "common/Program/Program.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collc {
namespace sched {

class StreamIndex {
public:
  /// `program` must be well formed (fewer than 2^32 instructions).
  explicit StreamIndex(const Program &program) : program(program) {
    rankFirstStream.push_back(0);
    instructionBegin.push_back(0);
    for (size_t r = 0; r < program.ranks.size(); ++r) {
      for (const ChannelProgram &channel : program.ranks[r].channels) {
        streamRank.push_back(uint32_t(r));
        instructionBegin.push_back(instructionBegin.back() +
                                   uint32_t(channel.instructions.size()));
      }
      rankFirstStream.push_back(uint32_t(streamRank.size()));
    }
  }

  uint32_t streamCount() const { return uint32_t(streamRank.size()); }
  uint32_t instructionCount() const { return instructionBegin.back(); }

  uint32_t stream(uint32_t rank, uint32_t channel) const {
    return rankFirstStream[rank] + channel;
  }
  uint32_t rankOf(uint32_t stream) const { return streamRank[stream]; }
  uint32_t channelOf(uint32_t stream) const {
    return stream - rankFirstStream[streamRank[stream]];
  }
  uint32_t length(uint32_t stream) const {
    return instructionBegin[stream + 1] - instructionBegin[stream];
  }
  /// The global id of instruction `index` of `stream`.
  uint32_t id(uint32_t stream, uint32_t index) const {
    return instructionBegin[stream] + index;
  }
  /// The stream holding the instruction with global id `id`.
  uint32_t streamOf(uint32_t id) const {
    auto it =
        std::upper_bound(instructionBegin.begin(), instructionBegin.end(), id);
    return uint32_t(it - instructionBegin.begin()) - 1;
  }
  /// The index of instruction `id` within its stream.
  uint32_t indexOf(uint32_t id) const {
    return id - instructionBegin[streamOf(id)];
  }
  const Instruction &instruction(uint32_t stream, uint32_t index) const {
    return program.ranks[rankOf(stream)]
        .channels[channelOf(stream)]
        .instructions[index];
  }

private:
  const Program &program;
  std::vector<uint32_t> rankFirstStream;  ///< size numRanks + 1
  std::vector<uint32_t> streamRank;       ///< size streamCount
  std::vector<uint32_t> instructionBegin; ///< size streamCount + 1
};

} // namespace sched
} // namespace collc

#endif

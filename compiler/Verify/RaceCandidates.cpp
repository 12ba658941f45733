//===- RaceCandidates.cpp - which streams can race at all? ----------------===//
//
// A race needs a chunk that two channels of a rank touch, one writing. Most
// schedules have one channel per rank, or give each channel chunks of its
// own, so this scan usually leaves nothing to follow and the vector clocks
// of the race check are never built.
//
//===----------------------------------------------------------------------===//
#include "compiler/Verify/RaceCheck.h"

namespace collc {
namespace sched {
namespace {

/// Who touched a chunk of the rank being scanned.
struct ChunkUse {
  uint32_t firstChannel = 0; ///< channel + 1 of the first toucher; 0: none
  bool shared = false;       ///< another channel touched it too
  bool written = false;
};

class CandidateScan {
public:
  CandidateScan(const Program &program, const StreamIndex &streams)
      : program(program), streams(streams) {
    const BufferShape &shape = program.buffers;
    offset[size_t(Buffer::Input)] = 0;
    offset[size_t(Buffer::Output)] = shape.inputChunks;
    offset[size_t(Buffer::Scratch)] =
        size_t(shape.inputChunks) + shape.outputChunks;
    uses.resize(size_t(shape.inputChunks) + shape.outputChunks +
                shape.scratchChunks);
  }

  RaceCandidates scan() {
    RaceCandidates result;
    result.component.assign(streams.streamCount(), RaceCandidates::kNone);
    for (uint32_t r = 0; r < uint32_t(program.ranks.size()); ++r) {
      const RankProgram &rank = program.ranks[r];
      if (rank.channelsInUse() < 2)
        continue;
      std::fill(uses.begin(), uses.end(), ChunkUse());
      for (uint32_t c = 0; c < rank.channels.size(); ++c)
        for (const Instruction &instruction : rank.channels[c].instructions)
          forEachRange(instruction, [&](const ChunkRange &range, bool write) {
            mark(c, range, write);
          });
      bool any = false;
      for (uint32_t c = 0; c < rank.channels.size(); ++c) {
        if (!touchesConflict(rank.channels[c]))
          continue;
        result.component[streams.stream(r, c)] = result.streams++;
        any = true;
      }
      result.ranks += any;
    }
    return result;
  }

private:
  template <typename Visit>
  static void forEachRange(const Instruction &instruction, Visit visit) {
    if (opcodeReadsSrc(instruction.opcode))
      visit(instruction.src, false);
    if (opcodeWritesDst(instruction.opcode))
      visit(instruction.dst, true);
  }

  ChunkUse *first(const ChunkRange &range) {
    return &uses[offset[size_t(range.buffer)] + range.index];
  }

  void mark(uint32_t channel, const ChunkRange &range, bool write) {
    ChunkUse *use = first(range);
    for (uint32_t i = 0; i < range.count; ++i, ++use) {
      if (use->firstChannel == 0)
        use->firstChannel = channel + 1;
      else if (use->firstChannel != channel + 1)
        use->shared = true;
      use->written |= write;
    }
  }

  bool touchesConflict(const ChannelProgram &channel) {
    for (const Instruction &instruction : channel.instructions) {
      bool conflict = false;
      forEachRange(instruction, [&](const ChunkRange &range, bool) {
        const ChunkUse *use = first(range);
        for (uint32_t i = 0; i < range.count && !conflict; ++i, ++use)
          conflict = use->shared && use->written;
      });
      if (conflict)
        return true;
    }
    return false;
  }

  const Program &program;
  const StreamIndex &streams;
  size_t offset[3] = {0, 0, 0};
  std::vector<ChunkUse> uses; ///< the chunks of one rank's buffers
};

} // namespace

RaceCandidates findRaceCandidates(const Program &program,
                                  const StreamIndex &streams) {
  return CandidateScan(program, streams).scan();
}

} // namespace sched
} // namespace collc

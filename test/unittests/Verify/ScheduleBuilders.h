//===- ScheduleBuilders.h - hand-built schedules for verifier tests -------===//
//
// Small builders for Programs (instructions, ranges, dependencies) and a few
// complete, correct schedules (ring all-reduce, direct all-to-all) that the
// tests break on purpose.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TEST_UNITTESTS_VERIFY_SCHEDULEBUILDERS_H
#define COLLC_TEST_UNITTESTS_VERIFY_SCHEDULEBUILDERS_H

#include "compiler/Verify/Verifier.h"

#include <string>
#include <vector>

namespace collc {
namespace sched {
namespace testing {

inline ChunkRange input(uint32_t index, uint32_t count = 1) {
  return {Buffer::Input, index, count};
}
inline ChunkRange output(uint32_t index, uint32_t count = 1) {
  return {Buffer::Output, index, count};
}
inline ChunkRange scratch(uint32_t index, uint32_t count = 1) {
  return {Buffer::Scratch, index, count};
}

inline Instruction makeInstruction(Opcode opcode, int32_t recvPeer,
                                   int32_t sendPeer, ChunkRange src,
                                   ChunkRange dst, int32_t step) {
  Instruction instruction;
  instruction.opcode = opcode;
  instruction.recvPeer = recvPeer;
  instruction.sendPeer = sendPeer;
  instruction.src = src;
  instruction.dst = dst;
  instruction.step = step;
  return instruction;
}
inline Instruction send(int32_t peer, ChunkRange src, int32_t step) {
  return makeInstruction(Opcode::Send, -1, peer, src, {}, step);
}
inline Instruction recv(int32_t peer, ChunkRange dst, int32_t step) {
  return makeInstruction(Opcode::Recv, peer, -1, {}, dst, step);
}
inline Instruction copy(ChunkRange src, ChunkRange dst, int32_t step) {
  return makeInstruction(Opcode::Copy, -1, -1, src, dst, step);
}
/// dst = dst (op) src.
inline Instruction reduce(ChunkRange src, ChunkRange dst, int32_t step) {
  return makeInstruction(Opcode::Reduce, -1, -1, src, dst, step);
}

/// A program with the buffers of the collective's table, one empty channel
/// per rank.
inline Program makeProgram(Collective collective, int32_t numRanks,
                           uint32_t chunksPerPart, uint32_t scratchChunks = 0) {
  Program program;
  program.algorithm = "test";
  program.collective = collective;
  program.numRanks = numRanks;
  program.chunksPerPart = chunksPerPart;
  uint32_t k = chunksPerPart, nk = k * uint32_t(numRanks);
  bool wideIn = collective == Collective::ReduceScatter ||
                collective == Collective::Scatter ||
                collective == Collective::AllToAll ||
                collective == Collective::AllToAllV;
  bool wideOut =
      collective == Collective::AllGather || collective == Collective::Gather ||
      collective == Collective::AllToAll || collective == Collective::AllToAllV;
  program.buffers.inputChunks = wideIn ? nk : k;
  program.buffers.outputChunks = wideOut ? nk : k;
  program.buffers.scratchChunks = scratchChunks;
  program.ranks.resize(size_t(numRanks));
  for (RankProgram &rank : program.ranks)
    rank.channels.resize(1);
  return program;
}

/// Appends `instruction` to `rank`'s `channel` (created if missing);
/// returns its index.
inline uint32_t add(Program &program, int32_t rank, uint32_t channel,
                    Instruction instruction) {
  auto &channels = program.ranks[size_t(rank)].channels;
  if (channels.size() <= channel)
    channels.resize(channel + 1);
  channels[channel].instructions.push_back(instruction);
  return uint32_t(channels[channel].instructions.size() - 1);
}

inline Instruction &at(Program &program, int32_t rank, uint32_t channel,
                       uint32_t index) {
  return program.ranks[size_t(rank)].channels[channel].instructions[index];
}

/// Makes instruction `index` of (`rank`, `channel`) wait for instruction
/// `otherIndex` of `otherChannel`.
inline void addDependency(Program &program, int32_t rank, uint32_t channel,
                          uint32_t index, uint32_t otherChannel,
                          uint32_t otherIndex) {
  RankProgram &rankProgram = program.ranks[size_t(rank)];
  Instruction &instruction = rankProgram.channels[channel].instructions[index];
  if (instruction.depCount == 0)
    instruction.depBegin = uint32_t(rankProgram.dependencies.size());
  rankProgram.dependencies.push_back({otherChannel, otherIndex});
  ++instruction.depCount;
}

/// Ring all-reduce of `numRanks` segments of `chunksPerSegment` chunks each
/// per channel: a reduce-scatter (send, recv_reduce_send ...,
/// recv_reduce_copy_send) then an all-gather (recv_copy_send ..., recv).
/// Step s of rank r works on segment (r - s) mod N while reducing and
/// (r + 1 - t) mod N at step N - 1 + t while gathering. Channel c owns
/// chunks [c * N * m, (c + 1) * N * m). 2N - 1 instructions per rank and
/// channel.
inline Program ringAllReduce(int32_t numRanks, uint32_t chunksPerSegment,
                             uint32_t channels = 1) {
  int32_t n = numRanks;
  uint32_t m = chunksPerSegment;
  uint32_t perChannel = uint32_t(n) * m;
  Program program =
      makeProgram(Collective::AllReduce, n, channels * perChannel);
  program.algorithm = "ring";
  for (uint32_t c = 0; c < channels; ++c) {
    auto segment = [&](int32_t s) {
      return c * perChannel + uint32_t(((s % n) + n) % n) * m;
    };
    for (int32_t r = 0; r < n; ++r) {
      int32_t next = (r + 1) % n, prev = (r + n - 1) % n;
      auto &channelsOfRank = program.ranks[size_t(r)].channels;
      channelsOfRank.resize(channels);
      auto &stream = channelsOfRank[c].instructions;
      stream.reserve(size_t(2 * n - 1));
      stream.push_back(send(next, input(segment(r), m), 0));
      for (int32_t s = 1; s < n - 1; ++s)
        stream.push_back(makeInstruction(Opcode::RecvReduceSend, prev, next,
                                         input(segment(r - s), m), {}, s));
      uint32_t full = segment(r + 1);
      stream.push_back(makeInstruction(Opcode::RecvReduceCopySend, prev, next,
                                       input(full, m), output(full, m), n - 1));
      for (int32_t t = 1; t < n - 1; ++t)
        stream.push_back(makeInstruction(Opcode::RecvCopySend, prev, next, {},
                                         output(segment(r + 1 - t), m),
                                         n - 1 + t));
      stream.push_back(recv(prev, output(segment(r + 2 - n), m), 2 * n - 2));
    }
  }
  return program;
}

/// Direct all-to-all on one channel: every rank copies its own part, sends
/// each other part to its owner (r + 1, r + 2, ...), then receives from
/// every peer.
inline Program directAllToAll(int32_t numRanks, uint32_t chunksPerPart) {
  uint32_t k = chunksPerPart;
  Program program = makeProgram(Collective::AllToAll, numRanks, k);
  program.algorithm = "direct";
  for (int32_t r = 0; r < numRanks; ++r) {
    add(program, r, 0,
        copy(input(uint32_t(r) * k, k), output(uint32_t(r) * k, k), 0));
    for (int32_t i = 1; i < numRanks; ++i) {
      int32_t peer = (r + i) % numRanks;
      add(program, r, 0, send(peer, input(uint32_t(peer) * k, k), i));
    }
    for (int32_t i = 1; i < numRanks; ++i) {
      int32_t peer = (r + numRanks - i) % numRanks;
      add(program, r, 0, recv(peer, output(uint32_t(peer) * k, k), i));
    }
  }
  return program;
}

/// The messages of `result`, for exact comparisons.
inline std::vector<std::string> messages(const VerifyResult &result) {
  std::vector<std::string> texts;
  for (const VerifyError &error : result.errors)
    texts.push_back(error.message);
  return texts;
}

/// The kinds of `result`'s errors.
inline std::vector<VerifyErrorKind> kinds(const VerifyResult &result) {
  std::vector<VerifyErrorKind> list;
  for (const VerifyError &error : result.errors)
    list.push_back(error.kind);
  return list;
}

} // namespace testing
} // namespace sched
} // namespace collc

#endif

//===- Program.cpp - the expanded form of a schedule ----------------------===//
#include "common/Program/Program.h"

#include <algorithm>

namespace collc {
namespace sched {

const char *collectiveName(Collective collective) {
  switch (collective) {
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::AllGather:
    return "all_gather";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllToAll:
    return "all_to_all";
  case Collective::AllToAllV:
    return "all_to_all_v";
  case Collective::Broadcast:
    return "broadcast";
  case Collective::Reduce:
    return "reduce";
  case Collective::Scatter:
    return "scatter";
  case Collective::Gather:
    return "gather";
  case Collective::SendRecv:
    return "send_recv";
  }
  return "?";
}

const char *bufferName(Buffer buffer) {
  switch (buffer) {
  case Buffer::Input:
    return "input";
  case Buffer::Output:
    return "output";
  case Buffer::Scratch:
    return "scratch";
  }
  return "?";
}

uint32_t reduceFanin(const Instruction &in) {
  if (in.opcode != Opcode::Reduce)
    return 1;
  if (in.dst.count == 0 || in.src.count == 0 ||
      in.src.count % in.dst.count != 0)
    return 0;
  return in.src.count / in.dst.count;
}

static std::string chunksOf(uint32_t count) {
  return std::to_string(count) + (count == 1 ? " chunk" : " chunks");
}

std::string checkRangeCounts(const Instruction &in) {
  if (!opcodeReadsSrc(in.opcode) || !opcodeWritesDst(in.opcode))
    return "";
  std::string counts = "reads " + chunksOf(in.src.count) + " but writes " +
                       chunksOf(in.dst.count);
  if (in.opcode != Opcode::Reduce)
    return in.src.count == in.dst.count ? "" : counts;
  uint32_t fanin = reduceFanin(in);
  if (fanin == 0)
    return counts + " (a reduce reads a whole number of ranges of its "
                    "destination's size, its fanin)";
  if (fanin > 1 && in.src.buffer == in.dst.buffer &&
      in.src.index < in.dst.index + in.dst.count &&
      in.dst.index < in.src.index + in.src.count)
    return "reduce with fanin " + std::to_string(fanin) +
           " reads chunks that it writes";
  return "";
}

int32_t Program::sendTarget(int32_t rank) const {
  if (rank < 0 || rank >= numRanks)
    return -1;
  if (!sendTo.empty())
    return size_t(rank) < sendTo.size() ? sendTo[size_t(rank)] : -1;
  return rank == root ? peer : -1;
}

size_t Program::instructionCount() const {
  size_t count = 0;
  for (const RankProgram &rank : ranks)
    for (const ChannelProgram &channel : rank.channels)
      count += channel.instructions.size();
  return count;
}

namespace {
/// FNV-1a over 64-bit words (each fed byte by byte, little end first).
class Fnv {
public:
  void add(uint64_t word) {
    for (int b = 0; b < 8; ++b) {
      hash ^= (word >> (8 * b)) & 0xff;
      hash *= 0x100000001b3ull;
    }
  }
  void addRange(const ChunkRange &r) {
    add(static_cast<uint64_t>(r.buffer));
    add(r.index);
    add(r.count);
  }
  uint64_t value() const { return hash; }

private:
  uint64_t hash = 0xcbf29ce484222325ull;
};
} // namespace

uint64_t fingerprint(const Program &program) {
  Fnv f;
  f.add(static_cast<uint64_t>(program.collective));
  f.add(static_cast<uint64_t>(int64_t(program.numRanks)));
  f.add(static_cast<uint64_t>(int64_t(program.root)));
  f.add(static_cast<uint64_t>(int64_t(program.peer)));
  f.add(program.sendTo.size());
  for (int32_t t : program.sendTo)
    f.add(static_cast<uint64_t>(int64_t(t)));
  f.add(program.chunksPerPart);
  f.add(program.buffers.inputChunks);
  f.add(program.buffers.outputChunks);
  f.add(program.buffers.scratchChunks);
  f.add(program.sendCounts.size());
  for (int64_t c : program.sendCounts)
    f.add(static_cast<uint64_t>(c));
  f.add(program.ranks.size());
  for (const RankProgram &rank : program.ranks) {
    f.add(rank.channels.size());
    for (const ChannelProgram &channel : rank.channels) {
      f.add(channel.instructions.size());
      for (const Instruction &in : channel.instructions) {
        f.add(static_cast<uint64_t>(in.opcode));
        f.add(static_cast<uint64_t>(int64_t(in.sendPeer)));
        f.add(static_cast<uint64_t>(int64_t(in.recvPeer)));
        f.addRange(in.src);
        f.addRange(in.dst);
        f.add(static_cast<uint64_t>(int64_t(in.step)));
        f.add(in.depCount);
        for (uint32_t d = 0; d < in.depCount; ++d) {
          const Dependency &dep = rank.dependencies[in.depBegin + d];
          f.add(dep.channel);
          f.add(dep.instruction);
        }
      }
    }
  }
  return f.value();
}

int64_t chunkElements(int64_t totalElements, uint32_t chunks, uint32_t index) {
  if (chunks == 0)
    return 0;
  int64_t base = totalElements / chunks;
  int64_t remainder = totalElements % chunks;
  return base + (static_cast<int64_t>(index) < remainder ? 1 : 0);
}

/// Whether the collective's input is N parts of K chunks (else K chunks).
static bool inputHasParts(Collective c) {
  return c == Collective::ReduceScatter || c == Collective::AllToAll ||
         c == Collective::AllToAllV || c == Collective::Scatter;
}

ChunkLayout::ChunkLayout(const Program &program, int64_t inputElements)
    : ChunkLayout(program, inputElements, nullptr) {}

ChunkLayout::ChunkLayout(const Program &program, int64_t inputElements,
                         const int64_t *sendCounts)
    : program_(program), sendCounts_(sendCounts), inputElements_(inputElements),
      scratchChunkElements_(0) {
  size_t n = static_cast<size_t>(std::max<int32_t>(program.numRanks, 0));
  if (!sendCounts_ && program.sendCounts.size() == n * n &&
      !program.sendCounts.empty())
    sendCounts_ = program.sendCounts.data();
  // Scratch chunks hold the largest input chunk of any rank.
  uint32_t k = program.chunksPerPart ? program.chunksPerPart : 1;
  if (!inputHasParts(program.collective)) {
    scratchChunkElements_ = chunkElements(inputElements, k, 0);
    return;
  }
  for (int32_t rank = 0; rank < program.numRanks; ++rank) {
    for (uint32_t part = 0; part < static_cast<uint32_t>(program.numRanks);
         ++part) {
      int64_t e = chunkElements(inputPartElements(rank, part), k, 0);
      if (e > scratchChunkElements_)
        scratchChunkElements_ = e;
    }
    // Only all_to_all_v differs between ranks.
    if (program.collective != Collective::AllToAllV)
      break;
  }
}

int64_t ChunkLayout::inputPartElements(int32_t rank, uint32_t part) const {
  if (program_.collective == Collective::AllToAllV) {
    size_t n = static_cast<size_t>(program_.numRanks);
    if (!sendCounts_ || rank < 0 || static_cast<size_t>(rank) >= n || part >= n)
      return 0;
    return sendCounts_[static_cast<size_t>(rank) * n + part];
  }
  return chunkElements(inputElements_, program_.numRanks, part);
}

int64_t ChunkLayout::elements(int32_t rank, Buffer buffer,
                              uint32_t index) const {
  uint32_t k = program_.chunksPerPart ? program_.chunksPerPart : 1;
  uint32_t part = index / k, chunk = index % k;
  Collective c = program_.collective;
  if (buffer == Buffer::Scratch)
    return scratchChunkElements_;
  if (buffer == Buffer::Input) {
    if (inputHasParts(c))
      return chunkElements(inputPartElements(rank, part), k, chunk);
    return chunkElements(inputElements_, k, index);
  }
  // Output.
  switch (c) {
  case Collective::AllReduce:
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::SendRecv:
    return chunkElements(inputElements_, k, index);
  case Collective::AllGather:
  case Collective::Gather:
    // Part s holds rank s's whole input.
    return chunkElements(inputElements_, k, chunk);
  case Collective::ReduceScatter:
  case Collective::Scatter:
    // The K chunks of part `rank` of an input.
    return chunkElements(chunkElements(inputElements_, program_.numRanks, rank),
                         k, index);
  case Collective::AllToAll:
    // Part s holds part `rank` of rank s's input.
    return chunkElements(chunkElements(inputElements_, program_.numRanks, rank),
                         k, chunk);
  case Collective::AllToAllV:
    return chunkElements(inputPartElements(static_cast<int32_t>(part),
                                           static_cast<uint32_t>(rank)),
                         k, chunk);
  }
  return 0;
}

int64_t ChunkLayout::elements(int32_t rank, const ChunkRange &range) const {
  int64_t total = 0;
  for (uint32_t i = 0; i < range.count; ++i)
    total += elements(rank, range.buffer, range.index + i);
  return total;
}

} // namespace sched
} // namespace collc

//===- Layout.cpp - a collective's buffers, sizes and result --------------===//
#include "compiler/Verify/Layout.h"

#include <algorithm>

namespace collc {
namespace sched {

uint64_t CollectiveLayout::requiredChunks(const Program &program,
                                          Buffer buffer) {
  uint64_t k = program.chunksPerPart;
  uint64_t nk = k * uint64_t(std::max(program.numRanks, 0));
  bool input = buffer == Buffer::Input;
  switch (program.collective) {
  case Collective::AllGather:
  case Collective::Gather:
    return input ? k : nk;
  case Collective::ReduceScatter:
  case Collective::Scatter:
    return input ? nk : k;
  case Collective::AllToAll:
  case Collective::AllToAllV:
    return nk;
  case Collective::AllReduce:
  case Collective::Broadcast:
  case Collective::Reduce:
  case Collective::SendRecv:
    return k;
  }
  return k;
}

CollectiveLayout::CollectiveLayout(const Program &program) : program(program) {
  if (program.collective != Collective::SendRecv || program.numRanks < 1)
    return;
  sender.assign(size_t(program.numRanks), -1);
  for (int32_t s = 0; s < program.numRanks; ++s) {
    int32_t to = program.sendTarget(s);
    if (to >= 0 && to < program.numRanks)
      sender[size_t(to)] = s;
  }
}

int64_t CollectiveLayout::partElements(uint32_t rank, Buffer buffer,
                                       uint32_t part) const {
  if (program.collective != Collective::AllToAllV)
    return nominalPartElements(program.chunksPerPart);
  size_t n = size_t(program.numRanks);
  // Part p of rank s's input goes to rank p; part p of rank r's output
  // comes from rank p.
  return buffer == Buffer::Input ? program.sendCounts[rank * n + part]
                                 : program.sendCounts[part * n + rank];
}

/// Elements of chunks [first, last) of a part of `total` elements cut into
/// `chunks` chunks (the sum of chunkElements over the range).
static int64_t chunkRangeElements(int64_t total, uint32_t chunks,
                                  uint32_t first, uint32_t last) {
  int64_t base = total / chunks;
  int64_t remainder = total % chunks;
  int64_t withExtra =
      std::max<int64_t>(0, std::min<int64_t>(last, remainder) - int64_t(first));
  return base * int64_t(last - first) + withExtra;
}

int64_t CollectiveLayout::elements(uint32_t rank,
                                   const ChunkRange &range) const {
  uint32_t k = program.chunksPerPart;
  int64_t sum = 0;
  uint64_t end = uint64_t(range.index) + range.count;
  for (uint64_t chunk = range.index; chunk < end;) {
    uint32_t part = uint32_t(chunk / k);
    uint32_t first = uint32_t(chunk % k);
    uint32_t last = uint32_t(std::min<uint64_t>(k, first + (end - chunk)));
    sum += chunkRangeElements(partElements(rank, range.buffer, part), k, first,
                              last);
    chunk += last - first;
  }
  return sum;
}

ExpectedChunk CollectiveLayout::expected(uint32_t rank, uint32_t index) const {
  uint32_t k = program.chunksPerPart;
  int32_t root = program.root;
  ExpectedChunk free;
  free.free = true;
  switch (program.collective) {
  case Collective::AllReduce:
    return {false, index, -1};
  case Collective::AllGather:
    return {false, index % k, int32_t(index / k)};
  case Collective::ReduceScatter:
    return {false, rank * k + index, -1};
  case Collective::AllToAll:
    return {false, rank * k + index % k, int32_t(index / k)};
  case Collective::AllToAllV: {
    uint32_t sender = index / k;
    int64_t total = partElements(rank, Buffer::Output, sender);
    if (chunkElements(total, k, index % k) == 0)
      return free;
    return {false, rank * k + index % k, int32_t(sender)};
  }
  case Collective::Broadcast:
    return {false, index, root};
  case Collective::Reduce:
    return int32_t(rank) == root ? ExpectedChunk{false, index, -1} : free;
  case Collective::Scatter:
    return {false, rank * k + index, root};
  case Collective::Gather:
    return int32_t(rank) == root
               ? ExpectedChunk{false, index % k, int32_t(index / k)}
               : free;
  case Collective::SendRecv:
    if (rank < sender.size() && sender[rank] >= 0)
      return {false, index, sender[rank]};
    return free;
  }
  return free;
}

} // namespace sched
} // namespace collc

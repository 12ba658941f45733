//===- RunLayout.h - a rank's view of a collective for a count --*- C++ -*-===//
//
// Everything the executor derives from a plan entry before it moves a byte:
// the rank's group and group rank, its buffers cut into chunks for the
// count it was given, the tile size that makes every message fit a slot,
// the connections it uses, and a fingerprint that tells every rank alike
// whether the transport must be connected again. Also where malformed plan
// entries are caught (a peer or chunk range out of range, a dangling
// dependency), so that nothing the executor does later can read or write
// outside a buffer.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_RUNLAYOUT_H
#define COLLRT_EXEC_RUNLAYOUT_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/Transport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace exec {

/// Bytes of a message's header: the tile (u64), the chunk count (u64), then
/// the elements of each chunk's slice in that tile (u64 each). See
/// docs/runtime.md.
inline size_t messageHeaderBytes(uint64_t chunks) { return 16 + 8 * chunks; }

/// The range an instruction's message has the size of: `src` for send and
/// recv_reduce_send, `dst` for the opcodes that store (Plan.h's
/// messageRange, repeated here so that the executor needs no plan reader).
const collc::sched::ChunkRange &
messageChunks(const collc::sched::Instruction &instruction);

/// "input[4]", "output[4..5]" (inclusive), "scratch[0..7]".
std::string describeRange(const collc::sched::ChunkRange &range);

struct RunLayout {
  /// "collective 0 (all_reduce 'ring', moe.mlir:3:5)": how errors name it.
  std::string collectiveName;
  int32_t worldRank = -1;
  /// -1 when the rank is in no group (it takes no part).
  int32_t groupIndex = -1;
  int32_t groupRank = -1;
  /// World ranks of the group, by group rank (empty outside every group).
  std::vector<int32_t> group;

  size_t elementSize = 0;
  /// Chunk offsets in elements of the input, output and scratch buffers
  /// (indexed by sched::Buffer), chunks + 1 entries each; the last is the
  /// buffer's size.
  std::vector<int64_t> offsets[3];
  /// Elements one scratch chunk holds (the largest input chunk).
  int64_t scratchCapacity = 0;

  /// The most chunks any message of any rank carries.
  uint64_t maxMessageChunks = 0;
  /// Elements of each chunk per tile, and tiles per run (>= 1).
  int64_t tileElements = 0;
  uint64_t tiles = 1;

  /// Whether an instruction of this rank writes its input buffer (the
  /// executor then works on a private copy of sendbuf).
  bool writesInput = false;
  /// Per chunk of the input, output and scratch buffers (indexed by
  /// sched::Buffer): how many of this rank's instructions write it (in
  /// every tile alike).
  std::vector<uint32_t> writers[3];

  /// Whether the slices of `range` stay unchanged from the moment an
  /// instruction of this rank reads them until the run ends, so that a
  /// message may leave them in place for the receiver (Transport.h's
  /// trySendParts `stable`): chunks that no instruction writes, or (output
  /// and scratch) that exactly one writes, which a schedule that reads them
  /// orders before the read. The input qualifies only when nothing writes
  /// the input buffer (else the executor's private copy of it changes).
  bool stableSource(const collc::sched::ChunkRange &range) const {
    if (range.buffer == collc::sched::Buffer::Input && writesInput)
      return false;
    const std::vector<uint32_t> &w = writers[int(range.buffer)];
    for (uint32_t j = 0; j < range.count; ++j)
      if (range.index + j >= w.size() || w[range.index + j] > 1 ||
          (range.buffer == collc::sched::Buffer::Input &&
           w[range.index + j] > 0))
        return false;
    return true;
  }

  /// This rank's connections (world ranks), with the plan's slots.
  ConnectionSpec spec;
  /// Equal on every rank of the world for equal (program, groups, slots,
  /// slotBytes): whether the transport's connections can be kept.
  uint64_t fingerprint = 0;
  /// What every rank of the group must agree on for this run: the
  /// fingerprint (program shape, groups, slots, slotBytes), the count (all
  /// but all_to_all_v, whose ranks' counts differ) and the send counts of
  /// an all_to_all_v, digested to 32 bits.
  /// Every message carries it (in its header's chunk-count word), so that a
  /// rank called with other sizes than its peer fails at the first message
  /// and says so, instead of mismatching later or timing out.
  uint32_t agreement = 0;

  int64_t bufferElements(collc::sched::Buffer buffer) const {
    return offsets[int(buffer)].back();
  }
  int64_t chunkElements(collc::sched::Buffer buffer, uint32_t index) const {
    const std::vector<int64_t> &o = offsets[int(buffer)];
    return o[index + 1] - o[index];
  }
  /// The world rank of a group rank.
  int32_t worldRankOf(int32_t groupRank) const {
    return group[size_t(groupRank)];
  }
};

/// Builds the layout of `collective` (entry `index` of its plan) for world
/// rank `worldRank` of `worldSize`, `count` input elements and slots of
/// `slotBytes`. InvalidPlan for a malformed entry, PlanMismatch when its
/// groups do not fit the world, InvalidArgument when slotBytes cannot hold
/// the largest message's header and one element per chunk. `sendCounts`:
/// an all_to_all_v's N x N counts (row-major by sender) when its plan leaves
/// them to run time (sendCountsAtRunTime), else nullptr; the chunks and
/// tiles are cut from them (not copied: they must outlive the layout), and
/// the fingerprint does not depend on them (the connections do not).
/// InvalidArgument when they are missing or hold a negative entry,
/// PlanMismatch when given for a plan that fixes its counts.
Status buildRunLayout(const PlanCollective &collective, size_t index,
                      int32_t worldRank, int32_t worldSize, int64_t count,
                      size_t slotBytes, RunLayout *layout,
                      const int64_t *sendCounts = nullptr);

} // namespace exec
} // namespace collrt

#endif

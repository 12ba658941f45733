//===- LaunchLayout.h - one launch of N ranks' blocks, in memory -*- C++
//-*-===//
//
// What the emulator (Emulator.h) and the CUDA executor (CudaExecutor.h)
// compute alike before a kernel runs N ranks of a collective at once: every
// rank's chunks and tiles (the CPU executor's RunLayout, docs/runtime.md),
// the blocks of the grid (one per rank and channel with instructions), the
// connections (one per (sender, receiver, channel) the program uses), and
// one arena that holds all of it: a control part built on the host as an
// image (RankContexts, DeviceConnections, offsets, flags, counters, the
// watchdog's words) whose pointers point into the arena wherever it lives
// (host memory for the emulator, device memory for the GPU), and a data
// part (slots, LL areas, scratch, staging, private input copies) that
// starts zeroed.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_LAUNCHLAYOUT_H
#define COLLRT_DEVICE_LAUNCHLAYOUT_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "runtime/exec/RunLayout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace dev {

struct DeviceOptions {
  /// The largest message (CommOptions::slotBytes): chunks are cut into
  /// tiles that fit, with the CPU executor's formula.
  size_t slotBytes = 1 << 20;
  /// Slots per connection; 0: the plan's connectionSlots. Fewer than the
  /// plan's is an error (the schedule was verified with that many).
  uint32_t slots = 0;
  /// The LL protocol for messages of c chunks when c * min(T, largest
  /// chunk) * element size <= llBytes; 0 never uses it.
  uint32_t llBytes = 16384;
  /// Round the tile T down to a multiple of 16 bytes (when T holds 16
  /// bytes or more), so that tiles of aligned chunks stay aligned for
  /// 16-byte vector loads. Off: exactly the CPU executor's T.
  bool alignTiles = false;
  /// The watchdog: a launch that takes longer is aborted and reported.
  double timeoutSeconds = 60;
  /// The emulator only: host threads per block (a GPU block's threads
  /// cooperate the same way: strided loops, barriers, one thread waiting).
  uint32_t emulatedThreads = 1;
};

class LaunchLayout {
public:
  /// Lays out collective `index` (`collective` is entry `index` of its
  /// plan) on its N = program.numRanks group ranks, `count` input elements
  /// per rank (all_to_all_v: ignored, the send counts fix the sizes).
  static Status create(const PlanCollective &collective, size_t index,
                       int64_t count, const DeviceOptions &options,
                       LaunchLayout *layout);

  struct Connection {
    int32_t from = 0, to = 0;
    uint32_t channel = 0;
    uint64_t messagesPerTile = 0; ///< sends of `from` on it per tile
    // Arena offsets.
    uint64_t head = 0, tail = 0, sendCounter = 0, recvCounter = 0;
    uint64_t sizes = 0, buffers = 0, llBuffers = 0;
  };
  struct RankArena {
    uint64_t context = 0, offsets[3] = {0, 0, 0}, sendTo = 0, recvFrom = 0;
    uint64_t progress = 0, tileEpoch = 0, waitState = 0, scratchSlices = 0;
    uint64_t scratch = 0, staging = 0, inputCopy = 0;
  };

  const std::string &name() const { return name_; }
  const PlanCollective &collective() const { return collective_; }
  const collc::sched::Program &program() const { return collective_.program; }
  int32_t nranks() const { return nranks_; }
  int32_t maxChannels() const { return maxChannels_; }
  size_t elementSize() const { return elementSize_; }
  int64_t tileElements() const { return tileElements_; }
  int64_t tiles() const { return tiles_; }
  int64_t largestSlice() const { return largestSlice_; }
  uint32_t slots() const { return slots_; }
  uint32_t slotCapacity() const { return slotCapacity_; }
  uint32_t llSlotBytes() const { return llSlotBytes_; }
  uint32_t llBytes() const { return llBytes_; }
  const exec::RunLayout &rank(int32_t r) const { return ranks_[size_t(r)]; }
  /// Whether rank r works on a private copy of its input (it writes it).
  bool copiesInput(int32_t r) const { return ranks_[size_t(r)].writesInput; }
  int64_t inputElements(int32_t r) const;
  int64_t outputElements(int32_t r) const;
  /// Whether rank r's output holds a reduction avg divides (Executor.cpp's
  /// rule).
  bool holdsReduction(int32_t r) const;

  /// The grid: block b runs rank blockRank[b], channel blockChannel[b].
  const std::vector<int32_t> &blockRank() const { return blockRank_; }
  const std::vector<int32_t> &blockChannel() const { return blockChannel_; }
  const std::vector<Connection> &connections() const { return connections_; }
  const RankArena &arena(int32_t r) const { return arenas_[size_t(r)]; }

  /// The arena: control bytes [0, controlBytes) from controlImage, data
  /// bytes [controlBytes, arenaBytes) zeroed once when it is allocated.
  uint64_t controlBytes() const { return controlBytes_; }
  uint64_t arenaBytes() const { return arenaBytes_; }
  /// Offsets of the LaunchArgs arrays.
  uint64_t contextsOffset() const { return arenas_[0].context; }
  uint64_t blockRankOffset() const { return blockRankOffset_; }
  uint64_t blockChannelOffset() const { return blockChannelOffset_; }

  /// The control part for an arena at address `base` (host or device),
  /// rank r's input at inputs[r] (the caller's, or its private copy in the
  /// arena when copiesInput(r)) and output at outputs[r], abortFlag at
  /// `abortFlag`. Counters, progress and the watchdog's words are zero.
  std::vector<uint8_t> controlImage(uint64_t base,
                                    const std::vector<uint64_t> &inputs,
                                    const std::vector<uint64_t> &outputs,
                                    uint64_t abortFlag) const;
  /// Only the RankContexts (to point them at other buffers between
  /// launches): contexts() bytes at contextsOffset().
  std::vector<uint8_t> contextImage(uint64_t base,
                                    const std::vector<uint64_t> &inputs,
                                    const std::vector<uint64_t> &outputs,
                                    uint64_t abortFlag) const;

private:
  std::string name_;
  PlanCollective collective_;
  int32_t nranks_ = 0, maxChannels_ = 0;
  size_t elementSize_ = 0;
  int64_t tileElements_ = 0, tiles_ = 1, largestSlice_ = 0;
  uint32_t slots_ = 0, slotCapacity_ = 0, llSlotBytes_ = 0, llBytes_ = 0;
  uint64_t stagingBytes_ = 0;
  std::vector<exec::RunLayout> ranks_;
  std::vector<int32_t> blockRank_, blockChannel_;
  std::vector<Connection> connections_;
  std::vector<RankArena> arenas_;
  uint64_t blockRankOffset_ = 0, blockChannelOffset_ = 0;
  uint64_t controlBytes_ = 0, arenaBytes_ = 0;
};

} // namespace dev
} // namespace collrt

#endif

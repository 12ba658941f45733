//===- ChannelState.h - a block's state, progress and record ---*- C++ -*-===//
//
// The base of collrt::dev::Channel's implementation (ChannelCommon.h), for
// any backend `B`: what a block is and where it is (its rank's context, its
// channel, the tile, the instructions done in it), its progress word for
// the `after` dependencies, abortFlag, and the four waitState words it
// keeps for the host's watchdog (collrt/device/WaitState.h); and the chunks
// and slices of its buffers in the tile (the CPU executor's tiling).
//
// Every wait polls abortFlag (the GPU backend every 1024 polls) and gives up
// when it is set; a block that gave up or found an error does nothing more,
// so the kernel always ends. Errors (a message that does not fit its
// instruction, a chunk range outside its buffer, a missing connection) are
// recorded in waitState and stop every block through abortFlag (fail).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELSTATE_H
#define COLLRT_DEVICE_CHANNELSTATE_H

#include "collrt/Opcodes.h"
#include "collrt/device/DeviceArith.h"
#include "collrt/device/WaitState.h"

#if defined(__CUDACC__)
#define COLLRT_UNROLL _Pragma("unroll")
/// The large members are real calls on a GPU: a generated kernel calls
/// them from many places, and inlining each would grow it (and nvcc's
/// time) with every instruction of the schedule.
#define COLLRT_DEVICE_CALL __device__ __noinline__
#else
#define COLLRT_UNROLL
#define COLLRT_DEVICE_CALL inline
#endif

namespace collrt {
namespace dev {
namespace detail {

template <class Op> struct OpOf;
template <> struct OpOf<SumOp> {
  static constexpr arith::Op value = arith::Op::Sum;
};
template <> struct OpOf<ProdOp> {
  static constexpr arith::Op value = arith::Op::Prod;
};
template <> struct OpOf<MinOp> {
  static constexpr arith::Op value = arith::Op::Min;
};
template <> struct OpOf<MaxOp> {
  static constexpr arith::Op value = arith::Op::Max;
};

/// The arithmetic of an element type (backends add their narrow types).
template <class T> struct ElementOf;
template <> struct ElementOf<double> {
  using type = arith::Plain<double>;
};
template <> struct ElementOf<float> {
  using type = arith::Plain<float>;
};
template <> struct ElementOf<int64_t> {
  using type = arith::Plain<int64_t>;
};
template <> struct ElementOf<int32_t> {
  using type = arith::Plain<int32_t>;
};
template <> struct ElementOf<int8_t> {
  using type = arith::Plain<int8_t>;
};

template <class T, class Op, class B> class ChannelState {
protected:
  using Element = typename ElementOf<T>::type;
  using S = typename Element::Storage;
  static constexpr int64_t kE = int64_t(sizeof(S));
  static constexpr arith::Op kOp = OpOf<Op>::value;
  static_assert(sizeof(T) == sizeof(S), "element type and storage differ");

public:
  COLLRT_DEVICE explicit ChannelState(const LaunchArgs &args) {
    int32_t block = B::blockIndex(args);
    ctx_ = &args.ranks[args.blockRank[block]];
    channel_ = args.blockChannel[block];
    epoch_ = B::loadRelaxed(&ctx_->tileEpoch[channel_]);
    // One thread reads the flag (pinned host memory: a PCIe read per warp
    // otherwise); syncAny gives every thread its answer.
    aborted_ = B::syncAny(B::tid() == 0 && B::aborted(ctx_->abortFlag));
    opcode_ = wait::kSetup;
    if (aborted_ && B::tid() == 0) {
      // A launch queued behind the one that was stopped keeps that launch's
      // record where it says why this channel stopped (a wait it gave up,
      // an error): that is what the host's report must describe.
      uint64_t state = B::loadRelaxed(&stateWords()[3]) >> 56;
      if (!(state & wait::kGaveUp) && state != wait::Error)
        record(wait::NotStarted | wait::kGaveUp, 0, 0, 0);
    }
    if (!aborted_ && ctx_->elementSize != kE)
      fail(wait::ElementSize, uint64_t(kE));
  }

  COLLRT_DEVICE ~ChannelState() {
    B::sync();
    if (B::tid() == 0) {
      if (!aborted_)
        record(wait::Finished, 0, uint64_t(ctx_->tiles), done_);
      B::storeRelaxed(&ctx_->tileEpoch[channel_],
                      epoch_ + uint64_t(ctx_->tiles));
    }
  }

  COLLRT_DEVICE int64_t rank() const { return ctx_->rank; }
  COLLRT_DEVICE int64_t nranks() const { return ctx_->nranks; }
  COLLRT_DEVICE int64_t channel() const { return channel_; }
  COLLRT_DEVICE int64_t tiles() const { return ctx_->tiles; }
  COLLRT_DEVICE bool aborted() const { return aborted_; }

  COLLRT_DEVICE void beginTile(int64_t tile) {
    tile_ = tile;
    done_ = 0;
    if (B::tid() == 0)
      B::storeReleaseGpu(&ctx_->progress[channel_], (epoch_ + uint64_t(tile))
                                                        << 32);
  }
  COLLRT_DEVICE void endTile() {}

  COLLRT_DEVICE_CALL void after(int64_t channel, int64_t index) {
    if (aborted_)
      return;
    if (channel < 0 || channel >= ctx_->maxChannels || index < 0) {
      opcode_ = wait::kAfter;
      fail(wait::BadChannel, uint64_t(channel));
      return;
    }
    uint64_t target = ((epoch_ + uint64_t(tile_)) << 32) | uint64_t(index + 1);
    bool gaveUp = false;
    if (B::tid() == 0) {
      const uint64_t *word = &ctx_->progress[channel];
      if (B::loadAcquireGpu(word) < target) {
        writeState(wait::kAfter, channel, wait::WaitAfter, uint64_t(index));
        typename B::Poller poller;
        while (B::loadAcquireGpu(word) < target)
          if (poller.giveUp(ctx_->abortFlag)) {
            gaveUp = true;
            break;
          }
        endWait(gaveUp);
      }
    }
    aborted_ = B::syncAny(gaveUp);
  }

protected:
  /// Counts the instruction for `after`. The barrier also lets every
  /// thread see the connection counters thread 0 advanced.
  COLLRT_DEVICE void complete() {
    ++done_;
    if (B::tid() == 0)
      B::storeReleaseGpu(&ctx_->progress[channel_],
                         ((epoch_ + uint64_t(tile_)) << 32) | done_);
    B::sync();
  }

  //===--------------------------------------------------------------------===//
  // The watchdog's words and errors
  //===--------------------------------------------------------------------===//

  COLLRT_DEVICE uint64_t *stateWords() const {
    return ctx_->waitState + size_t(channel_) * wait::kWords;
  }
  /// Thread 0 only.
  COLLRT_DEVICE void record(uint32_t state, uint64_t detail, uint64_t w0,
                            uint64_t w1) const {
    uint64_t *w = stateWords();
    B::storeRelaxed(&w[0], w0);
    B::storeRelaxed(&w[1], w1);
    B::storeRelaxed(&w[2], wait::word2(opcode_, step_, peer_));
    B::storeRelaxed(&w[3], wait::word3(state, detail));
  }
  /// Thread 0, when a wait begins: the instruction, what it waits for.
  COLLRT_DEVICE void writeState(uint32_t opcode, int64_t peer, uint32_t state,
                                uint64_t detail) const {
    uint64_t *w = stateWords();
    B::storeRelaxed(&w[0], uint64_t(tile_));
    B::storeRelaxed(&w[1], done_);
    B::storeRelaxed(&w[2], wait::word2(opcode, step_, peer));
    B::storeRelaxed(&w[3], wait::word3(state, detail));
  }
  /// Thread 0, when a wait ends: running again, or gave up (kept, marked).
  COLLRT_DEVICE void endWait(bool gaveUp) const {
    uint64_t *w = stateWords();
    uint64_t s = B::loadRelaxed(&w[3]);
    if (gaveUp)
      B::storeRelaxed(&w[3], s | (uint64_t(wait::kGaveUp) << 56));
    else
      B::storeRelaxed(&w[3], wait::word3(wait::Running, s));
  }
  /// Called by every thread alike (the condition is uniform): records the
  /// error and stops every block of the launch.
  COLLRT_DEVICE void fail(uint32_t kind, uint64_t value) {
    if (B::tid() == 0) {
      record(wait::Error, wait::errorDetail(kind, value), uint64_t(tile_),
             done_);
      B::raiseAbort(ctx_->abortFlag, wait::BlockError);
    }
    aborted_ = true;
  }

  //===--------------------------------------------------------------------===//
  // Chunks and slices (the CPU executor's tiling)
  //===--------------------------------------------------------------------===//

  COLLRT_DEVICE int64_t tileSlice(int64_t length) const {
    int64_t left = length - tile_ * ctx_->tileElements;
    return left <= 0 ? 0
                     : (left < ctx_->tileElements ? left : ctx_->tileElements);
  }
  COLLRT_DEVICE uint64_t *scratchRecord(int64_t index) const {
    return &ctx_->scratchSlices[size_t(index) * size_t(ctx_->tiles) +
                                size_t(tile_)];
  }
  /// Elements of chunk `index`'s slice in this tile (scratch: what the last
  /// write of this tile left, else a whole tile of the chunk).
  COLLRT_DEVICE int64_t sliceElements(int buffer, int64_t index) const {
    if (buffer == Scratch) {
      uint64_t word = B::loadRelaxed(scratchRecord(index));
      if ((word >> 32) == epoch_ + uint64_t(tile_) + 1)
        return int64_t(word & 0xffffffffu);
      return tileSlice(ctx_->scratchCapacity);
    }
    const int64_t *off = ctx_->chunkOffsets[buffer];
    return tileSlice(off[index + 1] - off[index]);
  }
  /// Where chunk `index`'s slice of this tile starts.
  COLLRT_DEVICE char *sliceData(int buffer, int64_t index) const {
    char *base = ctx_->buffers[buffer];
    if (!base)
      return nullptr;
    int64_t start, size;
    if (buffer == Scratch) {
      start = index * ctx_->scratchCapacity;
      size = ctx_->scratchCapacity;
    } else {
      const int64_t *off = ctx_->chunkOffsets[buffer];
      start = off[index];
      size = off[index + 1] - off[index];
    }
    int64_t first = tile_ * ctx_->tileElements;
    return base + (start + (first < size ? first : size)) * kE;
  }
  /// Thread 0: a write of `n` elements into chunk `index` of scratch.
  COLLRT_DEVICE void setScratch(int64_t index, int64_t n) const {
    B::storeRelaxed(scratchRecord(index),
                    ((epoch_ + uint64_t(tile_) + 1) << 32) | uint64_t(n));
  }
  /// Whether `n` elements may be written into chunk `index` of `buffer`
  /// (fails otherwise); records scratch slices (thread 0).
  COLLRT_DEVICE bool setSlice(int buffer, int64_t index, int64_t j, int64_t n) {
    if (buffer == Scratch) {
      if (n > tileSlice(ctx_->scratchCapacity)) {
        fail(wait::ScratchOverflow, (uint64_t(j) << 32) | uint64_t(n));
        return false;
      }
      if (B::tid() == 0)
        setScratch(index, n);
      return true;
    }
    if (n != sliceElements(buffer, index)) {
      fail(wait::MessageSlice, (uint64_t(j) << 32) | uint64_t(n));
      return false;
    }
    return true;
  }

  /// Whether chunks [index, index + count) are in `buffer` (fails
  /// otherwise).
  COLLRT_DEVICE bool rangeOk(int buffer, int64_t index, int64_t count) {
    if (buffer < 0 || buffer > 2 || index < 0 || count < 1 ||
        index + count > ctx_->chunkCounts[buffer]) {
      fail(wait::ChunkRange,
           (uint64_t(uint32_t(buffer)) << 40) | uint64_t(index + count));
      return false;
    }
    return true;
  }

  const RankContext *ctx_ = nullptr;
  int32_t channel_ = 0;
  uint64_t epoch_ = 0;
  int64_t tile_ = 0;
  uint64_t done_ = 0; ///< instructions completed in this tile
  bool aborted_ = false;
  // The instruction being executed (for waitState).
  uint32_t opcode_ = 0;
  int64_t step_ = 0;
  int64_t peer_ = -1;
};

} // namespace detail
} // namespace dev
} // namespace collrt

#endif

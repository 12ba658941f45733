//===- ChannelCommon.h - Channel's instructions, for any backend -*- C++
//-*-===//
//
// The implementation of collrt::dev::Channel (Channel.h) once, for the GPU
// (ChannelCuda.cuh) and the host emulation (ChannelHost.h): a backend `B`
// supplies the block's threads, barriers, release/acquire flags, the
// low-latency lines and 16-byte loads and stores; everything else (tiles,
// slices, message layout, protocol choice, waits, checks) is here, so the
// emulator on a machine without a GPU runs what the GPU runs.
//
// Messages (docs/gpu-runtime.md). The logical message of an instruction on
// c chunks in tile t is the CPU executor's, with 16-byte alignment:
//
//   words 0, 1:      t, c
//   words 2 .. c+1:  the elements of each chunk's slice in tile t
//   (padded to 16 bytes), then each slice, each padded to 16 bytes.
//
// Simple protocol: the sender waits for a free slot (posted - *tail <
// slots), writes the logical message into the slot (all threads, 16-byte
// stores where aligned), then one thread publishes *head = posted + 1 with
// release semantics after a block barrier; the receiver's thread 0 polls
// *head with acquire loads, a barrier lets every thread read the slot, and
// after another barrier thread 0 publishes *tail = consumed + 1 (release).
//
// LL protocol (NCCL's LL): word w of the logical message travels in line w
// of the slot's LL area, a 16-byte store of {word low half, flag, word high
// half, flag} with flag = the message number + 1 (32 bits). The receiver's
// threads poll their own lines until both flags match; no head, no fence.
// A message of c chunks uses LL when c * largestSlice * elementSize <=
// llBytes: both sides compute it alike from the launch.
//
// Every wait polls abortFlag (the GPU backend every 1024 polls) and gives up
// when it is set; a block that gave up or found an error does nothing more,
// so the kernel always ends. Errors (a message that does not fit its
// instruction, a chunk range outside its buffer, a missing connection) are
// recorded in waitState and stop every block through abortFlag.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELCOMMON_H
#define COLLRT_DEVICE_CHANNELCOMMON_H

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

COLLRT_DEVICE uint64_t round16(uint64_t bytes) {
  return (bytes + 15) & ~uint64_t(15);
}
/// Bytes of a message's header for c chunks (16 + 8 c, padded to 16).
COLLRT_DEVICE uint64_t headerBytes(uint64_t chunks) {
  return round16(16 + 8 * chunks);
}

/// In DeviceConnection::sizes: the message went by the LL protocol.
constexpr uint64_t kLLMessage = 1ull << 63;

struct alignas(16) Pack16 {
  uint64_t w[2];
};

/// Where a message is read or written: a slot (simple), a slot's LL area
/// (ll), or a staging buffer (simple layout).
struct Port {
  char *data = nullptr;
  bool ll = false;
  uint32_t flag = 0;
};

template <class T, class Op, class B> class ChannelImpl {
  using Element = typename ElementOf<T>::type;
  using S = typename Element::Storage;
  static constexpr int64_t kE = int64_t(sizeof(S));
  static constexpr arith::Op kOp = OpOf<Op>::value;
  static_assert(sizeof(T) == sizeof(S), "element type and storage differ");

public:
  COLLRT_DEVICE explicit ChannelImpl(const LaunchArgs &args) {
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

  COLLRT_DEVICE ~ChannelImpl() {
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

  COLLRT_DEVICE void send(int64_t to, BufferKind src, int64_t srcIndex,
                          int64_t count, int64_t step) {
    execute(Opcode::Send, -1, to, src, srcIndex, Input, 0, count, step);
  }
  COLLRT_DEVICE void recv(int64_t from, BufferKind dst, int64_t dstIndex,
                          int64_t count, int64_t step) {
    execute(Opcode::Recv, from, -1, Input, 0, dst, dstIndex, count, step);
  }
  COLLRT_DEVICE void copy(BufferKind src, int64_t srcIndex, BufferKind dst,
                          int64_t dstIndex, int64_t count, int64_t step) {
    execute(Opcode::Copy, -1, -1, src, srcIndex, dst, dstIndex, count, step);
  }
  COLLRT_DEVICE void reduce(BufferKind src, int64_t srcIndex, BufferKind dst,
                            int64_t dstIndex, int64_t count, int64_t step) {
    execute(Opcode::Reduce, -1, -1, src, srcIndex, dst, dstIndex, count, step);
  }
  /// reduce with fanin: dst[j] = dst[j] (op) src[j] (op) src[count + j]
  /// ... (op) src[(fanin - 1) count + j] for j < count, in one pass over
  /// dst (sched.reduce's `fanin`; the sources must not overlap dst).
  COLLRT_DEVICE_CALL void reduceMany(BufferKind src, int64_t srcIndex,
                                     BufferKind dst, int64_t dstIndex,
                                     int64_t count, int64_t fanin,
                                     int64_t step) {
    if (fanin == 1) {
      execute(Opcode::Reduce, -1, -1, src, srcIndex, dst, dstIndex, count,
              step);
      return;
    }
    if (aborted_) {
      ++done_;
      return;
    }
    opcode_ = opcodeValue(Opcode::Reduce);
    step_ = step;
    peer_ = -1;
    if (fanin < 1 || count < 1 || !rangeOk(src, srcIndex, count * fanin) ||
        !rangeOk(dst, dstIndex, count)) {
      if (!aborted_)
        fail(wait::ChunkRange, uint64_t(count * fanin));
      ++done_;
      return;
    }
    if (src == dst && srcIndex < dstIndex + count &&
        dstIndex < srcIndex + count * fanin) {
      fail(wait::ChunkRange, (uint64_t(uint32_t(src)) << 40) |
                                 uint64_t(srcIndex + count * fanin));
      ++done_;
      return;
    }
    for (int64_t j = 0; j < count; ++j) {
      int64_t n = sliceElements(dst, dstIndex + j);
      bool aligned =
          (reinterpret_cast<uintptr_t>(sliceData(dst, dstIndex + j)) & 15) == 0;
      for (int64_t i = 0; i < fanin; ++i) {
        int64_t other = sliceElements(src, srcIndex + i * count + j);
        if (other != n) {
          fail(wait::SliceMismatch, (uint64_t(j) << 32) | uint64_t(other));
          ++done_;
          return;
        }
        aligned = aligned && (reinterpret_cast<uintptr_t>(
                                  sliceData(src, srcIndex + i * count + j)) &
                              15) == 0;
      }
      char *d = sliceData(dst, dstIndex + j);
      // The first sources' addresses once per slice, not per 16 bytes
      // (sliceData reads the context, which every store to d might alias).
      constexpr int64_t kCached = 8;
      const char *cached[kCached];
      for (int64_t i = 0; i < fanin && i < kCached; ++i)
        cached[i] = sliceData(src, srcIndex + i * count + j);
      auto source = [&](int64_t i) -> const char * {
        return i < kCached ? cached[i]
                           : sliceData(src, srcIndex + i * count + j);
      };
      int64_t bytes = n * kE, start = 0;
      if (aligned) {
        int64_t packs = bytes / 16;
        for (int64_t p = B::tid(); p < packs; p += B::nthreads()) {
          Pack16 v = B::load16(d + 16 * p);
          for (int64_t i = 0; i < fanin; ++i)
            v = combinePack(v, B::load16(source(i) + 16 * p));
          B::store16(d + 16 * p, v);
        }
        start = packs * 16;
      }
      int64_t words = (bytes + 7) / 8;
      for (int64_t w = start / 8 + B::tid(); w < words; w += B::nthreads()) {
        int64_t len = bytes - 8 * w < 8 ? bytes - 8 * w : 8;
        uint64_t v = loadPartial(d + 8 * w, len);
        for (int64_t i = 0; i < fanin; ++i)
          v = combineWord(v, loadPartial(source(i) + 8 * w, len), len);
        storePartial(d + 8 * w, v, len);
      }
    }
    // Every thread's stores to dst before thread 0 publishes progress: a
    // channel that waits for this instruction (`after`) reads dst next.
    B::sync();
    complete();
  }
  COLLRT_DEVICE void recvReduceSend(int64_t from, int64_t to, BufferKind src,
                                    int64_t srcIndex, int64_t count,
                                    int64_t step) {
    execute(Opcode::RecvReduceSend, from, to, src, srcIndex, Input, 0, count,
            step);
  }
  COLLRT_DEVICE void recvCopySend(int64_t from, int64_t to, BufferKind dst,
                                  int64_t dstIndex, int64_t count,
                                  int64_t step) {
    execute(Opcode::RecvCopySend, from, to, Input, 0, dst, dstIndex, count,
            step);
  }
  COLLRT_DEVICE void recvReduceCopy(int64_t from, BufferKind src,
                                    int64_t srcIndex, BufferKind dst,
                                    int64_t dstIndex, int64_t count,
                                    int64_t step) {
    execute(Opcode::RecvReduceCopy, from, -1, src, srcIndex, dst, dstIndex,
            count, step);
  }
  COLLRT_DEVICE void recvReduceCopySend(int64_t from, int64_t to,
                                        BufferKind src, int64_t srcIndex,
                                        BufferKind dst, int64_t dstIndex,
                                        int64_t count, int64_t step) {
    execute(Opcode::RecvReduceCopySend, from, to, src, srcIndex, dst, dstIndex,
            count, step);
  }

private:
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

  //===--------------------------------------------------------------------===//
  // Connections
  //===--------------------------------------------------------------------===//

  COLLRT_DEVICE bool useLL(int64_t count, const DeviceConnection &c) const {
    return c.llBuffers &&
           uint64_t(count) * uint64_t(ctx_->largestSlice) * uint64_t(kE) <=
               ctx_->llBytes;
  }
  /// Thread 0: waits until the connection has a free slot for message
  /// `seq`; false when it gave up.
  COLLRT_DEVICE bool waitForRoom(const DeviceConnection &c, uint64_t seq,
                                 int64_t peer) const {
    if (seq - B::loadAcquireSys(c.tail) < c.slots)
      return true;
    writeState(opcode_, peer, wait::WaitSend, seq);
    typename B::Poller poller;
    while (seq - B::loadAcquireSys(c.tail) >= c.slots)
      if (poller.giveUp(ctx_->abortFlag)) {
        endWait(true);
        return false;
      }
    endWait(false);
    return true;
  }

  /// Word w of an incoming message (after it arrived).
  COLLRT_DEVICE uint64_t inWord(const Port &in, uint64_t w) const {
    if (in.ll) {
      uint64_t v = 0;
      B::loadLine(in.data + 16 * w, in.flag, &v);
      return v;
    }
    return B::load64(in.data + 8 * w);
  }
  COLLRT_DEVICE void outWord(const Port &out, uint64_t w, uint64_t v) const {
    if (out.ll)
      B::storeLine(out.data + 16 * w, v, out.flag);
    else
      B::store64(out.data + 8 * w, v);
  }

  //===--------------------------------------------------------------------===//
  // Moving data
  //===--------------------------------------------------------------------===//

  COLLRT_DEVICE static uint64_t loadPartial(const char *p, int64_t bytes) {
    if (bytes == 8 && (reinterpret_cast<uintptr_t>(p) & 7) == 0)
      return B::load64(p);
    S e[8 / kE] = {};
    for (int64_t k = 0; k < bytes / kE; ++k)
      e[k] = B::template loadElement<S>(p + k * kE);
    uint64_t v;
    __builtin_memcpy(&v, e, 8);
    return v;
  }
  COLLRT_DEVICE static void storePartial(char *p, uint64_t v, int64_t bytes) {
    if (bytes == 8 && (reinterpret_cast<uintptr_t>(p) & 7) == 0) {
      B::store64(p, v);
      return;
    }
    S e[8 / kE];
    __builtin_memcpy(e, &v, 8);
    for (int64_t k = 0; k < bytes / kE; ++k)
      B::template storeElement<S>(p + k * kE, e[k]);
  }
  COLLRT_DEVICE static uint64_t combineWord(uint64_t a, uint64_t b,
                                            int64_t bytes) {
    S x[8 / kE], y[8 / kE];
    __builtin_memcpy(x, &a, 8);
    __builtin_memcpy(y, &b, 8);
    for (int64_t k = 0; k < bytes / kE; ++k)
      x[k] = arith::combine<Element, kOp>(x[k], y[k]);
    __builtin_memcpy(&a, x, 8);
    return a;
  }
  COLLRT_DEVICE static Pack16 combinePack(Pack16 a, const Pack16 &b) {
    S x[16 / kE], y[16 / kE];
    __builtin_memcpy(x, &a, 16);
    __builtin_memcpy(y, &b, 16);
    COLLRT_UNROLL
    for (int k = 0; k < int(16 / kE); ++k)
      x[k] = arith::combine<Element, kOp>(x[k], y[k]);
    __builtin_memcpy(&a, x, 16);
    return a;
  }

  /// A run of `n` elements: A (local `a`, or the incoming message at byte
  /// `off`), optionally combined with local `b`, stored to local `d` and/or
  /// the outgoing message at byte `off`. Returns whether this thread gave
  /// up waiting for an LL line.
  struct Run {
    const char *a = nullptr;
    const char *b = nullptr;
    char *d = nullptr;
    uint64_t off = 0;
    int64_t n = 0;
  };

  /// Packs i, i + nt, ... of a run, U at a time, while U remain.
  template <int U>
  COLLRT_DEVICE void packLoop(const char *a, const char *b, char *d, char *o,
                              int64_t packs, int64_t nt, int64_t *at) const {
    int64_t i = *at;
    for (; i + (U - 1) * nt < packs; i += U * nt) {
      Pack16 v[U];
      COLLRT_UNROLL
      for (int u = 0; u < U; ++u)
        v[u] = B::load16(a + 16 * (i + u * nt));
      if (b) {
        Pack16 w[U];
        COLLRT_UNROLL
        for (int u = 0; u < U; ++u)
          w[u] = B::load16(b + 16 * (i + u * nt));
        COLLRT_UNROLL
        for (int u = 0; u < U; ++u)
          v[u] = combinePack(v[u], w[u]);
      }
      COLLRT_UNROLL
      for (int u = 0; u < U; ++u) {
        if (d)
          B::store16(d + 16 * (i + u * nt), v[u]);
        if (o)
          B::store16(o + 16 * (i + u * nt), v[u]);
      }
    }
    *at = i;
  }

  COLLRT_DEVICE_CALL bool moveRun(const Run &r, bool aMsg, const Port &in,
                                  bool outUsed, const Port &out) const {
    int64_t bytes = r.n * kE;
    if (bytes <= 0)
      return false;
    const char *a = aMsg ? (in.ll ? nullptr : in.data + r.off) : r.a;
    char *o = outUsed && !out.ll ? out.data + r.off : nullptr;
    int64_t start = 0;
    uintptr_t bits =
        reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(r.b) |
        reinterpret_cast<uintptr_t>(r.d) | reinterpret_cast<uintptr_t>(o);
    if (a && (!outUsed || o) && (bits & 15) == 0) {
      // Every operand 16-byte aligned: whole packs, 8 loads in flight a
      // thread (8 packs of a copy, 4 of each operand of a combine).
      int64_t packs = bytes / 16, nt = B::nthreads();
      int64_t i = B::tid();
      if (r.b)
        packLoop<4>(a, r.b, r.d, o, packs, nt, &i);
      else
        packLoop<8>(a, nullptr, r.d, o, packs, nt, &i);
      for (; i < packs; i += nt) {
        Pack16 v = B::load16(a + 16 * i);
        if (r.b)
          v = combinePack(v, B::load16(r.b + 16 * i));
        if (r.d)
          B::store16(r.d + 16 * i, v);
        if (o)
          B::store16(o + 16 * i, v);
      }
      start = packs * 16;
    }
    // The rest (or everything) by 8-byte words: LL lines, unaligned
    // operands, the tail.
    bool gaveUp = false;
    int64_t words = (bytes + 7) / 8;
    for (int64_t w = start / 8 + B::tid(); w < words; w += B::nthreads()) {
      int64_t len = bytes - 8 * w < 8 ? bytes - 8 * w : 8;
      uint64_t v;
      if (aMsg && in.ll) {
        const char *line = in.data + 16 * (r.off / 8 + uint64_t(w));
        if (!B::loadLine(line, in.flag, &v)) {
          typename B::Poller poller;
          while (!B::loadLine(line, in.flag, &v))
            if (poller.giveUp(ctx_->abortFlag)) {
              gaveUp = true;
              break;
            }
          if (gaveUp)
            break;
        }
      } else {
        v = loadPartial(a + 8 * w, len);
      }
      if (r.b)
        v = combineWord(v, loadPartial(r.b + 8 * w, len), len);
      if (r.d)
        storePartial(r.d + 8 * w, v, len);
      if (outUsed) {
        if (out.ll)
          B::storeLine(out.data + 16 * (r.off / 8 + uint64_t(w)), v, out.flag);
        else
          B::store64(o + 8 * w, v);
      }
    }
    return gaveUp;
  }

  //===--------------------------------------------------------------------===//
  // One instruction
  //===--------------------------------------------------------------------===//

  COLLRT_DEVICE bool rangeOk(int buffer, int64_t index, int64_t count) {
    if (buffer < 0 || buffer > 2 || index < 0 || count < 1 ||
        index + count > ctx_->chunkCounts[buffer]) {
      fail(wait::ChunkRange,
           (uint64_t(uint32_t(buffer)) << 40) | uint64_t(index + count));
      return false;
    }
    return true;
  }
  COLLRT_DEVICE const DeviceConnection *connection(bool sending, int64_t peer) {
    const DeviceConnection *c = nullptr;
    if (peer >= 0 && peer < ctx_->nranks) {
      size_t at = size_t(peer) * size_t(ctx_->maxChannels) + size_t(channel_);
      c = sending ? &ctx_->sendTo[at] : &ctx_->recvFrom[at];
      if (!c->buffers)
        c = nullptr;
    }
    if (!c)
      fail(wait::NoConnection,
           (sending ? 0 : (1ull << 40)) | uint64_t(uint32_t(peer)));
    return c;
  }

  /// Elements of chunk j of the instruction (uniform on every thread).
  COLLRT_DEVICE int64_t chunkElements(Opcode opcode, const Port &in, int src,
                                      int64_t srcIndex, int dst,
                                      int64_t dstIndex, int64_t j) const {
    (void)dst;
    (void)dstIndex;
    // The message's sizes where there is one, else src's.
    if (!opcodeReceives(opcode))
      return sliceElements(src, srcIndex + j);
    return int64_t(inWord(in, 2 + uint64_t(j)));
  }

  /// Counts the instruction for `after`. The barrier also lets every
  /// thread see the connection counters thread 0 advanced.
  COLLRT_DEVICE void complete() {
    ++done_;
    if (B::tid() == 0)
      B::storeReleaseGpu(&ctx_->progress[channel_],
                         ((epoch_ + uint64_t(tile_)) << 32) | done_);
    B::sync();
  }

  COLLRT_DEVICE_CALL void execute(Opcode opcode, int64_t from, int64_t to,
                                  int src, int64_t srcIndex, int dst,
                                  int64_t dstIndex, int64_t count,
                                  int64_t step) {
    if (aborted_) {
      ++done_;
      return;
    }
    opcode_ = opcodeValue(opcode);
    step_ = step;
    bool receives = opcodeReceives(opcode), sends = opcodeSends(opcode);
    bool readsSrc = opcodeReadsSrc(opcode), writesDst = opcodeWritesDst(opcode);
    // For reduce and the recv_reduce forms, the local operand B is src and
    // A the message (reduce: A is dst), as in the CPU executor.
    bool combines = opcodeReduces(opcode);
    peer_ = receives ? from : to;
    if ((readsSrc && !rangeOk(src, srcIndex, count)) ||
        (writesDst && !rangeOk(dst, dstIndex, count))) {
      ++done_;
      return;
    }
    const DeviceConnection *inConn = nullptr, *outConn = nullptr;
    if ((receives && !(inConn = connection(false, from))) ||
        (sends && !(outConn = connection(true, to)))) {
      ++done_;
      return;
    }

    // The incoming message: wait for it, check its header.
    Port in;
    uint64_t seqIn = 0, inSlot = 0;
    if (receives) {
      seqIn = B::loadRelaxed(inConn->counter);
      inSlot = seqIn % inConn->slots;
      in.ll = useLL(count, *inConn);
      in.flag = uint32_t(seqIn + 1);
      in.data = in.ll ? inConn->llBuffers + inSlot * inConn->llSlotBytes
                      : inConn->buffers + inSlot * inConn->slotBytes;
      if (!receiveHeader(*inConn, in, seqIn, count, from)) {
        ++done_;
        return;
      }
    }

    // Sizes: every chunk's slice, checked against the instruction.
    uint64_t bytes = headerBytes(uint64_t(count));
    for (int64_t j = 0; j < count; ++j) {
      int64_t n = chunkElements(opcode, in, src, srcIndex, dst, dstIndex, j);
      if (receives && (n < 0 || n > ctx_->tileElements)) {
        fail(wait::MessageSlice, (uint64_t(j) << 32) | uint64_t(uint32_t(n)));
        break;
      }
      if (combines) {
        int64_t other = opcode == Opcode::Reduce
                            ? sliceElements(dst, dstIndex + j)
                            : sliceElements(src, srcIndex + j);
        if (other != n) {
          fail(wait::SliceMismatch, (uint64_t(j) << 32) | uint64_t(other));
          break;
        }
      }
      bytes += round16(uint64_t(n) * uint64_t(kE));
    }
    if (!aborted_ && receives && !in.ll) {
      uint64_t sent =
          B::load64(reinterpret_cast<const char *>(&inConn->sizes[inSlot]));
      if (sent != bytes)
        fail(wait::MessageBytes, (sent & kLLMessage ? 1ull << 47 : 0) |
                                     (sent & ((1ull << 47) - 1)));
    }
    if (aborted_) {
      ++done_;
      return;
    }

    // The outgoing message: its slot when it has room now (a send waits for
    // it), else this channel's staging buffer.
    Port out;
    uint64_t seqOut = 0, outSlot = 0;
    bool staged = false;
    if (sends) {
      seqOut = B::loadRelaxed(outConn->counter);
      outSlot = seqOut % outConn->slots;
      bool room = false, gaveUp = false;
      if (B::tid() == 0) {
        if (!receives)
          gaveUp = !waitForRoom(*outConn, seqOut, to);
        else
          room = seqOut - B::loadAcquireSys(outConn->tail) < outConn->slots;
      }
      if (B::syncAny(gaveUp)) {
        aborted_ = true;
        ++done_;
        return;
      }
      staged = receives && !B::syncAny(room);
      out = outPort(*outConn, seqOut, outSlot, count, staged);
      uint64_t capacity =
          staged ? ctx_->stagingBytes
                 : (out.ll ? outConn->llSlotBytes / 2 : outConn->slotBytes);
      if (bytes > capacity) {
        fail(wait::MessageTooLarge, bytes);
        ++done_;
        return;
      }
      for (int64_t w = B::tid(); w < 2 + count; w += B::nthreads()) {
        uint64_t v = w == 0 ? uint64_t(tile_)
                     : w == 1
                         ? uint64_t(count)
                         : uint64_t(chunkElements(opcode, in, src, srcIndex,
                                                  dst, dstIndex, w - 2));
        outWord(out, uint64_t(w), v);
      }
    }

    bool gaveUp = moveData(opcode, in, out, receives, sends, combines,
                           writesDst, src, srcIndex, dst, dstIndex, count);

    // Release the received slot, publish the message.
    if (B::syncAny(gaveUp) || aborted_) {
      aborted_ = true;
      ++done_;
      return;
    }
    if (receives && B::tid() == 0) {
      B::storeReleaseSys(inConn->tail, seqIn + 1);
      B::storeRelaxed(inConn->counter, seqIn + 1);
    }
    if (staged) {
      bool waited = false;
      if (B::tid() == 0)
        waited = !waitForRoom(*outConn, seqOut, to);
      if (B::syncAny(waited)) {
        aborted_ = true;
        ++done_;
        return;
      }
      Port staging = out;
      out = outPort(*outConn, seqOut, outSlot, count, false);
      forwardStaged(staging, out, bytes);
      B::sync();
    }
    if (sends && B::tid() == 0) {
      // head also counts LL messages (the receiver does not wait for it;
      // a simple receiver of an LL message sees kLLMessage in sizes).
      B::storeRelaxed(&outConn->sizes[outSlot],
                      bytes | (out.ll ? kLLMessage : 0));
#if COLLRT_LL_RELAXED_HEAD
      // An LL receiver polls its lines, never head: head only counts the
      // message (the watchdog, the counts after the launch), so no
      // system-scope fence (which would wait for every outgoing LL store of
      // the block). A simple receiver that wrongly gets an LL message may
      // then see head before sizes: its diagnosis may name stale sizes.
      if (out.ll)
        B::storeRelaxedSys(outConn->head, seqOut + 1);
      else
#endif
        B::storeReleaseSys(outConn->head, seqOut + 1);
      B::storeRelaxed(outConn->counter, seqOut + 1);
    }
    complete();
  }

  COLLRT_DEVICE Port outPort(const DeviceConnection &c, uint64_t seq,
                             uint64_t slot, int64_t count, bool staged) const {
    Port p;
    if (staged) {
      p.data = ctx_->staging + size_t(channel_) * ctx_->stagingBytes;
      return p;
    }
    p.ll = useLL(count, c);
    p.flag = uint32_t(seq + 1);
    p.data = p.ll ? c.llBuffers + slot * c.llSlotBytes
                  : c.buffers + slot * c.slotBytes;
    return p;
  }

  /// Waits for message `seq` and checks its tile and chunk count (every
  /// thread alike afterwards). False when the block gave up or failed.
  COLLRT_DEVICE bool receiveHeader(const DeviceConnection &c, const Port &in,
                                   uint64_t seq, int64_t count, int64_t from) {
    bool gaveUp = false;
    if (!in.ll) {
      if (B::tid() == 0 && B::loadAcquireSys(c.head) <= seq) {
        writeState(opcode_, from, wait::WaitRecv, seq);
        typename B::Poller poller;
        while (B::loadAcquireSys(c.head) <= seq)
          if (poller.giveUp(ctx_->abortFlag)) {
            gaveUp = true;
            break;
          }
        endWait(gaveUp);
      }
    } else {
      // The tile and chunk count first (a message of another chunk count
      // has other header lines), then the slices' lines, a thread each;
      // thread 0 records the wait.
      gaveUp = !pollLines(in, 0, 2, from, seq);
    }
    if (B::syncAny(gaveUp)) {
      aborted_ = true;
      return false;
    }
    uint64_t tile = inWord(in, 0), chunks = inWord(in, 1);
    if (tile != uint64_t(tile_)) {
      fail(wait::MessageTile, tile);
      return false;
    }
    if (chunks != uint64_t(count)) {
      fail(wait::MessageChunks, chunks);
      return false;
    }
    if (in.ll && B::syncAny(!pollLines(in, 2, 2 + count, from, seq))) {
      aborted_ = true;
      return false;
    }
    return true;
  }

  /// Polls LL lines [first, end) of `in`, a thread each; false when this
  /// thread gave up.
  COLLRT_DEVICE bool pollLines(const Port &in, int64_t first, int64_t end,
                               int64_t from, uint64_t seq) const {
    uint64_t v;
    for (int64_t w = first + B::tid(); w < end; w += B::nthreads()) {
      const char *line = in.data + 16 * w;
      if (B::loadLine(line, in.flag, &v))
        continue;
      bool records = B::tid() == 0 && w == first;
      if (records)
        writeState(opcode_, from, wait::WaitRecv, seq);
      typename B::Poller poller;
      bool gaveUp = false;
      while (!B::loadLine(line, in.flag, &v))
        if (poller.giveUp(ctx_->abortFlag)) {
          gaveUp = true;
          break;
        }
      if (records)
        endWait(gaveUp);
      if (gaveUp)
        return false;
    }
    return true;
  }

  /// Copies a staged message (simple layout) into its slot.
  COLLRT_DEVICE void forwardStaged(const Port &staging, const Port &out,
                                   uint64_t bytes) const {
    if (out.ll) {
      for (uint64_t w = B::tid(); w < bytes / 8; w += B::nthreads())
        B::storeLine(out.data + 16 * w, B::load64(staging.data + 8 * w),
                     out.flag);
      return;
    }
    for (uint64_t i = B::tid(); i < bytes / 16; i += B::nthreads())
      B::store16(out.data + 16 * i, B::load16(staging.data + 16 * i));
  }

  /// The data of every chunk, merged into runs where slices are
  /// contiguous. Same-buffer copies and combines of overlapping ranges go
  /// chunk by chunk in the CPU executor's order (copies like memmove).
  COLLRT_DEVICE_CALL bool moveData(Opcode opcode, const Port &in,
                                   const Port &out, bool receives, bool sends,
                                   bool combines, bool writesDst, int src,
                                   int64_t srcIndex, int dst, int64_t dstIndex,
                                   int64_t count) {
    // src and dst both local (copy, reduce, recv_reduce_copy[_send]).
    bool local = opcodeReadsSrc(opcode) && writesDst;
    bool overlap = local && src == dst && srcIndex != dstIndex &&
                   srcIndex < dstIndex + count && dstIndex < srcIndex + count;
    if (overlap) {
      bool backwards = opcode == Opcode::Copy && dstIndex > srcIndex;
      uint64_t off = headerBytes(uint64_t(count));
      // Message offsets of chunk j: only the recv_reduce forms use them,
      // and they go forwards.
      bool gaveUp = false;
      for (int64_t k = 0; k < count; ++k) {
        int64_t j = backwards ? count - 1 - k : k;
        int64_t n = chunkElements(opcode, in, src, srcIndex, dst, dstIndex, j);
        Run r;
        r.n = n;
        r.off = off;
        r.d = sliceData(dst, dstIndex + j);
        if (opcode == Opcode::Copy) {
          r.a = sliceData(src, srcIndex + j);
        } else if (opcode == Opcode::Reduce) {
          r.a = sliceData(dst, dstIndex + j);
          r.b = sliceData(src, srcIndex + j);
        } else {
          r.b = sliceData(src, srcIndex + j);
        }
        B::sync();
        if (opcode != Opcode::Reduce && !setSlice(dst, dstIndex + j, j, n))
          return false;
        gaveUp |= moveRun(r, receives, in, sends, out);
        B::sync();
        off += round16(uint64_t(n) * uint64_t(kE));
      }
      return gaveUp;
    }

    bool gaveUp = false;
    Run run;
    bool open = false;
    uint64_t off = headerBytes(uint64_t(count));
    for (int64_t j = 0; j < count; ++j) {
      int64_t n = chunkElements(opcode, in, src, srcIndex, dst, dstIndex, j);
      if (writesDst && !setSlice(dst, dstIndex + j, j, n))
        return false;
      Run r;
      r.n = n;
      r.off = off;
      if (opcode == Opcode::Send || opcode == Opcode::Copy)
        r.a = sliceData(src, srcIndex + j);
      else if (opcode == Opcode::Reduce)
        r.a = sliceData(dst, dstIndex + j);
      if (combines)
        r.b = sliceData(src, srcIndex + j);
      if (writesDst)
        r.d = sliceData(dst, dstIndex + j);
      off += round16(uint64_t(n) * uint64_t(kE));
      int64_t bytes = run.n * kE;
      bool contiguous =
          open && (!r.a || r.a == run.a + bytes) &&
          (!r.b || r.b == run.b + bytes) && (!r.d || r.d == run.d + bytes) &&
          (!(receives || sends) || r.off == run.off + uint64_t(bytes));
      if (contiguous) {
        run.n += n;
        continue;
      }
      if (open)
        gaveUp |= moveRun(run, receives, in, sends, out);
      run = r;
      open = true;
    }
    if (open)
      gaveUp |= moveRun(run, receives, in, sends, out);
    return gaveUp;
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

//===- Channel.h - what a generated kernel calls ----------------*- C++ -*-===//
//
// The contract between collc's CUDA code generator (lowering/SchedToCUDA,
// `collc --emit=cuda`) and libcollrt's device runtime (runtime/device). A
// generated kernel runs one thread block per (rank, channel); each block
// executes its channel's instruction stream through a collrt::dev::Channel,
// which hides the transport (NVLink peer memory, IPC, ranks sharing one
// GPU) and the protocol (slots, flags, low-latency stores).
//
// A generated file looks like this (ring all_reduce, n = 4, k = 4, f32 sum;
// peers and chunk indices are the schedule's affine expressions of the rank
// r, with n, k and the parameters folded to constants):
//
//   #include "collrt/device/Channel.h"
//   COLLRT_KERNEL(collc_ring_all_reduce)(collrt::dev::LaunchArgs args) {
//     collrt::dev::Channel<float, collrt::dev::SumOp> ch(args);
//     const int64_t r = ch.rank();
//     for (int64_t t = 0; t < ch.tiles(); ++t) {
//       ch.beginTile(t);
//       switch (ch.channel()) {
//       case 0:
//         ch.send(collrt::dev::floorMod(r + 1, 4), collrt::dev::Input,
//                 r * 1 + 0, 1);
//         for (int64_t s = 1; s < 3; ++s)
//           ch.recvReduceSend(collrt::dev::floorMod(r - 1, 4),
//                             collrt::dev::floorMod(r + 1, 4),
//                             collrt::dev::Input,
//                             collrt::dev::floorMod(r - s, 4), 1);
//         ...
//         break;
//       }
//       ch.endTile();
//     }
//   }
//
// Semantics are exactly sched::Program's (common/Program/Program.h):
// buffers input/output/scratch cut into chunks (the chunk offsets come from
// the launch, computed on the host with sched::ChunkLayout), a connection
// (sender, receiver, channel) is a FIFO of messages, and an instruction
// moves or combines whole chunk ranges. Tiling is the CPU executor's
// (docs/runtime.md): the stream runs once per tile, and an instruction's
// message in tile t is the concatenation of the tile-t slices of its chunks.
// Every instruction counts as one completed instruction of its channel for
// the `after` dependencies, which refer to instruction indices of the
// expanded stream within the same tile.
//
// This header compiles with nvcc (the CUDA implementation) and with a host
// C++17 compiler (COLLRT_DEVICE_EMULATION: blocks are host threads, used by
// tests on machines without a GPU). The implementation is next to this
// file (ChannelCommon.h over ChannelCuda.cuh or ChannelHost.h, included at
// the bottom; docs/gpu-runtime.md).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNEL_H
#define COLLRT_DEVICE_CHANNEL_H

#include <stdint.h>

/// 1: an LL message's head is published without a system-scope release
/// (ChannelCommon.h, after the send); 0 by default until the 8 KiB latency
/// on a GPU shows what it saves (bench/gpu/prepare.sh builds both).
#ifndef COLLRT_LL_RELAXED_HEAD
#define COLLRT_LL_RELAXED_HEAD 0
#endif

#if defined(__CUDACC__)
#define COLLRT_DEVICE __device__ __forceinline__
/// Threads per block the kernel is compiled for (its __launch_bounds__, so
/// that nvcc keeps registers within what that many threads may use); the
/// CUDA executor launches with the kernel's maximum (at most this).
#ifndef COLLRT_BLOCK_THREADS
#define COLLRT_BLOCK_THREADS 512
#endif
/// Blocks of that many threads that must fit on one multiprocessor at once
/// (__launch_bounds__'s second argument: nvcc keeps registers within a
/// 1/N share). 1 by default: at 512 threads and up to 128 registers, one
/// block per SM, so a launch holds at most as many blocks as the GPU has
/// SMs (132 on an H200); 2 doubles that at the price of registers.
#ifndef COLLRT_MIN_BLOCKS_PER_SM
#define COLLRT_MIN_BLOCKS_PER_SM 1
#endif
#define COLLRT_KERNEL(name)                                                    \
  extern "C" __global__ void __launch_bounds__(COLLRT_BLOCK_THREADS,           \
                                               COLLRT_MIN_BLOCKS_PER_SM) name
#else
#define COLLRT_DEVICE inline
/// Host emulation: a kernel is a function the emulator calls once per
/// (rank, channel) block, each on its own thread.
#define COLLRT_KERNEL(name) extern "C" void name
#endif

namespace collrt {
namespace dev {

enum BufferKind : int32_t { Input = 0, Output = 1, Scratch = 2 };

/// Floor division and modulo (the affine dialect's floordiv and mod: the
/// result of mod is in [0, |b|)), for the generated expressions.
COLLRT_DEVICE int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
COLLRT_DEVICE int64_t floorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return m < 0 ? m + (b < 0 ? -b : b) : m;
}
COLLRT_DEVICE int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

/// One direction of a connection as the device sees it. The receiver owns
/// `slots` message buffers of `slotBytes` each; the sender writes a message
/// into buffer (posted % slots) and then publishes `posted + 1` to *head
/// (release); the receiver waits for *head > consumed (acquire), reads,
/// and publishes `consumed + 1` to *tail; the sender waits for
/// posted - *tail < slots before writing. Each side keeps its own counter
/// in the ConnState below.
struct DeviceConnection {
  char *buffers = nullptr;   ///< slots x slotBytes, in the receiver's memory
  uint64_t *head = nullptr;  ///< messages posted (sender writes)
  uint64_t *tail = nullptr;  ///< messages consumed (receiver writes)
  uint64_t *sizes = nullptr; ///< per slot: bytes of the message in it
  uint32_t slots = 0;
  uint32_t slotBytes = 0;
  // Added by the runtime (runtime/device, docs/gpu-runtime.md):
  /// This side's own count (messages posted by the sender, consumed by the
  /// receiver), in this side's memory. Counts never restart while the
  /// connections live, so head, tail and the low-latency flags never
  /// repeat a value from an earlier launch.
  uint64_t *counter = nullptr;
  /// The low-latency (LL) area: slots x llSlotBytes of 16-byte lines, each
  /// 8 bytes of message and the message's 32-bit flag twice; in the
  /// receiver's memory, written only with LL lines. Null: no LL.
  char *llBuffers = nullptr;
  uint32_t llSlotBytes = 0;
};

/// Everything one rank's blocks need. Lives in device memory (global), one
/// per rank of the launch; blocks find theirs through LaunchArgs.
struct RankContext {
  int32_t rank = 0;                               ///< group rank
  int32_t nranks = 0;                             ///< group size
  char *buffers[3] = {nullptr, nullptr, nullptr}; ///< input, output, scratch
  /// Per buffer: chunks + 1 element offsets (chunk i is [off[i], off[i+1])).
  const int64_t *chunkOffsets[3] = {nullptr, nullptr, nullptr};
  int64_t tileElements = 0; ///< T: the tile of a chunk
  int64_t tiles = 0;        ///< ceil(largest chunk / T), at least 1
  /// Connections indexed by peer * maxChannels + channel; entries without
  /// a connection have null buffers.
  DeviceConnection *sendTo = nullptr;
  DeviceConnection *recvFrom = nullptr;
  int32_t maxChannels = 0;
  /// Per channel: instructions completed in the current tile (for `after`),
  /// and the tile it is in: ((tileEpoch + tile) << 32) | completed.
  uint64_t *progress = nullptr;
  /// Host-visible: set non-zero by the host watchdog to make every wait
  /// give up; blocks record where they waited in `waitState`.
  volatile int32_t *abortFlag = nullptr;
  /// Per channel: 4 words (tile, instruction, opcode|peer, state), written
  /// when a block starts waiting, for the watchdog's report.
  uint64_t *waitState = nullptr;
  // Added by the runtime (runtime/device, docs/gpu-runtime.md; the
  // encodings are in collrt/device/WaitState.h):
  int32_t elementSize = 0;            ///< bytes of the plan's element type
  int32_t chunkCounts[3] = {0, 0, 0}; ///< chunks of input, output, scratch
  int64_t scratchCapacity = 0;        ///< elements of one scratch chunk
  /// Per scratch chunk and tile (chunk * tiles + tile): what the last write
  /// left there, ((tileEpoch + tile + 1) << 32) | elements; other tags
  /// (zero, older epochs) read as unwritten (a whole tile of the chunk), as
  /// in the CPU executor.
  uint64_t *scratchSlices = nullptr;
  /// Per channel: tiles run by earlier launches of these contexts (the
  /// epoch of `progress` and `scratchSlices`), advanced by each block at
  /// its end; equal on every channel of a rank between launches.
  uint64_t *tileEpoch = nullptr;
  /// min(tileElements, largest chunk): the most elements of one chunk in a
  /// message; a message of c chunks uses the LL protocol when
  /// c * largestSlice * elementSize <= llBytes (0: never).
  int64_t largestSlice = 0;
  uint32_t llBytes = 0;
  /// Per channel a staging buffer of stagingBytes, where a fused
  /// instruction whose next connection is full puts its outgoing message
  /// so that it can release the received slot before it waits.
  char *staging = nullptr;
  uint64_t stagingBytes = 0;
};

/// The kernel's one argument. Block b runs rank blockRank[b], channel
/// blockChannel[b] (device arrays of gridDim.x entries).
struct LaunchArgs {
  const RankContext *ranks = nullptr;
  const int32_t *blockRank = nullptr;
  const int32_t *blockChannel = nullptr;
  /// Host emulation only: the block this call runs (blockIdx.x on a GPU).
  int32_t emulatedBlock = 0;
};

/// Element types of generated kernels: float, double, int64_t, int32_t,
/// int8_t, and the narrow floats the implementation defines as
/// collrt::dev::f16, bf16, f8e4m3 and f8e5m2 (CUDA's __half,
/// __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2 on the GPU; bit-exact
/// structs in the host emulation).
///
/// Reductions, as functors over the element type (f16/bf16/f8 types
/// accumulate in float, as the CPU executor does).
struct SumOp {};
struct ProdOp {};
struct MinOp {};
struct MaxOp {};
/// avg reduces as a sum; the executor divides the reduced outputs by the
/// group size after the kernel (docs/runtime.md).
using AvgOp = SumOp;

/// The instructions of one block. Every method is called by all threads of
/// the block with the same arguments; peers are group ranks; chunk
/// indices and counts are in chunks of the named buffer; `step` is the
/// schedule's step label (for the watchdog's report). The implementations
/// (runtime/device) provide exactly these members:
///
///   template <typename T, typename Op> class Channel {
///   public:
///     explicit Channel(const LaunchArgs &args);
///     int64_t rank() const;     // group rank of this block
///     int64_t nranks() const;
///     int64_t channel() const;  // channel id of this block
///     int64_t tiles() const;
///     void beginTile(int64_t tile);
///     void endTile();
///     // Wait until `channel` of this rank completed instruction `index`
///     // (0-based, in this tile) before the next instruction starts.
///     void after(int64_t channel, int64_t index);
///     void send(int64_t to, BufferKind src, int64_t srcIndex,
///               int64_t count, int64_t step);
///     void recv(int64_t from, BufferKind dst, int64_t dstIndex,
///               int64_t count, int64_t step);
///     void copy(BufferKind src, int64_t srcIndex, BufferKind dst,
///               int64_t dstIndex, int64_t count, int64_t step);
///     void reduce(BufferKind src, int64_t srcIndex, BufferKind dst,
///                 int64_t dstIndex, int64_t count, int64_t step);
///     // reduce with fanin: src is fanin ranges of count chunks, all
///     // combined into dst in one pass (sched.reduce's `fanin`).
///     void reduceMany(BufferKind src, int64_t srcIndex, BufferKind dst,
///                     int64_t dstIndex, int64_t count, int64_t fanin,
///                     int64_t step);
///     void recvReduceSend(int64_t from, int64_t to, BufferKind src,
///                         int64_t srcIndex, int64_t count, int64_t step);
///     void recvCopySend(int64_t from, int64_t to, BufferKind dst,
///                       int64_t dstIndex, int64_t count, int64_t step);
///     void recvReduceCopy(int64_t from, BufferKind src, int64_t srcIndex,
///                         BufferKind dst, int64_t dstIndex, int64_t count,
///                         int64_t step);
///     void recvReduceCopySend(int64_t from, int64_t to, BufferKind src,
///                             int64_t srcIndex, BufferKind dst,
///                             int64_t dstIndex, int64_t count,
///                             int64_t step);
///     // Whether a wait gave up (the host set abortFlag); later
///     // instructions then do nothing, so the kernel always finishes.
///     bool aborted() const;
///   };
///
/// (all members COLLRT_DEVICE). `count` is the number of chunks of both
/// src and dst, as in sched::Instruction (reduceMany: of dst, and of each of
/// its fanin source ranges).
template <typename T, typename Op> class Channel;

} // namespace dev
} // namespace collrt

#if defined(__CUDACC__)
#include "collrt/device/ChannelCuda.cuh"
#else
#include "collrt/device/ChannelHost.h"
#endif

#endif

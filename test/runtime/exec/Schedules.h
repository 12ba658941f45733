//===- Schedules.h - hand-built schedules for executor tests ----*- C++ -*-===//
//
// Small sched::Program builders (after the verifier tests' builders, written
// anew so that the runtime's tests do not depend on the compiler's): ring
// all-reduce, direct all-to-all(v), a pipelined chain broadcast, a chain
// reduce, and an all-gather whose messages are staged in scratch by one
// channel while another copies them out (cross-channel dependencies).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_EXEC_SCHEDULES_H
#define COLLRT_TEST_EXEC_SCHEDULES_H

#include "common/Program/Program.h"

#include <vector>

namespace collrt {
namespace testing {

using collc::sched::Buffer;
using collc::sched::ChunkRange;
using collc::sched::Collective;
using collc::sched::Instruction;
using collc::sched::Opcode;
using collc::sched::Program;

inline ChunkRange in(uint32_t index, uint32_t count = 1) {
  return {Buffer::Input, index, count};
}
inline ChunkRange out(uint32_t index, uint32_t count = 1) {
  return {Buffer::Output, index, count};
}
inline ChunkRange tmp(uint32_t index, uint32_t count = 1) {
  return {Buffer::Scratch, index, count};
}

inline Instruction op(Opcode opcode, int32_t from, int32_t to, ChunkRange src,
                      ChunkRange dst, int32_t step) {
  Instruction i;
  i.opcode = opcode;
  i.recvPeer = from;
  i.sendPeer = to;
  i.src = src;
  i.dst = dst;
  i.step = step;
  return i;
}
inline Instruction sendTo(int32_t to, ChunkRange src, int32_t step = 0) {
  return op(Opcode::Send, -1, to, src, {}, step);
}
inline Instruction recvFrom(int32_t from, ChunkRange dst, int32_t step = 0) {
  return op(Opcode::Recv, from, -1, {}, dst, step);
}
inline Instruction copyTo(ChunkRange src, ChunkRange dst, int32_t step = 0) {
  return op(Opcode::Copy, -1, -1, src, dst, step);
}

/// Buffers as the collective's table requires, `channels` empty channels.
Program emptyProgram(Collective collective, int32_t n, uint32_t k,
                     uint32_t scratchChunks = 0, uint32_t channels = 1);

/// Appends to (rank, channel); returns the instruction's index.
uint32_t append(Program &program, int32_t rank, uint32_t channel,
                const Instruction &instruction);
/// Instruction `index` of (rank, channel) waits for instruction `otherIndex`
/// of `otherChannel`.
void dependOn(Program &program, int32_t rank, uint32_t channel, uint32_t index,
              uint32_t otherChannel, uint32_t otherIndex);

/// Ring all-reduce over `channels` rings; each channel owns n segments of
/// `segmentChunks` chunks and runs reduce-scatter then all-gather
/// (send, recv_reduce_send..., recv_reduce_copy_send, recv_copy_send...,
/// recv).
Program ringAllReduce(int32_t n, uint32_t segmentChunks, uint32_t channels);

/// An all_reduce on 2 ranks that never finishes: both ranks receive first
/// on channel 0 (each waits for the other's send, which follows its recv);
/// channels 1 and 2 copy input[1] to output[1] at step 2 after channel 0's
/// first instruction.
Program stuckOnChannel0();

/// Direct all-to-all: copy the own part, send every other part, receive
/// every other part (one message of k chunks each).
Program directAllToAll(int32_t n, uint32_t k);

/// Direct all-to-all-v with the given n*n send counts (row-major by
/// sender).
Program directAllToAllV(int32_t n, uint32_t k,
                        const std::vector<int64_t> &sendCounts);

/// Chain broadcast from `root` through root+1, root+2, ..., pipelined chunk
/// by chunk: the root copies its input and sends, the middle ranks
/// recv_copy_send, the last one receives.
Program chainBroadcast(int32_t n, uint32_t k, int32_t root);

/// Chain reduce to `root` from root+1, root+2, ...: send,
/// recv_reduce_send..., recv_reduce_copy on the root; chunk by chunk.
Program chainReduce(int32_t n, uint32_t k, int32_t root);

/// Ring all-gather staged in scratch: channel 0 receives every message into
/// scratch chunk 0 and forwards it from there; channel 1 copies it to the
/// output. Channel 1's copy waits for channel 0's recv (read after write),
/// channel 0's next recv waits for channel 1's copy (write after read).
/// Chunks of one part differ in size for uneven counts, so the scratch
/// chunk holds slices of different sizes one after another.
Program stagedRingAllGather(int32_t n, uint32_t k);

/// A reduce-scatter that combines in place with the local `reduce` opcode:
/// each rank sends part p to rank p, receives every other rank's part of
/// its own into scratch, and reduces scratch into its output.
Program directReduceScatter(int32_t n, uint32_t k);

} // namespace testing
} // namespace collrt

#endif

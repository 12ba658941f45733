//===- WaitState.h - what a block records for the watchdog ------*- C++ -*-===//
//
// The encodings shared by the device side (ChannelCommon.h) and the host's
// report (runtime/device/WaitReport.cpp): the four waitState words of a
// block, the values of abortFlag, and the errors a block can find.
//
//   word 0: the tile
//   word 1: the instruction (index in the tile's stream)
//   word 2: opcode (8 bits) << 56 | step (24 bits) << 32 | peer (32 bits)
//           (for a wait in `after`: the opcode kAfter and the channel)
//   word 3: state (8 bits) << 56 | detail (56 bits)
//
// A block writes them when it starts to wait (the detail is the message
// number on the connection, or the awaited instruction of `after`), when a
// wait ends (state Running), when it finds an error (detail = error << 48 |
// value), and when it finishes (word 0 = tiles, word 1 = instructions per
// tile). A wait that gave up because abortFlag was set keeps its state with
// kGaveUp added.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_WAITSTATE_H
#define COLLRT_DEVICE_WAITSTATE_H

#include "collrt/Opcodes.h"
#include "collrt/device/DeviceArith.h" // COLLRT_HD

#include <stdint.h>

namespace collrt {
namespace dev {
namespace wait {

constexpr int kWords = 4;

enum State : uint32_t {
  NotStarted = 0, ///< never recorded anything (zeroed memory)
  Running = 1,    ///< working, not waiting (its last wait ended)
  WaitRecv = 2,   ///< waiting for a message (detail: its number)
  WaitSend = 3,   ///< waiting for a free slot (detail: the message number)
  WaitAfter = 4,  ///< waiting in `after` (detail: the instruction index)
  Finished = 5,
  Error = 6, ///< found an error (detail: error << 48 | value)
};
constexpr uint32_t kGaveUp = 0x80;

/// Word 2's opcode is collrt/Opcodes.h's opcodeValue (0 send ... 7
/// recv_reduce_copy_send); these two mark waits outside an instruction.
constexpr uint32_t kAfter = 0xf0;
constexpr uint32_t kSetup = 0xf1;
static_assert(kOpcodeCount <= kAfter && kAfter < kSetup && kSetup <= 0xff,
              "word 2's 8 opcode bits hold every opcode and both marks, "
              "distinct");

/// abortFlag values.
enum Abort : int32_t {
  NoAbort = 0,
  HostAbort = 1,  ///< the host's watchdog (or caller) stopped the launch
  BlockError = 2, ///< a block found an error and stopped the others
};

enum ErrorKind : uint32_t {
  ElementSize = 1,      ///< value: the kernel's sizeof(T)
  ChunkRange = 2,       ///< value: buffer << 40 | (index + count)
  NoConnection = 3,     ///< value: peer (send 0, recv 1 << 40)
  MessageTile = 4,      ///< value: the message's tile
  MessageChunks = 5,    ///< value: the message's chunk count
  MessageSlice = 6,     ///< value: chunk << 32 | the message's elements
  SliceMismatch = 7,    ///< value: chunk << 32 | the source's elements
  MessageTooLarge = 8,  ///< value: the message's bytes
  BadChannel = 9,       ///< value: the channel `after` named
  ScratchOverflow = 10, ///< value: chunk << 32 | elements
  MessageBytes = 11,    ///< value: the bytes the sender recorded (bit 47: LL)
};

COLLRT_HD constexpr uint64_t word2(uint32_t opcode, int64_t step,
                                   int64_t peer) {
  return (uint64_t(opcode & 0xff) << 56) |
         (uint64_t(uint32_t(step) & 0xffffff) << 32) | uint64_t(uint32_t(peer));
}
COLLRT_HD constexpr uint64_t word3(uint32_t state, uint64_t detail) {
  return (uint64_t(state & 0xff) << 56) | (detail & ((1ull << 56) - 1));
}
COLLRT_HD constexpr uint64_t errorDetail(uint32_t kind, uint64_t value) {
  return (uint64_t(kind & 0xff) << 48) | (value & ((1ull << 48) - 1));
}

} // namespace wait
} // namespace dev
} // namespace collrt

#endif

//===- Opcodes.h - the instructions of a channel stream, once ---*- C++ -*-===//
//
// The one table of collc's opcodes: their values, their names and what each
// does (receives, sends, reduces, reads src, writes dst). Everyone uses it:
// the compiler's expanded schedule (collc::sched::Opcode in
// common/Program/Program.h is this enum), the sched dialect (its op
// names are these, checked in SchedOps.cpp), the plan's writer and reader
// (docs/plan-format.md spells opcodes with these names), the device channel
// (collrt/device/ChannelCommon.h, on the GPU and in the host emulation) and
// the watchdog's report of a launch (runtime/device/WaitReport.cpp), which
// decodes the value a block recorded in its waitState word 2
// (collrt/device/WaitState.h).
//
// Plain C++17, self-contained, everything constexpr: no library, no
// std::string, no exceptions, so that nvcc compiles it as device code
// (__host__ __device__) and a host compiler for the compiler, the runtime
// and the emulation.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_OPCODES_H
#define COLLRT_OPCODES_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define COLLRT_OPCODE_FN __host__ __device__ constexpr
#else
#define COLLRT_OPCODE_FN constexpr
#endif

namespace collrt {

/// The instructions of a channel stream. `recv` reads the next arrival on
/// the connection from recvPeer; `send` posts to the connection to sendPeer.
/// The values are the encoding of a block's waitState record (8 bits).
enum class Opcode : uint8_t {
  Send = 0,               ///< send src
  Recv = 1,               ///< dst = recv
  Copy = 2,               ///< dst = src
  Reduce = 3,             ///< dst = dst (op) src; with fanin w > 1 (src holds
                          ///< w ranges of dst.count chunks, see
                          ///< sched::reduceFanin)
                          ///< dst = dst (op) src_0 (op) ... (op) src_{w-1}
  RecvReduceSend = 4,     ///< send (recv (op) src); nothing is stored
  RecvCopySend = 5,       ///< dst = recv; send recv
  RecvReduceCopy = 6,     ///< dst = recv (op) src
  RecvReduceCopySend = 7, ///< dst = recv (op) src; send dst
};

/// Opcodes are 0 .. kOpcodeCount - 1.
constexpr uint32_t kOpcodeCount = 8;

/// "send", "recv", "copy", "reduce", "recv_reduce_send", ...: the names the
/// sched dialect and the plan format use ("?" for no opcode).
COLLRT_OPCODE_FN const char *opcodeName(Opcode op) {
  switch (op) {
  case Opcode::Send:
    return "send";
  case Opcode::Recv:
    return "recv";
  case Opcode::Copy:
    return "copy";
  case Opcode::Reduce:
    return "reduce";
  case Opcode::RecvReduceSend:
    return "recv_reduce_send";
  case Opcode::RecvCopySend:
    return "recv_copy_send";
  case Opcode::RecvReduceCopy:
    return "recv_reduce_copy";
  case Opcode::RecvReduceCopySend:
    return "recv_reduce_copy_send";
  }
  return "?";
}

/// Whether the instruction receives a message (from recvPeer).
COLLRT_OPCODE_FN bool opcodeReceives(Opcode op) {
  return op != Opcode::Send && op != Opcode::Copy && op != Opcode::Reduce;
}
/// Whether the instruction sends a message (to sendPeer).
COLLRT_OPCODE_FN bool opcodeSends(Opcode op) {
  return op == Opcode::Send || op == Opcode::RecvReduceSend ||
         op == Opcode::RecvCopySend || op == Opcode::RecvReduceCopySend;
}
/// Whether the instruction combines with the reduction (reduce: dst (op)
/// src; the recv_reduce forms: the message (op) src).
COLLRT_OPCODE_FN bool opcodeReduces(Opcode op) {
  return op == Opcode::Reduce || op == Opcode::RecvReduceSend ||
         op == Opcode::RecvReduceCopy || op == Opcode::RecvReduceCopySend;
}
/// Whether the instruction reads `src` (a local buffer range).
COLLRT_OPCODE_FN bool opcodeReadsSrc(Opcode op) {
  return op == Opcode::Send || op == Opcode::Copy || opcodeReduces(op);
}
/// Whether the instruction writes `dst`.
COLLRT_OPCODE_FN bool opcodeWritesDst(Opcode op) {
  return op == Opcode::Recv || op == Opcode::Copy || op == Opcode::Reduce ||
         op == Opcode::RecvCopySend || op == Opcode::RecvReduceCopy ||
         op == Opcode::RecvReduceCopySend;
}

/// The value that encodes `op` (a block's waitState word 2).
COLLRT_OPCODE_FN uint32_t opcodeValue(Opcode op) { return uint32_t(op); }
/// The opcode of value `value`; false (and *op untouched) when `value` is
/// not one (waitState's kAfter and kSetup, for instance).
COLLRT_OPCODE_FN bool opcodeFromValue(uint32_t value, Opcode *op) {
  if (value >= kOpcodeCount)
    return false;
  *op = Opcode(value);
  return true;
}

/// Whether opcodeName(op) is the `length` characters at `name` (which
/// need not end in a NUL).
COLLRT_OPCODE_FN bool opcodeNameIs(Opcode op, const char *name, size_t length) {
  const char *own = opcodeName(op);
  size_t i = 0;
  for (; i < length; ++i)
    if (own[i] == '\0' || own[i] != name[i])
      return false;
  return own[i] == '\0';
}
/// The opcode named by the `length` characters at `name` (exactly: "Send"
/// and "" are none); false (and *op untouched) when there is none.
COLLRT_OPCODE_FN bool opcodeFromName(const char *name, size_t length,
                                     Opcode *op) {
  for (uint32_t v = 0; v < kOpcodeCount; ++v)
    if (opcodeNameIs(Opcode(v), name, length)) {
      *op = Opcode(v);
      return true;
    }
  return false;
}

namespace opcodes_check {

COLLRT_OPCODE_FN size_t length(const char *s) {
  size_t n = 0;
  while (s[n] != '\0')
    ++n;
  return n;
}
/// One row of docs/plan-format.md's opcode table.
COLLRT_OPCODE_FN bool row(Opcode op, uint32_t value, const char *name,
                          bool sends, bool receives, bool src, bool dst) {
  return opcodeValue(op) == value && opcodeNameIs(op, name, length(name)) &&
         opcodeSends(op) == sends && opcodeReceives(op) == receives &&
         opcodeReadsSrc(op) == src && opcodeWritesDst(op) == dst;
}

// The values are a block's waitState encoding (the host's report decodes
// what a kernel recorded); the names are the plan format's and the sched
// dialect's; what each does is docs/plan-format.md's table.
static_assert(row(Opcode::Send, 0, "send", 1, 0, 1, 0), "send");
static_assert(row(Opcode::Recv, 1, "recv", 0, 1, 0, 1), "recv");
static_assert(row(Opcode::Copy, 2, "copy", 0, 0, 1, 1), "copy");
static_assert(row(Opcode::Reduce, 3, "reduce", 0, 0, 1, 1), "reduce");
static_assert(row(Opcode::RecvReduceSend, 4, "recv_reduce_send", 1, 1, 1, 0),
              "recv_reduce_send");
static_assert(row(Opcode::RecvCopySend, 5, "recv_copy_send", 1, 1, 0, 1),
              "recv_copy_send");
static_assert(row(Opcode::RecvReduceCopy, 6, "recv_reduce_copy", 0, 1, 1, 1),
              "recv_reduce_copy");
static_assert(row(Opcode::RecvReduceCopySend, 7, "recv_reduce_copy_send", 1, 1,
                  1, 1),
              "recv_reduce_copy_send");
static_assert(kOpcodeCount == 8 &&
                  opcodeValue(Opcode::RecvReduceCopySend) + 1 == kOpcodeCount,
              "kOpcodeCount counts every opcode");
static_assert(opcodeReduces(Opcode::Reduce) &&
                  opcodeReduces(Opcode::RecvReduceSend) &&
                  opcodeReduces(Opcode::RecvReduceCopy) &&
                  opcodeReduces(Opcode::RecvReduceCopySend) &&
                  !opcodeReduces(Opcode::Send) &&
                  !opcodeReduces(Opcode::Recv) &&
                  !opcodeReduces(Opcode::Copy) &&
                  !opcodeReduces(Opcode::RecvCopySend),
              "the reducing opcodes");

} // namespace opcodes_check
} // namespace collrt

#endif

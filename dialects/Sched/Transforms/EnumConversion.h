//===- EnumConversion.h - dialect enums to Program enums --------*- C++ -*-===//
#ifndef COLLC_DIALECTS_SCHED_TRANSFORMS_ENUMCONVERSION_H
#define COLLC_DIALECTS_SCHED_TRANSFORMS_ENUMCONVERSION_H

#include "common/Program/Program.h"
#include "dialects/Sched/IR/SchedOps.h"

namespace collc {
namespace sched {

// The dialect's enums list the Program's enumerators in the same order;
// these keep the two in step at compile time.
static_assert(static_cast<int>(CollectiveKind::all_to_all_v) ==
                      static_cast<int>(Collective::AllToAllV) &&
                  static_cast<int>(CollectiveKind::gather) ==
                      static_cast<int>(Collective::Gather) &&
                  static_cast<int>(CollectiveKind::send_recv) ==
                      static_cast<int>(Collective::SendRecv),
              "CollectiveKind and Collective must match");
static_assert(static_cast<int>(BufferKind::scratch) ==
                  static_cast<int>(Buffer::Scratch),
              "BufferKind and Buffer must match");

inline Collective toProgramCollective(CollectiveKind kind) {
  return static_cast<Collective>(static_cast<int>(kind));
}
inline CollectiveKind toCollectiveKind(Collective collective) {
  return static_cast<CollectiveKind>(static_cast<int>(collective));
}
inline Buffer toProgramBuffer(BufferKind kind) {
  return static_cast<Buffer>(static_cast<int>(kind));
}
inline BufferKind toBufferKind(Buffer buffer) {
  return static_cast<BufferKind>(static_cast<int>(buffer));
}

} // namespace sched
} // namespace collc

#endif

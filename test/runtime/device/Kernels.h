//===- Kernels.h - hand-written kernels for the device tests ----*- C++ -*-===//
//
// Kernels in the style of Channel.h's example (what `collc --emit=cuda`
// generates), one for each schedule of test/runtime/exec/Schedules.h they
// run: the emulator checks them against the collective's definition and the
// CPU executor. Each is a template over the element type and reduction;
// kernel(...) picks the instantiation for a plan's dtype and op.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TEST_DEVICE_KERNELS_H
#define COLLRT_TEST_DEVICE_KERNELS_H

#include "collrt/Types.h"
#include "runtime/device/Emulator.h"

namespace collrt {
namespace testing {

enum class KernelKind {
  /// ringAllReduce(n, segmentChunks = 1, channels = 2)
  RingAllReduce,
  /// directAllToAll(n, k = 2) (and directAllToAllV)
  DirectAllToAll,
  /// chainBroadcast(n, k = 3, root = 1)
  ChainBroadcast,
  /// chainReduce(n, k = 2, root = 0)
  ChainReduce,
  /// stagedRingAllGather(n, k = 2): scratch and `after` both ways
  StagedAllGather,
  /// directReduceScatter(n, k = 2): scratch and the local reduce
  DirectReduceScatter,
  /// Every rank receives before it sends (a ring that deadlocks).
  DeadlockRing,
  /// directAllToAll's kernel, but every send carries k + 1 chunks... of
  /// the wrong range: receives meet messages of the wrong chunk count.
  WrongCountAllToAll,
};

/// The kernel `kind` for elements of `type` reduced with `op` (avg: sum).
dev::KernelFunction kernel(KernelKind kind, DataType type, ReduceOp op);

} // namespace testing
} // namespace collrt

#endif

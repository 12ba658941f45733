//===- Execution.h - the state of a program run -----------------*- C++ -*-===//
//
// Internal: what the executor (Execution.cpp) leaves behind when it gets
// stuck, for the wait-for cycle report (DeadlockCheck.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_EXECUTION_H
#define COLLC_COMPILER_VERIFY_EXECUTION_H

#include "compiler/Verify/Connections.h"
#include "compiler/Verify/ErrorSink.h"

namespace collc {
namespace sched {

/// What a stream waits for before its next instruction can run.
enum class WaitKind : uint8_t {
  Nothing,    ///< runnable, or at its end
  Dependency, ///< `stream` to complete `instruction`
  Recv,       ///< the next send on `connection`
  SendSlot,   ///< a free slot on `connection` (its receiver to drain one)
};

struct StreamProgress {
  uint32_t pc = 0; ///< the next instruction to run
  WaitKind wait = WaitKind::Nothing;
  bool queued = false;
  uint32_t target = 0;      ///< stream (Dependency) or connection
  uint32_t instruction = 0; ///< Dependency: the instruction awaited
};

struct ConnectionProgress {
  uint32_t posted = 0;   ///< sends posted so far
  uint32_t received = 0; ///< recvs completed so far
  bool receiverWaits = false;
  bool senderWaits = false;
};

/// Reports the Deadlock of an execution that got stuck: the wait-for cycle
/// reached from the first stuck stream.
void reportDeadlock(const VerifyOptions &options, const StreamIndex &streams,
                    const ConnectionTable &table,
                    const std::vector<StreamProgress> &progress,
                    const std::vector<ConnectionProgress> &connections,
                    ErrorSink &errors);

} // namespace sched
} // namespace collc

#endif

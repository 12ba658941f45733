//===- Watchdog.h - what every channel is doing, and the report -*- C++ -*-===//
//
// Each channel thread publishes where it is (tile, instruction) and what it
// waits for with a few relaxed atomic stores: at the start of every
// instruction and when a wait begins, never per poll. When the deadline
// passes (or anything fails), the rank turns the statuses into a report,
// one line per channel:
//
//   rank 2 channel 1 tile 0 step 3 instruction 5 recv input[4..5] from
//   rank 1: waiting for rank 1 to send (message 1 of 2 on this connection;
//   0 arrived)
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_WATCHDOG_H
#define COLLRT_EXEC_WATCHDOG_H

#include "runtime/exec/RunLayout.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace collrt {
namespace exec {

enum class ChannelPhase : uint8_t {
  Running,
  WaitingRecv,
  WaitingSend,
  WaitingDependency,
  Finished,
  Failed,
};

/// What one channel is doing (written by its thread, read by the report).
struct ChannelStatus {
  std::atomic<uint64_t> tile{0};
  std::atomic<uint32_t> instruction{0};
  std::atomic<uint8_t> phase{uint8_t(ChannelPhase::Running)};
  /// WaitingRecv / WaitingSend: the messages already moved on the
  /// connection waited on in this run; WaitingDependency: which of the
  /// instruction's dependencies.
  std::atomic<uint64_t> detail{0};

  void startInstruction(uint64_t t, uint32_t index) {
    tile.store(t, std::memory_order_relaxed);
    instruction.store(index, std::memory_order_relaxed);
    phase.store(uint8_t(ChannelPhase::Running), std::memory_order_relaxed);
  }
  void setPhase(ChannelPhase p, uint64_t d = 0) {
    detail.store(d, std::memory_order_relaxed);
    phase.store(uint8_t(p), std::memory_order_relaxed);
  }
};

/// "recv input[4..5] from rank 1", "recv_reduce_copy_send input[2] to
/// output[2] from rank 1 to rank 3", peers as world ranks.
std::string describeInstruction(const collc::sched::Instruction &instruction,
                                const RunLayout &layout);

/// "rank 2 channel 1 tile 0 step 3 instruction 5 recv input[4..5] from rank
/// 1": where an instruction is, for reports and errors.
std::string instructionContext(const RunLayout &layout,
                               const collc::sched::Program &program,
                               uint32_t channel, uint64_t tile, uint32_t index);

/// One line per channel of the rank (each ending in a newline), from the
/// statuses of its `program.ranks[layout.groupRank].channels.size()`
/// channels.
std::string channelReport(const RunLayout &layout,
                          const collc::sched::Program &program,
                          const ChannelStatus *statuses);

} // namespace exec
} // namespace collrt

#endif

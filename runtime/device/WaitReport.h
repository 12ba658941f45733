//===- WaitReport.h - the watchdog's report of a device launch --*- C++ -*-===//
//
// Turns what the blocks of a launch recorded (each block's four waitState
// words, collrt/device/WaitState.h) and the connections' counters into the
// CPU executor's kind of report, one line per block:
//
//   rank 0 channel 0 tile 0 step 0 instruction 0 recv output[0] from rank
//   1: waiting for rank 1 to send (message 1 on this connection; 0
//   arrived; gave up when the launch was aborted)
//
// and a block's error into a Status naming the rank, channel, tile, step,
// instruction and what did not fit. Instructions are named from the
// program; where the kernel's instruction (opcode, peer) differs from the
// program's, the line says so.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_WAITREPORT_H
#define COLLRT_DEVICE_WAITREPORT_H

#include "runtime/device/LaunchLayout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace dev {

/// What the host read back after a launch.
struct LaunchSnapshot {
  /// Per rank, maxChannels * 4 words.
  std::vector<std::vector<uint64_t>> waitState;
  /// Per connection (LaunchLayout::connections order): head, tail, the
  /// sender's and the receiver's counters.
  std::vector<uint64_t> head, tail, sent, received;
  /// Counters before the launch (zero for a fresh layout), so that message
  /// numbers are per launch.
  std::vector<uint64_t> sentBefore, receivedBefore;
  /// Per rank, maxChannels words of `progress`, and the tile epoch every
  /// channel started the launch with.
  std::vector<std::vector<uint64_t>> progress;
  uint64_t epochBefore = 0;
  /// Whether the "before" counters and epoch may be those of an earlier
  /// launch than the one the blocks stopped in (several launches were
  /// queued when it stopped): the report then places each wait in its
  /// launch by its own message number (a launch sends messagesPerTile x
  /// tiles on a connection) and counts tiles within the launch.
  bool launchUnknown = false;
};

/// The snapshot of a launch from its ranks' control parts (by rank: a host
/// copy of, or the host arena's, control part of each launched rank; null
/// for the others); the "before" counters and epoch are zero. A counter in
/// an arena this launch does not have is read from the word the other side
/// publishes in its own (a peer's sent count from head, its received count
/// from tail). A network connection's head and tail are read from the
/// host arenas (by rank, null where the launch has none).
LaunchSnapshot readSnapshot(const LaunchLayout &layout,
                            const std::vector<const char *> &controls,
                            const std::vector<const char *> &hostArenas = {});

/// One line per block (each ending in a newline).
std::string blockReport(const LaunchLayout &layout,
                        const LaunchSnapshot &snapshot);

/// The first block error recorded (PlanMismatch with its context), or
/// success when no block recorded one.
Status blockError(const LaunchLayout &layout, const LaunchSnapshot &snapshot);

/// After a launch that finished: PlanMismatch when a connection's sender
/// posted a different number of messages than its receiver consumed, or
/// than the program sends on it (messages per tile x tiles): the kernel
/// does not run the plan's schedule. Only the counters of launched ranks
/// are checked (a peer process checks its own).
Status checkMessageCounts(const LaunchLayout &layout,
                          const LaunchSnapshot &snapshot);

} // namespace dev
} // namespace collrt

#endif

//===- Executor.h - the CPU executor: one collective on one rank -*- C++
//-*-===//
//
// Runs one plan entry for one world rank over a Transport: finds the rank's
// group, cuts its buffers into chunks and tiles for the count, connects the
// transport when the collective's connections differ from the last ones,
// runs a thread per channel (ChannelRunner; the threads are the rank's
// ChannelPool, kept across runs) and, for avg, divides the
// reduced outputs by the group size at the end. The watchdog (Watchdog.h)
// turns a deadline that passes into a Timeout whose message says what every
// channel was waiting for.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_EXECUTOR_H
#define COLLRT_EXEC_EXECUTOR_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/Transport.h"
#include "runtime/exec/ChannelPool.h"

#include <cstdint>
#include <vector>

namespace collrt {
namespace exec {

/// What a rank keeps between runs.
struct ExecutorState {
  /// Whether the transport is connected, and for which collective (see
  /// RunLayout::fingerprint).
  bool connected = false;
  uint64_t fingerprint = 0;
  /// Buffers reused by later runs (8-byte aligned): the private input copy,
  /// scratch, and a message staging buffer per channel.
  std::vector<uint64_t> input;
  std::vector<uint64_t> scratch;
  std::vector<std::vector<uint64_t>> staging;
  /// The channel threads (channel 0 runs on the caller's): worker i runs
  /// the i-th channel after channel 0 that has instructions. Joined when a
  /// run fails and when the state is destroyed (the communicator also
  /// shuts it down at finalize and abort).
  ChannelPool pool;
};

struct RunRequest {
  const PlanCollective *collective = nullptr;
  /// The entry's index in its plan (for messages).
  size_t index = 0;
  const void *sendbuf = nullptr;
  void *recvbuf = nullptr;
  int64_t count = 0;
  size_t slotBytes = 1 << 20;
  /// When the run started (the watchdog's clock) and how long it may take.
  Deadline deadline = Deadline::after(60);
  double timeoutSeconds = 60;
};

/// Runs `request` as world rank transport.rank(). Collective over the
/// transport's world: every rank calls it (ranks outside every group of the
/// collective only take part in connecting). The collective's dtype and
/// reduction are used as they are (the caller checked them against its
/// arguments). On failure the transport is aborted, except for failures
/// found before anything was exchanged (malformed entry, bad arguments).
Status runCollective(Transport &transport, ExecutorState &state,
                     const RunRequest &request);

} // namespace exec
} // namespace collrt

#endif

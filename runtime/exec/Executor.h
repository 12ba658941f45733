//===- Executor.h - the CPU executor: a collective on a rank ----*- C++ -*-===//
//
// Runs one plan entry for one world rank over a Transport: finds the rank's
// group, cuts its buffers into chunks and tiles for the count, connects the
// transport when the collective's connections differ from the last ones,
// runs the channels (ChannelRunner) on up to RunRequest::channelThreads
// threads, several channels of one thread as fibers (the threads are the
// caller's and the rank's ChannelPool, kept across runs) and, for avg, divides
// the reduced outputs by the group size at the end. The watchdog (Watchdog.h)
// turns a deadline that passes into a Timeout whose message says what every
// channel was waiting for.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_EXECUTOR_H
#define COLLRT_EXEC_EXECUTOR_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/Transport.h"
#include "collrt/collrt.h"
#include "runtime/exec/ChannelPool.h"
#include "runtime/exec/Fibers.h"
#include "runtime/exec/RunLayout.h"

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
  /// The channel threads after the caller's: worker i runs the channels
  /// of thread i + 1 (RunRequest::channelThreads). Joined when a
  /// run fails and when the state is destroyed (the communicator also
  /// shuts it down at finalize and abort).
  ChannelPool pool;
  /// Fiber stacks of each channel thread (index: thread), kept too.
  std::vector<FiberStacks> stacks;
  /// With RunRequest::trace: the last run's events, per channel.
  std::vector<std::vector<TraceEvent>> trace;
  /// The last run's layout, kept while runs repeat the same plan entry (the
  /// same PlanCollective object), count, slot size and send counts: the
  /// program is checked and laid out once, not on every run (a plan must
  /// not change while runs use it; docs/runtime.md).
  struct LayoutCache {
    bool valid = false;
    const PlanCollective *collective = nullptr;
    size_t index = 0;
    int64_t count = 0;
    size_t slotBytes = 0;
    bool hasCounts = false;
    /// A copy of the run's send counts, which `layout` points into.
    std::vector<int64_t> sendCounts;
    RunLayout layout;
  } layoutCache;
};

struct RunRequest {
  const PlanCollective *collective = nullptr;
  /// The entry's index in its plan (for messages).
  size_t index = 0;
  const void *sendbuf = nullptr;
  void *recvbuf = nullptr;
  int64_t count = 0;
  /// An all_to_all_v whose plan leaves its counts to run time: the N x N
  /// counts, row-major by sender (the caller's, not copied); else nullptr.
  const int64_t *sendCounts = nullptr;
  size_t slotBytes = 1 << 20;
  /// When the run started (the watchdog's clock) and how long it may take.
  Deadline deadline = Deadline::after(60);
  double timeoutSeconds = 60;
  /// Threads that run the rank's channels (CommOptions::channelThreads,
  /// resolved): the caller's and channelThreads - 1 of the pool's; each
  /// runs its share of the channels as fibers. At least 1.
  int32_t channelThreads = 1;
  /// Record every instruction's TraceEvent into ExecutorState::trace.
  bool trace = false;
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

//===- Fibers.h - channels of one thread, switching on waits ----*- C++ -*-===//
//
// A rank runs more channels than it has cores to give them when several
// ranks share a host (8 processes on 2 cores run 8 x 7 channels of an
// all_to_all). As threads, the channels' waits and wake-ups fight for the
// cores the copies need. runFibers runs a set of channels on the calling
// thread instead, each with its own stack (a fiber): a channel
// runs until it has to wait (ChannelRunner::idle), then the next one runs.
// Only when a whole round of the fibers waited without any of them getting
// further does the thread pause (Backoff: spin, yield, then sleep), so a
// message that arrives is noticed at the next switch, not after a sleep.
//
// Nothing preempts a fiber: every wait of a channel must go through
// yieldFiber (ChannelRunner's waits all go through idle()).
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_FIBERS_H
#define COLLRT_EXEC_FIBERS_H

#include "collrt/Status.h"

#include <functional>
#include <vector>

namespace collrt {
namespace exec {

/// Stack of each fiber: a channel's run needs a few KiB; a guard page
/// below it turns an overflow into a fault instead of silent corruption.
constexpr size_t kFiberStackBytes = 256 * 1024;

/// Fiber stacks kept between runs (mapping, guarding and first touching a
/// stack cost more than a small collective's copies): one set per thread
/// that runs fibers. Unmapped on destruction.
class FiberStacks {
public:
  FiberStacks() = default;
  ~FiberStacks();
  FiberStacks(FiberStacks &&other) noexcept;
  FiberStacks &operator=(FiberStacks &&) = delete;
  FiberStacks(const FiberStacks &) = delete;
  FiberStacks &operator=(const FiberStacks &) = delete;

  /// Maps stacks until there are `count`. SystemError naming the stack that
  /// could not be mapped (the ones already there stay).
  Status reserve(size_t count);
  size_t size() const { return stacks_.size(); }
  /// The usable part of stack i (kFiberStackBytes, above its guard page).
  char *base(size_t i) const { return stacks_[i].base; }

private:
  struct Stack {
    void *mapping;
    size_t bytes;
    char *base;
  };
  std::vector<Stack> stacks_;
};

/// Runs every task to completion on the calling thread, switching to the
/// next unfinished task whenever one calls yieldFiber; task i runs on
/// stacks.base(i) (reserve()d here). One task runs directly, without a
/// fiber. SystemError when a stack cannot be mapped (nothing ran then).
/// Tasks must not throw (as for ChannelPool).
Status runFibers(const std::vector<std::function<void()>> &tasks,
                 FiberStacks &stacks);

/// Called by a task that has to wait: switches to the next unfinished task
/// of the calling thread's runFibers and returns when this one's turn
/// comes again. `progressed`: whether the caller got further since its last
/// call (a new wait, not the same one again); a round of calls in which no
/// task progressed makes the thread pause once before the next round.
/// Returns false, doing nothing, outside runFibers or when the caller is
/// the only unfinished task: the caller then pauses by itself.
bool yieldFiber(bool progressed);

} // namespace exec
} // namespace collrt

#endif

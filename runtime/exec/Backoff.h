//===- Backoff.h - how a waiting channel polls ------------------*- C++ -*-===//
//
// Spin briefly (a message usually arrives within microseconds when the peer
// is running), then yield the core, then sleep 1, 2, 4, ... up to 100 us, so
// that many waiting threads on few cores do not starve the ones that work.
// A sleeping thread asks for a timer slack of 1 ns (PR_SET_TIMERSLACK): with
// Linux's default of 50 us, every sleep of 1 us took about 70 us here.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_EXEC_BACKOFF_H
#define COLLRT_EXEC_BACKOFF_H

#include <chrono>
#include <cstdint>
#include <thread>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace collrt {
namespace exec {

class Backoff {
public:
  static constexpr uint32_t kSpins = 64;
  static constexpr uint32_t kYields = 64;
  static constexpr uint32_t kMaxSleepMicroseconds = 100;

  /// Whether the caller should check the deadline and its peers before
  /// pausing: every 16 spins, then at every pause.
  bool shouldCheck() const { return rounds_ >= kSpins || rounds_ % 16 == 0; }

  /// Whether no pause happened yet: the wait has just begun.
  bool fresh() const { return rounds_ == 0; }

  /// Counts a round without pausing (a fiber switch paused instead).
  void step() { ++rounds_; }

  void pause() {
    ++rounds_;
    if (rounds_ <= kSpins) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    } else if (rounds_ <= kSpins + kYields) {
      std::this_thread::yield();
    } else {
#if defined(__linux__)
      static thread_local bool slackSet = false;
      if (!slackSet) {
        ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        slackSet = true;
      }
#endif
      uint32_t step = rounds_ - kSpins - kYields;
      uint32_t us = step >= 7 ? kMaxSleepMicroseconds : (1u << step);
      std::this_thread::sleep_for(std::chrono::microseconds(
          us < kMaxSleepMicroseconds ? us : kMaxSleepMicroseconds));
    }
  }

private:
  uint32_t rounds_ = 0;
};

} // namespace exec
} // namespace collrt

#endif

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
      preciseTimers();
      std::this_thread::sleep_for(std::chrono::microseconds(sleepOf(rounds_)));
    }
  }

  /// Whether the next pause() would sleep (the spins and yields are over).
  bool sleepsNext() const { return rounds_ + 1 > kSpins + kYields; }
  /// Counts the next round as pause() would and returns the microseconds
  /// it would sleep, for a caller that sleeps its own way (on a condition
  /// variable that something may signal earlier). Only when sleepsNext().
  uint32_t takeSleep() { return sleepOf(++rounds_); }

  /// Asks for timer slack of 1 ns for the calling thread (once per
  /// thread): sleeps and timed waits of a few microseconds then take about
  /// that long.
  static void preciseTimers() {
#if defined(__linux__)
    static thread_local bool slackSet = false;
    if (!slackSet) {
      ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
      slackSet = true;
    }
#endif
  }

private:
  /// The sleep of round `rounds` (past the spins and yields): 1, 2, 4, ...
  /// up to kMaxSleepMicroseconds.
  static uint32_t sleepOf(uint32_t rounds) {
    uint32_t step = rounds - kSpins - kYields;
    uint32_t us = step >= 7 ? kMaxSleepMicroseconds : (1u << step);
    return us < kMaxSleepMicroseconds ? us : kMaxSleepMicroseconds;
  }

  uint32_t rounds_ = 0;
};

} // namespace exec
} // namespace collrt

#endif

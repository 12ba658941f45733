//===- ChannelHost.h - Channel as host threads (emulation) ------*- C++ -*-===//
//
// The host emulation of collrt::dev::Channel (COLLRT_DEVICE_EMULATION):
// each block is one host thread, or several with a barrier between them
// (DeviceOptions::emulatedThreads; runtime/device/Emulator.h runs them), so
// that generated kernels run and are checked on machines without a GPU,
// with the block's threads cooperating as a GPU block's do. The instruction
// logic is ChannelCommon.h's, shared with the GPU; this backend supplies it
// with
//  - head, tail, progress and the counters as GCC/Clang __atomic builtins on
//    the plain uint64_t words of the contract (std::atomic_ref's
//    semantics in C++17): release stores, acquire loads;
//  - LL lines stored and polled as two 8-byte atomics ({data, flag} each),
//    the atomicity a GPU's 16-byte store gives;
//  - waits that poll abortFlag at every poll, spinning briefly, then
//    yielding, then sleeping up to 100 us (many blocks on few cores).
//
// The narrow float types are bit-exact structs of their storage.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELHOST_H
#define COLLRT_DEVICE_CHANNELHOST_H

#ifndef COLLRT_DEVICE_CHANNEL_H
#error "include collrt/device/Channel.h, not ChannelHost.h"
#endif

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace collrt {
namespace dev {

/// Narrow floats in the emulation: their bits.
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};
struct f8e4m3 {
  uint8_t bits;
};
struct f8e5m2 {
  uint8_t bits;
};

} // namespace dev
} // namespace collrt

#include "collrt/device/ChannelCommon.h"

namespace collrt {
namespace dev {
namespace detail {

template <> struct ElementOf<f16> {
  using type = arith::Narrow<arith::F16>;
};
template <> struct ElementOf<bf16> {
  using type = arith::Narrow<arith::BF16>;
};
template <> struct ElementOf<f8e4m3> {
  using type = arith::Narrow<arith::F8E4M3FN>;
};
template <> struct ElementOf<f8e5m2> {
  using type = arith::Narrow<arith::F8E5M2>;
};

/// The barrier of an emulated block of several threads
/// (__syncthreads_or's semantics): every thread of the block waits until
/// all arrived, and all get the OR of their values.
class BlockBarrier {
public:
  explicit BlockBarrier(int64_t threads) : threads_(threads) {}
  bool arrive(bool value) {
    std::unique_lock<std::mutex> lock(mutex_);
    any_ = any_ || value;
    uint64_t generation = generation_;
    if (++arrived_ == threads_) {
      result_ = any_;
      any_ = false;
      arrived_ = 0;
      ++generation_;
      done_.notify_all();
      return result_;
    }
    // result_ stays until every thread of this generation has read it:
    // the next barrier cannot complete before this thread arrives there.
    done_.wait(lock, [&] { return generation_ != generation; });
    return result_;
  }

private:
  const int64_t threads_;
  std::mutex mutex_;
  std::condition_variable done_;
  int64_t arrived_ = 0;
  uint64_t generation_ = 0;
  bool any_ = false, result_ = false;
};

/// Which thread of which emulated block the calling host thread is
/// (set by the emulator; one thread per block by default).
struct HostThread {
  int64_t tid = 0;
  int64_t threads = 1;
  BlockBarrier *barrier = nullptr;
};
inline thread_local HostThread currentHostThread;

struct HostBackend {
  static int64_t tid() { return currentHostThread.tid; }
  static int64_t nthreads() { return currentHostThread.threads; }
  static int32_t blockIndex(const LaunchArgs &args) {
    return args.emulatedBlock;
  }
  static void sync() { syncAny(false); }
  static bool syncAny(bool value) {
    if (currentHostThread.threads == 1)
      return value;
    return currentHostThread.barrier->arrive(value);
  }

  static uint64_t loadAcquireSys(const uint64_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
  }
  static void storeReleaseSys(uint64_t *p, uint64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
  }
  static uint64_t loadAcquireGpu(const uint64_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
  }
  static void storeReleaseGpu(uint64_t *p, uint64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
  }
  static uint64_t loadRelaxed(const uint64_t *p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
  }
  static void storeRelaxed(uint64_t *p, uint64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
  }
  static void storeRelaxedSys(uint64_t *p, uint64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
  }

  static bool aborted(const volatile int32_t *flag) {
    return __atomic_load_n(const_cast<const int32_t *>(flag),
                           __ATOMIC_ACQUIRE) != 0;
  }
  static void raiseAbort(volatile int32_t *flag, int32_t value) {
    int32_t expected = 0;
    __atomic_compare_exchange_n(const_cast<int32_t *>(flag), &expected, value,
                                false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
  }

  /// A wait's polls: spin, yield, then sleep 1, 2, 4, ... up to 100 us.
  class Poller {
  public:
    bool giveUp(const volatile int32_t *abortFlag) {
      if (aborted(abortFlag))
        return true;
      ++rounds_;
      if (rounds_ <= 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#endif
      } else if (rounds_ <= 128) {
        std::this_thread::yield();
      } else {
        uint32_t step = rounds_ - 128;
        uint32_t us = step >= 7 ? 100 : (1u << step);
        std::this_thread::sleep_for(
            std::chrono::microseconds(us < 100 ? us : 100));
      }
      return false;
    }

  private:
    uint32_t rounds_ = 0;
  };

  /// An LL line: {low half, flag} and {high half, flag}, each one atomic
  /// 8-byte store.
  static void storeLine(char *line, uint64_t data, uint32_t flag) {
    uint64_t *w = reinterpret_cast<uint64_t *>(line);
    __atomic_store_n(&w[0], (data & 0xffffffffu) | (uint64_t(flag) << 32),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&w[1], (data >> 32) | (uint64_t(flag) << 32),
                     __ATOMIC_RELAXED);
  }
  static bool loadLine(const char *line, uint32_t flag, uint64_t *data) {
    const uint64_t *w = reinterpret_cast<const uint64_t *>(line);
    uint64_t lo = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
    uint64_t hi = __atomic_load_n(&w[1], __ATOMIC_RELAXED);
    if (uint32_t(lo >> 32) != flag || uint32_t(hi >> 32) != flag)
      return false;
    *data = (lo & 0xffffffffu) | (hi << 32);
    return true;
  }

  static Pack16 load16(const char *p) {
    Pack16 v;
    std::memcpy(&v, p, 16);
    return v;
  }
  static void store16(char *p, const Pack16 &v) { std::memcpy(p, &v, 16); }
  static uint64_t load64(const char *p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static void store64(char *p, uint64_t v) { std::memcpy(p, &v, 8); }
  template <class S> static S loadElement(const char *p) {
    S v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <class S> static void storeElement(char *p, S v) {
    std::memcpy(p, &v, sizeof v);
  }
};

} // namespace detail

template <typename T, typename Op>
class Channel : public detail::ChannelImpl<T, Op, detail::HostBackend> {
public:
  explicit Channel(const LaunchArgs &args)
      : detail::ChannelImpl<T, Op, detail::HostBackend>(args) {}
};

} // namespace dev
} // namespace collrt

#endif

//===- ChannelCuda.cuh - Channel on a GPU ----------------------*- CUDA -*-===//
//
// The CUDA backend of collrt::dev::Channel: the instruction logic is
// ChannelCommon.h's (the same the host emulation runs); this file supplies
// the block's threads and the memory operations. All threads of a block run
// every instruction: each moves 16-byte packs (or 8-byte words) i, i +
// blockDim.x, ... of every run of contiguous slices, four packs in flight;
// one thread (thread 0) waits on and publishes the flags.
//
// Memory model (PTX ISA, "Memory Consistency Model"; docs/gpu-runtime.md):
//  - Simple protocol, sender: every thread stores its part of the message,
//    __syncthreads() (bar.sync orders the block's stores before what thread
//    0 does next, at CTA scope), then thread 0 publishes head with
//    st.release.sys: a release is cumulative, so it covers the stores the
//    barrier ordered before it. Receiver: thread 0 polls head with
//    ld.acquire.sys, then __syncthreads_or() lets every thread read the
//    slot; the data loads are ld.global.cg (L2, never a stale L1 line of an
//    earlier message in the same slot). The receiver publishes tail the
//    same way once every thread finished reading (the loads happen before
//    the release, so the sender's next writes cannot overtake them). System
//    scope because the peer may be another GPU (NVLink, PCIe) or, for
//    abortFlag, the host.
//  - LL protocol: a line is one st.volatile.global.v4.u32 {data lo, flag,
//    data hi, flag}; the GPU performs it in (at least) 8-byte pieces, each
//    {data, flag} pair atomically, so a reader that sees both flags equal to
//    the message's sees both halves of its data (NCCL's LL relies on the
//    same). No fence, no head wait: the receiver polls the lines it needs
//    with ld.volatile.global.v4.u32.
//  - `after`: thread 0 publishes a channel's progress with st.release.gpu
//    after the barrier that ends each instruction; the waiter's thread 0
//    polls with ld.acquire.gpu, then a barrier (same pattern, GPU scope:
//    the channels of one rank share a GPU).
//  - Waits poll abortFlag (host-mapped memory, read with a volatile load)
//    every 1024 polls, so that a host watchdog can end any wait.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CHANNELCUDA_CUH
#define COLLRT_DEVICE_CHANNELCUDA_CUH

#ifndef COLLRT_DEVICE_CHANNEL_H
#error "include collrt/device/Channel.h, not ChannelCuda.cuh"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace collrt {
namespace dev {

using f16 = __half;
using bf16 = __nv_bfloat16;
using f8e4m3 = __nv_fp8_e4m3;
using f8e5m2 = __nv_fp8_e5m2;

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

template <int Bytes> struct UnsignedOfSize;
template <> struct UnsignedOfSize<1> {
  using type = unsigned char;
};
template <> struct UnsignedOfSize<2> {
  using type = unsigned short;
};
template <> struct UnsignedOfSize<4> {
  using type = unsigned int;
};
template <> struct UnsignedOfSize<8> {
  using type = unsigned long long;
};

struct CudaBackend {
  __device__ __forceinline__ static int64_t tid() { return threadIdx.x; }
  __device__ __forceinline__ static int64_t nthreads() { return blockDim.x; }
  __device__ __forceinline__ static int32_t blockIndex(const LaunchArgs &) {
    return int32_t(blockIdx.x);
  }
  __device__ __forceinline__ static void sync() { __syncthreads(); }
  __device__ __forceinline__ static bool syncAny(bool value) {
    return __syncthreads_or(value ? 1 : 0) != 0;
  }

  __device__ __forceinline__ static uint64_t loadAcquireSys(const uint64_t *p) {
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];"
                 : "=l"(v)
                 : "l"(p)
                 : "memory");
    return v;
  }
  __device__ __forceinline__ static void storeReleaseSys(uint64_t *p,
                                                         uint64_t v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v)
                 : "memory");
  }
  __device__ __forceinline__ static uint64_t loadAcquireGpu(const uint64_t *p) {
    uint64_t v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
                 : "=l"(v)
                 : "l"(p)
                 : "memory");
    return v;
  }
  __device__ __forceinline__ static void storeReleaseGpu(uint64_t *p,
                                                         uint64_t v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v)
                 : "memory");
  }
  __device__ __forceinline__ static uint64_t loadRelaxed(const uint64_t *p) {
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
                 : "=l"(v)
                 : "l"(p)
                 : "memory");
    return v;
  }
  __device__ __forceinline__ static void storeRelaxed(uint64_t *p, uint64_t v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v)
                 : "memory");
  }
  __device__ __forceinline__ static void storeRelaxedSys(uint64_t *p,
                                                         uint64_t v) {
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v)
                 : "memory");
  }

  __device__ __forceinline__ static bool aborted(const volatile int32_t *flag) {
    return *flag != 0;
  }
  /// A plain store (system-scope atomics on host memory need PCIe atomics):
  /// a race with the host's own abort leaves one of two non-zero values.
  __device__ __forceinline__ static void raiseAbort(volatile int32_t *flag,
                                                    int32_t value) {
    __threadfence_system();
    if (*flag == 0)
      *flag = value;
  }

  /// Spins; reads abortFlag every 1024 polls (a read of host memory costs
  /// a PCIe round trip); after 2^20 polls also sleeps 1 us between polls.
  class Poller {
  public:
    __device__ __forceinline__ bool giveUp(const volatile int32_t *abortFlag) {
      ++polls_;
      if ((polls_ & 1023) == 0 && *abortFlag != 0)
        return true;
      if (polls_ > (1u << 20))
        __nanosleep(1000);
      return false;
    }

  private:
    uint32_t polls_ = 0;
  };

  __device__ __forceinline__ static void storeLine(char *line, uint64_t data,
                                                   uint32_t flag) {
    asm volatile(
        "st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(line),
        "r"(uint32_t(data)), "r"(flag), "r"(uint32_t(data >> 32)), "r"(flag)
        : "memory");
  }
  __device__ __forceinline__ static bool
  loadLine(const char *line, uint32_t flag, uint64_t *data) {
    uint32_t lo, f1, hi, f2;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(lo), "=r"(f1), "=r"(hi), "=r"(f2)
                 : "l"(line)
                 : "memory");
    if (f1 != flag || f2 != flag)
      return false;
    *data = uint64_t(lo) | (uint64_t(hi) << 32);
    return true;
  }

  __device__ __forceinline__ static Pack16 load16(const char *p) {
    ulonglong2 v = __ldcg(reinterpret_cast<const ulonglong2 *>(p));
    Pack16 r;
    r.w[0] = v.x;
    r.w[1] = v.y;
    return r;
  }
  __device__ __forceinline__ static void store16(char *p, const Pack16 &v) {
    *reinterpret_cast<ulonglong2 *>(p) = make_ulonglong2(v.w[0], v.w[1]);
  }
  __device__ __forceinline__ static uint64_t load64(const char *p) {
    return __ldcg(reinterpret_cast<const unsigned long long *>(p));
  }
  __device__ __forceinline__ static void store64(char *p, uint64_t v) {
    *reinterpret_cast<unsigned long long *>(p) = v;
  }
  template <class S>
  __device__ __forceinline__ static S loadElement(const char *p) {
    using U = typename UnsignedOfSize<sizeof(S)>::type;
    U u = __ldcg(reinterpret_cast<const U *>(p));
    S v;
    __builtin_memcpy(&v, &u, sizeof v);
    return v;
  }
  template <class S>
  __device__ __forceinline__ static void storeElement(char *p, S v) {
    using U = typename UnsignedOfSize<sizeof(S)>::type;
    U u;
    __builtin_memcpy(&u, &v, sizeof v);
    *reinterpret_cast<U *>(p) = u;
  }
};

} // namespace detail

template <typename T, typename Op>
class Channel : public detail::ChannelImpl<T, Op, detail::CudaBackend> {
public:
  __device__ __forceinline__ explicit Channel(const LaunchArgs &args)
      : detail::ChannelImpl<T, Op, detail::CudaBackend>(args) {}
};

} // namespace dev
} // namespace collrt

#endif

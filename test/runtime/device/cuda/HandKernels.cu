//===- HandKernels.cu - hand-written kernels compiled for the GPU ---------===//
//
// ChannelCuda.cuh compiled by nvcc (sm_80, sm_90) with the kernels of
// test/runtime/device/Kernels.cpp in Channel.h's generated style: a ring
// all-reduce for every element type (sum) and every reduction (f32), and a
// direct all-to-all. `collrt.device.nvcc` (ctest) compiles this file; on a
// GPU, bench/gpu/gpu-check runs the fatbin on N ranks of one GPU
// (--hand-kernels) against the schedules of test/runtime/exec/Schedules.h.
// Nothing here is CUDA-only (COLLRT_DEVICE, not __device__), so the fake
// CUDA driver's nvcc stand-in compiles it too (bench/gpu/run.sh --fake-cuda).
//
//===----------------------------------------------------------------------===//
#include "collrt/device/Channel.h"

using namespace collrt::dev;

namespace {

/// ringAllReduce(n, 1, channels) of Schedules.h.
template <class T, class Op> COLLRT_DEVICE void ringAllReduce(LaunchArgs args) {
  Channel<T, Op> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks(), c = ch.channel();
  const int64_t next = floorMod(r + 1, n), prev = floorMod(r - 1, n);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.send(next, Input, c * n + floorMod(r, n), 1, 0);
    for (int64_t s = 1; s < n - 1; ++s)
      ch.recvReduceSend(prev, next, Input, c * n + floorMod(r - s, n), 1, s);
    ch.recvReduceCopySend(prev, next, Input, c * n + floorMod(r + 1, n), Output,
                          c * n + floorMod(r + 1, n), 1, n - 1);
    for (int64_t s = 1; s < n - 1; ++s)
      ch.recvCopySend(prev, next, Output, c * n + floorMod(r + 1 - s, n), 1,
                      n - 1 + s);
    ch.recv(prev, Output, c * n + floorMod(r + 2 - n, n), 1, 2 * n - 2);
    ch.endTile();
  }
}

} // namespace

#define RING(name, T, Op)                                                      \
  COLLRT_KERNEL(name)(LaunchArgs args) { ringAllReduce<T, Op>(args); }

RING(hand_ring_all_reduce_f64_sum, double, SumOp)
RING(hand_ring_all_reduce_f32_sum, float, SumOp)
RING(hand_ring_all_reduce_f32_prod, float, ProdOp)
RING(hand_ring_all_reduce_f32_min, float, MinOp)
RING(hand_ring_all_reduce_f32_max, float, MaxOp)
RING(hand_ring_all_reduce_f16_sum, f16, SumOp)
RING(hand_ring_all_reduce_bf16_sum, bf16, SumOp)
RING(hand_ring_all_reduce_f8e4m3_sum, f8e4m3, SumOp)
RING(hand_ring_all_reduce_f8e5m2_sum, f8e5m2, SumOp)
RING(hand_ring_all_reduce_i64_sum, int64_t, SumOp)
RING(hand_ring_all_reduce_i32_sum, int32_t, SumOp)
RING(hand_ring_all_reduce_i8_sum, int8_t, SumOp)

/// directAllToAll(n, 2) of Schedules.h.
COLLRT_KERNEL(hand_direct_all_to_all_f32)(LaunchArgs args) {
  constexpr int64_t k = 2;
  Channel<float, SumOp> ch(args);
  const int64_t r = ch.rank(), n = ch.nranks();
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.copy(Input, r * k, Output, r * k, k, 0);
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r + i, n);
      ch.send(peer, Input, peer * k, k, i);
    }
    for (int64_t i = 1; i < n; ++i) {
      int64_t peer = floorMod(r - i, n);
      ch.recv(peer, Output, peer * k, k, i);
    }
    ch.endTile();
  }
}

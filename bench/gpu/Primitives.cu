//===- Primitives.cu - kernels of `gpu-check primitives` ------------------===//
//
// A plain vectorized copy (the baseline: 16-byte loads and stores, four in
// flight a thread, grid-stride) and three one-instruction kernels of
// collrt::dev::Channel, each channel (CTA) working on its own chunk: copy
// (input to output, bf16), reduce (input into output, f32: two reads and a
// write) and send/recv between two ranks (bf16, through a slot).
//
//===----------------------------------------------------------------------===//
#include "collrt/device/Channel.h"

using namespace collrt::dev;

#if defined(__CUDACC__)
extern "C" __global__ void __launch_bounds__(512)
    bench_copy_kernel(const ulonglong2 *src, ulonglong2 *dst,
                      unsigned long long n) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i =
      (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    ulonglong2 v0 = src[i], v1 = src[i + stride], v2 = src[i + 2 * stride],
               v3 = src[i + 3 * stride];
    dst[i] = v0;
    dst[i + stride] = v1;
    dst[i + 2 * stride] = v2;
    dst[i + 3 * stride] = v3;
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}
#else
// Compiled for the host (the fake CUDA driver's nvcc stand-in, test/fakecuda,
// for bench/gpu/run.sh --fake-cuda): the kernel's name, and what the fake
// driver runs when it is launched (its arguments as cuLaunchKernel passes
// them): the same copy of n 16-byte words, on one host thread.
extern "C" void bench_copy_kernel() {}
extern "C" void collc_fake_cuda_launch_bench_copy_kernel(void **params,
                                                         unsigned, unsigned) {
  const char *src = *static_cast<const char *const *>(params[0]);
  char *dst = *static_cast<char *const *>(params[1]);
  unsigned long long n = *static_cast<const unsigned long long *>(params[2]);
  for (unsigned long long i = 0; i < 16 * n; ++i)
    dst[i] = src[i];
}
#endif

COLLRT_KERNEL(bench_prim_copy)(LaunchArgs args) {
  Channel<bf16, SumOp> ch(args);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.copy(Input, ch.channel(), Output, ch.channel(), 1, 0);
    ch.endTile();
  }
}

COLLRT_KERNEL(bench_prim_reduce)(LaunchArgs args) {
  Channel<float, SumOp> ch(args);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    ch.reduce(Input, ch.channel(), Output, ch.channel(), 1, 0);
    ch.endTile();
  }
}

COLLRT_KERNEL(bench_prim_sendrecv)(LaunchArgs args) {
  Channel<bf16, SumOp> ch(args);
  for (int64_t t = 0; t < ch.tiles(); ++t) {
    ch.beginTile(t);
    if (ch.rank() == 0)
      ch.send(1, Input, ch.channel(), 1, 0);
    else
      ch.recv(0, Output, ch.channel(), 1, 0);
    ch.endTile();
  }
}

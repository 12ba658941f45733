//===- RuntimeKernels.cu - the CUDA executor's own kernels ----------------===//
//
// avg's last step on a GPU: each reduced output element divided by the
// group size with DeviceArith.h's divide (the CPU executor's rule: f64 in
// f64, other floats in f32 rounded back once, integers truncated toward
// zero). Compiled into libcollrt (an embedded fatbin) when the build finds
// a CUDA compiler; without one, the CUDA executor refuses avg and says so.
//
//===----------------------------------------------------------------------===//
#include "collrt/device/DeviceArith.h"

#include <cuda_bf16.h>

using namespace collrt::dev::arith;

template <class E>
__device__ void divideAll(typename E::Storage *data, int64_t n,
                          int64_t divisor) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    data[i] = divide<E>(data[i], divisor);
}

#define DIVIDE(suffix, E)                                                      \
  extern "C" __global__ void collrt_divide_##suffix(                           \
      typename E::Storage *data, int64_t n, int64_t divisor) {                 \
    divideAll<E>(data, n, divisor);                                            \
  }

DIVIDE(f64, Plain<double>)
DIVIDE(f32, Plain<float>)
DIVIDE(f16, Narrow<F16>)
DIVIDE(bf16, Narrow<BF16>)
DIVIDE(f8e4m3, Narrow<F8E4M3FN>)
DIVIDE(f8e5m2, Narrow<F8E5M2>)
DIVIDE(i64, Plain<int64_t>)
DIVIDE(i32, Plain<int32_t>)
DIVIDE(i8, Plain<int8_t>)

#!/bin/sh
# collrt.device.nvcc: compiles ChannelCuda.cuh with the hand-written kernels
# (cuda/HandKernels.cu) for sm_80 and sm_90 and bench/gpu/Primitives.cu for
# sm_90, warnings as errors. Compile only: nothing runs here. Exit 77
# (skipped) without nvcc.
#   nvcc-compile.sh NVCC SOURCE_ROOT OUT_DIR
nvcc=$1 root=$2 out=$3
if [ -z "$nvcc" ] || ! command -v "$nvcc" >/dev/null 2>&1; then
  echo "SKIP: no nvcc (CMake found no CUDA compiler): ChannelCuda.cuh is not compiled"
  exit 77
fi
mkdir -p "$out" || exit 1
flags="-std=c++17 -I$root/runtime/include -Werror all-warnings -Xcompiler -Wall,-Wextra"
set -e
"$nvcc" $flags --fatbin -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=sm_90 -o "$out/hand_kernels.fatbin" \
  "$root/test/runtime/device/cuda/HandKernels.cu"
"$nvcc" $flags --fatbin -gencode arch=compute_90,code=sm_90 \
  -o "$out/primitives.fatbin" "$root/bench/gpu/Primitives.cu"
echo "compiled: $out/hand_kernels.fatbin (sm_80, sm_90), $out/primitives.fatbin (sm_90)"

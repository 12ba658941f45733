#!/usr/bin/env bash
# codegen-nvcc: collc --emit=fatbin compiles generated kernels with nvcc for
# sm_90 (compile only; nothing runs). Exits 77 (ctest: skipped), saying why,
# where nvcc or the CUDA implementation of the device contract
# (collrt/device/ChannelCuda.cuh) is absent.
# Usage: nvcc-check.sh COLLC SOURCE_ROOT WORK
set -euo pipefail
collc=$1
root=$2
work=$3
nvcc=$(command -v nvcc || true)
if [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi
if [[ -z $nvcc ]]; then
  echo "skipped: nvcc is neither on PATH nor at /usr/local/cuda/bin/nvcc"
  exit 77
fi
if [[ ! -f $root/runtime/include/collrt/device/ChannelCuda.cuh ]]; then
  echo "skipped: $root/runtime/include/collrt/device/ChannelCuda.cuh (the" \
    "CUDA implementation of Channel.h) does not exist yet"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
topo=$root/test/runtime/Inputs/topologies/1x4.json
# Six kernels: a channel range and windows (ring all_reduce), geometric
# loops and guards (recursive doubling), dependencies between channels
# (direct reduce_scatter), per-rank peer tables (send_recv), a local copy
# (ring all_gather); every instruction of the dialect appears, and five
# element types.
cat > "$work/kernels.mlir" <<'MLIR'
coll.mesh @world shape = [4] names = ["gpu"]
func.func @f(%a: tensor<96xbf16>, %b: tensor<96xf32>, %c: tensor<96xf16>,
             %d: tensor<96xi32>, %e: tensor<96xi8>)
    -> (tensor<96xbf16>, tensor<96xf32>, tensor<24xf16>, tensor<96xi32>,
        tensor<384xi8>) {
  %y = coll.all_reduce %a on @world reduce = sum : tensor<96xbf16> -> tensor<96xbf16>
  %z = coll.all_reduce %b on @world reduce = max : tensor<96xf32> -> tensor<96xf32>
  %w = coll.reduce_scatter %c on @world scatter_axis = 0 reduce = min : tensor<96xf16> -> tensor<24xf16>
  coll.send %d on @world to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<96xi32>
  %v = coll.recv on @world from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<96xi32>
  %g = coll.all_gather %e on @world gather_axis = 0 : tensor<96xi8> -> tensor<384xi8>
  return %y, %z, %w, %v, %g : tensor<96xbf16>, tensor<96xf32>, tensor<24xf16>, tensor<96xi32>, tensor<384xi8>
}
MLIR
echo "nvcc: $nvcc"
# name: the collc arguments of one file of kernels.
declare -A files=(
  [kernels]="$work/kernels.mlir --algo all_reduce=ring,reduce_scatter=direct,all_gather=ring"
  # Recursive doubling (geometric loops) is the other all_reduce; --algo
  # names one algorithm per collective, hence a program of its own.
  [doubling]="--collective all_reduce --bytes 1KiB --algo recursive_doubling"
  # A reduce with fanin (reduceMany) and channel-range dependencies, on two
  # nodes.
  [oneshot]="--collective all_reduce --bytes 1KiB --algo hierarchical_one_shot"
)
declare -A topos=([kernels]="$topo" [doubling]="$topo"
  [oneshot]="$root/test/runtime/Inputs/topologies/2x4.json")
for name in kernels doubling oneshot; do
  # shellcheck disable=SC2086
  "$collc" ${files[$name]} --topo "${topos[$name]}" --emit=cuda \
    -o "$work/$name.cu"
  # shellcheck disable=SC2086
  "$collc" ${files[$name]} --topo "${topos[$name]}" --emit=fatbin \
    --cuda-arch=sm_90 \
    --nvcc "$nvcc" --cuda-include "$root/runtime/include" \
    -o "$work/$name.fatbin"
  size=$(stat -c %s "$work/$name.fatbin")
  echo "$name.fatbin: $size bytes"
  if ! grep -q '^COLLRT_KERNEL(' "$work/$name.cu"; then
    echo "FAIL: $name.cu has no kernel"
    exit 1
  fi
  # Every kernel of the source is in the fatbin (the ELF keeps the names).
  for kernel in $(sed -n 's/^COLLRT_KERNEL(\([A-Za-z0-9_]*\)).*/\1/p' \
                    "$work/$name.cu"); do
    if ! grep -q "$kernel" "$work/$name.fatbin"; then
      echo "FAIL: kernel $kernel is not in $name.fatbin"
      exit 1
    fi
    echo "  $kernel"
  done
done
echo "codegen-nvcc: generated kernels compiled for sm_90"

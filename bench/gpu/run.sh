#!/bin/bash
# bench/gpu/run.sh OUTDIR [PREPARED_DIR] [--build DIR] [--arch SM]
#                  [--fake-cuda FAKE_DIR]
#
# For a machine with a GPU (written for one H200; docs/gpu-runtime.md):
#  1. builds libcollrt runtime-only with CUDA and gpu-check (DIR, default
#     build-gpu in the repository);
#  2. compiles with nvcc, for this GPU's architecture, the kernels collc
#     generated (PREPARED_DIR, default bench/gpu/prepared, made on a machine
#     with collc by bench/gpu/prepare.sh), the hand-written kernels and the
#     primitives;
#  3. checks every collective and algorithm on 8 ranks of the GPU (outputs
#     poisoned, inputs position-dependent, every element compared, at 1 MiB
#     and at an odd size), the hand-written kernels for every element type
#     and reduction, collc-run --backend cuda on the ring all_reduce (also
#     as two launches of one process, --devices 0,0, and on GPUs 0 and 1
#     where there are two), and the 2-rank ring all_reduce as 2 processes
#     through CUDA IPC;
#  4. times the copy, reduce and send/recv primitives with 16, 32 and 132
#     CTAs against the copy rate, all_reduce of 256 MiB bf16 per rank (and
#     torch doing the same, when python3 has torch), all_reduce of 8 KiB
#     graph-launched;
#  5. prints the tables (bench/gpu/tables.py) and writes them, with every
#     row and log, to OUTDIR (bench/gpu/RESULTS.md says how to record them).
# Every step has a time limit within a total of 465 s (COLLC_GPU_BUDGET), so
# the script ends within 8 minutes; a step cut short says so in its table.
# Exit: 0 all ran and every check passed, 1 a check or step failed, 2 usage
# or a missing prerequisite, 3 no usable GPU (after the steps that need
# none: build and compiles).
#
# --fake-cuda FAKE_DIR (a rehearsal without a GPU; ctest's
# bench.gpu.run-fake-cuda): collc's fake CUDA driver (FAKE_DIR/lib,
# test/fakecuda, blocks as host threads) and its nvcc stand-in
# (FAKE_DIR/bin) instead of a GPU and nvcc, with the gpu-check and
# collc-run already built in --build DIR (default build, a full build:
# nothing is configured or built). Every check of 3. runs, on host threads
# (the hand-written kernels at 4096 and 393222 bytes);
# the steps of 4. run at small sizes (16 MiB primitives, all_reduce of
# 256 KiB for the 256 MiB table) and few iterations: their times are host
# threads', and tables.md says so.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT= PREP= BUILD= ARCH= FAKE=
usage() { sed -n 2,39p "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || usage; BUILD=$2; shift 2 ;;
    --fake-cuda) [ $# -ge 2 ] || usage; FAKE=$2; shift 2 ;;
    --arch) [ $# -ge 2 ] || usage; ARCH=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) if [ -z "$OUT" ]; then OUT=$1; elif [ -z "$PREP" ]; then PREP=$1;
       else echo "run.sh: too many arguments" >&2; usage; fi; shift ;;
  esac
done
[ -n "$OUT" ] || { echo "run.sh: no OUTDIR" >&2; usage; }
PREP=${PREP:-$ROOT/bench/gpu/prepared}
if [ ! -f "$PREP/manifest.tsv" ]; then
  echo "run.sh: $PREP/manifest.tsv is missing: run bench/gpu/prepare.sh $PREP on a machine with collc first" >&2
  exit 2
fi
PREP=$(cd "$PREP" && pwd)
if [ -n "$FAKE" ]; then
  [ -f "$FAKE/lib/libcuda.so.1" ] && [ -x "$FAKE/bin/nvcc" ] ||
    { echo "run.sh: --fake-cuda $FAKE has no lib/libcuda.so.1 and bin/nvcc (build target collc-fake-cuda)" >&2; exit 2; }
  FAKE=$(cd "$FAKE" && pwd)
  BUILD=${BUILD:-$ROOT/build}
  for tool in gpu-check collc-run; do
    [ -x "$BUILD/bin/$tool" ] ||
      { echo "run.sh: --fake-cuda uses the built $BUILD/bin/$tool, which is missing (build it, or --build DIR)" >&2; exit 2; }
  done
  export LD_LIBRARY_PATH=$FAKE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PATH=$FAKE/bin:$PATH
  export COLLC_FAKE_CUDA_DEVICES=${COLLC_FAKE_CUDA_DEVICES:-2}
  echo "run.sh: --fake-cuda: collc's fake CUDA driver ($FAKE/lib/libcuda.so.1) and nvcc stand-in; no GPU, no timings"
fi
BUILD=${BUILD:-$ROOT/build-gpu}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "run.sh: no nvcc (not on PATH, not /usr/local/cuda/bin/nvcc)" >&2; exit 2; }
command -v cmake >/dev/null || { echo "run.sh: no cmake" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run.sh: no python3 (the tables need it)" >&2; exit 2; }
mkdir -p "$OUT/logs" "$OUT/kernels" || exit 2
OUT=$(cd "$OUT" && pwd)
JOBS=$(nproc 2>/dev/null || echo 8)
T0=$SECONDS
TOTAL=${COLLC_GPU_BUDGET:-465}
failed=0
: > "$OUT/steps.tsv"

# step NAME CAP RESERVE CMD...: CMD with a limit of min(CAP, what is left of
# the budget minus RESERVE for the steps after it), output in logs/NAME.log.
step() {
  local name=$1 cap=$2 reserve=$3; shift 3
  local left=$((TOTAL - (SECONDS - T0) - reserve))
  local limit=$((cap < left ? cap : left))
  [ $limit -ge 5 ] || limit=5
  local start=$SECONDS
  # bash -c so that CMD may be one of the functions below (exported).
  timeout --kill-after=5 $limit bash -c '"$@"' step "$@" > "$OUT/logs/$name.log" 2>&1
  local rc=$?
  local took=$((SECONDS - start))
  local what=ok
  [ $rc = 124 ] || [ $rc = 137 ] && what="cut at its limit of ${limit}s"
  [ $rc != 0 ] && [ "$what" = ok ] && what="exit $rc"
  printf '%s\t%d\t%d\t%s\n' "$name" "$took" "$limit" "$what" >> "$OUT/steps.tsv"
  printf '[%3ds] %-22s %4ds (limit %ds): %s\n' $((SECONDS - T0)) "$name" "$took" "$limit" "$what"
  return $rc
}

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null) $(git -C "$ROOT" status --short 2>/dev/null | wc -l) files changed"
  echo "nvcc: $("$NVCC" --version | tail -1)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | sed 's/^/gpu: /'
  else
    echo "gpu: no nvidia-smi on this machine"
  fi
  echo "prepared: $PREP ($(($(wc -l < "$PREP/manifest.tsv") - 1)) kernels)"
  [ -z "$FAKE" ] || echo "fake CUDA driver: $FAKE (checks on host threads, nothing timed)"
} > "$OUT/environment.txt"
rm -f "$OUT/fake-cuda.txt"
[ -z "$FAKE" ] || echo "$FAKE" > "$OUT/fake-cuda.txt"
cat "$OUT/environment.txt"

if [ -z "$ARCH" ]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  ARCH=${cap:-90}
  [ -n "$cap" ] || echo "run.sh: nvidia-smi gave no compute capability: compiling for sm_90"
fi

# not_run NAME WHY: a step --fake-cuda leaves out (the build), in steps.tsv.
not_run() {
  printf '%s\t0\t0\tnot run: %s\n' "$1" "$2" >> "$OUT/steps.tsv"
  printf '[%3ds] %-22s not run: %s\n' $((SECONDS - T0)) "$1" "$2"
}

# 1. Build.
if [ -n "$FAKE" ]; then
  not_run build "--fake-cuda: the binaries of $BUILD"
else
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
configure=(cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCOLLC_RUNTIME_ONLY=ON
           -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC"
           -DCOLLRT_CUDA_ARCHS="$ARCH")
if ! step configure 60 330 "${configure[@]}"; then
  if grep -q nlohmann_json "$OUT/logs/configure.log" &&
     [ -d "$PREP/deps/nlohmann_json/cmake" ]; then
    echo "run.sh: this machine has no nlohmann_json: using the copy prepare.sh made ($PREP/deps)"
    step configure-with-json 60 330 "${configure[@]}" \
      -Dnlohmann_json_DIR="$PREP/deps/nlohmann_json/cmake" ||
      { echo "run.sh: configuring failed (logs/configure-with-json.log)"; exit 1; }
  else
    echo "run.sh: configuring failed (logs/configure.log)"; exit 1
  fi
fi
step build 200 260 cmake --build "$BUILD" --target gpu-check collc-run collc-bench-proxy -j "$JOBS" ||
  { echo "run.sh: the build failed (logs/build.log)"; tail -20 "$OUT/logs/build.log"; exit 1; }
fi
CHECK=$BUILD/bin/gpu-check

# 2. Kernels.
flags="-std=c++17 -I$ROOT/runtime/include --fatbin -gencode arch=compute_$ARCH,code=sm_$ARCH"
compile_all() {
  {
    tail -n +2 "$PREP/manifest.tsv" | cut -f1,5 | while IFS=$'\t' read -r name cu; do
      echo "$PREP/$cu $OUT/kernels/$name.fatbin"
    done
    echo "$ROOT/test/runtime/device/cuda/HandKernels.cu $OUT/kernels/hand.fatbin"
    echo "$ROOT/bench/gpu/Primitives.cu $OUT/kernels/primitives.fatbin"
  } | xargs -P "$JOBS" -L 1 sh -c '"$0" '"$flags"' -o "$2" "$1" || { echo "nvcc failed: $1"; exit 255; }' "$NVCC"
}
export ROOT PREP OUT NVCC JOBS flags FAKE
export -f compile_all
step kernels 150 150 compile_all || { echo "run.sh: compiling kernels failed (logs/kernels.log)"; failed=1; }

# No GPU: stop here, saying so.
"$CHECK" probe > "$OUT/logs/gpu.log" 2>&1
case $? in
  0) cat "$OUT/logs/gpu.log" | tee -a "$OUT/environment.txt" ;;
  3) echo "run.sh: $(cat "$OUT/logs/gpu.log"); stopping after the build and the kernel compiles"
     exit 3 ;;
  *) echo "run.sh: $(cat "$OUT/logs/gpu.log")"; exit 1 ;;
esac

# 3. Checks.
# (Host threads are slower than a GPU: --fake-cuda checks the hand-written
# kernels at a smaller odd size, with longer caps.)
HAND_BYTES=()
[ -z "$FAKE" ] || HAND_BYTES=(--bytes 4096,393222)
step hand $([ -n "$FAKE" ] && echo 120 || echo 45) 120 "$CHECK" hand \
  "$OUT/kernels/hand.fatbin" --ranks 8 "${HAND_BYTES[@]}" || failed=1
cp "$OUT/logs/hand.log" "$OUT/hand.tsv"
check_all() {
  local first=1
  tail -n +2 "$PREP/manifest.tsv" | while IFS=$'\t' read -r name coll algo plan cu kernel purpose; do
    "$CHECK" plan "$PREP/$plan" "$OUT/kernels/$name.fatbin" --kernel "$kernel" \
      --bytes 1MiB,24574 --iters 1 --warmup 1 --timeout 20 |
      { if [ $first = 1 ]; then cat; else tail -n +2; fi; }
    first=0
  done
}
export CHECK
export -f check_all
# Two checked launches per size (collc-run's loop checks every iteration:
# tools/collc-run/Iterations.h); the times of this step are not the point.
step check $([ -n "$FAKE" ] && echo 160 || echo 100) 90 check_all || failed=1
cp "$OUT/logs/check.log" "$OUT/check.tsv"
grep -v -e $'\tok$' -e '^kind' -e '^#' "$OUT/check.tsv" | grep -q . && failed=1

# collc-run's own GPU path (--backend cuda, docs/collc-run.md "On one
# GPU") on the ring all_reduce: its rows and launch lines, every element
# checked.
collc_run_cuda() {
  local row
  row=$(awk -F'\t' '$2 == "all_reduce" && $3 == "ring" { print; exit }' "$PREP/manifest.tsv")
  [ -n "$row" ] || { echo "no all_reduce ring in the manifest"; return 1; }
  local name plan
  name=$(cut -f1 <<< "$row"); plan=$(cut -f4 <<< "$row")
  "$BUILD/bin/collc-run" "$PREP/$plan" --backend cuda --kernels "$OUT/kernels/$name.fatbin" \
    --ranks 8 --check --bytes 4K:1M:16 --iters 2 --warmup 1 --timeout 20 || return 1
  # Every connection through pinned host memory (--p2p off;
  # docs/gpu-runtime.md, "Links").
  echo "# --p2p off"
  "$BUILD/bin/collc-run" "$PREP/$plan" --backend cuda --kernels "$OUT/kernels/$name.fatbin" \
    --ranks 8 --p2p off --check --bytes 4K:64K:16 --iters 2 --warmup 1 --timeout 20
}
export BUILD
export -f collc_run_cuda
step collc-run-cuda 45 80 collc_run_cuda || failed=1

# Several GPUs in one process (docs/gpu-runtime.md, "Several GPUs in one
# process"): the same ring all_reduce with --devices 0,0 (two launches of
# this process on this GPU: every path but peer access), and, where there
# are two GPUs or more, --devices 0,1 (peer access between them). With one
# GPU the two launches' kernels share it: the times mean nothing.
collc_run_devices() {
  local row name plan gpus rc=0
  row=$(awk -F'\t' '$2 == "all_reduce" && $3 == "ring" { print; exit }' "$PREP/manifest.tsv")
  [ -n "$row" ] || { echo "no all_reduce ring in the manifest"; return 1; }
  name=$(cut -f1 <<< "$row"); plan=$(cut -f4 <<< "$row")
  local args=("$PREP/$plan" --backend cuda --kernels "$OUT/kernels/$name.fatbin"
              --ranks 8 --check --bytes 4K:1M:16 --iters 2 --warmup 1 --timeout 20)
  "$BUILD/bin/collc-run" "${args[@]}" --devices 0,0 || rc=1
  if [ -n "$FAKE" ]; then
    gpus=$COLLC_FAKE_CUDA_DEVICES
  else
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  fi
  if [ "${gpus:-0}" -ge 2 ]; then
    "$BUILD/bin/collc-run" "${args[@]}" --devices 0,1 || rc=1
  else
    echo "# --devices 0,1 not run: ${gpus:-0} GPU(s) listed by nvidia-smi"
  fi
  return $rc
}
export -f collc_run_devices
step collc-run-devices 30 75 collc_run_devices || failed=1
cp "$OUT/logs/collc-run-devices.log" "$OUT/collc-run-devices.txt"

# One process per rank (docs/gpu-runtime.md, "One process per rank"): the
# 2-rank ring all_reduce as 2 processes on this GPU (mpirun -np 2 where
# Open MPI is installed, else 2 background processes with COLLC_RANK ...),
# the arenas exchanged with CUDA IPC, every element checked. The two
# processes' kernels take turns on the GPU (no MPS): the times mean nothing.
# two_ranks HOSTS ARGS...: collc-run ARGS as the 2 ranks of a world of
# plain background processes (COLLC_RANK, COLLC_WORLD_SIZE, COLLC_LOCAL_RANK,
# a free COLLC_MASTER_PORT); HOSTS 1: one host, 2: as if each on a host of
# its own (COLLC_HOST_NAME gpu-host-R, local rank 0). Fails if either fails.
two_ranks() {
  local hosts=$1 port pids=() rc=0 r; shift
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  for r in 0 1; do
    if [ "$hosts" = 2 ]; then
      COLLC_HOST_NAME=gpu-host-$r COLLC_RANK=$r COLLC_WORLD_SIZE=2 COLLC_LOCAL_RANK=0 \
        COLLC_MASTER_ADDR=127.0.0.1 COLLC_MASTER_PORT=$port "$BUILD/bin/collc-run" "$@" &
    else
      COLLC_RANK=$r COLLC_WORLD_SIZE=2 COLLC_LOCAL_RANK=$r \
        COLLC_MASTER_ADDR=127.0.0.1 COLLC_MASTER_PORT=$port "$BUILD/bin/collc-run" "$@" &
    fi
    pids+=($!)
  done
  for r in "${pids[@]}"; do wait "$r" || rc=1; done
  return $rc
}
export -f two_ranks
ipc_args() { # the manifest's 2-rank ring all_reduce and its kernels
  local row name plan
  row=$(awk -F'\t' '$7 == "ipc" { print; exit }' "$PREP/manifest.tsv")
  [ -n "$row" ] || { echo "no ipc entry in $PREP/manifest.tsv: rerun bench/gpu/prepare.sh" >&2; return 1; }
  name=$(cut -f1 <<< "$row"); plan=$(cut -f4 <<< "$row")
  echo "$PREP/$plan" "$OUT/kernels/$name.fatbin"
}
export -f ipc_args
collc_run_ipc() {
  local files port
  files=($(ipc_args)) || return 1
  local args=("${files[0]}" --backend cuda --kernels "${files[1]}"
              --check --bytes 4K:1M:16 --iters 2 --warmup 1 --timeout 20)
  if command -v mpirun >/dev/null; then
    echo "# launcher: mpirun -np 2"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mpirun --allow-run-as-root --oversubscribe -np 2 -x MASTER_ADDR=127.0.0.1 \
      -x MASTER_PORT="$port" "$BUILD/bin/collc-run" "${args[@]}"
    return
  fi
  echo "# launcher: none (no mpirun): 2 background processes with COLLC_RANK, COLLC_WORLD_SIZE, COLLC_LOCAL_RANK"
  two_ranks 1 "${args[@]}"
}
export -f collc_run_ipc
step collc-run-ipc 40 95 collc_run_ipc || failed=1
cp "$OUT/logs/collc-run-ipc.log" "$OUT/collc-run-ipc.txt"

# The same 2 ranks as if on two hosts (COLLC_HOST_NAME): their connections
# are network connections, moved by each process's proxy thread over TCP
# (docs/gpu-runtime.md, "Across hosts"); then as 2 processes of one host
# with every message through host memory both pin (--p2p off: each maps
# the other's memfd host arena). Every element checked.
collc_run_hosts() {
  local files rc=0
  files=($(ipc_args)) || return 1
  echo "# 2 processes, COLLC_HOST_NAME gpu-host-0 and gpu-host-1, --transport tcp"
  two_ranks 2 "${files[0]}" --backend cuda --kernels "${files[1]}" \
    --transport tcp --check --bytes 4K:1M:16 --iters 2 --warmup 1 --timeout 20 || rc=1
  echo "# 2 processes of one host, --p2p off"
  two_ranks 1 "${files[0]}" --backend cuda --kernels "${files[1]}" \
    --p2p off --check --bytes 4K:64K:16 --iters 2 --warmup 1 --timeout 20 || rc=1
  return $rc
}
export -f collc_run_hosts
step collc-run-hosts 40 70 collc_run_hosts || failed=1
cp "$OUT/logs/collc-run-hosts.log" "$OUT/collc-run-hosts.txt"

# 4. Timings. (--fake-cuda: every step runs, at small sizes and few
# iterations, so that the steps and the tables are rehearsed; the times are
# host threads', and tables.md says so.)
PRIM_BYTES=512MiB PRIM_ITERS=20 BIG=256MiB BIG_ITERS=5 SMALL_ITERS=200
BIG_WARMUP=1 SMALL_WARMUP=2
[ -z "$FAKE" ] || { PRIM_BYTES=16MiB PRIM_ITERS=2 BIG=256KiB BIG_ITERS=1 SMALL_ITERS=1
                    BIG_WARMUP=0 SMALL_WARMUP=0; }
step primitives 40 60 "$CHECK" primitives "$OUT/kernels/primitives.fatbin" \
  --ctas 16,32,132 --bytes $PRIM_BYTES --iters $PRIM_ITERS || failed=1
cp "$OUT/logs/primitives.log" "$OUT/primitives.tsv"
perf() { # perf BYTES ARGS...
  local bytes=$1 first=1; shift
  tail -n +2 "$PREP/manifest.tsv" | while IFS=$'\t' read -r name coll algo plan cu kernel purpose; do
    [ "$purpose" = perf ] || continue
    "$CHECK" plan "$PREP/$plan" "$OUT/kernels/$name.fatbin" --kernel "$kernel" \
      --bytes "$bytes" --timeout 30 "$@" |
      sed "s|^plan\tall_reduce/[a-z_]*|plan\t$name|" |
      { if [ $first = 1 ]; then cat; else tail -n +2; fi; }
    first=0
  done
}
export -f perf
step allreduce-256MiB 90 50 perf $BIG --iters $BIG_ITERS --warmup $BIG_WARMUP --graph no --no-check || failed=1
cp "$OUT/logs/allreduce-256MiB.log" "$OUT/allreduce-256MiB.tsv"
# Timed back to back without checks (a checked launch is timed on its own,
# tools/collc-run/Iterations.h); the check step has checked graph launches.
step allreduce-8KiB 30 35 perf 8KiB --iters $SMALL_ITERS --warmup $SMALL_WARMUP --graph yes --no-check || failed=1
cp "$OUT/logs/allreduce-8KiB.log" "$OUT/allreduce-8KiB.tsv"
rm -f "$OUT/torch.tsv" "$OUT/torch.skipped"
step torch 45 10 python3 "$ROOT/bench/gpu/torch_allreduce.py" --ranks 8 --bytes $((256 << 20))
case $? in
  0) { printf 'kind\tname\tranks\tdtype\tbytes_per_rank\tus\talg_GBps\tmemory_GBps\n'
       cat "$OUT/logs/torch.log"; } > "$OUT/torch.tsv" ;;
  3) cp "$OUT/logs/torch.log" "$OUT/torch.skipped"
     echo "run.sh: $(cat "$OUT/torch.skipped")" ;;
  *) failed=1 ;;
esac

# The device proxy's wake-up (no GPU needed): a message between two proxies
# after an idle gap, --proxy-polling sleep against launch, on this host's
# cores (bench/proxy/RESULTS.md).
step proxy-wake 20 0 "$BUILD/bin/collc-bench-proxy" --iterations 100 &&
  cp "$OUT/logs/proxy-wake.log" "$OUT/proxy-wake.md"

# 5. Tables.
python3 "$ROOT/bench/gpu/tables.py" "$OUT" > "$OUT/tables.md"
cat "$OUT/tables.md"
echo
echo "run.sh: $((SECONDS - T0)) s; results in $OUT (tables.md, *.tsv, logs/, steps.tsv)"
exit $failed

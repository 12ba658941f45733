#!/bin/bash
# bench/gpu/prepare.sh PREPARED_DIR [--collc PATH]
#
# Runs here (where collc is built) and writes what bench/gpu/run.sh needs on
# a GPU machine without LLVM: for every collective and every algorithm of
# collc's library, on 8 ranks, a plan (collc --emit=plan) and its generated
# kernel (collc --emit=cuda), in bf16 (sum for the reducing ones), plus the
# all_reduce variants timed at 256 MiB (ring with 16 and 8 rings, 4 chunks
# of a part per ring; and 32 rings, 256 blocks on the GPU, which fit only
# with two blocks per SM: compiled with COLLRT_MIN_BLOCKS_PER_SM 2, at 512
# threads per block (64 registers) and at 256 (128 registers); and
# recursive_doubling and one_shot with COLLRT_LL_RELAXED_HEAD for the 8 KiB
# table), and a
# 2-rank ring all_reduce for the one-process-per-rank step. The
# hierarchical algorithms are compiled for the 2x4 test topology (2 nodes of
# 4 GPUs), the others for 1x8: on one GPU all 8 ranks share it either way.
#
# Also copies nlohmann/json (header-only, which libcollrt's plan reader
# needs) into PREPARED_DIR/deps, for GPU machines that lack it; run.sh uses
# it only when the machine's own is missing, and says so.
#
# Writes PREPARED_DIR/manifest.tsv: name, collective, algorithm, plan, cu,
# kernel, purpose (check: every element compared at two sizes; perf: also
# timed at 256 MiB and 8 KiB; ipc: also run by 2 processes through CUDA
# IPC). Exits 1 if any collective of the list got no kernel.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PREP=
COLLC=$ROOT/build/bin/collc
while [ $# -gt 0 ]; do
  case $1 in
    --collc) COLLC=$2; shift 2 ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    -*) echo "prepare.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$PREP" ] || { echo "prepare.sh: one directory only" >&2; exit 2; }
       PREP=$1; shift ;;
  esac
done
[ -n "$PREP" ] || { echo "usage: bench/gpu/prepare.sh PREPARED_DIR [--collc PATH]" >&2; exit 2; }
[ -x "$COLLC" ] || { echo "prepare.sh: no collc at $COLLC (build it, or --collc PATH)" >&2; exit 2; }
mkdir -p "$PREP" || exit 1
PREP=$(cd "$PREP" && pwd)
TOPOS=$ROOT/test/runtime/Inputs/topologies
ALGOS=$ROOT/lowering/CollToSched/algorithms
MANIFEST=$PREP/manifest.tsv
LOG=$PREP/prepare.log
: > "$LOG"
printf 'name\tcollective\talgorithm\tplan\tcu\tkernel\tpurpose\n' > "$MANIFEST.tmp"

# Every (collective, algorithm, needs nodes) of the library.
list=$(python3 - "$ALGOS" <<'PY'
import os, re, sys
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    if not name.endswith(".mlir"):
        continue
    text = open(os.path.join(d, name)).read()
    for m in re.finditer(r'sched\.schedule @\w+ collective = (\w+)\s+'
                         r'algorithm = "(\w+)"(\s+attributes \{[^}]*\})?', text):
        nodes = bool(m.group(3)) and '"nodes"' in m.group(3)
        print(m.group(1), m.group(2), "nodes" if nodes else "flat")
PY
) || { echo "prepare.sh: cannot list the algorithms in $ALGOS" >&2; exit 1; }

fail=0
# PRELUDE, when set, is put before the generated kernel's source (macros
# that Channel.h reads: COLLRT_BLOCK_THREADS, COLLRT_MIN_BLOCKS_PER_SM).
PRELUDE=
emit() { # emit NAME COLLECTIVE ALGORITHM TOPOLOGY PURPOSE [collc options...]
  local name=$1 coll=$2 algo=$3 topo=$4 purpose=$5; shift 5
  local common=("$COLLC" --collective "$coll" --bytes 1MiB --dtype bf16
                --topo "$TOPOS/$topo.json" --algo "$algo" "$@")
  if ! "${common[@]}" --emit=plan -o "$PREP/$name.plan.json" >>"$LOG" 2>&1 ||
     ! "${common[@]}" --emit=cuda -o "$PREP/$name.cu" >>"$LOG" 2>&1; then
    echo "prepare.sh: $name: collc failed (see $LOG)" >&2
    fail=1
    return
  fi
  if [ -n "$PRELUDE" ]; then
    { printf '%s\n' "$PRELUDE"; cat "$PREP/$name.cu"; } > "$PREP/$name.cu.tmp" &&
      mv "$PREP/$name.cu.tmp" "$PREP/$name.cu" ||
      { echo "prepare.sh: $name: cannot write $name.cu" >&2; fail=1; return; }
  fi
  local kernel
  kernel=$(sed -n 's/^COLLRT_KERNEL(\([A-Za-z0-9_]*\)).*/\1/p' "$PREP/$name.cu" | head -1)
  [ -n "$kernel" ] || { echo "prepare.sh: $name.cu has no kernel" >&2; fail=1; return; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$coll" "$algo" \
    "$name.plan.json" "$name.cu" "$kernel" "$purpose" >> "$MANIFEST.tmp"
  echo "  $name ($kernel)"
}

while read -r coll algo kind; do
  [ -n "$coll" ] || continue
  case $coll in send_recv) continue ;; esac # not a --collective (one-op programs only)
  topo=1x8
  [ "$kind" = nodes ] && topo=2x4
  purpose=check
  [ "$coll" = all_reduce ] && purpose=perf
  emit "$coll-$algo" "$coll" "$algo" "$topo" "$purpose"
done <<< "$list"
# all_reduce with more CTAs for the bandwidth table: 16 and 8 rings, each
# ring a channel (a CTA per rank), 4 chunks of every part per ring (the
# rings share a part's k/n chunks: at the default chunking, k = n, only
# ring 0 would have any).
emit all_reduce-ring-rings16 all_reduce ring 1x8 perf --algo-param rings=16 --chunks 64
emit all_reduce-ring-rings8 all_reduce ring 1x8 perf --algo-param rings=8 --chunks 32
PRELUDE='#define COLLRT_MIN_BLOCKS_PER_SM 2'
emit all_reduce-ring-rings32-2persm all_reduce ring 1x8 perf --algo-param rings=32 --chunks 128
PRELUDE='#define COLLRT_BLOCK_THREADS 256
#define COLLRT_MIN_BLOCKS_PER_SM 2'
emit all_reduce-ring-rings32-t256 all_reduce ring 1x8 perf --algo-param rings=32 --chunks 128
# For the 8 KiB table: the small-message algorithms with an LL message's
# head published without a system-scope release (Channel.h).
PRELUDE='#define COLLRT_LL_RELAXED_HEAD 1'
emit all_reduce-recursive_doubling-llrelaxed all_reduce recursive_doubling 1x8 perf
emit all_reduce-one_shot-llrelaxed all_reduce one_shot 1x8 perf
PRELUDE=
# One process per rank (run.sh's collc-run-ipc step: 2 processes, CUDA IPC).
emit all_reduce-ring-2ranks all_reduce ring 1x2 ipc

# nlohmann/json for GPU machines without it.
json=$(echo '#include <nlohmann/json.hpp>' | ${CXX:-c++} -xc++ -E -M - 2>/dev/null |
       tr ' \\' '\n\n' | grep 'nlohmann/json.hpp$' | head -1)
if [ -n "$json" ]; then
  rm -rf "$PREP/deps/nlohmann_json"
  mkdir -p "$PREP/deps/nlohmann_json/include" "$PREP/deps/nlohmann_json/cmake"
  cp -r "$(dirname "$json")" "$PREP/deps/nlohmann_json/include/"
  cat > "$PREP/deps/nlohmann_json/cmake/nlohmann_jsonConfig.cmake" <<'CM'
# A copy of nlohmann/json (header-only) made by bench/gpu/prepare.sh.
set(nlohmann_json_VERSION 3.11.0)
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_CURRENT_LIST_DIR}/../include")
endif()
CM
  echo 'set(PACKAGE_VERSION 3.11.0)
set(PACKAGE_VERSION_COMPATIBLE TRUE)' > "$PREP/deps/nlohmann_json/cmake/nlohmann_jsonConfigVersion.cmake"
  echo "  deps/nlohmann_json (from $json)"
else
  echo "prepare.sh: nlohmann/json.hpp not found: run.sh will need it on the GPU machine" >&2
fi

mv "$MANIFEST.tmp" "$MANIFEST"
echo "prepare.sh: $(($(wc -l < "$MANIFEST") - 1)) plans and kernels in $PREP"
exit $fail

#!/usr/bin/env bash
# Writes the --emit=cuda files of test/Lowering/SchedToCUDA into OUT
# (NAME.cu; the goldens in Inputs/golden are these files as NAME.cu.golden).
# Usage: refresh.sh COLLC OUT [--golden]
#   bash test/Lowering/SchedToCUDA/Inputs/refresh.sh build/bin/collc \
#     test/Lowering/SchedToCUDA/Inputs/golden --golden
# (review the diff before committing refreshed goldens).
set -euo pipefail
collc=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
topo=$here/../../../runtime/Inputs/topologies
mkdir -p "$out"
# Ring all_reduce: a channel range (rings), windows, guards on chunk bounds.
"$collc" --collective all_reduce --bytes 1MiB --topo "$topo/1x4.json" \
  --algo ring --chunks 1 --emit=cuda -o "$out/ring-all_reduce-1x4.cu"
# Recursive doubling on 3 ranks: geometric loops (step * 2) and the guards
# that fold the remainder rank in.
"$collc" --collective all_reduce --bytes 1MiB --topo "$topo/1x3.json" \
  --algo recursive_doubling --chunks 1 --emit=cuda \
  -o "$out/recursive_doubling-all_reduce-1x3.cu"
# Direct reduce_scatter: channel 0 and the range c = 1 to 8, with
# cross-channel dependencies whose channel is an expression of c.
"$collc" --collective reduce_scatter --bytes 1MiB --topo "$topo/1x4.json" \
  --algo direct --chunks 1 --emit=cuda \
  -o "$out/direct-reduce_scatter-1x4.cu"
# Hierarchical all_reduce on 2 nodes of 4: gpus_per_node folded, three
# channels chained by dependencies.
"$collc" --collective all_reduce --bytes 1MiB --topo "$topo/2x4.json" \
  --algo hierarchical --chunks 1 --emit=cuda \
  -o "$out/hierarchical-all_reduce-2x4.cu"
# An explicit schedule (sched.rank): a switch on the rank.
"$collc" --collective all_to_all --bytes 64 --topo "$topo/1x2.json" \
  --algo-file "$here/explicit_all_to_all.mlir" --algo two_rank_pairwise --chunks 2 \
  --emit=cuda -o "$out/pairwise-all_to_all-1x2.cu"
# A loop whose increment could leave int64: it tests before it steps.
"$collc" --collective all_gather --bytes 1KiB --topo "$topo/1x3.json" \
  --algo-file "$here/guarded_all_gather.mlir" --algo guarded --chunks 2 \
  --emit=cuda -o "$out/guarded-all_gather-1x3.cu"
# Two send_recv collectives of one program: per-rank peer tables, two
# kernels in one file.
"$collc" "$here/send_recv.mlir" --topo "$topo/1x4.json" --chunks 2 \
  --emit=cuda -o "$out/pipelined-send_recv-1x4.cu"
if [[ ${3:-} == --golden ]]; then
  for f in "$out"/*.cu; do
    mv "$f" "$f.golden"
  done
fi

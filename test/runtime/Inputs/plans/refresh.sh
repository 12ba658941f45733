#!/usr/bin/env bash
# Writes the golden plans of this directory with COLLC into OUT_DIR:
#
#   bash test/runtime/Inputs/plans/refresh.sh build/bin/collc test/runtime/Inputs/plans
#
# refreshes them (after a deliberate change of the plan format or of an
# algorithm; review the diff). test/tools/collc/plan.test runs this script
# into a temporary directory and diffs the result against the files here.
set -euo pipefail
collc=$1
out=$2
inputs=$(cd "$(dirname "$0")/.." && pwd)
topo=$inputs/topologies
# --chunks 1 and --algo fix the choice, so that the plans do not follow the
# cost model.
"$collc" --collective all_reduce --bytes 1KiB --topo "$topo/1x3.json" \
  --algo ring --chunks 1 --emit=plan -o "$out/ring-all_reduce-3.plan.json"
"$collc" --collective all_to_all --bytes 1KiB --topo "$topo/1x4.json" \
  --algo direct --chunks 1 --emit=plan -o "$out/direct-all_to_all-4.plan.json"
"$collc" --collective broadcast --bytes 1KiB --topo "$topo/1x4.json" \
  --algo binomial --chunks 1 --emit=plan \
  -o "$out/binomial-broadcast-4.plan.json"
"$collc" --collective all_gather --bytes 1KiB --topo "$topo/2x2.json" \
  --algo hierarchical --chunks 1 --emit=plan \
  -o "$out/hierarchical-all_gather-2x2.plan.json"
"$collc" "$inputs/programs/all_to_all_v-counts.mlir" --topo "$topo/1x4.json" \
  --algo direct --chunks 1 --emit=plan \
  -o "$out/direct-all_to_all_v-4.plan.json"
# all_to_all_v whose counts come at run time (format version 2): direct on
# one node of 4, hierarchical on 2 nodes x 2.
"$collc" "$inputs/programs/runtime-counts.mlir" --topo "$topo/1x4.json" \
  --algo direct --chunks 1 --emit=plan \
  -o "$out/direct-all_to_all_v-runtime-4.plan.json"
"$collc" "$inputs/programs/runtime-counts.mlir" --topo "$topo/2x2.json" \
  --algo hierarchical --chunks 1 --emit=plan \
  -o "$out/hierarchical-all_to_all_v-runtime-2x2.plan.json"

#!/usr/bin/env bash
# Set-up command (1): installs what is missing, builds collc, and runs the
# main job on the bundled MoE example and the dgx8x8 topology: compile,
# verify, predict, choose, explain, then run the plan on the CPU executor
# (--run: 64 ranks as threads, every element checked; about 13 GB of memory
# and a minute on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh > build.log 2>&1 || { tail -n 50 build.log; exit 1; }
echo "built collc (log: build.log)"
echo "\$ build/bin/collc examples/moe_layer.mlir --topo dgx8x8 --run"
build/bin/collc examples/moe_layer.mlir --topo dgx8x8 --run

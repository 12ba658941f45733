#!/usr/bin/env bash
# Set-up command (1): installs what is missing, builds collc, and runs the
# main job on the bundled MoE example and the dgx8x8 topology, then compiles
# an all_reduce for one DGX H100 and runs it on the CPU executor (--run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh > build.log 2>&1 || { tail -n 50 build.log; exit 1; }
echo "built collc (log: build.log)"
echo "\$ build/bin/collc examples/moe_layer.mlir --topo dgx8x8"
build/bin/collc examples/moe_layer.mlir --topo dgx8x8
echo
echo "\$ build/bin/collc --collective all_reduce --bytes 4MiB --topo dgx-h100 --run"
build/bin/collc --collective all_reduce --bytes 4MiB --topo dgx-h100 --run

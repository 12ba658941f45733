#!/usr/bin/env bash
# Set-up command (2): installs what is missing, builds collc and runs the
# whole test suite (lit + FileCheck, GoogleTest, robustness, format) under
# ctest, as many tests at a time as there are cores (lit spreads its own
# tests over the cores too; the long single-process tests, such as the
# kernel emulation and the fake-CUDA rehearsal, then overlap with it: on 2
# cores 14 minutes instead of 19).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"

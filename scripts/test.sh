#!/usr/bin/env bash
# Set-up command (2): installs what is missing, builds collc and runs the
# whole test suite (lit + FileCheck, GoogleTest, robustness, format) under
# ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure

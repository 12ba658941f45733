#!/usr/bin/env bash
# Configures (once) and builds collc into build/. Extra arguments go to cmake
# at configure time.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py "$@"
fi
cmake --build build

#!/usr/bin/env bash
# Installs libcollrt from BUILD into a fresh prefix, builds EXAMPLE (a
# program of docs/examples) against that prefix alone (consumer/:
# find_package(collrt)), and runs it on PLAN.
#   run.sh BUILD_DIR WORK_DIR EXAMPLE.cpp PLAN
set -euo pipefail
build=$1 work=$2 example=$3 plan=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# Only the runtime is installed: its archives, headers and package files.
for f in include/collrt/collrt.h include/collrt/Plan.h \
         include/common/Program/Program.h lib/cmake/collrt/collrtConfig.cmake \
         lib/libCollRtExec.a; do
  [ -f "$work/prefix/$f" ] || { echo "install: $f is missing" >&2; exit 1; }
done
# The consumer sees nothing of the source tree: only the prefix.
cmake -S "$here/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DEXAMPLE="$example" \
  > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
"$work/consumer/collrt-consumer" "$plan"

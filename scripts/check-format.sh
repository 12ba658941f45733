#!/usr/bin/env bash
# Fails when a C++ file of the tree differs from clang-format-19's output
# (.clang-format: LLVM base). `scripts/check-format.sh --fix` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-19 || true)
if [ -z "$format" ]; then
  echo "check-format: clang-format-19 not found (bash scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.cu' '*.cuh' 2>/dev/null ||
  find dialects compiler lowering runtime tools test bench -name '*.cpp' -o -name '*.h')
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" --dry-run -Werror "$f" > /dev/null 2>&1; then
    echo "check-format: $f is not formatted (run scripts/check-format.sh --fix)"
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "check-format: ${#files[@]} files formatted"
exit $bad

#!/usr/bin/env bash
# Prints bench/latency's table: collc's choice at 8 B to 256 KiB per rank
# against the report's bound on the direct-connect bundled topologies and
# test/Synthesis's (issue 21, point 3: within 2x). Results in RESULTS.md
# here, which
#   python3 bench/record.py latency --markdown "bash bench/latency/run.sh"
# rewrites in the template of bench/README.md.
#
#   COLLC=build/bin/collc bash bench/latency/run.sh --topologies torus4x4
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
collc=${COLLC:-$root/build/bin/collc}
if [[ ! -x $collc ]]; then
  echo "run.sh: no collc binary; build it (ninja -C build collc) or set COLLC" >&2
  exit 1
fi
exec python3 "$here/tables.py" --collc "$collc" "$@"

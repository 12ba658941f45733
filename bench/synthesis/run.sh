#!/usr/bin/env bash
# Prints bench/synthesis's table: collc's choice with synthesized schedules
# (--synthesize=on) against the library alone (--synthesize=off) for
# every collective at 256 MiB and 1 GiB per rank on the bundled
# topologies and test/Synthesis's. Results in RESULTS.md here, which
#   python3 bench/record.py synthesis --markdown "bash bench/synthesis/run.sh"
# rewrites in the template of bench/README.md.
#
#   COLLC=build/bin/collc bash bench/synthesis/run.sh --topologies dgx8x8
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
collc=${COLLC:-$root/build/bin/collc}
if [[ ! -x $collc ]]; then
  echo "run.sh: no collc binary; build it (ninja -C build collc) or set COLLC" >&2
  exit 1
fi
exec python3 "$here/tables.py" --collc "$collc" "$@"

#!/usr/bin/env bash
# Prints the tables of issue 4, section 6 (selection and simulation quality):
# efficiency of collc's choices against the lower bounds on dgx8x8, and
# collc's choice against NCCL-style baselines over sizes 8 B .. 8 GiB on
# every bundled topology. See README.md; results in RESULTS.md here, which
#   python3 bench/record.py selection --markdown "bash bench/selection/run.sh"
# rewrites in the template of bench/README.md.
#
#   bash bench/selection/run.sh                    # everything
#   bash bench/selection/run.sh --tables targets   # only the dgx8x8 targets
#   COLLC=build/bin/collc bash bench/selection/run.sh --topologies dgx8x8,dgx-h100
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
collc=${COLLC:-$root/build/bin/collc}
if [[ ! -x $collc ]]; then
  echo "run.sh: no collc binary; build it (ninja -C build collc) or set COLLC" >&2
  exit 1
fi
exec python3 "$here/tables.py" --collc "$collc" "$@"

#!/usr/bin/env bash
# Compile time of collc (docs/design.md, "Numbers we hold ourselves to": "any
# collective on dgx8x8 in well under a second"). For every collective and
# size below, times
#
#   collc --collective C --bytes S --topo TOPO --emit=plan -o /dev/null
#   collc --collective C --bytes S --topo TOPO -o /dev/null --report-json F
#
# (the plan, and the default report with its baselines) $REPEAT times each
# and keeps the best wall time and the CPU time (user + system) of that
# run; on a shared machine other jobs only ever slow a run down. Prints a
# Markdown table: the chosen algorithm and chunk count (from the report's
# JSON), wall and CPU ms of both, and "met" when both wall times are below
# $LIMIT_MS (500: "well under a second" read as under half a second).
#
#   bash bench/compile/run.sh [BUILD_DIR]
#   COLLECTIVES="all_reduce" SIZES="1GiB" REPEAT=5 bash bench/compile/run.sh build
#
# Results: RESULTS.md here, which
#   python3 bench/record.py compile "bash bench/compile/run.sh build"
# rewrites in the template of bench/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
collc=${COLLC:-$build/bin/collc}
if [[ ! -x $collc ]]; then
  echo "run.sh: no collc binary at $collc; build it (ninja -C BUILD collc) or set COLLC" >&2
  exit 1
fi
TOPO=${TOPO:-dgx8x8}
COLLECTIVES=${COLLECTIVES:-"all_reduce all_gather reduce_scatter all_to_all broadcast reduce"}
SIZES=${SIZES:-"8 64KiB 16MiB 1GiB 8GiB"}
REPEAT=${REPEAT:-3}
LIMIT_MS=${LIMIT_MS:-500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs "$@" once; prints "WALL_MS CPU_MS" (bash's time: real, user + sys),
# or fails with collc's error in $tmp/err.
time_once() {
  local TIMEFORMAT='%3R %3U %3S' t
  t=$( { time "$@" >/dev/null 2>"$tmp/err" ; } 2>&1 ) || return 1
  awk '{ printf "%.0f %.0f\n", $1 * 1000, ($2 + $3) * 1000 }' <<<"$t"
}

# Best of $REPEAT: prints "WALL_MS CPU_MS" of the run with the least wall.
best_of() {
  local best="" line
  for ((i = 0; i < REPEAT; ++i)); do
    line=$(time_once "$@") || return 1
    if [[ -z $best ]] || (( ${line% *} < ${best% *} )); then
      best=$line
    fi
  done
  echo "$best"
}

echo "collc compile time on $TOPO: best of $REPEAT wall times (ms) and that run's CPU time (user + system, ms); met = both wall times < $LIMIT_MS ms"
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "collc: $collc ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "| collective | bytes/rank | chosen (x chunks) | plan wall ms | plan CPU ms | report wall ms | report CPU ms | met |"
echo "|---|---|---|---:|---:|---:|---:|---|"
for c in $COLLECTIVES; do
  for s in $SIZES; do
    # A size the collective cannot split over the group (8 B of an
    # all_to_all on 64 ranks) is replaced by the smallest one it can.
    shown=$s
    if ! "$collc" --collective "$c" --bytes "$s" --topo "$TOPO" --emit=plan -o /dev/null 2>"$tmp/err"; then
      smallest=$(sed -n 's/.*the smallest size is \([0-9]*\) B.*/\1/p' "$tmp/err")
      if [[ -z $smallest ]]; then
        echo "run.sh: collc --collective $c --bytes $s --topo $TOPO failed:" >&2
        cat "$tmp/err" >&2
        exit 1
      fi
      s=$smallest
      shown="$smallest (smallest)"
    fi
    rm -f "$tmp/report.json"
    plan=$(best_of "$collc" --collective "$c" --bytes "$s" --topo "$TOPO" --emit=plan -o /dev/null) &&
      report=$(best_of "$collc" --collective "$c" --bytes "$s" --topo "$TOPO" -o /dev/null --report-json "$tmp/report.json") || {
      echo "run.sh: collc --collective $c --bytes $s --topo $TOPO failed:" >&2
      cat "$tmp/err" >&2
      exit 1
    }
    chosen=$(python3 - "$tmp/report.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["collectives"][0]
print("-" if c["algorithm"] is None else f'{c["algorithm"]} x{c["chunks"]}')
PY
)
    met=no
    if (( ${plan% *} < LIMIT_MS && ${report% *} < LIMIT_MS )); then met=yes; fi
    echo "| $c | $shown | $chosen | ${plan% *} | ${plan#* } | ${report% *} | ${report#* } | $met |"
  done
done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

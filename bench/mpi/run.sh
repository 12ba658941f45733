#!/bin/bash
# bench/mpi/run.sh [BUILD_DIR]: collc-run against Open MPI on one host.
#
# For every collective of issue 5's comparison (all_reduce, all_gather,
# reduce_scatter, all_to_all; f32, sum), every process count of $PROCS
# (2 4 8) and every size of $SIZES (4 KiB ... 64 MiB per rank):
#   - collc makes a plan for the size on the one-node test topology of that
#     many GPUs (test/runtime/Inputs/topologies/1xN.json): its own choice of
#     algorithm and chunk count for the size, by measurement (collc
#     --tuning, docs/tuning.md) from a tuning file that the tuning stage
#     below measures first on this host, or with TUNE=0 by simulation;
#   - mpirun starts N processes of collc-run over shared memory
#     (--transport shm, the rendezvous at 127.0.0.1) and N processes of
#     collc-bench-mpi (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block,
#     MPI_Alltoall), with the same iterations, warm-up, binding (none) and
#     oversubscription;
# each pair $REPEAT times (3), alternating collc-run and MPI, keeping each
# tool's best busbw (a shared machine's load only ever slows a run down);
# collc-run twice per round, once with the buffers of each kind in $BUFFERS
# ("host malloc": `--buffers host`, collrt::allocateHostBuffer, whose pages
# the receivers map and copy with memcpy, then `--buffers malloc`, the C++
# heap as collc-bench-mpi's; docs/transports.md, "Host buffers"), each
# with the plan collc chose for that kind;
# The tuning stage (TUNE=1, default): for every collective and process
# count, one plan per candidate of $CANDIDATES_<collective> (algorithm:chunks;
# those collc refuses for the group are left out, and said so), all
# measured by one `collc-run --tuning` under mpirun over shm at every size
# from the first to the last of $SIZES ($TUNE_ROUNDS rounds, 2 by default,
# 5 timed calls each), into one tuning file, summed up at the end.
# The tuning stage runs once per kind of $BUFFERS, each into its own tuning
# file, and collc chooses each kind's plan from that kind's file.
# Then it prints a Markdown table per collective and process count: size,
# collc's algorithm, collc's best busbw per kind of buffers, MPI's best
# busbw and the ratios; at the end, per kind of buffers, how many points
# from 1 MiB up meet issue 5's target (collc's busbw at least Open MPI's)
# and which miss.
# Both tools time each call and report the mean of the slowest rank
# (docs/collc-run.md).
# BUILD_DIR (default build) must hold bin/collc, bin/collc-run and
# bin/collc-bench-mpi.
# Results: bench/mpi/RESULTS.md, which
#   python3 bench/record.py mpi "bash bench/mpi/run.sh build"
# rewrites in the template of bench/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
collc=$build/bin/collc
run=$build/bin/collc-run
mpi=$build/bin/collc-bench-mpi
for tool in "$collc" "$run" "$mpi"; do
  [ -x "$tool" ] || { echo "run.sh: $tool is missing; build collc, collc-run and collc-bench-mpi in $build" >&2; exit 2; }
done
PROCS=${PROCS:-"2 4 8"}
SIZES=${SIZES:-"4K 8K 16K 32K 64K 128K 256K 512K 1M 2M 4M 8M 16M 32M 64M"}
COLLECTIVES=${COLLECTIVES:-"all_reduce all_gather reduce_scatter all_to_all"}
REPEAT=${REPEAT:-3}
TUNE=${TUNE:-1}
TUNE_ROUNDS=${TUNE_ROUNDS:-2}
BUFFERS=${BUFFERS:-"host malloc"}
read -r -a kinds <<<"$BUFFERS"
for kind in "${kinds[@]}"; do
  case $kind in
  host | malloc) ;;
  *) echo "run.sh: BUFFERS='$BUFFERS': each kind must be host or malloc" >&2; exit 2 ;;
  esac
done
[ "${#kinds[@]}" -ge 1 ] || { echo "run.sh: BUFFERS is empty: name host, malloc or both" >&2; exit 2; }
CANDIDATES_all_reduce=${CANDIDATES_all_reduce:-"ring:1 ring:2 one_shot:1 two_shot:1 two_shot:2 recursive_doubling:1 rabenseifner:1 double_binary_tree:1 double_binary_tree:4"}
CANDIDATES_all_gather=${CANDIDATES_all_gather:-"direct:1 ring:1 ring:2 bruck:1 recursive_doubling:1"}
CANDIDATES_reduce_scatter=${CANDIDATES_reduce_scatter:-"direct:1 ring:1 ring:2 bruck:1 recursive_halving:1"}
CANDIDATES_all_to_all=${CANDIDATES_all_to_all:-"direct:1 direct:2 pairwise:1 pairwise:2 bruck:1"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

bytes() { # 4K -> 4096
  local s=$1
  case $s in
  *K) echo $((${s%K} * 1024)) ;;
  *M) echo $((${s%M} * 1048576)) ;;
  *) echo "$s" ;;
  esac
}
iterations() { # fewer iterations for large sizes: "ITERS WARMUP"
  local b
  b=$(bytes "$1")
  if [ "$b" -le 262144 ]; then echo "50 10"
  elif [ "$b" -le 4194304 ]; then echo "20 5"
  else echo "5 2"; fi
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# run_collc OUT WHAT LIMIT N ARGS...: N processes of collc-run ARGS under
# mpirun (rendezvous at 127.0.0.1), output in OUT, at most LIMIT seconds;
# exits the script naming WHAT if it fails. A port found free can be taken
# before rank 0 binds it: then the run fails saying so, and is tried again
# on another port (3 tries).
run_collc() {
  local out=$1 what=$2 limit=$3 n=$4 try port
  shift 4
  for try in 1 2 3; do
    port=$(free_port)
    if timeout "$limit" "${mpirun[@]}" -np "$n" -x MASTER_ADDR=127.0.0.1 \
        -x MASTER_PORT="$port" "$run" "$@" >"$out" 2>&1; then
      return 0
    fi
    if [ "$try" -lt 3 ] && grep -q "Address already in use" "$out"; then
      continue
    fi
    echo "run.sh: collc-run failed for $what:" >&2
    cat "$out" >&2
    exit 1
  done
}
best() { # the larger of two busbw figures
  awk -v a="$1" -v b="$2" 'BEGIN { print (b + 0 > a + 0) ? b : a }'
}
row() { # the data row of a collc-run / collc-bench-mpi table: busbw
  awk '!/^#/ && NF >= 8 { print $7 }' "$1" | tail -1
}

min_size=${SIZES%% *}
max_size=${SIZES##* }
tuningFile() { echo "$work/tuning-buffers-$1.json"; } # per kind of buffers
if [ "$TUNE" = 1 ]; then
  echo "# tuning stage: $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
  for kind in "${kinds[@]}"; do
  for n in $PROCS; do
    topo=$root/test/runtime/Inputs/topologies/1x$n.json
    for c in $COLLECTIVES; do
      list=CANDIDATES_$c
      plans=()
      for cand in ${!list}; do
        a=${cand%:*}
        k=${cand#*:}
        plan=$work/tune-$c-$n-$a-$k.plan.json
        if "$collc" --collective "$c" --bytes "$max_size" --topo "$topo" \
            --algo "$c=$a" --chunks "$k" --emit=plan -o "$plan" \
            >/dev/null 2>"$work/collc-err.txt"; then
          plans+=("$plan")
        else
          echo "# tuning: $c on $n: candidate $a x$k left out: $(grep -m1 error "$work/collc-err.txt")"
        fi
      done
      run_collc "$work/tune.txt" "--tuning of $c, $n processes" 1800 "$n" \
        "${plans[@]}" --transport shm --buffers "$kind" --tuning "$(tuningFile "$kind")" \
        --tuning-rounds "$TUNE_ROUNDS" --bytes "$min_size:$max_size" \
        --iters 5 --warmup 1
      echo "# tuning: $c on $n processes, --buffers $kind: ${#plans[@]} candidates measured ($(date -u +%H:%MZ))"
    done
  done
  done
fi

echo "# collc-run (shm) vs Open MPI ($(mpirun --version | head -1)), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p'); processes > cores are oversubscribed"
if [ "$TUNE" = 1 ]; then
  echo "# collc's choice: by measurement, collc --tuning with the tuning stage's file for the kind of buffers (docs/tuning.md)"
else
  echo "# collc's choice: by simulation on the 1xN topology (TUNE=0)"
fi
echo "# best of $REPEAT runs per tool and size; collc-run with --buffers ${BUFFERS// /, then }; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $PROCS; do
  topo=$root/test/runtime/Inputs/topologies/1x$n.json
  for c in $COLLECTIVES; do
    echo
    echo "### $c, $n processes"
    echo
    header="| size |"
    rule="|---:|"
    for kind in "${kinds[@]}"; do
      header+=" $kind: collc algorithm | $kind: collc busbw (GB/s) |"
      rule+="---|---:|"
    done
    header+=" MPI busbw (GB/s) |"
    rule+="---:|"
    for kind in "${kinds[@]}"; do
      header+=" $kind / MPI |"
      rule+="---:|"
    done
    echo "$header"
    echo "$rule"
    for s in $SIZES; do
      read -r iters warmup < <(iterations "$s")
      declare -A cb=() chosen=()
      for kind in "${kinds[@]}"; do
        select_options=()
        [ "$TUNE" = 1 ] && select_options=(--tuning "$(tuningFile "$kind")")
        "$collc" --collective "$c" --bytes "$s" --topo "$topo" --emit=plan \
          "${select_options[@]}" -o "$work/$c-$n-$s-$kind.plan.json" >/dev/null
      done
      mb=0
      for ((rep = 0; rep < REPEAT; rep++)); do
        for kind in "${kinds[@]}"; do
          run_collc "$work/collc.txt" "$c, $n processes, $s" 600 "$n" \
            "$work/$c-$n-$s-$kind.plan.json" --transport shm --buffers "$kind" \
            --iters "$iters" --warmup "$warmup"
          cb[$kind]=$(best "${cb[$kind]:-0}" "$(row "$work/collc.txt")")
          chosen[$kind]="$(sed -n 's/.*algorithm \([^,]*\),.*/\1/p' "$work/collc.txt" | head -1) (k=$(sed -n 's/.*chunks per part \([0-9]*\).*/\1/p' "$work/collc.txt" | head -1))"
        done
        timeout 600 "${mpirun[@]}" -np "$n" "$mpi" --collective "$c" \
          --bytes "$s" --iters "$iters" --warmup "$warmup" >"$work/mpi.txt" 2>&1 || {
          echo "run.sh: collc-bench-mpi failed for $c, $n processes, $s:" >&2
          cat "$work/mpi.txt" >&2
          exit 1
        }
        mb=$(best "$mb" "$(row "$work/mpi.txt")")
      done
      line="| $s |"
      for kind in "${kinds[@]}"; do
        line+=" ${chosen[$kind]} | ${cb[$kind]} |"
      done
      line+=" $mb |"
      for kind in "${kinds[@]}"; do
        line+=" $(awk -v a="${cb[$kind]}" -v b="$mb" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }') |"
      done
      echo "$line"
    done
  done
done | tee "$work/tables.md"
echo
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
# The target (issue 5): collc's busbw at least Open MPI's from 1 MiB up.
python3 - "$work/tables.md" "${kinds[@]}" <<'EOF'
import re, sys
kinds = sys.argv[2:]
met = {k: 0 for k in kinds}
misses = {k: [] for k in kinds}
total = 0
table = None
for line in open(sys.argv[1]):
    m = re.match(r"### (\S+), (\d+) processes", line)
    if m:
        table = f"{m.group(1)} {m.group(2)}"
        continue
    m = re.match(r"\| (\d+)([KM]) \|" + r" [^|]+ \| ([\d.]+) \|" * len(kinds) + r" ([\d.]+) \|", line)
    if not m or not table:
        continue
    size = int(m.group(1)) * (1024 if m.group(2) == "K" else 1048576)
    if size < 1048576:
        continue
    total += 1
    mpi = float(m.group(3 + len(kinds)))
    for i, k in enumerate(kinds):
        collc = float(m.group(3 + i))
        if mpi > 0 and collc >= mpi:
            met[k] += 1
        else:
            ratio = collc / mpi if mpi > 0 else 0
            misses[k].append(f"{table}p {m.group(1)}{m.group(2)} ({ratio:.2f}x)")
for k in kinds:
    print(f"# target, collc (--buffers {k}) >= Open MPI from 1 MiB up: met at {met[k]} of {total} points")
    if misses[k]:
        print(f"# missed (--buffers {k}): " + ", ".join(misses[k]))
EOF
if [ "$TUNE" = 1 ]; then
  for kind in "${kinds[@]}"; do
  cp "$(tuningFile "$kind")" "$build/tuning-buffers-$kind.json"
  echo "# the tuning file collc chose from for --buffers $kind is kept as $build/tuning-buffers-$kind.json; per entry its 3 fastest:"
  python3 - "$(tuningFile "$kind")" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1]))["entries"]:
    c = e["candidates"]
    print(f"#   {e['collective']} {e['ranks']}p {e['bytes_per_rank']}: "
          + ", ".join(f"{x['algorithm']} k={x['chunks_per_part']} {x['seconds'] * 1e6:.0f} us" for x in c[:3]))
EOF
  done
fi

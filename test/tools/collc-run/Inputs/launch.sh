#!/bin/bash
# launch.sh [--kill RANK SECONDS] [--hosts H] N COMMAND ARGS...
#
# Runs COMMAND as the N ranks of one world of plain background processes,
# with the COLLC_* variables collrt's bootstrap reads (COLLC_RANK,
# COLLC_WORLD_SIZE, COLLC_LOCAL_RANK, COLLC_MASTER_ADDR=127.0.0.1 and a free
# COLLC_MASTER_PORT). Rank 0's stdout goes to stdout; every rank's stderr to
# stderr, each line prefixed "[rank R] ". With --kill, rank RANK is killed
# (SIGKILL) SECONDS after the world is up (rank 0 printed its header). Prints "exit codes: C0 C1 ..." (137 for a killed
# rank) and exits 1 when any rank exited non-zero, else 0. With --hosts H
# the ranks act as if on H hosts (COLLC_HOST_NAME host-0 ... host-H-1, in
# blocks of ceil(N/H) ranks, COLLC_LOCAL_RANK counting within each).
set -u
kill_rank=-1
kill_after=0
hosts=0
if [ "$1" = "--kill" ]; then
  kill_rank=$2
  kill_after=$3
  shift 3
fi
if [ "$1" = "--hosts" ]; then
  hosts=$2
  shift 2
fi
n=$1
shift
per_host=$n
[ "$hosts" -gt 0 ] && per_host=$(((n + hosts - 1) / hosts))
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
pids=()
for ((r = 0; r < n; r++)); do
  if [ "$hosts" -gt 0 ]; then
    export COLLC_HOST_NAME=host-$((r / per_host))
  fi
  COLLC_RANK=$r COLLC_WORLD_SIZE=$n COLLC_LOCAL_RANK=$((r % per_host)) \
    COLLC_MASTER_ADDR=127.0.0.1 COLLC_MASTER_PORT=$port \
    "$@" >"$dir/out.$r" 2>"$dir/err.$r" &
  pids+=($!)
done
if [ "$kill_rank" -ge 0 ]; then
  # Once the world is up (rank 0 prints its header after the rendezvous),
  # SECONDS more.
  for ((i = 0; i < 600; i++)); do
    [ -s "$dir/out.0" ] && break
    sleep 0.1
  done
  sleep "$kill_after"
  kill -KILL "${pids[$kill_rank]}" 2>/dev/null
fi
codes=()
status=0
for ((r = 0; r < n; r++)); do
  { wait "${pids[$r]}"; } 2>/dev/null # no "Killed" notice
  code=$?
  codes+=($code)
  [ "$code" -ne 0 ] && status=1
done
cat "$dir/out.0"
for ((r = 0; r < n; r++)); do
  sed "s/^/[rank $r] /" "$dir/err.$r" >&2
done
echo "exit codes: ${codes[*]}"
rm -rf "$dir"
exit $status

#!/usr/bin/env python3
"""bench/synthesis: synthesized schedules against the library's best.

For every topology, collective and size: collc's report row with
--synthesize=on (its choice, with synthesized schedules among the
candidates) and with --synthesize=off (the library alone), the efficiency
(bound / time) of each, and the compile time. Prints Markdown.

usage: tables.py --collc COLLC [--topologies a,b] [--sizes 256MiB,1GiB]
"""
import argparse
import os
import re
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
parser = argparse.ArgumentParser()
parser.add_argument("--collc", required=True)
parser.add_argument("--topologies", default=",".join([
    "torus4x4", "dgx1-v100", "mi300x", "dgx-h100", "dgx-a100-2",
    "pcie-2numa", "dgx8x8",
    os.path.join(root, "test/Synthesis/Inputs/ring4.json"),
    os.path.join(root, "test/Synthesis/Inputs/torus2x4.json"),
    os.path.join(root, "test/Synthesis/Inputs/hgx4x3-2nic.json"),
    os.path.join(root, "test/Synthesis/Inputs/pcie2x8-one-nic.json"),
    os.path.join(root, "test/Synthesis/Inputs/asymmetric-mesh6.json"),
    os.path.join(root, "test/Synthesis/Inputs/dgx16-fat-tree-2to1.json")]))
parser.add_argument("--collectives", default="broadcast,reduce,all_gather,"
                    "reduce_scatter,all_reduce,all_to_all,scatter,gather")
parser.add_argument("--sizes", default="256MiB,1GiB")
args = parser.parse_args()

row = re.compile(r"^\s+1\s+\S+\s+(\S+)\s+(\d+)\s+([\d.]+ \S+)\s+(\S+)\s+(\d+)"
                 r"\s+([\d.]+)\s+\S+\s+\S+\s+([\d.]+)\S*\s+(\d+)%")


UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def fitted(size, multiple):
    """`size` (e.g. 256MiB) rounded down to a multiple of `multiple` bytes."""
    m = re.match(r"^(\d+)(KiB|MiB|GiB)$", size)
    total = int(m.group(1)) * UNITS[m.group(2)]
    return "%dB" % (total // multiple * multiple)


def report(topology, collective, size, synthesize):
    cmd = [args.collc, "--collective", collective, "--bytes", size, "--topo",
           topology, "--synthesize=" + synthesize]
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    # reduce_scatter's, all_to_all's and scatter's parts must be whole
    # elements: the size rounded down to the multiple collc names.
    m = re.search(r"is not a multiple of (\d+) B", p.stderr)
    if p.returncode != 0 and m:
        cmd[4] = fitted(size, int(m.group(1)))
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    seconds = time.time() - start
    if p.returncode != 0:
        sys.exit("tables.py: %s failed:\n%s" % (" ".join(cmd), p.stderr))
    for line in p.stdout.splitlines():
        m = row.match(line)
        if m:
            return {"algorithm": m.group(4), "us": float(m.group(6)),
                    "bound": float(m.group(7)), "eff": int(m.group(8)),
                    "seconds": seconds}
    sys.exit("tables.py: no report row in the output of %s" % " ".join(cmd))


print("## Synthesized schedules against the library (simulated, default model)\n")
print("| topology | collective | size | collc's choice | time (us) | eff | "
      "library's best | time (us) | eff | tight bound | speedup | compile s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for topology in args.topologies.split(","):
    name = os.path.splitext(os.path.basename(topology))[0]
    for collective in args.collectives.split(","):
        for size in args.sizes.split(","):
            on = report(topology, collective, size, "on")
            off = report(topology, collective, size, "off")
            # Both against the same bound: the report's with synthesis on
            # (the tighter of the cuts and synthesis's optimum over the
            # runtime's routes; the library alone knows only the cuts).
            bound = max(on["bound"], off["bound"])
            print("| %s | %s | %s | %s | %.1f | %d%% | %s | %.1f | %d%% | "
                  "%s | %.2fx | %.1f |" % (
                      name, collective, size, on["algorithm"], on["us"],
                      round(100 * bound / on["us"]), off["algorithm"],
                      off["us"], round(100 * bound / off["us"]),
                      "routes" if on["bound"] > off["bound"] * 1.0001
                      else "cuts",
                      off["us"] / on["us"], on["seconds"]))
            sys.stdout.flush()
print("\neff = bound / time, both columns against the same bound: the "
      "report's with synthesis on, the larger of the cut bound and, where "
      "synthesis proved one, its optimum over the runtime's routes (tight "
      "bound: which; docs/bounds.md); speedup = the "
      "library's best time / collc's; compile s = wall time of the whole "
      "collc run with synthesis. reduce_scatter's, all_to_all's and "
      "scatter's sizes are "
      "rounded down to a multiple of the group's parts where they are not "
      "one.")

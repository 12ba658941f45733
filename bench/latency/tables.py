#!/usr/bin/env python3
"""bench/latency: small and mid-size messages against the latency bound.

Issue 21's point 3: 8 B to 256 KiB within 2x of the bound (efficiency >=
50%) on direct-connect machines as on switches. For every topology,
collective and size: collc's choice (default model, synthesis on), its
predicted time, the report's bound (the larger of the latency and the
bandwidth bound, docs/bounds.md) and the efficiency. Sizes that a
collective's parts cannot split into whole f32 elements are rounded down
to the nearest multiple collc names. Prints Markdown.

usage: tables.py --collc COLLC [--topologies a,b] [--sizes 8B,1KiB]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
inputs = os.path.join(root, "test/Synthesis/Inputs")
parser = argparse.ArgumentParser()
parser.add_argument("--collc", required=True)
parser.add_argument("--topologies", default=",".join(
    ["torus4x4", "dgx1-v100", "mi300x", "dgx-h100", "pcie-2numa"] +
    [os.path.join(inputs, t + ".json")
     for t in ("ring4", "torus2x4", "asymmetric-mesh6")]))
parser.add_argument("--collectives", default="broadcast,reduce,all_gather,"
                    "reduce_scatter,all_reduce,all_to_all")
parser.add_argument("--sizes", default="8B,1KiB,16KiB,64KiB,256KiB")
args = parser.parse_args()

SCALE = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20}


def as_bytes(size):
    m = re.match(r"^(\d+)(B|KiB|MiB)$", size)
    if not m:
        sys.exit("tables.py: size %r is not N B, KiB or MiB" % size)
    return int(m.group(1)) * SCALE[m.group(2)]


def choice(topology, collective, size):
    """collc's report entry, with the size it ran at."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        nbytes = as_bytes(size)
        for _ in range(2):
            cmd = [args.collc, "--collective", collective, "--bytes",
                   "%dB" % nbytes, "--topo", topology, "--report-json", out]
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
            m = re.search(r"is not a multiple of (\d+) B", p.stderr)
            if p.returncode == 0 or not m:
                break
            multiple = int(m.group(1))
            nbytes = max(multiple, nbytes // multiple * multiple)
        if p.returncode != 0:
            sys.exit("tables.py: %s failed:\n%s" % (" ".join(cmd), p.stderr))
        with open(out) as f:
            entry = json.load(f)["collectives"][0]
        entry["ran_bytes"] = nbytes
        return entry


def shown(nbytes):
    for unit in ("MiB", "KiB"):
        if nbytes >= SCALE[unit] and nbytes % SCALE[unit] == 0:
            return "%d %s" % (nbytes // SCALE[unit], unit)
    return "%d B" % nbytes


print("## collc's choice against the bound, 8 B to 256 KiB "
      "(simulated, default model)\n")
print("| topology | collective | size | collc's choice | time (us) | "
      "bound (us) | eff | within 2x |")
print("|---|---|---|---|---|---|---|---|")
within = total = 0
misses = []
for topology in args.topologies.split(","):
    name = os.path.splitext(os.path.basename(topology))[0]
    for collective in args.collectives.split(","):
        for size in args.sizes.split(","):
            e = choice(topology, collective, size)
            ok = e["efficiency"] >= 0.5
            within += ok
            total += 1
            if not ok:
                misses.append(size)
            print("| %s | %s | %s | %s | %.1f | %.1f | %d%% | %s |" % (
                name, collective, shown(e["ran_bytes"]), e["algorithm"],
                e["predicted_us"], e["bound_us"], 100 * e["efficiency"],
                "yes" if ok else "no"))
print("\n%d of %d within 2x of the bound." % (within, total))
print("Below 50%% by size (as asked, before rounding): %s." % ", ".join(
    "%s %d" % (s, misses.count(s)) for s in args.sizes.split(",")))

#!/usr/bin/env python3
"""Synthesis on random connected meshes of 2 to 32 GPUs (a fuzz test).

For each seed: a random spanning tree plus random extra links, random lane
counts, one node with no host (GPUs joined only by the mesh, so relays are
the only way between non-neighbours). collc must synthesize each of the
COLLECTIVES (default broadcast,reduce), verify them, choose them with
--synthesize=only and compute every element right on the CPU executor.
all_gather, reduce_scatter and all_reduce need a channel per root, so they
are tried on meshes of at most 31 GPUs; all_to_all, scatter and gather (a
channel per pair) on at most 16. Prints one line per case and a summary;
exit 1 on the first failure, with collc's output.

usage: random_meshes.py COLLC OUTDIR [CASES [COLLECTIVES]]
"""
import json
import os
import random
import subprocess
import sys

collc, outdir = sys.argv[1], sys.argv[2]
cases = int(sys.argv[3]) if len(sys.argv) > 3 else 12
collectives = (sys.argv[4] if len(sys.argv) > 4 else "broadcast,reduce").split(",")
tried = 0
os.makedirs(outdir, exist_ok=True)
failures = 0
for seed in range(cases):
    rng = random.Random(seed)
    n = rng.choice([2, 3, 5, 8, 12, 16, 24, 32]) if seed else 2
    links = {}
    order = list(range(n))
    rng.shuffle(order)
    for i in range(1, n):  # a random spanning tree
        a, b = order[i], order[rng.randrange(i)]
        links[(min(a, b), max(a, b))] = rng.randint(1, 4)
    for _ in range(rng.randint(0, 2 * n)):  # extra links
        a, b = rng.sample(range(n), 2) if n > 1 else (0, 0)
        if a != b:
            links[(min(a, b), max(a, b))] = rng.randint(1, 4)
    topology = {
        "format_version": 1,
        "name": "random-mesh-%d" % seed,
        "description": "random connected mesh, seed %d" % seed,
        "link_types": {"link": {"bandwidth_GBps": 25, "latency_us": 0.5}},
        "gpu_models": {"g": {"memory_GiB": 16, "memory_bandwidth_GBps": 1000,
                             "peak_TFLOPS": {"f32": 10}}},
        "node_templates": {"t": {
            "numa_nodes": 1,
            "gpus": {"count": n, "model": "g", "numa": 0},
            "fabric": {"type": "mesh", "link_type": "link",
                       "links": [[a, b, l] for (a, b), l in sorted(links.items())]}}},
        "nodes": {"count": 1, "template": "t"},
        "network": {"type": "none"},
    }
    path = os.path.join(outdir, "mesh-%d.json" % seed)
    with open(path, "w") as f:
        json.dump(topology, f)
    for collective in collectives:
        if collective not in ("broadcast", "reduce") and n > 31:
            continue
        if collective in ("all_to_all", "scatter", "gather") and n > 16:
            continue
        # reduce_scatter's, all_to_all's and scatter's inputs are n equal
        # parts of whole elements.
        size = ("%dB" % (n * 16384)
                if collective in ("reduce_scatter", "all_to_all", "scatter")
                else "64KiB")
        cmd = [collc, "--collective", collective, "--bytes", size,
               "--topo", path, "--synthesize=only", "--run"]
        tried += 1
        p = subprocess.run(cmd, capture_output=True, text=True)
        out = p.stdout + p.stderr
        ok = (p.returncode == 0 and "(synthesized_" in out
              and " 0 of " in out and "elements wrong" in out)
        print("seed %d: %d GPUs, %d links, %s: %s" %
              (seed, n, len(links), collective, "ok" if ok else "FAILED"))
        if not ok:
            print(" ".join(cmd))
            print(out)
            failures += 1
            sys.exit(1)
print("random meshes: %d cases, %d failed" % (tried, failures))

"""Compares two collc sweep JSONs (--report-json of --bytes MIN:MAX) that
must agree in everything but how many candidates selection simulated: the
same sizes, choices, chunk counts, predicted times, runner-ups, bounds and
baselines. Each report's `choice` text (which counts the simulated and the
ruled-out candidates) is left out of the comparison and its ruled-out count
summed instead.

    compare_pruning.py PRUNED.json UNPRUNED.json [MORE.json ...]

Prints one line per size of the first ("SIZE B: ALGORITHM xCHUNKS, same"),
then the candidates ruled out in each file; exits 1 at the first
difference, naming it.

    compare_pruning.py --collc COLLC --dir DIR --bytes RANGE --topos T,...
                       --collectives C,... [COLLC OPTION ...]

runs, for every topology and collective, `COLLC --collective C --bytes
RANGE --topo T` with one selection thread, with --select-prune=false, and
with 4 threads (and the options given), and compares the three as above:
one line per pair ("T C: N sizes same, ruled out P 0 Q")."""
import os
import subprocess
import json
import re
import sys


def strip(sweep):
    ruled_out = 0
    for size in sweep["sizes"]:
        for c in size["report"]["collectives"]:
            m = re.search(r"(\d+) more ruled out", c.get("choice", ""))
            ruled_out += int(m.group(1)) if m else 0
            c.pop("choice", None)
    return ruled_out


def diff(a, b, path):
    if type(a) is not type(b):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a.keys())} vs {sorted(b.keys())}"
        for k in a:
            d = diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def compare(names):
    sweeps = [json.load(open(n)) for n in names]
    counts = [strip(s) for s in sweeps]
    for name, sweep in zip(names[1:], sweeps[1:]):
        d = diff(sweeps[0], sweep, "sweep")
        if d:
            print(f"DIFFERENT: {names[0]} and {name} differ at {d}")
            sys.exit(1)
    return sweeps[0], counts


def matrix(args):
    opts = {}
    rest = []
    while args:
        a = args.pop(0)
        if a in ("--collc", "--dir", "--bytes", "--topos", "--collectives"):
            opts[a] = args.pop(0)
        else:
            rest.append(a)
    runs = [["--select-threads", "1"],
            ["--select-threads", "1", "--select-prune=false"],
            ["--select-threads", "4"]]
    for topo in opts["--topos"].split(","):
        for coll in opts["--collectives"].split(","):
            names = []
            for i, extra in enumerate(runs):
                name = os.path.join(opts["--dir"], f"{topo}.{coll}.{i}.json")
                subprocess.run([opts["--collc"], "--collective", coll,
                                "--bytes", opts["--bytes"], "--topo", topo,
                                "--report-json", name, "-o", os.devnull]
                               + rest + extra, check=True)
                names.append(name)
            sweep, counts = compare(names)
            print(f"{topo} {coll}: {len(sweep['sizes'])} sizes same, "
                  f"ruled out " + " ".join(str(c) for c in counts))


def main():
    if sys.argv[1:2] == ["--collc"]:
        matrix(sys.argv[1:])
        return
    sweep, counts = compare(sys.argv[1:])
    for size in sweep["sizes"]:
        print(f"{size['bytes_per_rank']} B: {size['algorithm']} "
              f"x{size['chunks']}, same")
    print("ruled out: " + " ".join(str(c) for c in counts))


main()

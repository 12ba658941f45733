#!/usr/bin/env python3
"""Every built-in algorithm's generated kernel, run on the host emulation.

For each test topology (test/runtime/Inputs/topologies: 1x2, 1x3, 1x4, 1x8
for every algorithm that needs no nodes, 2x2 and 2x4 for the hierarchical
ones), programs of one op per collective kind are compiled in rounds: round
j lowers each collective with its j-th applicable algorithm of the library
(`collc --algo all_reduce=A,all_gather=B,...`), element types and reductions
rotating over the op, the round and the topology so that every type and
reduction runs, roots alternating n - 1 and 0, chunks alternating 1 and 2.
Each round gives a plan (`--emit=plan`) and its kernels (`--emit=cuda
--kernel-prefix`); the kernels of all rounds of a topology are compiled as
one C++ translation unit into a shared library (the host emulation of
collrt/device/Channel.h), and collc-codegen-check runs every collective of
every plan with its kernel and checks every element against the
collective's definition. Two hand-written schedules of the lit tests run
too: an explicit one (1x2) and one whose loop tests before it steps (1x3).

Prints the checker's PASS/FAIL lines and a summary; exits 1 on any failure,
on a compile error (warnings are errors in generated code), or when an
algorithm of the library ran on no topology.
"""
import argparse
import os
import re
import subprocess
import sys
import time

TOPOLOGIES = [("1x2", 2, None), ("1x3", 3, None), ("1x4", 4, None),
              ("1x8", 8, None), ("2x2", 4, 2), ("2x4", 8, 4)]
TYPES = ["f32", "bf16", "f16", "f8E4M3FN", "f8E5M2", "i32", "i64", "f64",
         "i8"]
OPS = ["sum", "avg", "prod", "min", "max"]
REDUCING = {"all_reduce", "reduce_scatter", "reduce"}
# Hand-written schedules of test/Lowering/SchedToCUDA/Inputs, per topology:
# (name, file, collective, algorithm, chunks).
EXTRAS = {
    "1x2": [("explicit", "test/Lowering/SchedToCUDA/Inputs/explicit_all_to_all.mlir",
             "all_to_all", "two_rank_pairwise", 2)],
    "1x3": [("guarded", "test/Lowering/SchedToCUDA/Inputs/guarded_all_gather.mlir",
             "all_gather", "guarded", 2)],
}
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
               "all_to_all_v", "broadcast", "reduce", "scatter", "gather",
               "send_recv"]


def library(algorithms_dir):
    """{collective: [(algorithm, needs nodes)]} from the library's files."""
    found = {}
    for name in sorted(os.listdir(algorithms_dir)):
        if not name.endswith(".mlir"):
            continue
        text = open(os.path.join(algorithms_dir, name)).read()
        for m in re.finditer(
                r'sched\.schedule @\w+ collective = (\w+)\s+algorithm = "(\w+)"'
                r'(\s+attributes \{[^}]*\})?', text):
            nodes = bool(m.group(3)) and '"nodes"' in m.group(3)
            found.setdefault(m.group(1), []).append((m.group(2), nodes))
    return found


def reduction(dtype, turn):
    """The turn-th reduction the dialect allows on dtype (no avg on
    integers, no prod on 8-bit floats)."""
    while True:
        op = OPS[turn % len(OPS)]
        turn += 1
        if not ((op == "avg" and dtype.startswith("i")) or
                (op == "prod" and dtype.startswith("f8"))):
            return op


def program(ops, n, gpus_per_node):
    """A coll program with one op per (collective, dtype, op, root, variant)
    of `ops`, each on its own argument."""
    if gpus_per_node is None:
        mesh = 'coll.mesh @world shape = [%d] names = ["gpu"]' % n
    else:
        mesh = ('coll.mesh @world shape = [%d, %d] names = ["node", "gpu"]' %
                (n // gpus_per_node, gpus_per_node))
    args, results, body, values = [], [], [], []
    e = 24 * n
    for i, (collective, dtype, op, root, variant) in enumerate(ops):
        t = lambda k: "tensor<%dx%s>" % (k, dtype)
        x, y = "%%x%d" % i, "%%y%d" % i
        if collective == "all_to_all_v":
            base = [(3 * j + 1) % 5 for j in range(n)]
            counts = [[base[(r + s) % n] for r in range(n)] for s in range(n)]
            matrix = "[" + ", ".join("[" + ", ".join(str(c) for c in row) +
                                     "]" for row in counts) + "]"
            tin = "tensor<%dx3x%s>" % (sum(base), dtype)
            tout = "tensor<?x3x%s>" % dtype
            args.append("%s: %s" % (x, tin))
            body.append("%s = coll.all_to_all_v %s on @world split_axis = 0\n"
                        "      send_counts = dense<%s> : tensor<%dx%dxi64>\n"
                        "      : %s -> %s" % (y, x, matrix, n, n, tin, tout))
            results.append(tout)
            values.append(y)
            continue
        if collective == "send_recv":
            if variant % 2 == 0:  # a ring shift: every rank sends
                to = "affine_map<(r)[n] -> ((r + 1) mod n)>"
                frm = "affine_map<(r)[n] -> ((r + n - 1) mod n)>"
            else:  # a pipeline: the last rank sends nothing
                to = "array<i64: %s>" % ", ".join(
                    str(r + 1) if r + 1 < n else "-1" for r in range(n))
                frm = "array<i64: %s>" % ", ".join(
                    str(r - 1) for r in range(n))
            args.append("%s: %s" % (x, t(e)))
            body.append("coll.send %s on @world to %s tag = %d : %s" %
                        (x, to, i, t(e)))
            body.append("%s = coll.recv on @world from %s tag = %d : %s" %
                        (y, frm, i, t(e)))
            results.append(t(e))
            values.append(y)
            continue
        shapes = {
            "all_reduce": (e, e, "coll.all_reduce %s on @world reduce = %s" %
                           (x, op)),
            "all_gather": (e, e * n, "coll.all_gather %s on @world "
                           "gather_axis = 0" % x),
            "reduce_scatter": (e, e // n, "coll.reduce_scatter %s on @world "
                               "scatter_axis = 0 reduce = %s" % (x, op)),
            "all_to_all": (e, e, "coll.all_to_all %s on @world split_axis = 0 "
                           "concat_axis = 0" % x),
            "broadcast": (e, e, "coll.broadcast %s on @world root = %d" %
                          (x, root)),
            "reduce": (e, e, "coll.reduce %s on @world root = %d reduce = %s" %
                       (x, root, op)),
            "scatter": (e, e // n, "coll.scatter %s on @world root = %d "
                        "scatter_axis = 0" % (x, root)),
            "gather": (e, e * n, "coll.gather %s on @world root = %d "
                       "gather_axis = 0" % (x, root)),
        }
        ein, eout, text = shapes[collective]
        args.append("%s: %s" % (x, t(ein)))
        body.append("%s = %s : %s -> %s" % (y, text, t(ein), t(eout)))
        results.append(t(eout))
        values.append(y)
    return (mesh + "\nfunc.func @f(" + ", ".join(args) + ") -> (" +
            ", ".join(results) + ") {\n" +
            "".join("  %s\n" % line for line in body) +
            "  return " + ", ".join(values) + " : " + ", ".join(results) +
            "\n}\n")


def run(command, timeout):
    try:
        p = subprocess.run(command, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        return 124, out + "\n(killed after %d s)" % timeout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collc", required=True)
    ap.add_argument("--check", required=True, help="collc-codegen-check")
    ap.add_argument("--cxx", required=True, help="the host C++ compiler")
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--work", required=True, help="a scratch directory")
    ap.add_argument("--threads", default="1",
                    help="host threads per emulated block (collc-codegen-check "
                    "--threads); a comma-separated list runs every check "
                    "once per count, the kernels compiled once")
    ap.add_argument("--threads-topologies", default=None,
                    help="comma-separated topologies the counts of --threads "
                    "above 1 run on (default: every topology run)")
    ap.add_argument("--topologies", default=",".join(t for t, _, _ in
                                                      TOPOLOGIES),
                    help="comma-separated subset (default: all)")
    args = ap.parse_args()
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        ap.error("--threads: '%s' is not a comma-separated list of counts" %
                 args.threads)
    if not thread_counts or min(thread_counts) < 1:
        ap.error("--threads: every count must be at least 1, not '%s'" %
                 args.threads)

    root = args.source_root
    lib = library(os.path.join(root, "lowering", "CollToSched", "algorithms"))
    topo_dir = os.path.join(root, "test", "runtime", "Inputs", "topologies")
    include = os.path.join(root, "runtime", "include")
    os.makedirs(args.work, exist_ok=True)
    wanted = args.topologies.split(",")
    ran = set()
    failures = 0
    start = time.time()
    for ti, (topo, n, g) in enumerate(TOPOLOGIES):
        if topo not in wanted:
            continue
        # The algorithms of each collective that run here.
        algos = {c: [a for a, nodes in lib.get(c, []) if nodes == (g is not None)]
                 for c in COLLECTIVES}
        rounds = max(len(a) for a in algos.values())
        sources, checks = [], []
        for j in range(rounds):
            ops, choice = [], []
            for ci, c in enumerate(COLLECTIVES):
                if j >= len(algos[c]):
                    continue
                turn = ti * 7 + j * 3 + ci
                dtype = TYPES[turn % len(TYPES)]
                op = reduction(dtype, turn) if c in REDUCING else "sum"
                rootrank = n - 1 if (j + ci) % 2 == 0 else 0
                ops.append((c, dtype, op, rootrank, j))
                choice.append("%s=%s" % (c, algos[c][j]))
                ran.add((c, algos[c][j]))
            base = os.path.join(args.work, "%s-r%d" % (topo, j))
            with open(base + ".mlir", "w") as f:
                f.write(program(ops, n, g))
            prefix = "t%s_r%d" % (topo, j)
            common = [args.collc, base + ".mlir", "--topo",
                      os.path.join(topo_dir, topo + ".json"), "--algo",
                      ",".join(choice), "--chunks", str(1 + j % 2)]
            for extra in (["--emit=plan", "-o", base + ".plan.json"],
                          ["--emit=cuda", "--kernel-prefix", prefix, "-o",
                           base + ".cu"]):
                code, out = run(common + extra, 300)
                if code != 0:
                    print("FAIL %s round %d: collc %s exited %d:\n%s" %
                          (topo, j, " ".join(extra[:1]), code, out))
                    failures += 1
                    break
            else:
                sources.append(base + ".cu")
                checks.append("%s.plan.json:%s" % (base, prefix))
        # Schedules no built-in has: an explicit one (a switch on the rank)
        # and a loop that tests before it steps (Inputs of the lit tests).
        for name, algo_file, collective, algorithm, chunks in EXTRAS.get(
                topo, []):
            ops = [(collective, TYPES[(ti + len(sources)) % len(TYPES)], "sum",
                    0, 0)]
            base = os.path.join(args.work, "%s-%s" % (topo, name))
            with open(base + ".mlir", "w") as f:
                f.write(program(ops, n, g))
            prefix = "t%s_%s" % (topo, name)
            common = [args.collc, base + ".mlir", "--topo",
                      os.path.join(topo_dir, topo + ".json"), "--algo-file",
                      os.path.join(root, algo_file), "--algo",
                      "%s=%s" % (collective, algorithm), "--chunks",
                      str(chunks)]
            for extra in (["--emit=plan", "-o", base + ".plan.json"],
                          ["--emit=cuda", "--kernel-prefix", prefix, "-o",
                           base + ".cu"]):
                code, out = run(common + extra, 300)
                if code != 0:
                    print("FAIL %s %s: collc %s exited %d:\n%s" %
                          (topo, name, extra[0], code, out))
                    failures += 1
                    break
            else:
                sources.append(base + ".cu")
                checks.append("%s.plan.json:%s" % (base, prefix))
        if not sources:
            continue
        # One translation unit per topology: every round's kernels.
        unit = os.path.join(args.work, "%s-kernels.cpp" % topo)
        with open(unit, "w") as f:
            for source in sources:
                f.write('#include "%s"\n' % source)
        shared = os.path.join(args.work, "%s-kernels.so" % topo)
        code, out = run([args.cxx, "-std=c++17", "-O1", "-fPIC", "-shared",
                         "-Wall", "-Wextra", "-Werror", "-I", include,
                         "-o", shared, unit], 600)
        if code != 0:
            print("FAIL %s: compiling the generated kernels (%s) failed:\n%s" %
                  (topo, unit, out[-6000:]))
            failures += 1
            continue
        for threads in thread_counts:
            if threads > 1 and args.threads_topologies is not None and \
                    topo not in args.threads_topologies.split(","):
                continue
            if len(thread_counts) > 1:
                print("# %s, %d thread%s per block" %
                      (topo, threads, "" if threads == 1 else "s"))
            code, out = run([args.check] +
                            (["--threads", str(threads)]
                             if threads > 1 else []) + [shared] + checks, 900)
            sys.stdout.write(out)
            if code != 0:
                failures += 1
            sys.stdout.flush()
    every = {(c, a) for c in COLLECTIVES for a, _ in lib.get(c, [])}
    missing = sorted(every - ran) if wanted == [t for t, _, _ in
                                                TOPOLOGIES] else []
    for c, a in missing:
        print("FAIL %s %s: ran on no test topology" % (c, a))
        failures += 1
    print("codegen emulation: %d algorithms on %s, %s thread(s) per block, "
          "%s (%.0f s)" %
          (len(ran), ", ".join(wanted), args.threads,
           "all passed" if failures == 0 else "%d failures" % failures,
           time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

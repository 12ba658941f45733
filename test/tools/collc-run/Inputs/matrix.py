#!/usr/bin/env python3
"""The end-to-end matrix of collc-run (docs/collc-run.md, "Tests").

For one collective: every algorithm of the library that implements it, on
every test topology it applies to (1x2, 1x3, 1x4, 1x8; hierarchical ones on
2x2 and 2x4), in f32 and in other element types spread so that every type
runs for every collective, with the reductions spread the same way. Each
case is a coll program written here (roots n - 1 and 0 alternate, send/recv
as a ring shift and as a pipeline whose last rank sends nothing,
all_to_all_v with an uneven send-count matrix that has zeros, and again
with its counts given at run time: `collc-run --counts random:SEED` over
the sizes below and `--counts FILE` with that uneven matrix), compiled
with `collc --algo COLLECTIVE=ALGORITHM --emit=plan`, and run with
`collc-run --ranks N --check` over sizes whose element counts (37, 111, 333,
999) divide by no N or chunk count, with small slots so that chunks are cut
into several tiles, two timed iterations after one warm-up (each checked, so
a stale result fails).

Prints one line per case, "PASS collective algorithm topology dtype op
chunks=K", or "FAIL ..." followed by the tools' messages; the last line
counts them. Exit status 1 when any case fails or when the library holds an
algorithm the matrix does not list. With --emit-test it prints the lit test
that checks every case's PASS line instead.
"""
import argparse
import os
import re
import subprocess
import sys

TOPOLOGIES = [("1x2", 2, None), ("1x3", 3, None), ("1x4", 4, None),
              ("1x8", 8, None)]
NODE_TOPOLOGIES = [("2x2", 4, 2), ("2x4", 8, 4)]
OTHER_TYPES = ["bf16", "f16", "f8E4M3FN", "f8E5M2", "i32", "i64", "f64", "i8"]
OPS = ["avg", "prod", "min", "max", "sum"]
TYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "f8E4M3FN": 1,
              "f8E5M2": 1, "i64": 8, "i32": 4, "i8": 1}
REDUCING = {"all_reduce", "reduce_scatter", "reduce"}
ROOTED = {"broadcast", "reduce", "scatter", "gather"}
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
               "all_to_all_v", "broadcast", "reduce", "scatter", "gather",
               "send_recv"]
# Elements of a program's tensors per rank (the plan's compiled size); runs
# use --bytes instead, except all_to_all_v whose counts are compiled in.
UNIT = 24


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


def mesh(topology, n, gpus_per_node):
    if gpus_per_node is None:
        return 'coll.mesh @world shape = [%d] names = ["gpu"]' % n, ""
    return ('coll.mesh @world shape = [%d, %d] names = ["node", "gpu"]' %
            (n // gpus_per_node, gpus_per_node), "")


def uneven_counts(n):
    """all_to_all_v's N x N rows (of 3 elements): every row a rotation of
    `base` (equal input sizes, uneven parts, zeros)."""
    base = [(3 * i + 1) % 5 for i in range(n)]
    return [[base[(r + s) % n] for r in range(n)] for s in range(n)], sum(base)


def program(collective, n, gpus_per_node, dtype, op, root, runtime=False):
    """A one-collective coll program (send_recv: two pairs of ops;
    all_to_all_v with `runtime`: its counts an SSA value, known only at run
    time)."""
    m, _ = mesh(None, n, gpus_per_node)
    t = lambda k: "tensor<%dx%s>" % (k, dtype)
    e = UNIT * n  # divisible by n: the static shapes must split evenly
    body = {
        "all_reduce": (t(e), t(e),
                       "coll.all_reduce %%x on @world reduce = %s" % op),
        "all_gather": (t(e), t(e * n),
                       "coll.all_gather %x on @world gather_axis = 0"),
        "reduce_scatter": (t(e), t(e // n),
                           "coll.reduce_scatter %%x on @world scatter_axis = 0"
                           " reduce = %s" % op),
        "all_to_all": (t(e), t(e),
                       "coll.all_to_all %x on @world split_axis = 0 "
                       "concat_axis = 0"),
        "broadcast": (t(e), t(e),
                      "coll.broadcast %%x on @world root = %d" % root),
        "reduce": (t(e), t(e),
                   "coll.reduce %%x on @world root = %d reduce = %s" %
                   (root, op)),
        "scatter": (t(e), t(e // n),
                    "coll.scatter %%x on @world root = %d scatter_axis = 0" %
                    root),
        "gather": (t(e), t(e * n),
                   "coll.gather %%x on @world root = %d gather_axis = 0" %
                   root),
    }
    if collective == "all_to_all_v" and runtime:
        tin = "tensor<%dx3x%s>" % (e, dtype)
        return (m + "\nfunc.func @f(%%x: %s, %%c: tensor<%dx%dxi64>) -> "
                "tensor<?x3x%s> {\n"
                "  %%y = coll.all_to_all_v %%x on @world split_axis = 0\n"
                "      send_counts = %%c : tensor<%dx%dxi64>\n"
                "      : %s -> tensor<?x3x%s>\n"
                "  return %%y : tensor<?x3x%s>\n}\n" %
                (tin, n, n, dtype, n, n, tin, dtype, dtype))
    if collective == "all_to_all_v":
        counts, rows = uneven_counts(n)
        matrix = "[" + ", ".join(
            "[" + ", ".join(str(c) for c in row) + "]" for row in counts) + "]"
        tin = "tensor<%dx3x%s>" % (rows, dtype)
        return (m + "\nfunc.func @f(%%x: %s) -> tensor<?x3x%s> {\n"
                "  %%y = coll.all_to_all_v %%x on @world split_axis = 0\n"
                "      send_counts = dense<%s> : tensor<%dx%dxi64>\n"
                "      : %s -> tensor<?x3x%s>\n"
                "  return %%y : tensor<?x3x%s>\n}\n" %
                (tin, dtype, matrix, n, n, tin, dtype, dtype))
    if collective == "send_recv":
        shift = "affine_map<(r)[n] -> ((r + 1) mod n)>"
        back = "affine_map<(r)[n] -> ((r + n - 1) mod n)>"
        to = ", ".join(str(r + 1) if r + 1 < n else "-1" for r in range(n))
        frm = ", ".join(str(r - 1) for r in range(n))
        return (m + "\nfunc.func @f(%%x: %s, %%h: %s) -> (%s, %s) {\n"
                "  coll.send %%x on @world to %s tag = 0 : %s\n"
                "  %%y = coll.recv on @world from %s tag = 0 : %s\n"
                "  coll.send %%h on @world to array<i64: %s> tag = 1 : %s\n"
                "  %%g = coll.recv on @world from array<i64: %s> tag = 1 : %s\n"
                "  return %%y, %%g : %s, %s\n}\n" %
                (t(e), t(e), t(e), t(e), shift, t(e), back, t(e), to, t(e),
                 frm, t(e), t(e), t(e)))
    tin, tout, op_text = body[collective]
    return (m + "\nfunc.func @f(%%x: %s) -> %s {\n  %%y = %s : %s -> %s\n"
            "  return %%y : %s\n}\n" % (tin, tout, op_text, tin, tout, tout))


def cases(collective, algorithms):
    """[(algorithm, topology, n, gpus_per_node, dtype, op, chunks, root)]."""
    combos = []
    for algorithm, nodes in algorithms:
        for topo, n, g in (NODE_TOPOLOGIES if nodes else TOPOLOGIES):
            combos.append((algorithm, topo, n, g))
    result = []
    op_turn = 0
    for j, (algorithm, topo, n, g) in enumerate(combos):
        # f32 always; the other types spread so that each runs at least once
        # for this collective, and each combination gets one of them.
        types = ["f32"]
        for t, other in enumerate(OTHER_TYPES):
            if t % len(combos) == j or other == OTHER_TYPES[j % 8]:
                if other not in types:
                    types.append(other)
        for i, dtype in enumerate(types):
            op = "sum"
            if collective in REDUCING and dtype != "f32":
                # The next reduction the dialect allows on the type (avg on
                # floating-point types only, no prod on 8-bit floats).
                while True:
                    op = OPS[op_turn % len(OPS)]
                    op_turn += 1
                    if not ((op == "avg" and dtype.startswith("i")) or
                            (op == "prod" and dtype.startswith("f8"))):
                        break
            chunks = 1 if i == 0 else 2
            root = (n - 1) if (j + i) % 2 == 0 else 0
            result.append((algorithm, topo, n, g, dtype, op, chunks, root,
                           False))
            # all_to_all_v again with its counts given at run time.
            if collective == "all_to_all_v":
                result.append((algorithm, topo, n, g, dtype, op, chunks, root,
                               True))
    return result


def label(collective, case):
    algorithm, topo, n, g, dtype, op, chunks, root, runtime = case
    text = "%s %s %s %s" % (collective, algorithm, topo, dtype)
    if collective in REDUCING:
        text += " " + op
    if collective in ROOTED:
        text += " root=%d" % root
    text += " chunks=%d" % chunks
    return text + (" counts=runtime" if runtime else "")


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
    ap.add_argument("--collective", required=True, choices=COLLECTIVES)
    ap.add_argument("--algorithms", required=True,
                    help="lowering/CollToSched/algorithms")
    ap.add_argument("--topologies", required=True,
                    help="test/runtime/Inputs/topologies")
    ap.add_argument("--collc")
    ap.add_argument("--collc-run")
    ap.add_argument("--work", help="a scratch directory")
    ap.add_argument("--emit-test", action="store_true",
                    help="print the lit test of this collective")
    args = ap.parse_args()

    lib = library(args.algorithms)
    algorithms = lib.get(args.collective, [])
    if not algorithms:
        print("FAIL: the library has no algorithm for %s" % args.collective)
        return 1
    all_cases = cases(args.collective, algorithms)

    if args.emit_test:
        c = args.collective
        print("# Generated by: matrix.py --collective %s --emit-test (do not "
              "edit; regenerate)." % c)
        print("# Every algorithm of %s x test topology x element type, "
              "in-process, --check." % c)
        print("RUN: rm -rf %t && mkdir -p %t")
        print("RUN: timeout 900 %%python %%S/Inputs/matrix.py --collective %s "
              "\\\nRUN:   --algorithms %%collc_src/lowering/CollToSched/algorithms "
              "\\\nRUN:   --topologies %%collc_src/test/runtime/Inputs/topologies "
              "\\\nRUN:   --collc collc --collc-run collc-run --work %%t "
              "| FileCheck %%s" % c)
        for case in all_cases:
            print("CHECK: PASS %s" % label(c, case))
        print("CHECK: matrix %s: %d cases, 0 failed" % (c, len(all_cases)))
        return 0

    failed = 0
    for k, case in enumerate(all_cases):
        algorithm, topo, n, g, dtype, op, chunks, root, runtime = case
        name = label(args.collective, case)
        base = os.path.join(args.work, "case%d" % k)
        with open(base + ".mlir", "w") as f:
            f.write(program(args.collective, n, g, dtype, op, root, runtime))
        topo_file = os.path.join(args.topologies, topo + ".json")
        code, out = run([args.collc, base + ".mlir", "--topo", topo_file,
                         "--algo", "%s=%s" % (args.collective, algorithm),
                         "--chunks", str(chunks), "--emit=plan", "-o",
                         base + ".plan.json"], 300)
        messages = "" if code == 0 else "collc exited %d:\n%s" % (code, out)
        indices = [0, 1] if args.collective == "send_recv" else [0]
        es = TYPE_BYTES[dtype]
        sweep = ["--bytes", "%d:%d:3" % (37 * es, 999 * es)]
        variants = [sweep if args.collective != "all_to_all_v" else []]
        if runtime:
            # Random counts over the sizes (each rank's row sums to the
            # size), then the uneven matrix from a file (x 3 elements).
            counts_file = base + ".counts.json"
            with open(counts_file, "w") as f:
                f.write(repr([[3 * c for c in row]
                              for row in uneven_counts(n)[0]]))
            variants = [sweep + ["--counts", "random:%d" % (k + 1)],
                        ["--counts", counts_file]]
        for index in indices if code == 0 else []:
            for extra in variants:
                command = [args.collc_run, base + ".plan.json", "--ranks",
                           str(n), "--collective", str(index), "--check",
                           "--iters", "2", "--warmup", "1", "--slot-bytes",
                           "256", "--timeout", "60"] + extra
                c2, out2 = run(command, 300)
                if c2 != 0 or "#wrong" not in out2:
                    code = c2 or 1
                    messages += "collc-run %s exited %d:\n%s" % (
                        " ".join(command[1:]), c2, out2)
        if code == 0:
            print("PASS " + name)
        else:
            failed += 1
            print("FAIL " + name + " (" + base + ".mlir)")
            for line in messages.splitlines()[-30:]:
                print("  | " + line)
        sys.stdout.flush()
    listed = {a for a, _ in algorithms}
    print("matrix %s: %d cases, %d failed (algorithms: %s)" %
          (args.collective, len(all_cases), failed, ", ".join(sorted(listed))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

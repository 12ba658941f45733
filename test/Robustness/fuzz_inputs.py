#!/usr/bin/env python3
"""Feeds collc truncated, mutated and random programs and topologies.

Every case must end within the time limit with exit code 0 or 1; a non-zero
exit must come with a message that says "error". A signal (crash), any other
exit code, a hang, or a silent failure fails the test. Cases are generated
from a fixed seed, so a failure is reproducible: the failing input is kept in
the output directory and its command is printed.
"""
import argparse
import concurrent.futures
import os
import random
import subprocess
import sys

MLIR_TOKENS = [
    "coll.all_reduce", "coll.all_to_all_v", "coll.mesh", "@world", "axes",
    "[", "]", "(", ")", "{", "}", "<", ">", ":", ",", "=", "->", "%0", "%x",
    "tensor<8x8xf32>", "tensor<?xbf16>", "dense<1>", "-1", "0", "9999999999",
    "18446744073709551617", "\"gpu\"", "\"\"", "reduce", "sum", "avg", "root",
    "affine_map<(r)[n] -> (r floordiv 0)>", "array<i64: -5>", "f8E4M3FN",
    "\x00", "\xff", "\n", "//", "func.func", "return", "tag", "peers",
]
JSON_TOKENS = [
    "{", "}", "[", "]", ":", ",", "\"", "null", "true", "false", "0", "-1",
    "1e400", "-0", "\"gpus\"", "\"nodes\"", "\"count\"", "\"template\"",
    "\"link_types\"", "99999999999999999999", "[[[[[[[[", "\\u0000", "\xff",
    "\"bandwidth_GBps\"", "\"latency_us\"", "\"nics\"", "NaN",
]


def mutate(text, tokens, rng):
    data = list(text)
    for _ in range(rng.randint(1, 4)):
        if not data:
            data = list(rng.choice(tokens))
            continue
        kind = rng.randrange(5)
        pos = rng.randrange(len(data))
        if kind == 0:  # delete a span
            del data[pos:pos + rng.randint(1, 16)]
        elif kind == 1:  # insert a token
            data[pos:pos] = list(rng.choice(tokens))
        elif kind == 2:  # replace a character
            data[pos] = chr(rng.randrange(1, 256))
        elif kind == 3:  # duplicate a span
            span = data[pos:pos + rng.randint(1, 40)]
            data[pos:pos] = span
        else:  # change a digit run
            if data[pos].isdigit():
                data[pos] = rng.choice(["0", "9", "7" * 12, "-"])
    return "".join(data)


def make_cases(args, rng):
    """Yields (kind, name, content) for every generated case."""
    programs = []
    for name in sorted(os.listdir(args.examples)):
        if name.endswith(".mlir"):
            with open(os.path.join(args.examples, name), encoding="utf-8") as f:
                programs.append((name, f.read()))
    topologies = []
    for name in sorted(os.listdir(args.topologies)):
        if name.endswith(".json") and "schema" not in name:
            with open(os.path.join(args.topologies, name), encoding="utf-8") as f:
                topologies.append((name, f.read()))
    if not programs or not topologies:
        sys.exit("fuzz: no examples or topologies found")

    per_kind = args.cases // 6
    for i in range(per_kind):  # truncated programs
        name, text = programs[i % len(programs)]
        yield "mlir", f"trunc-{i}-{name}", text[:rng.randrange(len(text))]
    for i in range(2 * per_kind):  # mutated programs
        name, text = programs[i % len(programs)]
        yield "mlir", f"mut-{i}-{name}", mutate(text, MLIR_TOKENS, rng)
    for i in range(per_kind):  # truncated topologies
        name, text = topologies[i % len(topologies)]
        yield "json", f"trunc-{i}-{name}", text[:rng.randrange(len(text))]
    for i in range(2 * per_kind):  # mutated topologies
        name, text = topologies[i % len(topologies)]
        yield "json", f"mut-{i}-{name}", mutate(text, JSON_TOKENS, rng)
    for i in range(args.cases - 6 * per_kind):  # random bytes, both kinds
        blob = "".join(chr(rng.randrange(1, 256))
                       for _ in range(rng.randrange(200)))
        yield ("mlir" if i % 2 else "json"), f"random-{i}", blob


def run_case(args, kind, name, content):
    suffix = ".mlir" if kind == "mlir" else ".json"
    path = os.path.join(args.out, name.replace("/", "_") + suffix)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(content)
    if kind == "mlir":
        cmd = [args.collc, path, "--topo", "dgx8x8"]
    else:
        cmd = [args.collc, "--topo", path, "--dump-topology"]
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return f"HANG ({args.timeout}s): {' '.join(cmd)}"
    if proc.returncode == 0:
        os.remove(path)
        return None
    if proc.returncode != 1:
        return f"EXIT {proc.returncode}: {' '.join(cmd)}\n" + \
            proc.stderr.decode(errors="replace")[-2000:]
    if b"error" not in proc.stderr:
        return f"SILENT FAILURE (no 'error' on stderr): {' '.join(cmd)}"
    os.remove(path)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--collc", required=True)
    parser.add_argument("--examples", required=True)
    parser.add_argument("--topologies", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rng = random.Random(args.seed)
    cases = list(make_cases(args, rng))
    failures = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(lambda c: run_case(args, *c), cases):
            if result:
                failures.append(result)
    for failure in failures:
        print("FAIL", failure)
    print(f"fuzz: {len(cases)} cases, {len(failures)} failures "
          f"(seed {args.seed})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

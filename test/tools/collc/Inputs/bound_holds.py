"""Checks that no built-in schedule beats the lower bound (docs/bounds.md).

For every algorithm of the library and every topology given, sweeps sizes
with `collc --collective C --algo NAME --report-json` and fails when a
predicted time is below the bound the report shows (efficiency above 1),
for collc's algorithm and for the baselines. Algorithms that cannot run
on a topology (a hierarchical one on one node) are counted as skipped; any
other error fails. Prints one line per (algorithm, topology) and a total.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def algorithms(directory):
    found = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".mlir"):
            continue
        text = open(os.path.join(directory, name)).read()
        m = re.search(r'collective = (\w+)\s+algorithm = "(\w+)"', text)
        if m:
            found.append((m.group(1), m.group(2)))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collc", required=True)
    ap.add_argument("--algorithms", required=True)
    ap.add_argument("--topo", action="append", required=True)
    ap.add_argument("--bytes", default="8:64KiB")
    args = ap.parse_args()
    checked = skipped = failed = 0
    with tempfile.TemporaryDirectory() as work:
        report = os.path.join(work, "report.json")
        for collective, algorithm in algorithms(args.algorithms):
            if collective == "send_recv":
                # collc has no --collective send_recv (a point-to-point
                # pair is not a sweepable collective).
                print("SKIP send_recv %s: no --collective form" % algorithm)
                skipped += 1
                continue
            for topo in args.topo:
                label = "%s %s on %s" % (collective, algorithm,
                                         os.path.basename(topo))
                run = subprocess.run(
                    [args.collc, "--collective", collective, "--bytes",
                     args.bytes, "--topo", topo, "--algo", algorithm,
                     "--report-json", report],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if run.returncode != 0:
                    if "cannot run" in run.stderr:
                        skipped += 1
                        print("SKIP %s: cannot run there" % label)
                        continue
                    failed += 1
                    print("FAIL %s: collc exited %d: %s" %
                          (label, run.returncode, run.stderr.strip()[:400]))
                    continue
                sweep = json.load(open(report))
                worst = 0.0
                for size in sweep["sizes"]:
                    bound = size["bound_us"]
                    times = [(algorithm, size["predicted_us"])]
                    times += [(b["algorithm"], b["predicted_us"])
                              for b in size.get("baselines", [])
                              if not b.get("error")]
                    for name, predicted in times:
                        worst = max(worst, bound / predicted)
                        if predicted < bound * (1 - 1e-9):
                            failed += 1
                            print("FAIL %s: %s at %d bytes predicted %.4f us, "
                                  "below the bound %.4f us" %
                                  (label, name, size["bytes_per_rank"],
                                   predicted, bound))
                checked += 1
                print("PASS %s: highest efficiency %.3f" % (label, worst))
    print("bound-holds: %d checked, %d skipped, %d failed" %
          (checked, skipped, failed))
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

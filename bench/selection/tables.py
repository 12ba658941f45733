#!/usr/bin/env python3
"""The tables of issue 4, section 6 (bench/selection/README.md).

1. dgx8x8, 1 GiB per rank: all_reduce, all_gather, reduce_scatter against
   the bandwidth bound (target: efficiency >= 95%) and all_to_all (>= 90%).
2. dgx8x8, 64 ranks, 8 KiB all_reduce against the latency bound (target:
   within 2x).
3. all_reduce, 8 B .. 8 GiB: collc's choice beside the flat ring and the
   double binary tree, on dgx8x8 and every other bundled topology (collc's
   own sweep table, `collc --collective all_reduce --bytes 8:8GiB`).

Everything is simulated by collc on its model (docs/simulator.md); nothing
here runs on a GPU. Times are collc's predictions, not measurements.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TOPOLOGIES = ["dgx8x8", "dgx-h100", "dgx-a100-2", "dgx1-v100", "mi300x",
              "pcie-2numa", "torus4x4", "dgx128x8"]
# Sizes per topology for table 3: a full sweep, except at 1024 ranks, where
# selection over every candidate and chunk count takes more than 25 minutes
# for one size on a 2-core machine: there, three sizes and one chunk count
# (7 candidates a size; the baselines get the same chunk count).
SWEEP = {"dgx128x8": ["--bytes", "8KiB:8GiB:1024", "--chunks", "1"]}


def run_collc(collc, args, timeout=None):
    start = time.monotonic()
    # collc's stderr (its progress lines on long sweeps, its errors) passes
    # through.
    proc = subprocess.run([collc] + args, stdout=subprocess.PIPE, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"collc {' '.join(args)} failed ({proc.returncode})")
    return proc.stdout, time.monotonic() - start


def report_of(collc, args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "report.json")
        _, seconds = run_collc(collc, args + ["--report-json", path])
        with open(path) as f:
            return json.load(f)["collectives"][0], seconds


def table_targets(collc):
    print("### 1. dgx8x8, 1 GiB per rank: efficiency against the bandwidth bound\n")
    print("    collc --collective C --bytes 1GiB --topo dgx8x8\n")
    print("| collective | algorithm | chunks | time (us) | busbw (GB/s) | bound (us) "
          "| efficiency | target | met | runner-up | bound term | compile s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for coll, target in [("all_reduce", 0.95), ("all_gather", 0.95),
                         ("reduce_scatter", 0.95), ("all_to_all", 0.90)]:
        row, seconds = report_of(collc, ["--collective", coll, "--bytes", "1GiB",
                                         "--topo", "dgx8x8"])
        eff = row["efficiency"]
        runner = row["runner_up"]
        runner_text = (f"{runner['algorithm']} x{runner['chunks']}: "
                       f"{runner['predicted_us']:.1f} us" if runner else "-")
        print(f"| {coll} | {row['algorithm']} | {row['chunks']} | "
              f"{row['predicted_us']:.1f} | {row['busbw_GBps']:.1f} | "
              f"{row['bound_us']:.1f} | {eff * 100:.1f}% | >= {target * 100:.0f}% | "
              f"{'yes' if eff >= target else '**no**'} | {runner_text} | "
              f"{row['bound'].split(':')[0]} | {seconds:.1f} |")
    print()
    print("### 2. dgx8x8, 64 ranks, 8 KiB all_reduce: against the latency bound\n")
    print("    collc --collective all_reduce --bytes 8KiB --topo dgx8x8\n")
    row, seconds = report_of(collc, ["--collective", "all_reduce", "--bytes", "8KiB",
                                     "--topo", "dgx8x8"])
    ratio = row["predicted_us"] / row["bound_us"]
    runner = row["runner_up"]
    print("| algorithm | chunks | time (us) | latency bound (us) | time / bound "
          "| target | met | runner-up | bound |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {row['algorithm']} | {row['chunks']} | {row['predicted_us']:.1f} | "
          f"{row['bound_us']:.1f} | {ratio:.1f}x | <= 2x | "
          f"{'yes' if ratio <= 2 else '**no**'} | "
          + (f"{runner['algorithm']} x{runner['chunks']}: {runner['predicted_us']:.1f} us"
             if runner else "-")
          + f" | {row['bound']} |")
    print()


def table_baselines(collc, topologies):
    print("### 3. all_reduce, collc's choice against NCCL-style baselines\n")
    print("Flat ring = the built-in `ring` forced to one ring (1 channel); tree = "
          "the built-in `double_binary_tree`; each with the best of the chunk "
          "counts the selection tries (1, 2, 4, 8, 16, or the `--chunks` of "
          "the command), simulated on the same model. `speedup` = the "
          "faster baseline's time / collc's.\n")
    for topo in topologies:
        args = (["--collective", "all_reduce"] + SWEEP.get(topo, ["--bytes", "8:8GiB"])
                + ["--topo", topo])
        print(f"#### {topo}\n")
        print(f"    collc {' '.join(args)}\n")
        out, seconds = run_collc(collc, args)
        for line in out.splitlines():
            print("    " + line)
        print(f"\n({seconds:.1f} s wall)\n")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--collc", required=True)
    parser.add_argument("--tables", default="targets,baselines",
                        help="targets, baselines or both (default)")
    parser.add_argument("--topologies", default=",".join(TOPOLOGIES),
                        help="topologies of the baseline table")
    args = parser.parse_args()
    tables = args.tables.split(",")
    if "targets" in tables:
        table_targets(args.collc)
        sys.stdout.flush()
    if "baselines" in tables:
        table_baselines(args.collc, args.topologies.split(","))


main()

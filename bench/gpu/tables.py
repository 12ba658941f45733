#!/usr/bin/env python3
"""Formats bench/gpu/run.sh's results (OUTDIR/*.tsv) as the tables of issue
6 section 4, in Markdown, to stdout:

1. the copy, reduce and send/recv primitives of collrt::dev::Channel against
   the device's copy rate (cuMemcpyDtoDAsync), with 16, 32 and 132 CTAs:
   bytes read + written per second, % of the copy rate (target >= 85%),
   payload per CTA (target >= 28 GB/s);
2. all_reduce of 256 MiB bf16 per rank on 8 ranks: time, the schedule's
   memory traffic per second (LaunchLayout's model) against the copy rate
   (target >= 80%), and the torch baseline's time;
3. all_reduce of 8 KiB on 8 ranks, graph-launched (target < 15 us);
4. the checks: every collective and algorithm, every element compared.
"""
import csv
import os
import sys

out = sys.argv[1]


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    lines = [l for l in open(path) if l.strip() and not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def f(v, digits=1):
    try:
        return ("%." + str(digits) + "f") % float(v)
    except (TypeError, ValueError):
        return "-"


print("# bench/gpu results\n")
fake = os.path.join(out, "fake-cuda.txt")
if os.path.exists(fake):
    print("**A rehearsal on collc's fake CUDA driver** (run.sh --fake-cuda "
          "%s): no GPU. The checks ran on host threads (the hand-written "
          "kernels at a smaller size); the timing steps ran at small sizes "
          "(16 MiB "
          "primitives, all_reduce of 256 KiB in table "
          "2) and few iterations, so that the steps and these tables are "
          "rehearsed: every time and rate below is host threads', not a "
          "GPU's, and says nothing about the targets.\n" %
          open(fake).read().strip())
prims = rows("primitives.tsv")
copy_rate = None
print("## 1. Primitives against the copy rate\n")
if prims is None:
    print("(no results: the primitives step did not run or failed; see "
          "logs/)\n")
else:
    for r in prims:
        if r["name"] == "memcpy":
            copy_rate = float(r["memory_GBps"])
    print("copy rate (cuMemcpyDtoDAsync, bytes read + written): %s GB/s\n" %
          f(copy_rate))
    print("| kernel | CTAs | GB/s (read + written) | % of copy rate | "
          "payload GB/s per CTA | status |")
    print("|---|---|---|---|---|---|")
    for r in prims:
        if r["name"] == "memcpy":
            continue
        pct = (100.0 * float(r["memory_GBps"]) / copy_rate
               if copy_rate else None)
        print("| %s | %s | %s | %s | %s | %s |" %
              (r["name"], r["ctas"], f(r["memory_GBps"]), f(pct),
               f(r["payload_GBps_per_cta"]), r["status"]))
    print("\nTargets: >= 85% of the copy rate for large messages, >= 28 GB/s "
          "of payload per CTA.\n")
    # What one channel (one CTA) of collc's primitives reads and writes at
    # 16 CTAs, the slowest primitive's: the simulator's per-channel cap
    # (docs/simulator.md, channelBandwidth), for the topology's GPU model.
    per_channel = [float(r["memory_GBps"]) / int(r["ctas"]) for r in prims
                   if r["kind"] == "primitive" and r["ctas"] == "16"
                   and r["status"] == "ok"]
    if per_channel:
        print("For the simulator: one channel (CTA) of the slowest primitive "
              "reads and writes %s GB/s at 16 CTAs; model it with collc "
              "--channel-bandwidth %s, or channel_bandwidth_GBps in the "
              "topology's GPU model (docs/topology.md).\n" %
              (f(min(per_channel)), f(min(per_channel))))
    else:
        print("For the simulator: no primitive ran at 16 CTAs, so no "
              "per-channel rate.\n")

print("## 2. all_reduce, 256 MiB bf16 per rank, 8 ranks on one GPU\n")
big = rows("allreduce-256MiB.tsv")
torch_rows = rows("torch.tsv")
torch_us = None
if torch_rows:
    torch_us = float(torch_rows[0]["us"])
if big is None:
    print("(no results)\n")
else:
    print("| algorithm | blocks | threads | time ms | schedule memory GB/s "
          "| % of copy rate | vs torch | status |")
    print("|---|---|---|---|---|---|---|---|")
    for r in big:
        us = float(r["us"]) if r["us"] not in ("", "0.00") else None
        pct = (100.0 * float(r["memory_GBps"]) / copy_rate
               if copy_rate and us else None)
        vs = ("%.2fx" % (torch_us / us)) if torch_us and us else "-"
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" %
              (r["name"], r["blocks"], r.get("threads", "-"),
               f(us / 1e3 if us else None, 3),
               f(r["memory_GBps"]), f(pct), vs, r["status"]))
    if torch_rows:
        t = torch_rows[0]
        print("| torch sum + copy | - | - | %s | %s | %s | 1.00x | ok |" %
              (f(float(t["us"]) / 1e3, 3), f(t["memory_GBps"]),
               f(100.0 * float(t["memory_GBps"]) / copy_rate
                 if copy_rate else None)))
    else:
        print("\n(torch baseline: %s)" %
              (open(os.path.join(out, "torch.skipped")).read().strip()
               if os.path.exists(os.path.join(out, "torch.skipped"))
               else "no result"))
    print("\nTarget: the schedule's memory traffic per second >= 80% of the "
          "copy rate, and faster than torch (\"vs torch\" > 1).\n")

print("## 3. all_reduce, 8 KiB per rank, 8 ranks, graph-launched\n")
small = rows("allreduce-8KiB.tsv")
if small is None:
    print("(no results)\n")
else:
    print("| algorithm | blocks | protocol | us | status |")
    print("|---|---|---|---|---|")
    for r in small:
        print("| %s | %s | %s | %s | %s |" %
              (r["name"], r["blocks"], r["protocol"], f(r["us"], 2),
               r["status"]))
    print("\nTarget: under 15 us.\n")

print("## 4. Checks (every element, outputs poisoned, inputs position-"
      "dependent)\n")
checks = (rows("check.tsv") or []) + (rows("hand.tsv") or [])
if not checks:
    print("(no results)\n")
else:
    bad = [r for r in checks if r["status"] != "ok"]
    total = sum(int(r["checked"] or 0) for r in checks)
    print("%d runs, %d elements compared, %d runs not ok\n" %
          (len(checks), total, len(bad)))
    print("| kind | name | bytes/rank | blocks | protocol | checked | wrong | "
          "status |")
    print("|---|---|---|---|---|---|---|---|")
    for r in checks:
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" %
              (r["kind"], r["name"], r["bytes_per_rank"], r["blocks"],
               r["protocol"], r["checked"], r["wrong"], r["status"]))

#!/usr/bin/env python3
"""Checks a collc-sweep/1 file against the definitions of docs/report.md.

Usage: check_sweep.py SWEEP.json

Prints the sweep's shape and, per size, whether algbw = S / time, busbw =
algbw x the nccl-tests factor, efficiency = bound / time, the embedded
report says the same, the baselines' figures follow the same rules, and
collc's choice is never slower than a baseline (selection simulates a
superset of the baselines' candidates).
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
n = doc["group_size"]
c = doc["collective"]
factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "reduce": 1.0}.get(
    c, (n - 1) / n)
print(f"{doc['schema']}: {c} on {doc['topology']}, group {doc['group']} of {n}, "
      f"{doc['dtype']}, granule {doc['granule_bytes']} B, "
      f"{len(doc['sizes'])} sizes, skipped {doc['skipped_bytes']}")
print("baselines:", ", ".join(f"{b['name']}={b['algorithm']}" for b in doc["baselines"]))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-30)


ok = True
for s in doc["sizes"]:
    m = s["bytes_per_rank"]
    size = n * m if c in ("all_gather", "gather") else m
    t = s["predicted_us"] * 1e-6
    algbw = size / t / 1e9
    checks = {
        "algbw": close(s["algbw_GBps"], algbw),
        "busbw": close(s["busbw_GBps"], algbw * factor),
        "eff": close(s["efficiency"], s["bound_us"] / s["predicted_us"]),
        "granule": m % doc["granule_bytes"] == 0 and m <= s["requested_bytes"],
    }
    row = s["report"]["collectives"][0]
    checks["report"] = (row["algorithm"] == s["algorithm"]
                        and row["predicted_us"] == s["predicted_us"]
                        and row["bytes_per_rank"] == m)
    for b in s["baselines"]:
        if b["predicted_us"] is None:
            continue
        bt = b["predicted_us"] * 1e-6
        checks[b["name"]] = (close(b["busbw_GBps"], size / bt / 1e9 * factor)
                             and s["predicted_us"] <= b["predicted_us"] * (1 + 1e-12))
    bad = [k for k, v in checks.items() if not v]
    ok &= not bad
    print(f"{m} B: {s['algorithm']} x{s['chunks']}, bound {s['bound_term']}: "
          + ("consistent" if not bad else f"WRONG {bad}"))
sys.exit(0 if ok else 1)

#!/usr/bin/env python3
"""Checks a collc --report-json file and a --trace file (lit helper)."""
import json
import sys

report = json.load(open(sys.argv[1]))
print(f"report: topology {report['topology']}, {report['ranks']} ranks, "
      f"verified {report['verified']}, {len(report['collectives'])} collectives")
keys = ["op", "loc", "group_size", "bytes_per_rank", "algorithm", "chunks",
        "predicted_us", "algbw_GBps", "busbw_GBps", "bound_us", "efficiency"]
missing = [k for c in report["collectives"] for k in keys if k not in c]
top = [k for k in ["topology", "ranks", "critical_path_us", "verified"]
       if k not in report]
print("keys ok" if not missing and not top else f"missing {missing} {top}")
last = max(n["finish_us"] for f in report["functions"] for n in f["nodes"])
print("critical path equals the last finish:",
      abs(last - report["critical_path_us"]) < 1e-6)
trace = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
names = [e["args"]["name"] for e in events if e.get("name") == "process_name"]
graph = any("(graph)" in n for n in names)
ranks = any("rank" in n for n in names)
print(f"trace: {len(events)} events, processes for the graph"
      f"{' and every rank' if graph and ranks else ' ONLY'}")

#!/usr/bin/env python3
"""Checks that docs/report.md documents exactly the JSON keys collc writes.

Usage: check_report_doc.py PAGE.md REPORT.json SWEEP.json

The key tables of the page (after the lines "Top level:", "Per collective",
"Schema `collc-sweep/1`:" and "Per size") list keys as `name` in their first
column; each must equal the keys of the matching object. The keys of nested
objects (runner_up, functions, nodes, a size's baselines) must each appear
in backquotes somewhere on the page.
"""
import json
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
report = json.load(open(sys.argv[2]))
sweep = json.load(open(sys.argv[3]))
lines = page.splitlines()


def table_after(prefix):
    start = next(i for i, l in enumerate(lines) if l.startswith(prefix))
    keys, seen_table = set(), False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            seen_table = True
            first = line.split("|")[1]
            if "---" in first or first.strip() == "key":
                continue
            keys.update(re.findall(r"`([A-Za-z_]+)`", first))
        elif seen_table:
            break
    return keys


failed = False


def compare(name, documented, actual):
    global failed
    missing = sorted(set(actual) - documented)
    extra = sorted(documented - set(actual))
    ok = not missing and not extra
    failed |= not ok
    print(f"{name}: {len(actual)} keys, "
          + ("documented" if ok else f"undocumented {missing}, not written {extra}"))


compare("report", table_after("Top level:"), report)
compare("report collective", table_after("Per collective"),
        report["collectives"][0])
compare("sweep", table_after("Schema `collc-sweep/1`:"), sweep)
compare("sweep size", table_after("Per size"), sweep["sizes"][0])

quoted = set(re.findall(r"`([A-Za-z_]+)`", page))
nested = {
    "runner_up": report["collectives"][0].get("runner_up") or {},
    "function": report["functions"][0],
    "node": report["functions"][0]["nodes"][0],
    "size baseline": sweep["sizes"][0]["baselines"][0],
    "sweep baseline": sweep["baselines"][0],
}
for name, obj in nested.items():
    missing = sorted(k for k in obj if k not in quoted)
    failed |= bool(missing)
    print(f"{name}: " + ("documented" if not missing else f"undocumented {missing}"))
sys.exit(1 if failed else 0)

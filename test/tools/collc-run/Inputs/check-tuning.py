"""check-tuning.py TUNING.json SIZES COUNTS [REPORT.json SIZE]

Checks a tuning file that collc-run --tuning wrote (docs/tuning.md): its
entries measure exactly the comma-separated SIZES (bytes per rank), in
order, with the comma-separated COUNTS of candidates, in order of time,
fastest first, each with a
fingerprint of 16 hex digits and a time > 0. With REPORT.json (collc
--report-json) and SIZE: collc chose, for its one collective, the fastest
candidate of the entry measured at SIZE, and says so. Prints TUNING OK.
"""
import json
import re
import sys

tuning = json.load(open(sys.argv[1]))
sizes = [int(s) for s in sys.argv[2].split(",")]
counts = [int(c) for c in sys.argv[3].split(",")]
assert tuning["format"] == "collc-tuning" and tuning["version"] == 1, tuning
entries = tuning["entries"]
assert [e["bytes_per_rank"] for e in entries] == sizes, [
    e["bytes_per_rank"] for e in entries]
for e, count in zip(entries, counts, strict=True):
    cands = e["candidates"]
    assert len(cands) == count, (e["bytes_per_rank"], len(cands))
    times = [c["seconds"] for c in cands]
    assert times == sorted(times) and times[0] > 0, times
    for c in cands:
        assert re.fullmatch(r"0x[0-9a-f]{16}", c["fingerprint"]), c
    assert len({c["fingerprint"] for c in cands}) == count, cands
if len(sys.argv) > 4:
    report = json.load(open(sys.argv[4]))
    size = int(sys.argv[5])
    best = next(e for e in entries if e["bytes_per_rank"] == size)["candidates"][0]
    row = report["collectives"][0]
    assert row["algorithm"] == best["algorithm"], (row["algorithm"], best)
    assert row["chunks_per_part"] == best["chunks_per_part"], (row, best)
    assert row["choice"].startswith("measured fastest"), row["choice"]
print("TUNING OK")

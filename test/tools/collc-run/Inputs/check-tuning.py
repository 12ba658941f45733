"""check-tuning.py TUNING.json SIZES COUNTS [REPORT.json SIZE]

Checks a tuning file that collc-run --tuning wrote (docs/tuning.md): its
entries measure exactly the comma-separated SIZES (bytes per rank), in
order, with the comma-separated COUNTS of candidates, in order of time,
fastest first, each with a
fingerprint of 16 hex digits and a time > 0. With REPORT.json (collc
--report-json) and SIZE: collc chose, for its one collective, the fastest
candidate of the entry measured at SIZE, says so, and its report's
`measured` names that entry, its time and the model's choice. Prints
TUNING OK.
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
    index = next(i for i, e in enumerate(entries) if e["bytes_per_rank"] == size)
    best = entries[index]["candidates"][0]
    row = report["collectives"][0]
    assert row["algorithm"] == best["algorithm"], (row["algorithm"], best)
    assert row["chunks_per_part"] == best["chunks_per_part"], (row, best)
    assert row["choice"].startswith("measured fastest"), row["choice"]
    m = row["measured"]
    assert m["file"] == sys.argv[1] and m["entry"] == index, m
    assert m["bytes_per_rank"] == size, m
    assert abs(m["measured_us"] - best["seconds"] * 1e6) < 1e-6, (m, best)
    assert m["candidates"] == len(entries[index]["candidates"]), m
    model = m["model_choice"]
    assert model["predicted_us"] > 0, model
    measured = [c["seconds"] * 1e6 for c in entries[index]["candidates"]
                if c["algorithm"] == model["algorithm"]]
    assert model["measured_us"] is None or model["measured_us"] in measured, model
print("TUNING OK")

#!/usr/bin/env python3
"""check-trace.py PLAN BYTES SLOT_BYTES TRACE... : checks collc-run --trace.

Every rank's trace holds one X event per instruction of its channels and
per tile (the tiles of BYTES per rank cut to fit SLOT_BYTES, as the
executor does: docs/runtime.md), named by the opcode, on pid = rank and tid
= channel, with 0 <= waited <= dur, events of a channel in order and not
overlapping, and the bytes of each event at most a tile's share. Prints
"TRACE OK: N ranks" or what is wrong.
"""
import json
import sys


def main():
    plan = json.load(open(sys.argv[1]))
    program = plan["collectives"][0]["program"]
    events = []
    for path in sys.argv[4:]:
        events += [e for e in json.load(open(path))["traceEvents"]
                   if e["ph"] == "X"]
    ranks = sorted({e["pid"] for e in events})
    problems = []
    for rank in ranks:
        channels = program["ranks"][rank]["channels"]
        mine = [e for e in events if e["pid"] == rank]
        for c, channel in enumerate(channels):
            got = sorted((e for e in mine if e["tid"] == c),
                         key=lambda e: (e["args"]["tile"], e["args"]["instruction"]))
            stream = channel["instructions"]
            tiles = {e["args"]["tile"] for e in got}
            if stream and not got:
                problems.append(f"rank {rank} channel {c}: no events")
                continue
            if len(got) != len(stream) * len(tiles):
                problems.append(f"rank {rank} channel {c}: {len(got)} events "
                                f"for {len(stream)} instructions x {len(tiles)} tiles")
            previous_end = -1.0
            for e in got:
                i = e["args"]["instruction"]
                if e["name"] != stream[i][0]:
                    problems.append(f"rank {rank} channel {c} instruction {i}: "
                                    f"{e['name']}, the plan says {stream[i][0]}")
                if not 0 <= e["args"]["waited_us"] <= e["dur"] + 0.002:
                    problems.append(f"rank {rank} channel {c} instruction {i}: "
                                    f"waited {e['args']['waited_us']} of {e['dur']} us")
                if e["ts"] + 0.002 < previous_end:
                    problems.append(f"rank {rank} channel {c} instruction {i}: "
                                    f"starts before the previous one ended")
                previous_end = e["ts"] + e["dur"]
                if not 0 <= e["args"]["bytes"] <= int(sys.argv[3]):
                    problems.append(f"rank {rank} channel {c} instruction {i}: "
                                    f"{e['args']['bytes']} bytes in one tile")
        if len(tiles) < 2:
            problems.append(f"rank {rank}: {len(tiles)} tile(s); the test "
                            f"wants messages cut into several")
    if len(ranks) != program["num_ranks"]:
        problems.append(f"events of ranks {ranks}, the plan has "
                        f"{program['num_ranks']}")
    if problems:
        print("TRACE WRONG: " + "; ".join(problems[:10]))
    else:
        print(f"TRACE OK: {len(ranks)} ranks")


if __name__ == "__main__":
    main()

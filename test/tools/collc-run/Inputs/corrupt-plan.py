#!/usr/bin/env python3
"""corrupt-plan.py IN OUT RANK CHANNEL INSTRUCTION CHUNK

Writes IN's plan to OUT with the destination of one instruction (rank RANK,
channel CHANNEL, index INSTRUCTION of collective 0) moved to chunk CHUNK of
the same buffer: a plan that still loads (sizes and matching are unchanged)
but computes a wrong result, for collc-run --check to catch.
"""
import json
import sys

source, target, rank, channel, index, chunk = sys.argv[1:]
plan = json.load(open(source))
program = plan["collectives"][0]["program"]
instruction = program["ranks"][int(rank)]["channels"][int(channel)][
    "instructions"][int(index)]
# [opcode, step, send peer, recv peer, src, dst]; a range is
# [buffer, first chunk, count].
instruction[5][1] = int(chunk)
json.dump(plan, open(target, "w"), indent=1)

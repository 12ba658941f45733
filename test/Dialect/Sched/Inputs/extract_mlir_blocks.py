"""Prints the ```mlir blocks of a markdown file that are whole schedules
(start with `sched.schedule`), so that a test can parse them."""
import sys

in_block = False
block = []
for line in open(sys.argv[1], encoding="utf-8"):
    stripped = line.strip()
    if not in_block and stripped == "```mlir":
        in_block, block = True, []
    elif in_block and stripped == "```":
        in_block = False
        if block and block[0].lstrip().startswith("sched.schedule"):
            sys.stdout.write("".join(block))
    elif in_block:
        block.append(line)

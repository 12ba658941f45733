#!/usr/bin/env python3
"""Runs the `$ collc ...` examples of a Markdown page and compares outputs.

Usage: doc_examples.py PAGE.md COLLC

Every fenced block whose first line is `$ collc ARGS` is an example: ARGS
run with COLLC (stdout and stderr together), and each later line of the
block must appear in the output, in order. A line `...` skips any number of
output lines; a line ending in `...` matches any output line that starts
with the text before it. Prints one line per example and exits 1 on the
first mismatch, showing what was expected and what collc printed.
"""
import shlex
import subprocess
import sys


def examples(page):
    block, inside = [], False
    for line in open(page, encoding="utf-8").read().splitlines():
        if line.startswith("```"):
            if inside and block and block[0].startswith("$ collc "):
                yield block
            block, inside = [], not inside
            continue
        if inside:
            block.append(line)


def matches(expected, actual):
    if expected.endswith("...") and expected != "...":
        return actual.startswith(expected[:-3])
    return actual == expected


def check(block, collc):
    args = shlex.split(block[0][len("$ collc "):])
    run = subprocess.run([collc] + args, capture_output=True, text=True)
    output = (run.stdout + run.stderr).splitlines()
    pos, skipping = 0, False
    for expected in block[1:]:
        if expected == "...":
            skipping = True
            continue
        if skipping:
            while pos < len(output) and not matches(expected, output[pos]):
                pos += 1
        if pos >= len(output) or not matches(expected, output[pos]):
            got = output[pos] if pos < len(output) else "<end of output>"
            return f"expected: {expected}\n     got: {got}"
        pos += 1
        skipping = False
    if not skipping and pos != len(output):
        return f"unexpected extra output: {output[pos]}"
    return None


def main():
    page, collc = sys.argv[1], sys.argv[2]
    count = 0
    for block in examples(page):
        count += 1
        error = check(block, collc)
        print(f"example {count}: {block[0][2:]}: {'ok' if not error else 'MISMATCH'}")
        if error:
            print(error)
            sys.exit(1)
    print(f"{count} examples checked")


main()

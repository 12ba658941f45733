#!/usr/bin/env python3
"""Runs a command, prints its stdout and stderr, then `exit N` (lit helper:
`not` only says that a command failed, this says how)."""
import subprocess
import sys

run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(run.stdout)
sys.stdout.write(run.stderr)
print(f"exit {run.returncode}")

#!/usr/bin/env python3
"""Counts the nodes and edges of collc --emit=dot output (lit helper) and
checks that every edge joins declared nodes."""
import re
import sys

text = open(sys.argv[1]).read() if sys.argv[1] != "-" else sys.stdin.read()
graphs = len(re.findall(r"^digraph ", text, re.M))
nodes = set(re.findall(r"^\s*(g\d+_r\d+c\d+i\d+) \[label=", text, re.M))
order = deps = messages = 0
dangling = 0
for a, b, attrs in re.findall(r"^\s*(\S+) -> (\S+?)(?: \[(.*)\])?;$", text, re.M):
    dangling += a not in nodes or b not in nodes
    if "color=red" in attrs:
        messages += 1
    elif "color=blue" in attrs:
        deps += 1
    else:
        order += 1
print(f"{graphs} graphs, {len(nodes)} instructions, {order} program-order edges, "
      f"{deps} dependencies, {messages} messages, "
      + ("every edge between declared nodes" if not dangling else f"{dangling} DANGLING edges"))

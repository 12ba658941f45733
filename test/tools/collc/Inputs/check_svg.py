#!/usr/bin/env python3
"""Reads a collc --plot SVG as XML and prints what a reader sees: title,
axis labels, legend, curves and points (lit helper)."""
import sys
import xml.etree.ElementTree as ET

ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
print("svg", root.get("width"), "x", root.get("height"))
texts = [t.text for t in root.iter(ns + "text")]
for t in texts:
    print("text:", t)
paths = list(root.iter(ns + "path"))
print("curves:", len(paths))
print("points:", len(list(root.iter(ns + "circle"))))

#!/usr/bin/env python3
"""Prints every ```mlir block of a Markdown file, separated by `// -----`.

Used to run the guide's examples through collc-opt -split-input-file, so that
every example in the docs parses and verifies. Exits 1 when there is none.
"""
import sys


def main():
    path = sys.argv[1]
    blocks, current, start = [], None, 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if current is None and stripped == "```mlir":
                current, start = [], number
            elif current is not None and stripped == "```":
                blocks.append((start, "".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    if current is not None:
        sys.exit(f"{path}:{start}: unterminated ```mlir block")
    if not blocks:
        sys.exit(f"{path}: no ```mlir blocks")
    print("\n// -----\n".join(f"// {path}:{start}\n{text}" for start, text in blocks))


if __name__ == "__main__":
    main()

"""Runs the shell sessions of a markdown page and compares their output.

Every ```console block is a session: a line `$ COMMAND` runs COMMAND with
bash in the source root (tools from --bin first on PATH), and the lines
after it, up to the next `$ ` line or the end of the block, are its output
(stdout and stderr together), exactly. Every ```mlir block whose first line
is `// docs/examples/NAME.mlir` (maybe followed by words) is an excerpt: its
other lines must appear, in one piece, in that file.

    doc_commands.py PAGE --root SRC --bin BIN           check
    doc_commands.py PAGE --root SRC --bin BIN --update  rewrite the outputs
"""
import argparse
import os
import re
import subprocess
import sys


def blocks(lines):
    """Yields (kind, first line index, body line indices) per fenced block."""
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        kind, start = m.group(1), i
        i += 1
        while i < len(lines) and lines[i].rstrip("\n") != "```":
            i += 1
        yield kind, start, list(range(start + 1, i))
        i += 1


def run(command, root, bin_dir):
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    done = subprocess.run(["bash", "-c", "set -o pipefail; " + command],
                          cwd=root, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    return done.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("--root", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--update", action="store_true")
    args = parser.parse_args()

    with open(args.page, encoding="utf-8") as f:
        lines = f.readlines()
    failures, commands, excerpts = [], 0, 0
    replacements = []  # (first, last, new lines) of outputs, for --update
    for kind, start, body in blocks(lines):
        if kind == "console":
            sessions = []
            for i in body:
                if lines[i].startswith("$ "):
                    sessions.append([i, []])
                elif sessions:
                    sessions[-1][1].append(i)
            for command_line, output in sessions:
                command = lines[command_line][2:].rstrip("\n")
                commands += 1
                expected = [lines[i].rstrip() for i in output]
                actual = [l.rstrip() for l in run(command, args.root, args.bin)]
                if actual != expected:
                    first = output[0] if output else command_line + 1
                    replacements.append((first, first + len(output), actual))
                    failures.append(
                        "%s:%d: the output of `%s` differs from the page\n"
                        "--- page\n%s\n--- actual\n%s" %
                        (args.page, command_line + 1, command,
                         "\n".join(expected), "\n".join(actual)))
        elif kind == "mlir" and body:
            m = re.match(r"^// (docs/examples/\S+\.mlir)", lines[body[0]])
            if not m:
                continue
            excerpts += 1
            path = os.path.join(args.root, m.group(1))
            excerpt = "".join(lines[i] for i in body[1:])
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                failures.append("%s:%d: %s" % (args.page, start + 1, e))
                continue
            if excerpt not in text:
                failures.append("%s:%d: this excerpt is not in %s:\n%s" %
                                (args.page, start + 1, m.group(1), excerpt))

    if args.update:
        for first, last, new in sorted(replacements, reverse=True):
            lines[first:last] = [l + "\n" for l in new]
        with open(args.page, "w", encoding="utf-8") as f:
            f.writelines(lines)
        print("updated %d outputs" % len(replacements))
        failures = [f for f in failures if "excerpt" in f]
    for failure in failures:
        print(failure)
    if failures:
        print("To take the new outputs into the page (then read the diff):\n"
              "  python3 test/Check/Inputs/doc_commands.py %s --root . "
              "--bin BUILD/bin --update" % os.path.relpath(args.page, args.root))
        return 1
    print("%d commands and %d excerpts match the page" % (commands, excerpts))
    return 0


if __name__ == "__main__":
    sys.exit(main())

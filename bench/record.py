#!/usr/bin/env python3
"""Writes a benchmark's RESULTS.md in the template of bench/README.md.

    python3 bench/record.py FOLDER [options] COMMAND...
    python3 bench/record.py --check [FOLDER...]

Runs each COMMAND (a shell command, run with bash from the repository root;
its stdout is shown and captured, its stderr passes through) and writes
bench/FOLDER/RESULTS.md:

    # TITLE                           kept from the old file
    what the benchmark measures       kept from the old file (everything
                                      above the fields)
    - **Date**: ...                   when the first command started (UTC)
    - **Commit**: ...                 git HEAD, and how many files differ
    - **Machine**: ...                cores, CPU model, memory, load average
    - **Command**: `...`              the commands, in order
    ## Headline                       --headline TEXT, else a placeholder
                                      that --check refuses
    ## Tables                         what the commands printed

The old file's other sections (## Notes: facts about the old numbers) are
dropped, and the script says so: write again those that still hold.

The commands' output is Markdown with --markdown (its headings are moved
down so that they sit under "## Tables"); otherwise Markdown table rows
and headings pass through and every other run of lines becomes an
indented block, as printed. --tables FILE takes the tables from FILE
instead of running anything (a run made elsewhere: bench/gpu/run.sh's
OUTDIR/tables.md on the GPU host); then --command, --date, --commit and
--machine say what ran where.

--check checks that every bench/*/RESULTS.md (or those of the FOLDERs)
follows the template: the fields in order, a headline that is written,
a Tables section.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ["Date", "Commit", "Machine", "Command"]
PLACEHOLDER = "(not written yet: what these numbers say, in a sentence or two)"


def sh(command):
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return done.stdout.strip() if done.returncode == 0 else ""


def commit():
    head = sh("git rev-parse --short HEAD") or "?"
    changed = sh("git status --short --untracked-files=no | wc -l")
    if changed and changed != "0":
        return f"{head} (plus uncommitted changes in {changed} files)"
    return head


def machine():
    cores = sh("nproc") or "?"
    model = sh("lscpu | sed -n 's/^Model name: *//p' | head -1") or "?"
    mem = sh("awk '/^MemTotal/ { printf \"%.1f\", $2 / 1048576 }' /proc/meminfo")
    load = sh("cut -d' ' -f1-3 /proc/loadavg")
    text = f"{cores} cores (`nproc`), {model} (`lscpu`)"
    if mem:
        text += f", {mem} GiB of memory"
    if load:
        text += f"; load average {load} at the start"
    return text


def as_markdown(text, markdown):
    """The commands' output as the body of ## Tables."""
    lines = text.rstrip("\n").split("\n")
    if markdown:
        levels = [len(m.group(1)) for m in
                  (re.match(r"^(#+) ", l) for l in lines) if m]
        shift = 3 - min(levels) if levels else 0
        return "\n".join(("#" * shift + l) if re.match(r"^#+ ", l) and shift > 0
                         else l for l in lines)
    out, block = [], []

    def flush():
        if block:
            if out and out[-1] != "":
                out.append("")
            out.extend("    " + l if l else "" for l in block)
            out.append("")
            block.clear()
    for line in lines:
        if line.startswith("|") or re.match(r"^#{2,6} ", line):
            flush()
            out.append(line)
        elif line.strip() == "" and not block:
            out.append("")
        else:
            block.append(line)
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def preamble(path, folder):
    """The old file's text above the fields, or a default."""
    if os.path.exists(path):
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            if line.startswith("- **Date**"):
                old_rest = "\n".join(lines[i:])
                if re.search(r"^## (?!Headline|Tables)", old_rest, re.M):
                    print(f"record.py: {path}: the old sections other than "
                          "Headline and Tables are dropped; write again the "
                          "notes that still hold", file=sys.stderr)
                return "\n".join(lines[:i]).rstrip("\n")
    return (f"# bench/{folder}: results\n\nWhat bench/{folder} measures and how "
            "to run it: [../README.md](../README.md).")


def record(args):
    folder = args.folder.strip("/")
    path = args.output or os.path.join(ROOT, "bench", folder, "RESULTS.md")
    date = args.date or datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")
    head = args.commit or commit()
    host = args.machine or machine()
    if args.tables:
        if not args.command:
            raise SystemExit("record.py: --tables needs --command (what ran)")
        commands = [args.command]
        body = as_markdown(open(args.tables, encoding="utf-8").read(),
                           args.markdown)
    else:
        if not args.commands:
            raise SystemExit("record.py: no COMMAND to run")
        commands, parts = args.commands, []
        for command in commands:
            done = subprocess.run(["bash", "-c", command], cwd=ROOT, text=True,
                                  stdout=subprocess.PIPE)
            sys.stdout.write(done.stdout)
            if done.returncode != 0:
                raise SystemExit(f"record.py: `{command}` failed "
                                 f"({done.returncode}); {path} not written")
            part = as_markdown(done.stdout, args.markdown)
            if len(commands) > 1:
                part = f"    $ {command}\n\n{part}"
            parts.append(part)
        body = "\n\n".join(parts)
    text = (preamble(path, folder) + "\n\n"
            + f"- **Date**: {date}\n"
            + f"- **Commit**: {head}\n"
            + f"- **Machine**: {host}\n"
            + "- **Command**: " + "; ".join(f"`{c}`" for c in commands) + "\n\n"
            + "## Headline\n\n" + (args.headline or PLACEHOLDER) + "\n\n"
            + "## Tables\n\n" + body + "\n")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    print(f"record.py: wrote {path}", file=sys.stderr)
    if not args.headline:
        print(f"record.py: write its headline (## Headline)", file=sys.stderr)


def check(folders):
    if not folders:
        bench = os.path.join(ROOT, "bench")
        folders = sorted(d for d in os.listdir(bench)
                         if os.path.isdir(os.path.join(bench, d)))
    bad = 0
    for folder in folders:
        path = os.path.join(ROOT, "bench", folder, "RESULTS.md")
        problems = []
        if not os.path.exists(path):
            problems.append("missing")
        else:
            text = open(path, encoding="utf-8").read()
            if not text.startswith("# "):
                problems.append("does not start with a '# ' title")
            at = 0
            for field in FIELDS:
                m = re.compile(r"^- \*\*" + field + r"\*\*: \S", re.M).search(text, at)
                if not m:
                    problems.append(f"no '- **{field}**: ...' line after the "
                                    "previous field")
                    break
                at = m.end()
            m = re.compile(r"^## Headline\n\n(.+)", re.M).search(text, at)
            if not m or m.group(1).strip() == PLACEHOLDER:
                problems.append("no written '## Headline' after the fields")
            else:
                at = m.end()
            if not re.compile(r"^## Tables$", re.M).search(text, at):
                problems.append("no '## Tables' after the headline")
        for p in problems:
            print(f"bench/{folder}/RESULTS.md: {p}")
        bad += bool(problems)
    if bad:
        print(f"record.py --check: {bad} file(s) do not follow the template "
              "(bench/README.md)")
        return 1
    print(f"record.py --check: {len(folders)} RESULTS.md files follow the template")
    return 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--headline")
    parser.add_argument("--markdown", action="store_true",
                        help="the output is Markdown already")
    parser.add_argument("--tables", help="take the tables from this file")
    parser.add_argument("--command", help="with --tables: what ran")
    parser.add_argument("--date")
    parser.add_argument("--commit")
    parser.add_argument("--machine")
    parser.add_argument("--output", help="write here instead of bench/FOLDER/RESULTS.md")
    parser.add_argument("folder", nargs="?")
    parser.add_argument("commands", nargs="*")
    args = parser.parse_intermixed_args()
    if args.check:
        folders = ([args.folder] if args.folder else []) + args.commands
        return check(folders)
    if not args.folder:
        parser.error("no FOLDER")
    record(args)
    return 0


sys.exit(main())

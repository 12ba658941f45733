#!/usr/bin/env python3
"""fake-faults.py [--rank R] [--nth NAME:N ...] [--kernel-faults N,...] -- COMMAND...

Runs COMMAND (a collc-run --backend cuda invocation, or launch.sh around
several) on collc's fake CUDA driver (test/fakecuda), first with
COLLC_FAKE_CUDA_TRACE=1 to learn which driver entry points it calls (it must
succeed), then once for each of them with COLLC_FAKE_CUDA_FAIL=NAME (the
first call fails with CUDA_ERROR_UNKNOWN), once for each --nth NAME:N (the
Nth call), and once for each --kernel-faults N (COLLC_FAKE_CUDA_FAULT: the
Nth kernel launch faults and the context fails). With --rank R only the
process of rank R meets the faults (COLLC_FAKE_CUDA_FAULT_RANK).

Every faulty run must end within 120 s with exit status 1 (every rank's,
when COMMAND is launch.sh: its "exit codes:" line), never a signal or a
hang, and its output must name the failed call and the error. A failure of
a clean-up call (destroy, free, unload, close, unregister) may instead
leave the run's result standing (exit 0). Prints "FAULTS OK <runs>" or
each broken rule.
"""
import os
import re
import subprocess
import sys
import time

CLEANUP = {"cuMemFree_v2", "cuMemFreeHost", "cuEventDestroy_v2",
           "cuStreamDestroy_v2", "cuGraphExecDestroy", "cuGraphDestroy",
           "cuModuleUnload", "cuIpcCloseMemHandle", "cuMemHostUnregister"}


def base(name):
    """The name the runtime's messages use (cuda.h's macro, not the
    versioned symbol)."""
    return re.sub(r"(_v\d+|WithFlags)$", "", name)


def run(command, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    start = time.time()
    try:
        return run_timed(command, env)
    finally:
        if os.environ.get("FAKE_FAULTS_TIMES"):
            sys.stderr.write("%6.1f s %s\n" % (time.time() - start, env_extra))


def run_timed(command, env):
    try:
        p = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
    except subprocess.TimeoutExpired as e:
        return None, (e.output or b"").decode(errors="replace")
    return p.returncode, p.stdout.decode(errors="replace")


def codes(rc, output):
    m = re.search(r"^exit codes: ([0-9 ]+)$", output, re.M)
    return [int(c) for c in m.group(1).split()] if m else [rc]


def main():
    args = sys.argv[1:]
    rank = None
    nth = []
    kernel_faults = []
    while args and args[0] != "--":
        if args[0] == "--rank":
            rank = args[1]
            args = args[2:]
        elif args[0] == "--nth":
            nth.append(args[1])
            args = args[2:]
        elif args[0] == "--kernel-faults":
            kernel_faults += [int(n) for n in args[1].split(",")]
            args = args[2:]
        else:
            sys.exit("fake-faults.py: unknown option " + args[0])
    command = args[1:]
    extra = {"COLLC_FAKE_CUDA_FAULT_RANK": rank} if rank is not None else {}

    rc, out = run(command, dict(extra, COLLC_FAKE_CUDA_TRACE="1"))
    if rc != 0 or any(c != 0 for c in codes(rc, out)):
        print("the run without faults failed (exit %s):\n%s" % (rc, out))
        return 1
    names = []
    for line in out.splitlines():
        m = re.search(r"collc fake CUDA driver: (cu\w+)$", line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    cases = [("COLLC_FAKE_CUDA_FAIL", n) for n in names]
    cases += [("COLLC_FAKE_CUDA_FAIL", n) for n in nth]
    cases += [("COLLC_FAKE_CUDA_FAULT", str(n)) for n in kernel_faults]

    broken = []
    for variable, value in cases:
        rc, out = run(command, dict(extra, **{variable: value}))
        what = "%s=%s" % (variable, value)
        if rc is None:
            broken.append("%s: no end within 120 s (a hang)" % what)
            continue
        statuses = codes(rc, out)
        name = value.split(":")[0]
        if variable == "COLLC_FAKE_CUDA_FAIL" and name in CLEANUP and \
                all(c == 0 for c in statuses):
            continue
        if any(c != 1 for c in statuses):
            broken.append("%s: exit %s, not 1:\n%s" % (what, statuses, out))
            continue
        if variable == "COLLC_FAKE_CUDA_FAIL" and name == "cuEventQuery":
            # How a GPU reports a launch's error: the launch failed.
            wanted = ["the launch failed: CUDA_ERROR_UNKNOWN"]
        elif variable == "COLLC_FAKE_CUDA_FAIL":
            wanted = [base(name) + " failed: CUDA_ERROR_UNKNOWN"]
        else:
            wanted = ["CUDA_ERROR_ILLEGAL_ADDRESS"]
        for w in wanted:
            if w not in out:
                broken.append("%s: the output does not say '%s':\n%s" %
                              (what, w, out))
    if broken:
        print("\n\n".join(broken))
        print("FAULTS BROKEN %d of %d" % (len(broken), len(cases)))
        return 1
    print("FAULTS OK %d" % len(cases))
    return 0


sys.exit(main())

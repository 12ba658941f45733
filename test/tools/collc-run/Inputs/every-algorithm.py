"""every-algorithm.py COLLC COLLC_RUN LAUNCH TOPO DIR N BYTES BUFFERS COLLECTIVE...

For each collective: `collc --emit=candidates --chunks 2` writes a plan per
applicable algorithm (on TOPO, N ranks); each runs as N processes of
collc-run over shm (LAUNCH, Inputs/launch.sh) with --check at the sizes
BYTES (MIN:MAX:FACTOR) and --buffers BUFFERS. Prints "ok COLLECTIVE PLAN"
when every rank exits 0 and every row has 0 wrong elements, else "FAIL"
with the output; at the end "plans: K".
"""
import glob
import os
import subprocess
import sys

collc, run, launch, topo, out, n, sizes, buffers = sys.argv[1:9]
plans = 0
for collective in sys.argv[9:]:
    d = os.path.join(out, collective)
    subprocess.run([collc, "--collective", collective, "--bytes", "1M",
                    "--topo", topo, "--emit=candidates", "--chunks", "2",
                    "-o", d], check=True, stdout=subprocess.DEVNULL)
    for plan in sorted(glob.glob(os.path.join(d, "*.plan.json"))):
        plans += 1
        r = subprocess.run(
            ["timeout", "120", "bash", launch, n, run, plan,
             "--transport", "shm", "--check", "--bytes", sizes,
             "--buffers", buffers, "--iters", "2", "--warmup", "1"],
            capture_output=True, text=True)
        rows = [l.split() for l in r.stdout.splitlines()
                if l.strip() and not l.startswith("#")
                and not l.startswith("exit codes")]
        good = (r.returncode == 0 and rows and
                all(len(x) >= 8 and x[7] == "0" for x in rows))
        name = os.path.basename(plan)
        if good:
            print(f"ok {collective} {name}")
        else:
            print(f"FAIL {collective} {name}\n{r.stdout}\n{r.stderr}")
print(f"plans: {plans}")

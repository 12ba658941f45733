#!/usr/bin/env python3
"""The torch baseline of bench/gpu/run.sh: the all_reduce of R ranks on one
GPU done by torch (every rank's output = the sum of every rank's input), as
collc's kernels do it: the inputs are one [R, n] tensor, the sum over ranks
is torch.sum (accumulating in f32 for bf16, rounded once), then the result is
copied to every rank's output. Prints one tab-separated row (kind, name,
ranks, dtype, bytes_per_rank, us, alg_GBps, memory_GBps): memory bytes are
what torch reads and writes (R n + n for the sum, n + R n for the copies).
Exits 3 with a line when torch or a CUDA device is missing.
"""
import argparse
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--ranks", type=int, default=8)
ap.add_argument("--bytes", type=int, default=256 << 20)
ap.add_argument("--iters", type=int, default=10)
args = ap.parse_args()
try:
    import torch
except ImportError as e:
    print("torch baseline skipped: python3 cannot import torch (%s)" % e,
          file=sys.stderr)
    sys.exit(3)
if not torch.cuda.is_available():
    print("torch baseline skipped: torch sees no CUDA device", file=sys.stderr)
    sys.exit(3)
R, n = args.ranks, args.bytes // 2
x = torch.randn(R, n, dtype=torch.bfloat16, device="cuda")
out = torch.empty(R, n, dtype=torch.bfloat16, device="cuda")


def allreduce():
    s = torch.sum(x, dim=0)
    out.copy_(s.unsqueeze(0).expand(R, n))


for _ in range(3):
    allreduce()
start = torch.cuda.Event(enable_timing=True)
stop = torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(args.iters):
    allreduce()
stop.record()
torch.cuda.synchronize()
us = start.elapsed_time(stop) * 1000.0 / args.iters
expected = torch.sum(x, dim=0)
if not torch.equal(out[R - 1], expected):
    print("torch baseline: wrong result", file=sys.stderr)
    sys.exit(1)
memory = 2 * (R * n + n + n + R * n)
print("torch\tsum+copy\t%d\tbf16\t%d\t%.2f\t%.1f\t%.1f" %
      (R, args.bytes, us, args.bytes / us / 1e3, memory / us / 1e3))

#!/usr/bin/env python3
"""check-columns.py COLLECTIVE N < collc-run's output

Checks the arithmetic of every row of collc-run's table: count = size /
element size, algbw = S / time with S = N x size for all_gather and gather
(size otherwise), busbw = algbw x nccl-tests' factor for COLLECTIVE on N
ranks, within the rounding of the printed digits. Prints "ROWS OK k" or the
first row that is off, and exits 1 then.
"""
import sys

TYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "f8E4M3FN": 1,
              "f8E5M2": 1, "i64": 8, "i32": 4, "i8": 1}

collective, n = sys.argv[1], int(sys.argv[2])
factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1, "reduce": 1,
          "send_recv": 1}.get(collective, (n - 1) / n)
rows = 0
for line in sys.stdin:
    if line.startswith("#") or not line.strip():
        continue
    fields = line.split()
    if len(fields) != 8:
        continue
    size, count, dtype = int(fields[0]), int(fields[1]), fields[2]
    us, algbw, busbw = float(fields[4]), float(fields[5]), float(fields[6])
    s = size * n if collective in ("all_gather", "gather") else size
    want_algbw = s / (us * 1e-6) / 1e9
    # Printed with 2 decimals (time) and 3 (bandwidths).
    tolerance = 0.0006 + want_algbw * 0.005 / max(us, 0.01)
    problems = []
    if count * TYPE_BYTES[dtype] != size:
        problems.append("count %d x %s != size %d" % (count, dtype, size))
    if abs(algbw - want_algbw) > tolerance:
        problems.append("algbw %.3f, want %.4f" % (algbw, want_algbw))
    if abs(busbw - algbw * factor) > 0.0006 + tolerance * factor:
        problems.append("busbw %.3f, want algbw x %.4f = %.4f" %
                        (busbw, factor, algbw * factor))
    if problems:
        print("ROW WRONG: " + line.rstrip() + ": " + "; ".join(problems))
        sys.exit(1)
    rows += 1
print("ROWS OK %d" % rows)

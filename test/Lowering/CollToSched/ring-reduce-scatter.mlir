// Ring reduce-scatter: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: n^2 k instructions, n (n - 1) k transfers.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_reduce_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @ring_reduce_scatter: n = 2, k = 1: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 2, k = 2: verified (8 instructions, 4 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 2, k = 3: verified (12 instructions, 6 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 3, k = 1: verified (9 instructions, 6 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 3, k = 2: verified (18 instructions, 12 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 3, k = 3: verified (27 instructions, 18 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 6, k = 1: verified (36 instructions, 30 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 6, k = 2: verified (72 instructions, 60 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 6, k = 3: verified (108 instructions, 90 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 12, k = 1: verified (144 instructions, 132 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 12, k = 2: verified (288 instructions, 264 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 12, k = 3: verified (432 instructions, 396 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 24, k = 1: verified (576 instructions, 552 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 24, k = 2: verified (1152 instructions, 1104 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 24, k = 3: verified (1728 instructions, 1656 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 64, k = 1: verified (4096 instructions, 4032 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 64, k = 2: verified (8192 instructions, 8064 transfers)
// CHECK: sched-verify: @ring_reduce_scatter: n = 64, k = 3: verified (12288 instructions, 12096 transfers)
// CHECK-NOT: error

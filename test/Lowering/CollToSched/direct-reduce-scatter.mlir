// Direct reduce-scatter: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: n (2 (n - 1) + min(7, n - 2)) instructions, n (n - 1) transfers (one
// message per peer, whatever k).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @direct_reduce_scatter: n = 2, k = 1: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 2, k = 2: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 2, k = 3: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 3, k = 1: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 3, k = 2: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 3, k = 3: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 6, k = 1: verified (84 instructions, 30 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 6, k = 2: verified (84 instructions, 30 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 6, k = 3: verified (84 instructions, 30 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 12, k = 1: verified (348 instructions, 132 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 12, k = 2: verified (348 instructions, 132 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 12, k = 3: verified (348 instructions, 132 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 24, k = 1: verified (1272 instructions, 552 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 24, k = 2: verified (1272 instructions, 552 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 24, k = 3: verified (1272 instructions, 552 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 64, k = 1: verified (8512 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 64, k = 2: verified (8512 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_reduce_scatter: n = 64, k = 3: verified (8512 instructions, 4032 transfers)
// CHECK-NOT: error

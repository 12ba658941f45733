// Bruck reduce-scatter: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: n (2 L + 2) - 1 instructions, n L transfers, L = ceil(log2 n).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/bruck_reduce_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @bruck_reduce_scatter: n = 2, k = 1: verified (7 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 2, k = 2: verified (7 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 2, k = 3: verified (7 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 3, k = 1: verified (17 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 3, k = 2: verified (17 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 3, k = 3: verified (17 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 6, k = 1: verified (47 instructions, 18 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 6, k = 2: verified (47 instructions, 18 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 6, k = 3: verified (47 instructions, 18 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 12, k = 1: verified (119 instructions, 48 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 12, k = 2: verified (119 instructions, 48 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 12, k = 3: verified (119 instructions, 48 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 24, k = 1: verified (287 instructions, 120 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 24, k = 2: verified (287 instructions, 120 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 24, k = 3: verified (287 instructions, 120 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 64, k = 1: verified (895 instructions, 384 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 64, k = 2: verified (895 instructions, 384 transfers)
// CHECK: sched-verify: @bruck_reduce_scatter: n = 64, k = 3: verified (895 instructions, 384 transfers)
// CHECK-NOT: error

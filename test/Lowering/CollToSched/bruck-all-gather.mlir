// Bruck all-gather: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: n (2 L + 3) - 1 instructions, n L transfers, L = ceil(log2 n).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/bruck_all_gather.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @bruck_all_gather: n = 2, k = 1: verified (9 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 2, k = 2: verified (9 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 2, k = 3: verified (9 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 3, k = 1: verified (20 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 3, k = 2: verified (20 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 3, k = 3: verified (20 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 6, k = 1: verified (53 instructions, 18 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 6, k = 2: verified (53 instructions, 18 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 6, k = 3: verified (53 instructions, 18 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 12, k = 1: verified (131 instructions, 48 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 12, k = 2: verified (131 instructions, 48 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 12, k = 3: verified (131 instructions, 48 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 24, k = 1: verified (311 instructions, 120 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 24, k = 2: verified (311 instructions, 120 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 24, k = 3: verified (311 instructions, 120 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 64, k = 1: verified (959 instructions, 384 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 64, k = 2: verified (959 instructions, 384 transfers)
// CHECK: sched-verify: @bruck_all_gather: n = 64, k = 3: verified (959 instructions, 384 transfers)
// CHECK-NOT: error

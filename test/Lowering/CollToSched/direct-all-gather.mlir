// Direct all-gather: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: n (2 n - 1) instructions, n (n - 1) transfers (one message per peer, whatever k).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_gather.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @direct_all_gather: n = 2, k = 1: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 2, k = 2: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 2, k = 3: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 3, k = 1: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 3, k = 2: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 3, k = 3: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 6, k = 1: verified (66 instructions, 30 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 6, k = 2: verified (66 instructions, 30 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 6, k = 3: verified (66 instructions, 30 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 12, k = 1: verified (276 instructions, 132 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 12, k = 2: verified (276 instructions, 132 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 12, k = 3: verified (276 instructions, 132 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 24, k = 1: verified (1128 instructions, 552 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 24, k = 2: verified (1128 instructions, 552 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 24, k = 3: verified (1128 instructions, 552 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 64, k = 1: verified (8128 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 64, k = 2: verified (8128 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_all_gather: n = 64, k = 3: verified (8128 instructions, 4032 transfers)
// CHECK-NOT: error

// Recursive-doubling all-gather: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: n (2 log2 n + 1) instructions, n log2 n transfers for n a power of
// two (n = 2, 64); otherwise q (2 L + 1) + 7 R - 2 + 2 E and q L + E + 3 R - 1
// (q the largest power of two <= n, L = log2 q, R = n - q,
// E = sum over d < q of d ceil(R / d)): n = 3: q = 2, E = 1: 13 and 5.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/recursive_doubling_all_gather.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 2, k = 1: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 2, k = 2: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 2, k = 3: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 3, k = 1: verified (13 instructions, 5 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 3, k = 2: verified (13 instructions, 5 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 3, k = 3: verified (13 instructions, 5 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 6, k = 1: verified (40 instructions, 17 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 6, k = 2: verified (40 instructions, 17 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 6, k = 3: verified (40 instructions, 17 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 12, k = 1: verified (106 instructions, 47 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 12, k = 2: verified (106 instructions, 47 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 12, k = 3: verified (106 instructions, 47 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 24, k = 1: verified (262 instructions, 119 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 24, k = 2: verified (262 instructions, 119 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 24, k = 3: verified (262 instructions, 119 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 64, k = 1: verified (832 instructions, 384 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 64, k = 2: verified (832 instructions, 384 transfers)
// CHECK: sched-verify: @recursive_doubling_all_gather: n = 64, k = 3: verified (832 instructions, 384 transfers)
// CHECK-NOT: error

// Recursive-halving reduce-scatter: correct and deadlock-free for every group size
// asked of the library and chunks 1, 2, 3.
// Counts: 2 n log2 n instructions, n log2 n transfers for n a power of two
// (n = 2, 64); otherwise 2 q L + 4 R + 2 E and q L + E + 2 R (q the largest
// power of two <= n, L = log2 q, R = n - q, E = sum over d < q of
// d ceil(R / d)): n = 3: q = 2, E = 1: 10 and 5.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/recursive_halving_reduce_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 2, k = 1: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 2, k = 2: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 2, k = 3: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 3, k = 1: verified (10 instructions, 5 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 3, k = 2: verified (10 instructions, 5 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 3, k = 3: verified (10 instructions, 5 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 6, k = 1: verified (32 instructions, 16 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 6, k = 2: verified (32 instructions, 16 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 6, k = 3: verified (32 instructions, 16 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 12, k = 1: verified (88 instructions, 44 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 12, k = 2: verified (88 instructions, 44 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 12, k = 3: verified (88 instructions, 44 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 24, k = 1: verified (224 instructions, 112 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 24, k = 2: verified (224 instructions, 112 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 24, k = 3: verified (224 instructions, 112 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 64, k = 1: verified (768 instructions, 384 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 64, k = 2: verified (768 instructions, 384 transfers)
// CHECK: sched-verify: @recursive_halving_reduce_scatter: n = 64, k = 3: verified (768 instructions, 384 transfers)
// CHECK-NOT: error

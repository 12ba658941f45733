// Recursive-doubling all-reduce: correct and deadlock-free for every group
// size (powers of two and folded remainders) and chunk count asked for.
// Counts: n a power of two: 2 n log2 n instructions, n log2 n transfers;
// otherwise (q = largest power of two <= n, L = log2 q, R = n - q)
// 2 q L + 4 R instructions, q L + 2 R transfers. Every instruction moves
// the whole vector, so the counts do not depend on k.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/recursive_doubling_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/recursive_doubling_all_reduce.mlir --sched-verify="group-sizes=2,5,8,13 chunks=4 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE

// A group of one rank copies its input.
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 2, k = 1: verified (4 instructions, 2 transfers)
// q = 2, R = 1: 4 + 4, 2 + 2.
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 3, k = 1: verified (8 instructions, 4 transfers)
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 3, k = 3: verified (8 instructions, 4 transfers)
// q = 4, R = 2: 16 + 8, 8 + 4.
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 6, k = 1: verified (24 instructions, 12 transfers)
// q = 8, R = 4: 48 + 16, 24 + 8.
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 12, k = 1: verified (64 instructions, 32 transfers)
// q = 16, R = 8: 128 + 32, 64 + 16.
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 24, k = 3: verified (160 instructions, 80 transfers)
// CHECK: sched-verify: @recursive_doubling_all_reduce: n = 64, k = 1: verified (768 instructions, 384 transfers)
// CHECK-NOT: error

// Send first, then receive: one connection slot is enough.
// ONE: sched-verify: @recursive_doubling_all_reduce: n = 2, k = 4: verified
// ONE: sched-verify: @recursive_doubling_all_reduce: n = 5, k = 4: verified (20 instructions, 10 transfers)
// ONE: sched-verify: @recursive_doubling_all_reduce: n = 8, k = 4: verified
// ONE: sched-verify: @recursive_doubling_all_reduce: n = 13, k = 4: verified (68 instructions, 34 transfers)
// ONE-NOT: error

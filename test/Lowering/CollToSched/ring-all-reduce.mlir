// The built-in ring all-reduce is correct and deadlock-free for groups of
// every size asked by the issue, and for several chunk counts.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_all_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// CHECK: sched-verify: @ring_all_reduce: n = 2, k = 2: verified (6 instructions, 4 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 3, k = 9: verified (15 instructions, 12 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 64, k = 192: verified (8128 instructions, 8064 transfers)
// CHECK-NOT: error

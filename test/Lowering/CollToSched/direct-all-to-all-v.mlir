// The built-in direct all-to-all-v is correct and deadlock-free for every
// group size, chunk count and send-count pattern asked for (zero blocks are
// still sent: the structure, hence the counts below, never depends on the
// send counts). Instructions n (1 + 2k(n-1)), transfers n (n-1) k.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_to_all_v.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s
// CHECK: sched-verify: @direct_all_to_all_v: n = 2, k = 1, counts zero-row: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 3, k = 1, counts uniform: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 3, k = 2, counts skewed: verified (27 instructions, 12 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 3, k = 3, counts random: verified (39 instructions, 18 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 6, k = 2, counts zero-col: verified (126 instructions, 60 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 24, k = 3, counts random: verified (3336 instructions, 1656 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 64, k = 1, counts zero-row: verified (8128 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 64, k = 3, counts zero-col: verified (24256 instructions, 12096 transfers)
// CHECK: sched-verify: @direct_all_to_all_v: n = 64, k = 3, counts random: verified (24256 instructions, 12096 transfers)
// CHECK-NOT: error

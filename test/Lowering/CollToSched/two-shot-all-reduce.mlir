// Two-shot all-reduce: correct and deadlock-free for every group size and
// chunk count asked for (k = chunks * n, q = k / n chunks per part).
// Counts: 4 (n-1) k instructions, 2 (n-1) k transfers (a direct
// reduce-scatter and a direct all-gather of q chunks per part).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/two_shot_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/two_shot_all_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=9,20 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP

// A group of one rank copies its input.
// CHECK: sched-verify: @two_shot_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 2, k = 2: verified (8 instructions, 4 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 3, k = 3: verified (24 instructions, 12 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 3, k = 6: verified (48 instructions, 24 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 3, k = 9: verified (72 instructions, 36 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 12, k = 12: verified (528 instructions, 264 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 64, k = 64: verified (16128 instructions, 8064 transfers)
// CHECK: sched-verify: @two_shot_all_reduce: n = 64, k = 192: verified (48384 instructions, 24192 transfers)
// CHECK-NOT: error

// DEEP: sched-verify: @two_shot_all_reduce: n = 8, k = 160: verified (4480 instructions, 2240 transfers)
// DEEP-NOT: error

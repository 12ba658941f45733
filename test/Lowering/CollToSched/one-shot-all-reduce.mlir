// One-shot all-reduce: correct and deadlock-free for every group size and
// chunk count asked for (k = chunks). Counts: 2 n (n-1) k instructions,
// n (n-1) k transfers (every rank sends each of its k chunks to n-1 peers).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/one_shot_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/one_shot_all_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=9,20 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP

// A group of one rank copies its input.
// CHECK: sched-verify: @one_shot_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 2, k = 1: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 3, k = 1: verified (12 instructions, 6 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 3, k = 2: verified (24 instructions, 12 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 3, k = 3: verified (36 instructions, 18 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 6, k = 1: verified (60 instructions, 30 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 64, k = 1: verified (8064 instructions, 4032 transfers)
// CHECK: sched-verify: @one_shot_all_reduce: n = 64, k = 3: verified (24192 instructions, 12096 transfers)
// CHECK-NOT: error

// More chunks than two connection slots: no deadlock.
// DEEP: sched-verify: @one_shot_all_reduce: n = 8, k = 20: verified (2240 instructions, 1120 transfers)
// DEEP-NOT: error

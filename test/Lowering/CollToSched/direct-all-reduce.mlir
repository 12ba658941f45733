// Direct all-reduce: correct and deadlock-free for every group size, chunk
// count and channel count asked for (the combine waits for the last
// receive of every channel, two counts of them when n - 1 > channels).
// Counts: per rank a copy, n - 1 sends and receives, one combine: 2 n^2
// instructions (1 for n = 1), n (n - 1) transfers, whatever k.
// The default (31 channels), one channel and a few: same counts.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3 params=channels=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3 params=channels=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3 params=channels=7" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// More chunks than two connection slots: no deadlock.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=9,20 slots=2 params=channels=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// CHECK-NOT: error
// CHECK: sched-verify: @direct_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 1, k = 2: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 1, k = 3: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 2, k = 1: verified (8 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 2, k = 2: verified (8 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 2, k = 3: verified (8 instructions, 2 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 3, k = 1: verified (18 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 3, k = 2: verified (18 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 3, k = 3: verified (18 instructions, 6 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 6, k = 1: verified (72 instructions, 30 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 6, k = 2: verified (72 instructions, 30 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 6, k = 3: verified (72 instructions, 30 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 12, k = 1: verified (288 instructions, 132 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 12, k = 2: verified (288 instructions, 132 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 12, k = 3: verified (288 instructions, 132 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 24, k = 1: verified (1152 instructions, 552 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 24, k = 2: verified (1152 instructions, 552 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 24, k = 3: verified (1152 instructions, 552 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 64, k = 1: verified (8192 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 64, k = 2: verified (8192 instructions, 4032 transfers)
// CHECK: sched-verify: @direct_all_reduce: n = 64, k = 3: verified (8192 instructions, 4032 transfers)
// DEEP: sched-verify: @direct_all_reduce: n = 8, k = 20: verified (128 instructions, 56 transfers)
// DEEP-NOT: error

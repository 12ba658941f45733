// Direct reduce: correct and deadlock-free for every group size, root,
// chunk count and channel count asked for (the combine waits for the last
// receive of every channel, two counts of them when n - 1 > channels).
// Counts: the root copies, receives n - 1 messages and combines once, the
// others send one: 2n instructions (1 for n = 1), n - 1 transfers.
// The default (31 channels), one channel and a few: same counts.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=channels=1,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=channels=5,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=64 chunks=1,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=12 chunks=2 params=channels=5,root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MID
// More chunks than two connection slots: no deadlock.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=9,20 slots=2 params=channels=3,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// CHECK-NOT: error
// CHECK: sched-verify: @direct_reduce: n = 2, k = 1: verified (4 instructions, 1 transfers)
// CHECK: sched-verify: @direct_reduce: n = 2, k = 2: verified (4 instructions, 1 transfers)
// CHECK: sched-verify: @direct_reduce: n = 2, k = 3: verified (4 instructions, 1 transfers)
// CHECK: sched-verify: @direct_reduce: n = 3, k = 1: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_reduce: n = 3, k = 2: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_reduce: n = 3, k = 3: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @direct_reduce: n = 6, k = 1: verified (12 instructions, 5 transfers)
// CHECK: sched-verify: @direct_reduce: n = 6, k = 2: verified (12 instructions, 5 transfers)
// CHECK: sched-verify: @direct_reduce: n = 6, k = 3: verified (12 instructions, 5 transfers)
// CHECK: sched-verify: @direct_reduce: n = 12, k = 1: verified (24 instructions, 11 transfers)
// CHECK: sched-verify: @direct_reduce: n = 12, k = 2: verified (24 instructions, 11 transfers)
// CHECK: sched-verify: @direct_reduce: n = 12, k = 3: verified (24 instructions, 11 transfers)
// CHECK: sched-verify: @direct_reduce: n = 24, k = 1: verified (48 instructions, 23 transfers)
// CHECK: sched-verify: @direct_reduce: n = 24, k = 2: verified (48 instructions, 23 transfers)
// CHECK: sched-verify: @direct_reduce: n = 24, k = 3: verified (48 instructions, 23 transfers)
// CHECK: sched-verify: @direct_reduce: n = 64, k = 1: verified (128 instructions, 63 transfers)
// CHECK: sched-verify: @direct_reduce: n = 64, k = 2: verified (128 instructions, 63 transfers)
// CHECK: sched-verify: @direct_reduce: n = 64, k = 3: verified (128 instructions, 63 transfers)
// LAST: sched-verify: @direct_reduce: n = 64, k = 1: verified (128 instructions, 63 transfers)
// LAST: sched-verify: @direct_reduce: n = 64, k = 3: verified (128 instructions, 63 transfers)
// LAST-NOT: error
// MID: sched-verify: @direct_reduce: n = 12, k = 2: verified (24 instructions, 11 transfers)
// MID-NOT: error
// DEEP: sched-verify: @direct_reduce: n = 8, k = 20: verified (16 instructions, 7 transfers)
// DEEP-NOT: error

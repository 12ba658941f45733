// Direct broadcast: correct and deadlock-free for every group size, root,
// chunk count and channel count asked for. Counts: the root copies and
// sends n - 1 messages of k chunks, the others receive one: 2n - 1
// instructions, n - 1 transfers, whatever k and however many channels.
// The default (31 channels), one channel and a few: same counts.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=channels=1,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=channels=5,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=64 chunks=1,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAST
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=12 chunks=2 params=channels=5,root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MID
// More chunks than two connection slots: no deadlock.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_broadcast.mlir --sched-verify="group-sizes=2,3,5,8 chunks=9,20 slots=2 params=channels=3,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// CHECK-NOT: error
// CHECK: sched-verify: @direct_broadcast: n = 2, k = 1: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 2, k = 2: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 2, k = 3: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 3, k = 1: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 3, k = 2: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 3, k = 3: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 6, k = 1: verified (11 instructions, 5 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 6, k = 2: verified (11 instructions, 5 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 6, k = 3: verified (11 instructions, 5 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 12, k = 1: verified (23 instructions, 11 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 12, k = 2: verified (23 instructions, 11 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 12, k = 3: verified (23 instructions, 11 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 24, k = 1: verified (47 instructions, 23 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 24, k = 2: verified (47 instructions, 23 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 24, k = 3: verified (47 instructions, 23 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 64, k = 1: verified (127 instructions, 63 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 64, k = 2: verified (127 instructions, 63 transfers)
// CHECK: sched-verify: @direct_broadcast: n = 64, k = 3: verified (127 instructions, 63 transfers)
// LAST: sched-verify: @direct_broadcast: n = 64, k = 1: verified (127 instructions, 63 transfers)
// LAST: sched-verify: @direct_broadcast: n = 64, k = 3: verified (127 instructions, 63 transfers)
// LAST-NOT: error
// MID: sched-verify: @direct_broadcast: n = 12, k = 2: verified (23 instructions, 11 transfers)
// MID-NOT: error
// DEEP: sched-verify: @direct_broadcast: n = 8, k = 20: verified (15 instructions, 7 transfers)
// DEEP-NOT: error

// The built-in direct scatter is correct and deadlock-free for every group
// size, root and chunk count asked for.
// The root's messages are spread over `channels` channels (default 8).
// Counts: the root copies its own part and sends n - 1 parts of k chunks; the
// others receive one: 2n - 1 instructions, n - 1 transfers, whatever k.
// Volume (M = the root's input): (n-1)/n M sent by the root; 1 step.
//
// Roots 0, 1, the middle one and the last.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// One channel, and 32 (the most a rank may run at once), give the same counts: only
// how the root's messages are spread differs.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=channels=1,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=channels=32,root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=root=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N3ROOT2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=11" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=23" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_scatter.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// CHECK-NOT: error
// CHECK: sched-verify: @direct_scatter: n = 2, k = 1: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @direct_scatter: n = 2, k = 2: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @direct_scatter: n = 2, k = 3: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @direct_scatter: n = 3, k = 1: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @direct_scatter: n = 3, k = 2: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @direct_scatter: n = 3, k = 3: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @direct_scatter: n = 6, k = 1: verified (11 instructions, 5 transfers)
// CHECK: sched-verify: @direct_scatter: n = 6, k = 2: verified (11 instructions, 5 transfers)
// CHECK: sched-verify: @direct_scatter: n = 6, k = 3: verified (11 instructions, 5 transfers)
// CHECK: sched-verify: @direct_scatter: n = 12, k = 1: verified (23 instructions, 11 transfers)
// CHECK: sched-verify: @direct_scatter: n = 12, k = 2: verified (23 instructions, 11 transfers)
// CHECK: sched-verify: @direct_scatter: n = 12, k = 3: verified (23 instructions, 11 transfers)
// CHECK: sched-verify: @direct_scatter: n = 24, k = 1: verified (47 instructions, 23 transfers)
// CHECK: sched-verify: @direct_scatter: n = 24, k = 2: verified (47 instructions, 23 transfers)
// CHECK: sched-verify: @direct_scatter: n = 24, k = 3: verified (47 instructions, 23 transfers)
// CHECK: sched-verify: @direct_scatter: n = 64, k = 1: verified (127 instructions, 63 transfers)
// CHECK: sched-verify: @direct_scatter: n = 64, k = 2: verified (127 instructions, 63 transfers)
// CHECK: sched-verify: @direct_scatter: n = 64, k = 3: verified (127 instructions, 63 transfers)
// CHECK-NOT: error
// N3ROOT2-NOT: error
// N3ROOT2: sched-verify: @direct_scatter: n = 3, k = 1: verified (5 instructions, 2 transfers)
// N3ROOT2: sched-verify: @direct_scatter: n = 3, k = 2: verified (5 instructions, 2 transfers)
// N3ROOT2: sched-verify: @direct_scatter: n = 3, k = 3: verified (5 instructions, 2 transfers)
// N3ROOT2-NOT: error
// N6ROOT3-NOT: error
// N6ROOT3: sched-verify: @direct_scatter: n = 6, k = 1: verified (11 instructions, 5 transfers)
// N6ROOT3: sched-verify: @direct_scatter: n = 6, k = 2: verified (11 instructions, 5 transfers)
// N6ROOT3: sched-verify: @direct_scatter: n = 6, k = 3: verified (11 instructions, 5 transfers)
// N6ROOT3-NOT: error
// N12ROOT6-NOT: error
// N12ROOT6: sched-verify: @direct_scatter: n = 12, k = 1: verified (23 instructions, 11 transfers)
// N12ROOT6: sched-verify: @direct_scatter: n = 12, k = 2: verified (23 instructions, 11 transfers)
// N12ROOT6: sched-verify: @direct_scatter: n = 12, k = 3: verified (23 instructions, 11 transfers)
// N12ROOT6-NOT: error
// N24ROOT12-NOT: error
// N24ROOT12: sched-verify: @direct_scatter: n = 24, k = 1: verified (47 instructions, 23 transfers)
// N24ROOT12: sched-verify: @direct_scatter: n = 24, k = 2: verified (47 instructions, 23 transfers)
// N24ROOT12: sched-verify: @direct_scatter: n = 24, k = 3: verified (47 instructions, 23 transfers)
// N24ROOT12-NOT: error
// N64ROOT32-NOT: error
// N64ROOT32: sched-verify: @direct_scatter: n = 64, k = 1: verified (127 instructions, 63 transfers)
// N64ROOT32: sched-verify: @direct_scatter: n = 64, k = 2: verified (127 instructions, 63 transfers)
// N64ROOT32: sched-verify: @direct_scatter: n = 64, k = 3: verified (127 instructions, 63 transfers)
// N64ROOT32-NOT: error

// The built-in pipelined chain broadcast is correct and deadlock-free for every
// group size, root and chunk count asked for.
// Counts: the root copies its input once and sends k chunks; each of the other
// n - 1 ranks runs one instruction per chunk (a fused recv_copy_send, or a recv
// at the end of the chain): 1 + n k instructions, (n-1) k transfers.
// Volume: M sent by every rank but the last; steps n + k - 2 chunk steps.
//
// Roots 0, 1, the middle one and the last.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=root=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N3ROOT2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=11" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=23" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/chain_broadcast.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// CHECK-NOT: error
// CHECK: sched-verify: @chain_broadcast: n = 2, k = 1: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 2, k = 2: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 2, k = 3: verified (7 instructions, 3 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 3, k = 1: verified (4 instructions, 2 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 3, k = 2: verified (7 instructions, 4 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 3, k = 3: verified (10 instructions, 6 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 6, k = 1: verified (7 instructions, 5 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 6, k = 2: verified (13 instructions, 10 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 6, k = 3: verified (19 instructions, 15 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 12, k = 1: verified (13 instructions, 11 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 12, k = 2: verified (25 instructions, 22 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 12, k = 3: verified (37 instructions, 33 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 24, k = 1: verified (25 instructions, 23 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 24, k = 2: verified (49 instructions, 46 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 24, k = 3: verified (73 instructions, 69 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 64, k = 1: verified (65 instructions, 63 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 64, k = 2: verified (129 instructions, 126 transfers)
// CHECK: sched-verify: @chain_broadcast: n = 64, k = 3: verified (193 instructions, 189 transfers)
// CHECK-NOT: error
// N3ROOT2-NOT: error
// N3ROOT2: sched-verify: @chain_broadcast: n = 3, k = 1: verified (4 instructions, 2 transfers)
// N3ROOT2: sched-verify: @chain_broadcast: n = 3, k = 2: verified (7 instructions, 4 transfers)
// N3ROOT2: sched-verify: @chain_broadcast: n = 3, k = 3: verified (10 instructions, 6 transfers)
// N3ROOT2-NOT: error
// N6ROOT3-NOT: error
// N6ROOT3: sched-verify: @chain_broadcast: n = 6, k = 1: verified (7 instructions, 5 transfers)
// N6ROOT3: sched-verify: @chain_broadcast: n = 6, k = 2: verified (13 instructions, 10 transfers)
// N6ROOT3: sched-verify: @chain_broadcast: n = 6, k = 3: verified (19 instructions, 15 transfers)
// N6ROOT3-NOT: error
// N12ROOT6-NOT: error
// N12ROOT6: sched-verify: @chain_broadcast: n = 12, k = 1: verified (13 instructions, 11 transfers)
// N12ROOT6: sched-verify: @chain_broadcast: n = 12, k = 2: verified (25 instructions, 22 transfers)
// N12ROOT6: sched-verify: @chain_broadcast: n = 12, k = 3: verified (37 instructions, 33 transfers)
// N12ROOT6-NOT: error
// N24ROOT12-NOT: error
// N24ROOT12: sched-verify: @chain_broadcast: n = 24, k = 1: verified (25 instructions, 23 transfers)
// N24ROOT12: sched-verify: @chain_broadcast: n = 24, k = 2: verified (49 instructions, 46 transfers)
// N24ROOT12: sched-verify: @chain_broadcast: n = 24, k = 3: verified (73 instructions, 69 transfers)
// N24ROOT12-NOT: error
// N64ROOT32-NOT: error
// N64ROOT32: sched-verify: @chain_broadcast: n = 64, k = 1: verified (65 instructions, 63 transfers)
// N64ROOT32: sched-verify: @chain_broadcast: n = 64, k = 2: verified (129 instructions, 126 transfers)
// N64ROOT32: sched-verify: @chain_broadcast: n = 64, k = 3: verified (193 instructions, 189 transfers)
// N64ROOT32-NOT: error

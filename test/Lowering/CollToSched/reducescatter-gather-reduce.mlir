// The built-in reduce-scatter + gather reduce is correct and deadlock-free for
// every group size, root and chunk count asked for (chunk unit n: k = chunks *
// n, blocks of k / n chunks).
// Counts: every rank runs the ring reduce-scatter, a send and n - 2 fused
// steps, then its last step (n instructions, n - 1 sends each: n (n-1)
// transfers); for the n - 1 non-root ranks that last step also sends the block
// to the root (n - 1 transfers), and the root receives n - 1 blocks
// (n - 1 instructions): n^2 + n - 1 instructions, n^2 - 1 transfers.
// Volume: M sent by every rank but the root, which sends (n-1)/n M and
// receives 2 (n-1)/n M; steps n.
//
// Roots 0, 1, the middle one and the last.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=root=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N3ROOT2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=11" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=23" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/reducescatter_gather_reduce.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// CHECK-NOT: error
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 2, k = 2: verified (5 instructions, 3 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 2, k = 4: verified (5 instructions, 3 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 2, k = 6: verified (5 instructions, 3 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 3, k = 3: verified (11 instructions, 8 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 3, k = 6: verified (11 instructions, 8 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 3, k = 9: verified (11 instructions, 8 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 6, k = 6: verified (41 instructions, 35 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 6, k = 12: verified (41 instructions, 35 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 6, k = 18: verified (41 instructions, 35 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 12, k = 12: verified (155 instructions, 143 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 12, k = 24: verified (155 instructions, 143 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 12, k = 36: verified (155 instructions, 143 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 24, k = 24: verified (599 instructions, 575 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 24, k = 48: verified (599 instructions, 575 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 24, k = 72: verified (599 instructions, 575 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 64, k = 64: verified (4159 instructions, 4095 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 64, k = 128: verified (4159 instructions, 4095 transfers)
// CHECK: sched-verify: @reducescatter_gather_reduce: n = 64, k = 192: verified (4159 instructions, 4095 transfers)
// CHECK-NOT: error
// N3ROOT2-NOT: error
// N3ROOT2: sched-verify: @reducescatter_gather_reduce: n = 3, k = 3: verified (11 instructions, 8 transfers)
// N3ROOT2: sched-verify: @reducescatter_gather_reduce: n = 3, k = 6: verified (11 instructions, 8 transfers)
// N3ROOT2: sched-verify: @reducescatter_gather_reduce: n = 3, k = 9: verified (11 instructions, 8 transfers)
// N3ROOT2-NOT: error
// N6ROOT3-NOT: error
// N6ROOT3: sched-verify: @reducescatter_gather_reduce: n = 6, k = 6: verified (41 instructions, 35 transfers)
// N6ROOT3: sched-verify: @reducescatter_gather_reduce: n = 6, k = 12: verified (41 instructions, 35 transfers)
// N6ROOT3: sched-verify: @reducescatter_gather_reduce: n = 6, k = 18: verified (41 instructions, 35 transfers)
// N6ROOT3-NOT: error
// N12ROOT6-NOT: error
// N12ROOT6: sched-verify: @reducescatter_gather_reduce: n = 12, k = 12: verified (155 instructions, 143 transfers)
// N12ROOT6: sched-verify: @reducescatter_gather_reduce: n = 12, k = 24: verified (155 instructions, 143 transfers)
// N12ROOT6: sched-verify: @reducescatter_gather_reduce: n = 12, k = 36: verified (155 instructions, 143 transfers)
// N12ROOT6-NOT: error
// N24ROOT12-NOT: error
// N24ROOT12: sched-verify: @reducescatter_gather_reduce: n = 24, k = 24: verified (599 instructions, 575 transfers)
// N24ROOT12: sched-verify: @reducescatter_gather_reduce: n = 24, k = 48: verified (599 instructions, 575 transfers)
// N24ROOT12: sched-verify: @reducescatter_gather_reduce: n = 24, k = 72: verified (599 instructions, 575 transfers)
// N24ROOT12-NOT: error
// N64ROOT32-NOT: error
// N64ROOT32: sched-verify: @reducescatter_gather_reduce: n = 64, k = 64: verified (4159 instructions, 4095 transfers)
// N64ROOT32: sched-verify: @reducescatter_gather_reduce: n = 64, k = 128: verified (4159 instructions, 4095 transfers)
// N64ROOT32: sched-verify: @reducescatter_gather_reduce: n = 64, k = 192: verified (4159 instructions, 4095 transfers)
// N64ROOT32-NOT: error

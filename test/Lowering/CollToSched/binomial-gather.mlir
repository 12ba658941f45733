// The built-in binomial gather is correct and deadlock-free for every group
// size, root and chunk count asked for.
// Counts: the root copies its own part (1); each of the (n-2)/2 (rounded down)
// other ranks with children (q even, q + 1 < n) copies its input to scratch;
// each of the n - 1 tree edges is a send and a recv (2 (n-1)); a root other
// than rank 0 rotates the parts from scratch into place (2 copies, 1 when it
// is the last rank): 1 + 2 (n-1) + floor((n-2)/2) (+ 2, or + 1 for root
// n - 1) instructions, n - 1 transfers, whatever k.
// Volume (M = one rank's input): the root receives (n-1) M, any other rank
// sends at most n/2 M; steps ceil(log2 n).
//
// Roots 0, 1, the middle one and the last.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROOT1
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=root=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N3ROOT2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT5
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=11" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT11
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=23" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT23
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/binomial_gather.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT63
// CHECK-NOT: error
// CHECK: sched-verify: @binomial_gather: n = 2, k = 1: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @binomial_gather: n = 2, k = 2: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @binomial_gather: n = 2, k = 3: verified (3 instructions, 1 transfers)
// CHECK: sched-verify: @binomial_gather: n = 3, k = 1: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @binomial_gather: n = 3, k = 2: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @binomial_gather: n = 3, k = 3: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @binomial_gather: n = 6, k = 1: verified (13 instructions, 5 transfers)
// CHECK: sched-verify: @binomial_gather: n = 6, k = 2: verified (13 instructions, 5 transfers)
// CHECK: sched-verify: @binomial_gather: n = 6, k = 3: verified (13 instructions, 5 transfers)
// CHECK: sched-verify: @binomial_gather: n = 12, k = 1: verified (28 instructions, 11 transfers)
// CHECK: sched-verify: @binomial_gather: n = 12, k = 2: verified (28 instructions, 11 transfers)
// CHECK: sched-verify: @binomial_gather: n = 12, k = 3: verified (28 instructions, 11 transfers)
// CHECK: sched-verify: @binomial_gather: n = 24, k = 1: verified (58 instructions, 23 transfers)
// CHECK: sched-verify: @binomial_gather: n = 24, k = 2: verified (58 instructions, 23 transfers)
// CHECK: sched-verify: @binomial_gather: n = 24, k = 3: verified (58 instructions, 23 transfers)
// CHECK: sched-verify: @binomial_gather: n = 64, k = 1: verified (158 instructions, 63 transfers)
// CHECK: sched-verify: @binomial_gather: n = 64, k = 2: verified (158 instructions, 63 transfers)
// CHECK: sched-verify: @binomial_gather: n = 64, k = 3: verified (158 instructions, 63 transfers)
// CHECK-NOT: error
// ROOT1-NOT: error
// ROOT1: sched-verify: @binomial_gather: n = 2, k = 1: verified (4 instructions, 1 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 2, k = 2: verified (4 instructions, 1 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 2, k = 3: verified (4 instructions, 1 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 3, k = 1: verified (7 instructions, 2 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 3, k = 2: verified (7 instructions, 2 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 3, k = 3: verified (7 instructions, 2 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 6, k = 1: verified (15 instructions, 5 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 6, k = 2: verified (15 instructions, 5 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 6, k = 3: verified (15 instructions, 5 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 12, k = 1: verified (30 instructions, 11 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 12, k = 2: verified (30 instructions, 11 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 12, k = 3: verified (30 instructions, 11 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 24, k = 1: verified (60 instructions, 23 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 24, k = 2: verified (60 instructions, 23 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 24, k = 3: verified (60 instructions, 23 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 64, k = 1: verified (160 instructions, 63 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 64, k = 2: verified (160 instructions, 63 transfers)
// ROOT1: sched-verify: @binomial_gather: n = 64, k = 3: verified (160 instructions, 63 transfers)
// ROOT1-NOT: error
// N3ROOT2-NOT: error
// N3ROOT2: sched-verify: @binomial_gather: n = 3, k = 1: verified (6 instructions, 2 transfers)
// N3ROOT2: sched-verify: @binomial_gather: n = 3, k = 2: verified (6 instructions, 2 transfers)
// N3ROOT2: sched-verify: @binomial_gather: n = 3, k = 3: verified (6 instructions, 2 transfers)
// N3ROOT2-NOT: error
// N6ROOT3-NOT: error
// N6ROOT3: sched-verify: @binomial_gather: n = 6, k = 1: verified (15 instructions, 5 transfers)
// N6ROOT3: sched-verify: @binomial_gather: n = 6, k = 2: verified (15 instructions, 5 transfers)
// N6ROOT3: sched-verify: @binomial_gather: n = 6, k = 3: verified (15 instructions, 5 transfers)
// N6ROOT3-NOT: error
// N6ROOT5-NOT: error
// N6ROOT5: sched-verify: @binomial_gather: n = 6, k = 1: verified (14 instructions, 5 transfers)
// N6ROOT5: sched-verify: @binomial_gather: n = 6, k = 2: verified (14 instructions, 5 transfers)
// N6ROOT5: sched-verify: @binomial_gather: n = 6, k = 3: verified (14 instructions, 5 transfers)
// N6ROOT5-NOT: error
// N12ROOT6-NOT: error
// N12ROOT6: sched-verify: @binomial_gather: n = 12, k = 1: verified (30 instructions, 11 transfers)
// N12ROOT6: sched-verify: @binomial_gather: n = 12, k = 2: verified (30 instructions, 11 transfers)
// N12ROOT6: sched-verify: @binomial_gather: n = 12, k = 3: verified (30 instructions, 11 transfers)
// N12ROOT6-NOT: error
// N12ROOT11-NOT: error
// N12ROOT11: sched-verify: @binomial_gather: n = 12, k = 1: verified (29 instructions, 11 transfers)
// N12ROOT11: sched-verify: @binomial_gather: n = 12, k = 2: verified (29 instructions, 11 transfers)
// N12ROOT11: sched-verify: @binomial_gather: n = 12, k = 3: verified (29 instructions, 11 transfers)
// N12ROOT11-NOT: error
// N24ROOT12-NOT: error
// N24ROOT12: sched-verify: @binomial_gather: n = 24, k = 1: verified (60 instructions, 23 transfers)
// N24ROOT12: sched-verify: @binomial_gather: n = 24, k = 2: verified (60 instructions, 23 transfers)
// N24ROOT12: sched-verify: @binomial_gather: n = 24, k = 3: verified (60 instructions, 23 transfers)
// N24ROOT12-NOT: error
// N24ROOT23-NOT: error
// N24ROOT23: sched-verify: @binomial_gather: n = 24, k = 1: verified (59 instructions, 23 transfers)
// N24ROOT23: sched-verify: @binomial_gather: n = 24, k = 2: verified (59 instructions, 23 transfers)
// N24ROOT23: sched-verify: @binomial_gather: n = 24, k = 3: verified (59 instructions, 23 transfers)
// N24ROOT23-NOT: error
// N64ROOT32-NOT: error
// N64ROOT32: sched-verify: @binomial_gather: n = 64, k = 1: verified (160 instructions, 63 transfers)
// N64ROOT32: sched-verify: @binomial_gather: n = 64, k = 2: verified (160 instructions, 63 transfers)
// N64ROOT32: sched-verify: @binomial_gather: n = 64, k = 3: verified (160 instructions, 63 transfers)
// N64ROOT32-NOT: error
// N64ROOT63-NOT: error
// N64ROOT63: sched-verify: @binomial_gather: n = 64, k = 1: verified (159 instructions, 63 transfers)
// N64ROOT63: sched-verify: @binomial_gather: n = 64, k = 2: verified (159 instructions, 63 transfers)
// N64ROOT63: sched-verify: @binomial_gather: n = 64, k = 3: verified (159 instructions, 63 transfers)
// N64ROOT63-NOT: error

// The built-in scatter-allgather broadcast (van de Geijn) is correct and
// deadlock-free for every group size, root and chunk count asked for (chunk
// unit n: k = chunks * n, blocks of k / n chunks).
// Counts: the root copies its input (1); the binomial scatter has n - 1 edges,
// a send and a recv each (2 (n-1)); in the open ring the root sends n - 1
// blocks, ranks 1..n-2 send their own block (n - 2) and every non-root rank
// receives n - 1 blocks ((n-1)^2): n^2 + 2n - 3 instructions, (n-1) + (n-1)^2
// = n (n-1) transfers, independent of k.
// Volume: the root sends 2 (n-1)/n M; steps ceil(log2 n) + n - 1.
//
// Roots 0, 1, the middle one and the last.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3 params=root=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=root=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N3ROOT2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=root=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6ROOT3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=6" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=root=11" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12ROOT6
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=root=23" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24ROOT12
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/scatter_allgather_broadcast.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=root=63" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64ROOT32
// CHECK-NOT: error
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 2, k = 2: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 2, k = 4: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 2, k = 6: verified (5 instructions, 2 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 3, k = 3: verified (12 instructions, 6 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 3, k = 6: verified (12 instructions, 6 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 3, k = 9: verified (12 instructions, 6 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 6, k = 6: verified (45 instructions, 30 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 6, k = 12: verified (45 instructions, 30 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 6, k = 18: verified (45 instructions, 30 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 12, k = 12: verified (165 instructions, 132 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 12, k = 24: verified (165 instructions, 132 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 12, k = 36: verified (165 instructions, 132 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 24, k = 24: verified (621 instructions, 552 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 24, k = 48: verified (621 instructions, 552 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 24, k = 72: verified (621 instructions, 552 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 64, k = 64: verified (4221 instructions, 4032 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 64, k = 128: verified (4221 instructions, 4032 transfers)
// CHECK: sched-verify: @scatter_allgather_broadcast: n = 64, k = 192: verified (4221 instructions, 4032 transfers)
// CHECK-NOT: error
// N3ROOT2-NOT: error
// N3ROOT2: sched-verify: @scatter_allgather_broadcast: n = 3, k = 3: verified (12 instructions, 6 transfers)
// N3ROOT2: sched-verify: @scatter_allgather_broadcast: n = 3, k = 6: verified (12 instructions, 6 transfers)
// N3ROOT2: sched-verify: @scatter_allgather_broadcast: n = 3, k = 9: verified (12 instructions, 6 transfers)
// N3ROOT2-NOT: error
// N6ROOT3-NOT: error
// N6ROOT3: sched-verify: @scatter_allgather_broadcast: n = 6, k = 6: verified (45 instructions, 30 transfers)
// N6ROOT3: sched-verify: @scatter_allgather_broadcast: n = 6, k = 12: verified (45 instructions, 30 transfers)
// N6ROOT3: sched-verify: @scatter_allgather_broadcast: n = 6, k = 18: verified (45 instructions, 30 transfers)
// N6ROOT3-NOT: error
// N12ROOT6-NOT: error
// N12ROOT6: sched-verify: @scatter_allgather_broadcast: n = 12, k = 12: verified (165 instructions, 132 transfers)
// N12ROOT6: sched-verify: @scatter_allgather_broadcast: n = 12, k = 24: verified (165 instructions, 132 transfers)
// N12ROOT6: sched-verify: @scatter_allgather_broadcast: n = 12, k = 36: verified (165 instructions, 132 transfers)
// N12ROOT6-NOT: error
// N24ROOT12-NOT: error
// N24ROOT12: sched-verify: @scatter_allgather_broadcast: n = 24, k = 24: verified (621 instructions, 552 transfers)
// N24ROOT12: sched-verify: @scatter_allgather_broadcast: n = 24, k = 48: verified (621 instructions, 552 transfers)
// N24ROOT12: sched-verify: @scatter_allgather_broadcast: n = 24, k = 72: verified (621 instructions, 552 transfers)
// N24ROOT12-NOT: error
// N64ROOT32-NOT: error
// N64ROOT32: sched-verify: @scatter_allgather_broadcast: n = 64, k = 64: verified (4221 instructions, 4032 transfers)
// N64ROOT32: sched-verify: @scatter_allgather_broadcast: n = 64, k = 128: verified (4221 instructions, 4032 transfers)
// N64ROOT32: sched-verify: @scatter_allgather_broadcast: n = 64, k = 192: verified (4221 instructions, 4032 transfers)
// N64ROOT32-NOT: error

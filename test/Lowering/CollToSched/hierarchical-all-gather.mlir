// Hierarchical all-gather: correct and deadlock-free on 2 or more nodes of
// 2 or more GPUs (it requires nodes), for the (n, gpus_per_node) pairs
// (4,2) (6,2) (12,2) (6,3) (12,3) (12,4) (24,4) (16,8) (24,8) (64,8) and
// chunks 1, 2, 3. Counts: n (k N (g + 1) + 1) instructions, n (n - 1) k transfers, N = n / g.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=4,6,12 chunks=1,2,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=6,12 chunks=1,2,3 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G3 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=12,24 chunks=1,2,3 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G4 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=16,24,64 chunks=1,2,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G8 --implicit-check-not=error
// `rings` sets of rings side by side (selection's channel parameter), as
// many as the chunks (or slices) and more (idle ones).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=4,12 chunks=1,2,4 params=gpus_per_node=2,rings=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=12 chunks=3,7 params=gpus_per_node=4,rings=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R3 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=64 chunks=12 params=gpus_per_node=8,rings=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R12 --implicit-check-not=error
// G2: sched-verify: @hierarchical_all_gather: n = 4, k = 1: verified (28 instructions, 12 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 4, k = 2: verified (52 instructions, 24 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 4, k = 3: verified (76 instructions, 36 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 6, k = 1: verified (60 instructions, 30 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 6, k = 2: verified (114 instructions, 60 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 6, k = 3: verified (168 instructions, 90 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 12, k = 1: verified (228 instructions, 132 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 12, k = 2: verified (444 instructions, 264 transfers)
// G2: sched-verify: @hierarchical_all_gather: n = 12, k = 3: verified (660 instructions, 396 transfers)
// G2-NOT: error
// G3: sched-verify: @hierarchical_all_gather: n = 6, k = 1: verified (54 instructions, 30 transfers)
// G3: sched-verify: @hierarchical_all_gather: n = 6, k = 2: verified (102 instructions, 60 transfers)
// G3: sched-verify: @hierarchical_all_gather: n = 6, k = 3: verified (150 instructions, 90 transfers)
// G3: sched-verify: @hierarchical_all_gather: n = 12, k = 1: verified (204 instructions, 132 transfers)
// G3: sched-verify: @hierarchical_all_gather: n = 12, k = 2: verified (396 instructions, 264 transfers)
// G3: sched-verify: @hierarchical_all_gather: n = 12, k = 3: verified (588 instructions, 396 transfers)
// G3-NOT: error
// G4: sched-verify: @hierarchical_all_gather: n = 12, k = 1: verified (192 instructions, 132 transfers)
// G4: sched-verify: @hierarchical_all_gather: n = 12, k = 2: verified (372 instructions, 264 transfers)
// G4: sched-verify: @hierarchical_all_gather: n = 12, k = 3: verified (552 instructions, 396 transfers)
// G4: sched-verify: @hierarchical_all_gather: n = 24, k = 1: verified (744 instructions, 552 transfers)
// G4: sched-verify: @hierarchical_all_gather: n = 24, k = 2: verified (1464 instructions, 1104 transfers)
// G4: sched-verify: @hierarchical_all_gather: n = 24, k = 3: verified (2184 instructions, 1656 transfers)
// G4-NOT: error
// G8: sched-verify: @hierarchical_all_gather: n = 16, k = 1: verified (304 instructions, 240 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 16, k = 2: verified (592 instructions, 480 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 16, k = 3: verified (880 instructions, 720 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 24, k = 1: verified (672 instructions, 552 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 24, k = 2: verified (1320 instructions, 1104 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 24, k = 3: verified (1968 instructions, 1656 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 64, k = 1: verified (4672 instructions, 4032 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 64, k = 2: verified (9280 instructions, 8064 transfers)
// G8: sched-verify: @hierarchical_all_gather: n = 64, k = 3: verified (13888 instructions, 12096 transfers)
// G8-NOT: error
// R2: sched-verify: @hierarchical_all_gather: n = 4, k = 1: verified (28 instructions, 12 transfers){{$}}
// R2: sched-verify: @hierarchical_all_gather: n = 4, k = 2: verified (52 instructions, 24 transfers){{$}}
// R2: sched-verify: @hierarchical_all_gather: n = 4, k = 4: verified (100 instructions, 48 transfers){{$}}
// R2: sched-verify: @hierarchical_all_gather: n = 12, k = 1: verified (228 instructions, 132 transfers){{$}}
// R2: sched-verify: @hierarchical_all_gather: n = 12, k = 2: verified (444 instructions, 264 transfers){{$}}
// R2: sched-verify: @hierarchical_all_gather: n = 12, k = 4: verified (876 instructions, 528 transfers){{$}}
// R3: sched-verify: @hierarchical_all_gather: n = 12, k = 3: verified (552 instructions, 396 transfers){{$}}
// R3: sched-verify: @hierarchical_all_gather: n = 12, k = 7: verified (1272 instructions, 924 transfers){{$}}
// R12: sched-verify: @hierarchical_all_gather: n = 64, k = 12: verified (55360 instructions, 48384 transfers){{$}}
// per_rail: Q = ceil(rings / per_rail) rail rings beside the node rings
// (the default 4; 1: a rail ring per node ring).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=6 chunks=5,11 params=gpus_per_node=2,rings=5,per_rail=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=9 chunks=7,9 params=gpus_per_node=3,rings=7,per_rail=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRB --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=12 chunks=3,7 params=gpus_per_node=4,rings=3,per_rail=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR1 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_gather.mlir --sched-verify="group-sizes=64 chunks=24 params=gpus_per_node=8,rings=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR24 --implicit-check-not=error
// PR: sched-verify: @hierarchical_all_gather: n = 6, k = 5: verified (276 instructions, 150 transfers){{$}}
// PR: sched-verify: @hierarchical_all_gather: n = 6, k = 11: verified (600 instructions, 330 transfers){{$}}
// PRB: sched-verify: @hierarchical_all_gather: n = 9, k = 7: verified (765 instructions, 504 transfers){{$}}
// PRB: sched-verify: @hierarchical_all_gather: n = 9, k = 9: verified (981 instructions, 648 transfers){{$}}
// PR1: sched-verify: @hierarchical_all_gather: n = 12, k = 3: verified (552 instructions, 396 transfers){{$}}
// PR1: sched-verify: @hierarchical_all_gather: n = 12, k = 7: verified (1272 instructions, 924 transfers){{$}}
// PR24: sched-verify: @hierarchical_all_gather: n = 64, k = 24: verified (110656 instructions, 96768 transfers){{$}}

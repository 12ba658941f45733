// Hierarchical all-reduce: correct and deadlock-free for every (n, g) pair
// asked for, g = gpus_per_node, N = n / g >= 2 nodes, and chunk counts
// (k = chunks * n = c n). It requires nodes (at least 2 of at least 2
// ranks), so n = 3 has no valid node size. Counts: n c (2 g + 2 N - 1)
// instructions, 2 n c (g + N - 2) transfers.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=4 chunks=1,2,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N4G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N24G8
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=35 chunks=1,9 params=gpus_per_node=5 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N35G5
// `rings` sets of rings side by side (selection's channel parameter), as
// many as the chunks (or slices) and more (idle ones).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=4,12 chunks=1,2,4 params=gpus_per_node=2,rings=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=12 chunks=3,7 params=gpus_per_node=4,rings=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R3 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=64 chunks=16 params=gpus_per_node=8,rings=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R8 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=35 chunks=9 params=gpus_per_node=5,rings=3 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R3S2 --implicit-check-not=error

// N4G2: sched-verify: @hierarchical_all_reduce: n = 4, k = 4: verified (28 instructions, 16 transfers)
// N4G2: sched-verify: @hierarchical_all_reduce: n = 4, k = 8: verified (56 instructions, 32 transfers)
// N4G2: sched-verify: @hierarchical_all_reduce: n = 4, k = 12: verified (84 instructions, 48 transfers)
// N4G2-NOT: error
// N6G3: sched-verify: @hierarchical_all_reduce: n = 6, k = 6: verified (54 instructions, 36 transfers)
// N6G3: sched-verify: @hierarchical_all_reduce: n = 6, k = 18: verified (162 instructions, 108 transfers)
// N6G3-NOT: error
// N6G2: sched-verify: @hierarchical_all_reduce: n = 6, k = 6: verified (54 instructions, 36 transfers)
// N6G2: sched-verify: @hierarchical_all_reduce: n = 6, k = 18: verified (162 instructions, 108 transfers)
// N6G2-NOT: error
// N12G4: sched-verify: @hierarchical_all_reduce: n = 12, k = 12: verified (156 instructions, 120 transfers)
// N12G4: sched-verify: @hierarchical_all_reduce: n = 12, k = 36: verified (468 instructions, 360 transfers)
// N12G4-NOT: error
// N24G8: sched-verify: @hierarchical_all_reduce: n = 24, k = 24: verified (504 instructions, 432 transfers)
// N24G8: sched-verify: @hierarchical_all_reduce: n = 24, k = 72: verified (1512 instructions, 1296 transfers)
// N24G8-NOT: error
// N64G8: sched-verify: @hierarchical_all_reduce: n = 64, k = 64: verified (1984 instructions, 1792 transfers)
// N64G8: sched-verify: @hierarchical_all_reduce: n = 64, k = 128: verified (3968 instructions, 3584 transfers)
// N64G8: sched-verify: @hierarchical_all_reduce: n = 64, k = 192: verified (5952 instructions, 5376 transfers)
// N64G8-NOT: error
// N35G5: sched-verify: @hierarchical_all_reduce: n = 35, k = 315: verified (7245 instructions, 6300 transfers)
// N35G5-NOT: error
// R2: sched-verify: @hierarchical_all_reduce: n = 4, k = 4: verified (28 instructions, 16 transfers){{$}}
// R2: sched-verify: @hierarchical_all_reduce: n = 4, k = 8: verified (56 instructions, 32 transfers){{$}}
// R2: sched-verify: @hierarchical_all_reduce: n = 4, k = 16: verified (112 instructions, 64 transfers){{$}}
// R2: sched-verify: @hierarchical_all_reduce: n = 12, k = 12: verified (180 instructions, 144 transfers){{$}}
// R2: sched-verify: @hierarchical_all_reduce: n = 12, k = 24: verified (360 instructions, 288 transfers){{$}}
// R2: sched-verify: @hierarchical_all_reduce: n = 12, k = 48: verified (720 instructions, 576 transfers){{$}}
// R3: sched-verify: @hierarchical_all_reduce: n = 12, k = 36: verified (468 instructions, 360 transfers){{$}}
// R3: sched-verify: @hierarchical_all_reduce: n = 12, k = 84: verified (1092 instructions, 840 transfers){{$}}
// R8: sched-verify: @hierarchical_all_reduce: n = 64, k = 1024: verified (31744 instructions, 28672 transfers){{$}}
// R3S2: sched-verify: @hierarchical_all_reduce: n = 35, k = 315: verified (7245 instructions, 6300 transfers){{$}}
// per_rail: Q = ceil(rings / per_rail) rail rings beside the node rings
// (the default 4; 1: a rail ring per node ring).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=6 chunks=5,10 params=gpus_per_node=2,rings=5,per_rail=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=9 chunks=7,9 params=gpus_per_node=3,rings=7,per_rail=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRB --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=12 chunks=3,7 params=gpus_per_node=4,rings=3,per_rail=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR1 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_reduce.mlir --sched-verify="group-sizes=64 chunks=12 params=gpus_per_node=8,rings=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR12 --implicit-check-not=error
// PR: sched-verify: @hierarchical_all_reduce: n = 6, k = 30: verified (270 instructions, 180 transfers){{$}}
// PR: sched-verify: @hierarchical_all_reduce: n = 6, k = 60: verified (540 instructions, 360 transfers){{$}}
// PRB: sched-verify: @hierarchical_all_reduce: n = 9, k = 63: verified (693 instructions, 504 transfers){{$}}
// PRB: sched-verify: @hierarchical_all_reduce: n = 9, k = 81: verified (891 instructions, 648 transfers){{$}}
// PR1: sched-verify: @hierarchical_all_reduce: n = 12, k = 36: verified (468 instructions, 360 transfers){{$}}
// PR1: sched-verify: @hierarchical_all_reduce: n = 12, k = 84: verified (1092 instructions, 840 transfers){{$}}
// PR12: sched-verify: @hierarchical_all_reduce: n = 64, k = 768: verified (23808 instructions, 21504 transfers){{$}}

// Hierarchical direct reduce-scatter: correct and deadlock-free for every
// (n, g) pair asked for, g = gpus_per_node, N = n / g >= 2 nodes, and chunk
// counts k. Counts: n k (2 N g + 2 N - 1) instructions, n (n - 1) k
// transfers.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=4 chunks=1,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N4G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=6 chunks=1,2 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=6 chunks=2 params=gpus_per_node=2 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=12 chunks=1,3 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=64 chunks=2 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8
// More fold channels (folders, selection's channel parameter): fewer than
// the nodes, as many, and more (idle ones).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=12 chunks=1,3 params=gpus_per_node=4,folders=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4F2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=12 chunks=2 params=gpus_per_node=4,folders=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4F3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=35 chunks=2 params=gpus_per_node=5,folders=9 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N35G5F9
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_reduce_scatter.mlir --sched-verify="group-sizes=64 chunks=2 params=gpus_per_node=8,folders=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8F8

// N4G2: sched-verify: @hierarchical_direct_reduce_scatter: n = 4, k = 1: verified (44 instructions, 12 transfers)
// N4G2: sched-verify: @hierarchical_direct_reduce_scatter: n = 4, k = 3: verified (132 instructions, 36 transfers)
// N4G2-NOT: error
// N6G3: sched-verify: @hierarchical_direct_reduce_scatter: n = 6, k = 1: verified (90 instructions, 30 transfers)
// N6G3: sched-verify: @hierarchical_direct_reduce_scatter: n = 6, k = 2: verified (180 instructions, 60 transfers)
// N6G3-NOT: error
// N6G2: sched-verify: @hierarchical_direct_reduce_scatter: n = 6, k = 2: verified (204 instructions, 60 transfers)
// N6G2-NOT: error
// N12G4: sched-verify: @hierarchical_direct_reduce_scatter: n = 12, k = 1: verified (348 instructions, 132 transfers)
// N12G4: sched-verify: @hierarchical_direct_reduce_scatter: n = 12, k = 3: verified (1044 instructions, 396 transfers)
// N12G4-NOT: error
// At 64 ranks the race check follows 1472 channel streams (under its
// default limit of 2048).
// N64G8: sched-verify: @hierarchical_direct_reduce_scatter: n = 64, k = 2: verified (18304 instructions, 8064 transfers){{$}}
// N64G8-NOT: error
// N12G4F2: sched-verify: @hierarchical_direct_reduce_scatter: n = 12, k = 1: verified (348 instructions, 132 transfers){{$}}
// N12G4F2: sched-verify: @hierarchical_direct_reduce_scatter: n = 12, k = 3: verified (1044 instructions, 396 transfers){{$}}
// N12G4F2-NOT: error
// N12G4F3: sched-verify: @hierarchical_direct_reduce_scatter: n = 12, k = 2: verified (696 instructions, 264 transfers){{$}}
// N12G4F3-NOT: error
// N35G5F9: sched-verify: @hierarchical_direct_reduce_scatter: n = 35, k = 2: verified (5810 instructions, 2380 transfers){{$}}
// N35G5F9-NOT: error
// At 64 ranks with eight fold channels: 1920 channel streams.
// N64G8F8: sched-verify: @hierarchical_direct_reduce_scatter: n = 64, k = 2: verified (18304 instructions, 8064 transfers){{$}}
// N64G8F8-NOT: error

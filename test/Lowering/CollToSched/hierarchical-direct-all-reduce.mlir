// Hierarchical direct all-reduce: correct and deadlock-free for every
// (n, g) pair asked for, g = gpus_per_node, N = n / g >= 2 nodes, and chunk
// counts (k = K n). Counts: n K (4 N g + 2 N - 3) instructions,
// 2 n (n - 1) K transfers.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=35 chunks=1,2 params=gpus_per_node=5 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N35G5
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=4 chunks=1,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N4G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=6 chunks=1,2 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=6 chunks=2 params=gpus_per_node=2 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=12 chunks=1,2 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=64 chunks=1 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8
// More fold channels (folders, selection's channel parameter): units spread
// over them, fewer than the nodes, as many, and more (idle ones).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=12 chunks=1,2 params=gpus_per_node=4,folders=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4F2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=12 chunks=3 params=gpus_per_node=4,folders=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4F3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=12 chunks=1 params=gpus_per_node=4,folders=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4F5
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=35 chunks=2 params=gpus_per_node=5,folders=4 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N35G5F4
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_direct_all_reduce.mlir --sched-verify="group-sizes=64 chunks=1 params=gpus_per_node=8,folders=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8F2

// N4G2: sched-verify: @hierarchical_direct_all_reduce: n = 4, k = 4: verified (68 instructions, 24 transfers)
// N4G2: sched-verify: @hierarchical_direct_all_reduce: n = 4, k = 12: verified (204 instructions, 72 transfers)
// N4G2-NOT: error
// N6G3: sched-verify: @hierarchical_direct_all_reduce: n = 6, k = 6: verified (150 instructions, 60 transfers)
// N6G3: sched-verify: @hierarchical_direct_all_reduce: n = 6, k = 12: verified (300 instructions, 120 transfers)
// N6G3-NOT: error
// N6G2: sched-verify: @hierarchical_direct_all_reduce: n = 6, k = 12: verified
// N6G2-NOT: error
// N12G4: sched-verify: @hierarchical_direct_all_reduce: n = 12, k = 12: verified (612 instructions, 264 transfers)
// N12G4: sched-verify: @hierarchical_direct_all_reduce: n = 12, k = 24: verified (1224 instructions, 528 transfers)
// N12G4-NOT: error
// An odd number of nodes (the node channels' parity is not the unit's).
// N35G5: sched-verify: @hierarchical_direct_all_reduce: n = 35, k = 35: verified (5285 instructions, 2380 transfers){{$}}
// N35G5: sched-verify: @hierarchical_direct_all_reduce: n = 35, k = 70: verified (10570 instructions, 4760 transfers){{$}}
// N35G5-NOT: error
// At 64 ranks the race check follows 1920 channel streams (under its
// default limit of 2048).
// N64G8: sched-verify: @hierarchical_direct_all_reduce: n = 64, k = 64: verified (17216 instructions, 8064 transfers){{$}}
// N64G8-NOT: error
// N12G4F2: sched-verify: @hierarchical_direct_all_reduce: n = 12, k = 12: verified (612 instructions, 264 transfers){{$}}
// N12G4F2: sched-verify: @hierarchical_direct_all_reduce: n = 12, k = 24: verified (1224 instructions, 528 transfers){{$}}
// N12G4F2-NOT: error
// N12G4F3: sched-verify: @hierarchical_direct_all_reduce: n = 12, k = 36: verified (1836 instructions, 792 transfers){{$}}
// N12G4F3-NOT: error
// N12G4F5: sched-verify: @hierarchical_direct_all_reduce: n = 12, k = 12: verified (612 instructions, 264 transfers){{$}}
// N12G4F5-NOT: error
// N35G5F4: sched-verify: @hierarchical_direct_all_reduce: n = 35, k = 70: verified (10570 instructions, 4760 transfers){{$}}
// N35G5F4-NOT: error
// At 64 ranks with two fold channels: 1984 channel streams.
// N64G8F2: sched-verify: @hierarchical_direct_all_reduce: n = 64, k = 64: verified (17216 instructions, 8064 transfers){{$}}
// N64G8F2-NOT: error

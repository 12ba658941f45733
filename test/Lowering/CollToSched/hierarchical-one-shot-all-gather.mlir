// Hierarchical one-shot all-gather: correct and deadlock-free for every
// (n, g) pair asked for, g = gpus_per_node, N = n / g >= 2 nodes, and chunk
// counts (every instruction moves whole parts, so the counts do not depend
// on k). Counts: n (2 g + 2 N - 3) instructions, n (g + N - 2) transfers.
// Each connection carries one message: one slot is enough.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_one_shot_all_gather.mlir --sched-verify="group-sizes=4 chunks=1,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N4G2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_one_shot_all_gather.mlir --sched-verify="group-sizes=6 chunks=2 params=gpus_per_node=3 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_one_shot_all_gather.mlir --sched-verify="group-sizes=35 chunks=1 params=gpus_per_node=5 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N35G5
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_one_shot_all_gather.mlir --sched-verify="group-sizes=64 chunks=1,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8

// N4G2: sched-verify: @hierarchical_one_shot_all_gather: n = 4, k = 1: verified (20 instructions, 8 transfers){{$}}
// N4G2: sched-verify: @hierarchical_one_shot_all_gather: n = 4, k = 3: verified (20 instructions, 8 transfers){{$}}
// N4G2-NOT: error
// N6G3: sched-verify: @hierarchical_one_shot_all_gather: n = 6, k = 2: verified (42 instructions, 18 transfers){{$}}
// N6G3-NOT: error
// N35G5: sched-verify: @hierarchical_one_shot_all_gather: n = 35, k = 1: verified (735 instructions, 350 transfers){{$}}
// N35G5-NOT: error
// N64G8: sched-verify: @hierarchical_one_shot_all_gather: n = 64, k = 1: verified (1856 instructions, 896 transfers){{$}}
// N64G8: sched-verify: @hierarchical_one_shot_all_gather: n = 64, k = 3: verified (1856 instructions, 896 transfers){{$}}
// N64G8-NOT: error

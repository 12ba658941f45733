// The built-in hierarchical all-to-all is correct and deadlock-free for
// every (n, gpus_per_node) pair asked for and chunks 1, 2, 3, also with one
// slot per connection. With N = n / g: instructions n (2k(N-1) +
// N (1 + 2k(g-1))), transfers n k (N-1) across nodes + n k N (g-1) inside
// nodes = n k (n-1). (3, 1) and (3, 3) are the degenerate one-GPU-per-node
// and one-node groups.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=4 chunks=1,2,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G4X2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G6X3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G6X2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G12X4
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G24X8
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G64X8
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=gpus_per_node=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G3X1
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G3X3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=8,64 chunks=1,5,11 params=gpus_per_node=8 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS
// `groups` G (selection's channel parameter; 4 channels each): fewer and
// more than the default 4, as many as the node offsets and more.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=12 chunks=1,2 params=gpus_per_node=4,groups=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR1 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=8,12 chunks=1,3 params=gpus_per_node=2,groups=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=24 chunks=2 params=gpus_per_node=4,groups=3 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR3 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=64 chunks=1,4 params=gpus_per_node=8,groups=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR8 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all.mlir --sched-verify="group-sizes=12 chunks=2 params=gpus_per_node=3,groups=16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR16 --implicit-check-not=error
// G4X2: sched-verify: @hierarchical_all_to_all: n = 4, k = 1: verified (32 instructions, 12 transfers)
// G4X2: sched-verify: @hierarchical_all_to_all: n = 4, k = 2: verified (56 instructions, 24 transfers)
// G4X2: sched-verify: @hierarchical_all_to_all: n = 4, k = 3: verified (80 instructions, 36 transfers)
// G4X2-NOT: error
// G6X3: sched-verify: @hierarchical_all_to_all: n = 6, k = 1: verified (72 instructions, 30 transfers)
// G6X3: sched-verify: @hierarchical_all_to_all: n = 6, k = 2: verified (132 instructions, 60 transfers)
// G6X3: sched-verify: @hierarchical_all_to_all: n = 6, k = 3: verified (192 instructions, 90 transfers)
// G6X3-NOT: error
// G6X2: sched-verify: @hierarchical_all_to_all: n = 6, k = 1: verified (78 instructions, 30 transfers)
// G6X2: sched-verify: @hierarchical_all_to_all: n = 6, k = 2: verified (138 instructions, 60 transfers)
// G6X2: sched-verify: @hierarchical_all_to_all: n = 6, k = 3: verified (198 instructions, 90 transfers)
// G6X2-NOT: error
// G12X4: sched-verify: @hierarchical_all_to_all: n = 12, k = 1: verified (300 instructions, 132 transfers)
// G12X4: sched-verify: @hierarchical_all_to_all: n = 12, k = 2: verified (564 instructions, 264 transfers)
// G12X4: sched-verify: @hierarchical_all_to_all: n = 12, k = 3: verified (828 instructions, 396 transfers)
// G12X4-NOT: error
// G24X8: sched-verify: @hierarchical_all_to_all: n = 24, k = 1: verified (1176 instructions, 552 transfers)
// G24X8: sched-verify: @hierarchical_all_to_all: n = 24, k = 2: verified (2280 instructions, 1104 transfers)
// G24X8: sched-verify: @hierarchical_all_to_all: n = 24, k = 3: verified (3384 instructions, 1656 transfers)
// G24X8-NOT: error
// G64X8: sched-verify: @hierarchical_all_to_all: n = 64, k = 1: verified (8576 instructions, 4032 transfers)
// G64X8: sched-verify: @hierarchical_all_to_all: n = 64, k = 2: verified (16640 instructions, 8064 transfers)
// G64X8: sched-verify: @hierarchical_all_to_all: n = 64, k = 3: verified (24704 instructions, 12096 transfers)
// G64X8-NOT: error
// G3X1: sched-verify: @hierarchical_all_to_all: n = 3, k = 1: verified (21 instructions, 6 transfers)
// G3X1: sched-verify: @hierarchical_all_to_all: n = 3, k = 2: verified (33 instructions, 12 transfers)
// G3X1: sched-verify: @hierarchical_all_to_all: n = 3, k = 3: verified (45 instructions, 18 transfers)
// G3X1-NOT: error
// G3X3: sched-verify: @hierarchical_all_to_all: n = 3, k = 1: verified (15 instructions, 6 transfers)
// G3X3: sched-verify: @hierarchical_all_to_all: n = 3, k = 2: verified (27 instructions, 12 transfers)
// G3X3: sched-verify: @hierarchical_all_to_all: n = 3, k = 3: verified (39 instructions, 18 transfers)
// G3X3-NOT: error
// SLOTS: n = 64, k = 11: verified (
// SLOTS-NOT: error
// GR2: sched-verify: @hierarchical_all_to_all: n = 8, k = 1: verified (144 instructions, 56 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all: n = 8, k = 3: verified (368 instructions, 168 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all: n = 12, k = 1: verified (336 instructions, 132 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all: n = 12, k = 3: verified (864 instructions, 396 transfers){{$}}
// GR3: sched-verify: @hierarchical_all_to_all: n = 24, k = 2: verified (2352 instructions, 1104 transfers){{$}}
// GR8: sched-verify: @hierarchical_all_to_all: n = 64, k = 1: verified (8576 instructions, 4032 transfers){{$}}
// GR8: sched-verify: @hierarchical_all_to_all: n = 64, k = 4: verified (32768 instructions, 16128 transfers){{$}}
// GR16: sched-verify: @hierarchical_all_to_all: n = 12, k = 2: verified (576 instructions, 264 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all: n = 12, k = 1: verified (300 instructions, 132 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all: n = 12, k = 2: verified (564 instructions, 264 transfers){{$}}

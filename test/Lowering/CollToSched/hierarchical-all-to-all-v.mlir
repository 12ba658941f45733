// The built-in hierarchical all-to-all-v is correct and deadlock-free for
// every (n, gpus_per_node) pair asked for, chunks 1, 2, 3 and every send-count
// pattern (zero blocks are still sent, so the counts never depend on the
// send counts). With N = n / g: instructions n (2k(N-1) + N (1 + 2k(g-1))),
// transfers n k (N-1) across nodes + n k N (g-1) inside nodes = n k (n-1).
// (3, 1) and (3, 3) are the degenerate one-GPU-per-node and one-node groups.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=4 chunks=1,2,3 params=gpus_per_node=2 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G4X2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=3 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G6X3
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=2 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G6X2
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=gpus_per_node=4 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G12X4
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=24 chunks=1,2,3 params=gpus_per_node=8 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G24X8
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=gpus_per_node=8 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G64X8
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=gpus_per_node=1 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G3X1
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=3 chunks=1,2,3 params=gpus_per_node=3 counts=uniform,skewed,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=G3X3
// `groups` G (selection's channel parameter; 4 channels each): fewer and
// more than the default 4, as many as the node offsets and more.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=12 chunks=1,2 params=gpus_per_node=4,groups=1 counts=uniform,skewed,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR1 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=8 chunks=1,3 params=gpus_per_node=2,groups=2 counts=uniform,zero-row,zero-col,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=64 chunks=2 params=gpus_per_node=8,groups=8 counts=skewed,random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR8 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_all_to_all_v.mlir --sched-verify="group-sizes=12 chunks=2 params=gpus_per_node=3,groups=16 counts=random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GR16 --implicit-check-not=error
// G4X2: sched-verify: @hierarchical_all_to_all_v: n = 4, k = 1, counts uniform: verified (32 instructions, 12 transfers)
// G4X2: sched-verify: @hierarchical_all_to_all_v: n = 4, k = 2, counts zero-row: verified (56 instructions, 24 transfers)
// G4X2: sched-verify: @hierarchical_all_to_all_v: n = 4, k = 3, counts random: verified (80 instructions, 36 transfers)
// G4X2-NOT: error
// G6X3: sched-verify: @hierarchical_all_to_all_v: n = 6, k = 1, counts uniform: verified (72 instructions, 30 transfers)
// G6X3: sched-verify: @hierarchical_all_to_all_v: n = 6, k = 2, counts zero-row: verified (132 instructions, 60 transfers)
// G6X3: sched-verify: @hierarchical_all_to_all_v: n = 6, k = 3, counts random: verified (192 instructions, 90 transfers)
// G6X3-NOT: error
// G6X2: sched-verify: @hierarchical_all_to_all_v: n = 6, k = 1, counts uniform: verified (78 instructions, 30 transfers)
// G6X2: sched-verify: @hierarchical_all_to_all_v: n = 6, k = 2, counts zero-row: verified (138 instructions, 60 transfers)
// G6X2: sched-verify: @hierarchical_all_to_all_v: n = 6, k = 3, counts random: verified (198 instructions, 90 transfers)
// G6X2-NOT: error
// G12X4: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 1, counts uniform: verified (300 instructions, 132 transfers)
// G12X4: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 2, counts zero-row: verified (564 instructions, 264 transfers)
// G12X4: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 3, counts random: verified (828 instructions, 396 transfers)
// G12X4-NOT: error
// G24X8: sched-verify: @hierarchical_all_to_all_v: n = 24, k = 1, counts uniform: verified (1176 instructions, 552 transfers)
// G24X8: sched-verify: @hierarchical_all_to_all_v: n = 24, k = 2, counts zero-row: verified (2280 instructions, 1104 transfers)
// G24X8: sched-verify: @hierarchical_all_to_all_v: n = 24, k = 3, counts random: verified (3384 instructions, 1656 transfers)
// G24X8-NOT: error
// G64X8: sched-verify: @hierarchical_all_to_all_v: n = 64, k = 1, counts uniform: verified (8576 instructions, 4032 transfers)
// G64X8: sched-verify: @hierarchical_all_to_all_v: n = 64, k = 2, counts zero-row: verified (16640 instructions, 8064 transfers)
// G64X8: sched-verify: @hierarchical_all_to_all_v: n = 64, k = 3, counts random: verified (24704 instructions, 12096 transfers)
// G64X8-NOT: error
// G3X1: sched-verify: @hierarchical_all_to_all_v: n = 3, k = 1, counts uniform: verified (21 instructions, 6 transfers)
// G3X1: sched-verify: @hierarchical_all_to_all_v: n = 3, k = 2, counts zero-row: verified (33 instructions, 12 transfers)
// G3X1: sched-verify: @hierarchical_all_to_all_v: n = 3, k = 3, counts random: verified (45 instructions, 18 transfers)
// G3X1-NOT: error
// G3X3: sched-verify: @hierarchical_all_to_all_v: n = 3, k = 1, counts uniform: verified (15 instructions, 6 transfers)
// G3X3: sched-verify: @hierarchical_all_to_all_v: n = 3, k = 2, counts zero-row: verified (27 instructions, 12 transfers)
// G3X3: sched-verify: @hierarchical_all_to_all_v: n = 3, k = 3, counts random: verified (39 instructions, 18 transfers)
// G3X3-NOT: error
// GR1: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 1, counts uniform: verified (300 instructions, 132 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 1, counts skewed: verified (300 instructions, 132 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 1, counts random: verified (300 instructions, 132 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 2, counts uniform: verified (564 instructions, 264 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 2, counts skewed: verified (564 instructions, 264 transfers){{$}}
// GR1: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 2, counts random: verified (564 instructions, 264 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 1, counts uniform: verified (144 instructions, 56 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 1, counts zero-row: verified (144 instructions, 56 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 1, counts zero-col: verified (144 instructions, 56 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 1, counts random: verified (144 instructions, 56 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 3, counts uniform: verified (368 instructions, 168 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 3, counts zero-row: verified (368 instructions, 168 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 3, counts zero-col: verified (368 instructions, 168 transfers){{$}}
// GR2: sched-verify: @hierarchical_all_to_all_v: n = 8, k = 3, counts random: verified (368 instructions, 168 transfers){{$}}
// GR8: sched-verify: @hierarchical_all_to_all_v: n = 64, k = 2, counts skewed: verified (16640 instructions, 8064 transfers){{$}}
// GR8: sched-verify: @hierarchical_all_to_all_v: n = 64, k = 2, counts random: verified (16640 instructions, 8064 transfers){{$}}
// GR16: sched-verify: @hierarchical_all_to_all_v: n = 12, k = 2, counts random: verified (576 instructions, 264 transfers){{$}}

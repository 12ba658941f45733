// Hierarchical interleaved all-reduce: correct and deadlock-free for every
// (n, g) pair asked for (g = gpus_per_node, N = n / g >= 2 nodes), chunk
// counts (k = chunks * n = c n), node channel counts (rings; more than the
// slices leaves channels idle), rail rings (per_rail), lags (0: each node
// channel waits for the rails after every slice) and 2 connection slots.
// Counts: those of `hierarchical`, n c (2 g + 2 N - 1) instructions and
// 2 n c (g + N - 2) transfers, for any rings and lag.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=4 chunks=1,2,3 params=gpus_per_node=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N4G2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=6 chunks=1,2,3 params=gpus_per_node=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N6G3 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=12 chunks=1,2,3 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N12G4 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=64 chunks=1,2,3 params=gpus_per_node=8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N64G8 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=35 chunks=1,9 params=gpus_per_node=5 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=N35G5 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=6,9 chunks=2,5,7 params=gpus_per_node=3,rings=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=12 chunks=3,7 params=gpus_per_node=4,rings=3,lag=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAG0 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=12 chunks=3,11 params=gpus_per_node=4,rings=3,lag=1 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAG1S2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=6 chunks=5,10 params=gpus_per_node=2,rings=5,per_rail=2,lag=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR2 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=9 chunks=7,9 params=gpus_per_node=3,rings=7,per_rail=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PR1 --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=12 chunks=1 params=gpus_per_node=4,rings=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=IDLE --implicit-check-not=error
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=64 chunks=96 params=gpus_per_node=8,rings=24" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R24 --implicit-check-not=error
// 24 node channels and 8 rail rings (per_rail 3) are the 32 a rank may run;
// 25 node channels need 9 rail rings, 34 channels: refused (co-residency).
// RUN: not collc-opt %collc_src/lowering/CollToSched/algorithms/hierarchical_interleaved_all_reduce.mlir --sched-verify="group-sizes=64 chunks=25 params=gpus_per_node=8,rings=25" -o /dev/null 2>&1 | FileCheck %s --check-prefix=R25

// N4G2: sched-verify: @hierarchical_interleaved_all_reduce: n = 4, k = 4: verified (28 instructions, 16 transfers){{$}}
// N4G2: sched-verify: @hierarchical_interleaved_all_reduce: n = 4, k = 8: verified (56 instructions, 32 transfers){{$}}
// N4G2: sched-verify: @hierarchical_interleaved_all_reduce: n = 4, k = 12: verified (84 instructions, 48 transfers){{$}}
// N6G3: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 6: verified (54 instructions, 36 transfers){{$}}
// N6G3: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 12: verified (108 instructions, 72 transfers){{$}}
// N6G3: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 18: verified (162 instructions, 108 transfers){{$}}
// N12G4: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 12: verified (156 instructions, 120 transfers){{$}}
// N12G4: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 24: verified (312 instructions, 240 transfers){{$}}
// N12G4: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 36: verified (468 instructions, 360 transfers){{$}}
// N64G8: sched-verify: @hierarchical_interleaved_all_reduce: n = 64, k = 64: verified (1984 instructions, 1792 transfers){{$}}
// N64G8: sched-verify: @hierarchical_interleaved_all_reduce: n = 64, k = 128: verified (3968 instructions, 3584 transfers){{$}}
// N64G8: sched-verify: @hierarchical_interleaved_all_reduce: n = 64, k = 192: verified (5952 instructions, 5376 transfers){{$}}
// N35G5: sched-verify: @hierarchical_interleaved_all_reduce: n = 35, k = 35: verified (805 instructions, 700 transfers){{$}}
// N35G5: sched-verify: @hierarchical_interleaved_all_reduce: n = 35, k = 315: verified (7245 instructions, 6300 transfers){{$}}
// R2: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 12: verified (108 instructions, 72 transfers){{$}}
// R2: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 30: verified (270 instructions, 180 transfers){{$}}
// R2: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 42: verified (378 instructions, 252 transfers){{$}}
// R2: sched-verify: @hierarchical_interleaved_all_reduce: n = 9, k = 18: verified (198 instructions, 144 transfers){{$}}
// R2: sched-verify: @hierarchical_interleaved_all_reduce: n = 9, k = 45: verified (495 instructions, 360 transfers){{$}}
// R2: sched-verify: @hierarchical_interleaved_all_reduce: n = 9, k = 63: verified (693 instructions, 504 transfers){{$}}
// LAG0: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 36: verified (468 instructions, 360 transfers){{$}}
// LAG0: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 84: verified (1092 instructions, 840 transfers){{$}}
// LAG1S2: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 36: verified (468 instructions, 360 transfers){{$}}
// LAG1S2: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 132: verified (1716 instructions, 1320 transfers){{$}}
// PR2: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 30: verified (270 instructions, 180 transfers){{$}}
// PR2: sched-verify: @hierarchical_interleaved_all_reduce: n = 6, k = 60: verified (540 instructions, 360 transfers){{$}}
// PR1: sched-verify: @hierarchical_interleaved_all_reduce: n = 9, k = 63: verified (693 instructions, 504 transfers){{$}}
// PR1: sched-verify: @hierarchical_interleaved_all_reduce: n = 9, k = 81: verified (891 instructions, 648 transfers){{$}}
// IDLE: sched-verify: @hierarchical_interleaved_all_reduce: n = 12, k = 12: verified (156 instructions, 120 transfers){{$}}
// R24: sched-verify: @hierarchical_interleaved_all_reduce: n = 64, k = 6144: verified (190464 instructions, 172032 transfers){{$}}
// R25: rank 0 uses 34 channels but at most 32 can run at once

// On real data (the CPU executor, every output element checked): 2 nodes
// of 4, three node channels (slices of uneven count per channel), lag 1,
// f32 and bf16.
// RUN: collc --collective all_reduce --bytes 40KiB --topo %collc_src/test/runtime/Inputs/topologies/2x4.json --algo hierarchical_interleaved --algo-param rings=3,lag=1 --chunks 5 --run | FileCheck %s --check-prefix=CPU
// RUN: collc --collective all_reduce --dtype bf16 --op max --bytes 20KiB --topo %collc_src/test/runtime/Inputs/topologies/2x4.json --algo hierarchical_interleaved --algo-param rings=2,per_rail=1 --chunks 3 --run | FileCheck %s --check-prefix=CPU
// CPU-NOT: not run
// CPU: run: all_reduce (hierarchical_interleaved) at --collective all_reduce {{.*}} 1 group of 8: 0 of {{[1-9][0-9]*}} elements wrong

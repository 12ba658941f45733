// Direct two-shot all-reduce: correct and deadlock-free for every group
// size, chunk count and channel count asked for (the combine waits for the
// last reduce-scatter receive of every channel, two counts of them when
// n - 1 > channels; the all-gather sends wait for the combine). Chunk unit
// n: k = chunks x n. Counts: per rank a copy, a combine and 4 (n - 1)
// sends and receives: n (4n - 2) instructions (1 for n = 1), 2 n (n - 1)
// transfers, whatever k.
// The default (31 channels), one channel and a few: same counts.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_two_shot_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_two_shot_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3 params=channels=1" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_two_shot_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3 params=channels=5" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_two_shot_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3 params=channels=7" -o /dev/null 2>&1 | FileCheck %s
// More chunks than two connection slots: no deadlock.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_two_shot_all_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=9,20 slots=2 params=channels=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// CHECK-NOT: error
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 1, k = 2: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 1, k = 3: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 2, k = 2: verified (12 instructions, 4 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 2, k = 4: verified (12 instructions, 4 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 2, k = 6: verified (12 instructions, 4 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 3, k = 3: verified (30 instructions, 12 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 3, k = 6: verified (30 instructions, 12 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 3, k = 9: verified (30 instructions, 12 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 6, k = 6: verified (132 instructions, 60 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 6, k = 12: verified (132 instructions, 60 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 6, k = 18: verified (132 instructions, 60 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 12, k = 12: verified (552 instructions, 264 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 12, k = 24: verified (552 instructions, 264 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 12, k = 36: verified (552 instructions, 264 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 24, k = 24: verified (2256 instructions, 1104 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 24, k = 48: verified (2256 instructions, 1104 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 24, k = 72: verified (2256 instructions, 1104 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 64, k = 64: verified (16256 instructions, 8064 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 64, k = 128: verified (16256 instructions, 8064 transfers)
// CHECK: sched-verify: @direct_two_shot_all_reduce: n = 64, k = 192: verified (16256 instructions, 8064 transfers)
// DEEP: sched-verify: @direct_two_shot_all_reduce: n = 8, k = 160: verified (240 instructions, 112 transfers)
// DEEP-NOT: error

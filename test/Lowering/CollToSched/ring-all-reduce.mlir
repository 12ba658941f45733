// The built-in ring all-reduce is correct and deadlock-free for every group
// size asked for, for several chunk counts (k = chunks * n), with one ring or
// several parallel rings (one channel each), and with windows of 1 to 7
// chunks (window < the 8 connection slots). Counts: n q (2n-1)
// instructions, n q 2(n-1) transfers, q = k / n, for any rings and window.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_all_reduce.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3,8,9 params=rings=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RINGS
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_all_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=1,7,9,17 params=rings=2,window=7" -o /dev/null 2>&1 | FileCheck %s --check-prefix=W7
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_all_reduce.mlir --sched-verify="group-sizes=2,3,5,8 chunks=1,7,9 params=window=1 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=W1
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/ring_all_reduce.mlir --sched-expand-check="group-size=4 chunks=32 params=rings=3 instructions=0" -o /dev/null | FileCheck %s --check-prefix=CHANNELS

// A group of one rank copies its input.
// CHECK: sched-verify: @ring_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 2, k = 2: verified (6 instructions, 4 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 3, k = 3: verified (15 instructions, 12 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 3, k = 6: verified (30 instructions, 24 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 3, k = 9: verified (45 instructions, 36 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 64, k = 64: verified (8128 instructions, 8064 transfers)
// CHECK: sched-verify: @ring_all_reduce: n = 64, k = 192: verified (24384 instructions, 24192 transfers)
// CHECK-NOT: error

// RINGS: sched-verify: @ring_all_reduce: n = 3, k = 3: verified (15 instructions, 12 transfers)
// RINGS: sched-verify: @ring_all_reduce: n = 3, k = 27: verified (135 instructions, 108 transfers)
// RINGS: sched-verify: @ring_all_reduce: n = 64, k = 64: verified (8128 instructions, 8064 transfers)
// RINGS: sched-verify: @ring_all_reduce: n = 64, k = 576: verified (73152 instructions, 72576 transfers)
// RINGS-NOT: error

// W7: sched-verify: @ring_all_reduce: n = 8, k = 136: verified (2040 instructions, 1904 transfers)
// W7-NOT: error
// W1: sched-verify: @ring_all_reduce: n = 8, k = 72: verified (1080 instructions, 1008 transfers)
// W1-NOT: error

// With rings = 3, every rank runs channels 0..2; q = 8 chunks per part go
// to the rings as 3, 3 and 2 (chunks c, c + 3, ...).
// CHANNELS:      schedule @ring_all_reduce: all_reduce "ring": n = 4, k = 32, buffers input 32 output 32 scratch 0, 224 instructions
// CHANNELS-NEXT: rank 0: 3 channels, 56 instructions
// CHANNELS-NEXT:   channel 0: 21 instructions
// CHANNELS-NEXT:   channel 1: 21 instructions
// CHANNELS-NEXT:   channel 2: 14 instructions

// Rabenseifner all-reduce: correct and deadlock-free for every group size
// asked for, powers of two or not (folded), and chunk counts (k = chunks *
// n = c n). With p = 2^floor(log2 n) and e = n - p folded pairs, the counts
// are 4 c p log2 p + 4 c e + p - e instructions and 2 c p log2 p + 2 c e
// transfers: n = 3 (p = 2, e = 1): 8c + 4c + 1 and 4c + 2c; n = 6 (p = 4,
// e = 2): 32c + 8c + 2 and 16c + 4c; n = 64: 1536c + 64 and 768c.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/rabenseifner_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/rabenseifner_all_reduce.mlir --sched-verify="group-sizes=5,7,9,100 chunks=1,9 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MORE

// A group of one rank copies its input.
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 2, k = 2: verified (10 instructions, 4 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 3, k = 3: verified (13 instructions, 6 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 3, k = 6: verified (25 instructions, 12 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 3, k = 9: verified (37 instructions, 18 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 6, k = 6: verified (42 instructions, 20 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 24, k = 24: verified (296 instructions, 144 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 64, k = 64: verified (1600 instructions, 768 transfers)
// CHECK: sched-verify: @rabenseifner_all_reduce: n = 64, k = 192: verified (4672 instructions, 2304 transfers)
// CHECK-NOT: error

// n = 100: p = 64, e = 36: 4 c 64 6 + 4 c 36 + 28.
// MORE: sched-verify: @rabenseifner_all_reduce: n = 100, k = 100: verified (1708 instructions, 840 transfers)
// MORE: sched-verify: @rabenseifner_all_reduce: n = 100, k = 900: verified (15148 instructions, 7560 transfers)
// MORE-NOT: error

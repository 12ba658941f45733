// The built-in pairwise all-to-all (direct's shifted pairing on one channel,
// one peer at a time) is correct and deadlock-free for every group size and
// chunk count asked for, also with a single slot per connection. Counts
// follow the file's header: instructions n (1 + 2k(n-1)), transfers
// n (n-1) k, as direct's.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/pairwise_all_to_all.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/pairwise_all_to_all.mlir --sched-verify="group-sizes=1,5,9,17 chunks=1,4,11 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS
// CHECK: sched-verify: @pairwise_all_to_all: n = 2, k = 1: verified (6 instructions, 2 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 3, k = 1: verified (15 instructions, 6 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 3, k = 3: verified (39 instructions, 18 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 6, k = 2: verified (126 instructions, 60 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 12, k = 3: verified (804 instructions, 396 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 24, k = 1: verified (1128 instructions, 552 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 64, k = 1: verified (8128 instructions, 4032 transfers)
// CHECK: sched-verify: @pairwise_all_to_all: n = 64, k = 3: verified (24256 instructions, 12096 transfers)
// CHECK-NOT: error
// SLOTS: sched-verify: @pairwise_all_to_all: n = 1, k = 1: verified (1 instructions, 0 transfers)
// SLOTS: sched-verify: @pairwise_all_to_all: n = 17, k = 11: verified (6001 instructions, 2992 transfers)
// SLOTS-NOT: error

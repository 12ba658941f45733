// The built-in Bruck all-to-all (16 independent channels, distance j on
// channel j mod 16) is correct and deadlock-free for every group size and
// chunk count asked for, powers of two and not, also with one slot per
// connection.
//
// Counts, from the file's header (n_c = ceil((n - c) / 16) blocks on channel
// c < min(n, 16)): per rank, channel c sends one message at each step d < 16
// with bit d in c (d < n) and one at each step d = 16 e < n with n_c > e;
// transfers are n times that, whatever k is. Instructions per rank: per
// channel 2 n_c block copies (rotation, reversal), 2 per message and, for the
// steps d = 16 e, 2 ceil((n_c - e) / 2e) pack and unpack copies.
//   n = 3: one block per channel 0, 1, 2; channel 1 sends at d = 1, channel
//          2 at d = 2: 2 messages, 3 x 2 + 2 x 2 = 10 instructions per rank,
//          so 6 transfers and 30 instructions.
//   n = 64: 8 channels send at each of d = 1, 2, 4, 8 and all 16 at d = 16
//          and 32 (n_c = 4; e = 1: 2 runs, e = 2: 1 run): 64 messages;
//          16 x (2 x 4 + (2 x 2 + 2) + (2 x 1 + 2)) + 2 x 32 = 352
//          instructions per rank.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/bruck_all_to_all.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/bruck_all_to_all.mlir --sched-verify="group-sizes=1,5,17,33,100 chunks=1,4 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS
// CHECK: sched-verify: @bruck_all_to_all: n = 2, k = 1: verified (12 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 3, k = 1: verified (30 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 3, k = 3: verified (30 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 6, k = 2: verified (156 instructions, 42 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 12, k = 1: verified (768 instructions, 240 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 24, k = 3: verified (3456 instructions, 960 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 64, k = 1: verified (22528 instructions, 4096 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 64, k = 3: verified (22528 instructions, 4096 transfers)
// CHECK-NOT: error
// SLOTS: n = 1, k = 1: verified (2 instructions, 0 transfers)
// SLOTS: n = 100, k = 4: verified (52800 instructions, 8000 transfers)
// SLOTS-NOT: error

// The built-in Bruck all-to-all (the distances cut into 16 slices of p
// blocks, p the least power of two >= ceil(n / 16), one channel each) is
// correct and deadlock-free for every group size and chunk count asked for,
// powers of two and not, also with one slot per connection.
//
// Counts, from the file's header. Channel c (slice c p .. c p + p - 1,
// clipped to n) executes per rank: 1 rotation copy (2 where the slice wraps
// around the input's end), 2 pack/unpack copies per run and a send and a
// recv for each step d < p, a send and a recv for each step d >= p whose
// bit is set in c p, and one reversal copy per block. Transfers: n times
// the messages of a rank, whatever k is.
//   n = 3: p = 1, three one-block slices; slice 1 moves at d = 1, slice 2 at
//          d = 2: 2 messages and 3 x (1 + 1) + 2 x 2 = 10 instructions per
//          rank: 6 transfers, 30 instructions.
//   n = 64: p = 4; every slice has 2 runs at d = 1 and 1 at d = 2 (6 + 4
//          instructions), 8 slices move at each of d = 4, 8, 16, 32: 64
//          messages and 16 x (1 + 10 + 4) + 4 x 8 x 2 = 304 instructions per
//          rank, plus one wrapping rotation on the 48 ranks r mod 4 != 0:
//          4096 transfers, 64 x 304 + 48 = 19504 instructions.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/bruck_all_to_all.mlir --sched-verify="group-sizes=2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/bruck_all_to_all.mlir --sched-verify="group-sizes=1,5,17,33,100 chunks=1,4 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS
// CHECK: sched-verify: @bruck_all_to_all: n = 2, k = 1: verified (12 instructions, 2 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 3, k = 1: verified (30 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 3, k = 3: verified (30 instructions, 6 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 6, k = 2: verified (156 instructions, 42 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 12, k = 1: verified (768 instructions, 240 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 24, k = 3: verified (2988 instructions, 768 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 64, k = 1: verified (19504 instructions, 4096 transfers)
// CHECK: sched-verify: @bruck_all_to_all: n = 64, k = 3: verified (19504 instructions, 4096 transfers)
// CHECK-NOT: error
// SLOTS: n = 1, k = 1: verified (2 instructions, 0 transfers)
// SLOTS: n = 100, k = 4: verified (40787 instructions, 6000 transfers)
// SLOTS-NOT: error

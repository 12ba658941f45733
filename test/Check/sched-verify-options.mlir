// The options of sched-verify: max-channels, slots, params, counts, and how
// explicit schedules keep their own n and k.

// Too many channels: three channels cannot all be resident when a rank may
// run two.
// RUN: not collc-opt %s --sched-verify="group-sizes=4 max-channels=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANNELS
// CHANNELS:      sched-verify-options.mlir:[[@LINE+9]]:1: error: sched-verify: @three_channels: n = 1, k = 3: 1 error(s)
// CHANNELS:      note: rank 0 uses 3 channels but at most 2 can run at once (a channel is a thread block, and a rank's blocks must all be resident; sched-verify's max-channels option sets the limit)

// By default (32 channels) it verifies; an explicit schedule is checked for
// its own group_size and chunks_per_part, whatever group-sizes and chunks
// say, so once.
// RUN: collc-opt %s --sched-verify="group-sizes=4 chunks=1,2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT:      sched-verify: @three_channels: n = 1, k = 3: verified (3 instructions, 0 transfers)
// DEFAULT-NOT:  sched-verify
sched.schedule @three_channels collective = all_reduce algorithm = "local"
    group_size = 1 chunks_per_part = 3 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
    }
    sched.channel 1 {
      sched.copy src = input[1] dst = output[1]
    }
    sched.channel 2 {
      sched.copy src = input[2] dst = output[2]
    }
  }
}

// params: the chunk unit is a parameter, so params= changes k as well as
// the schedule (k = chunks * pieces).
// RUN: collc-opt %S/Inputs/direct-all-gather.mlir --sched-verify="group-sizes=3 chunks=1,3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMS-DEFAULT
// PARAMS-DEFAULT:      sched-verify: @direct_all_gather: n = 3, k = 2: verified (15 instructions, 6 transfers)
// PARAMS-DEFAULT-NEXT: sched-verify: @direct_all_gather: n = 3, k = 6: verified (15 instructions, 6 transfers)
// RUN: collc-opt %S/Inputs/direct-all-gather.mlir --sched-verify="group-sizes=3 chunks=1,3 params=pieces=5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMS
// PARAMS:      sched-verify: @direct_all_gather: n = 3, k = 5: verified (15 instructions, 6 transfers)
// PARAMS-NEXT: sched-verify: @direct_all_gather: n = 3, k = 15: verified (15 instructions, 6 transfers)

// slots: a ring of fused recv..send steps needs two slots per connection;
// with one it deadlocks, and the cycle says which slot is full.
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 slots=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS
// SLOTS:      ring-all-gather.mlir:3:1: error: sched-verify: @ring_all_gather: n = 3, k = 1: 1 error(s)
// SLOTS:      note: deadlock: rank 0 channel 0 step 1 (instruction 2: recv_copy_send from rank 2 to rank 1) waits for rank 1 channel 0 to post its recv #1 from rank 0 (step 1, instruction 2), which frees the only slot of that connection, but rank 1 channel 0 is stuck at step 1 (instruction 2: recv_copy_send from rank 0 to rank 2), which waits for rank 2 channel 0 to post its recv #1 from rank 1 (step 1, instruction 2), which frees the only slot of that connection, but rank 2 channel 0 is stuck at step 1 (instruction 2: recv_copy_send from rank 1 to rank 0), which waits for rank 0 channel 0 to post its recv #1 from rank 2 (step 1, instruction 2), which frees the only slot of that connection, but rank 0 channel 0 is stuck as said (a wait-for cycle of 3 channel streams; 3 of 3 channel streams are stuck)
// RUN: collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS2
// SLOTS2: sched-verify: @ring_all_gather: n = 3, k = 1: verified (12 instructions, 6 transfers)

// counts: all_to_all_v is checked with each send-count pattern asked for.
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/direct_all_to_all_v.mlir --sched-verify="group-sizes=3 counts=random,zero-col" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNTS
// COUNTS:      sched-verify: @direct_all_to_all_v: n = 3, k = 1, counts random: verified
// COUNTS-NEXT: sched-verify: @direct_all_to_all_v: n = 3, k = 1, counts zero-col: verified

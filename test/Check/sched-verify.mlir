// Correct schedules verify: one line per expansion on stderr, the IR left
// alone, exit code 0.
// RUN: collc-opt %s --sched-verify="group-sizes=1,2,3,5,8 chunks=1,2" 2>%t.err | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s < %t.err

// IR: sched.schedule @ring_all_gather
// IR: sched.schedule @pairwise_exchange
// IR: sched.schedule @reduce_then_broadcast

// The guide's ring all-gather, guarded for n = 1.
// CHECK:      sched-verify: @ring_all_gather: n = 1, k = 1: verified (1 instructions, 0 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 1, k = 2: verified (1 instructions, 0 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 2, k = 1: verified (6 instructions, 2 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 2, k = 2: verified (6 instructions, 2 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 3, k = 1: verified (12 instructions, 6 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 3, k = 2: verified (12 instructions, 6 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 5, k = 1: verified (30 instructions, 20 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 5, k = 2: verified (30 instructions, 20 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 8, k = 1: verified (72 instructions, 56 transfers)
// CHECK-NEXT: sched-verify: @ring_all_gather: n = 8, k = 2: verified (72 instructions, 56 transfers)
sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.if "n >= 2" {
      sched.send to "(r + 1) mod n" src = output["r * k"] count = k
      sched.for s = 1 to "n - 1" {
        sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
            dst = output["((r - s) mod n) * k"] count = k step = s
      }
      sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
          count = k step = "n - 1"
    }
  }
}

// An explicit schedule is checked once, for its own n and k.
// CHECK-NEXT: sched-verify: @pairwise_exchange: n = 2, k = 1: verified (6 instructions, 2 transfers)
sched.schedule @pairwise_exchange collective = all_to_all algorithm = "pairwise"
    group_size = 2 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.send to 1 src = input[1]
      sched.recv from 1 dst = output[1]
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[1] dst = output[1]
      sched.send to 0 src = input[0]
      sched.recv from 0 dst = output[0]
    }
  }
}

// An all-reduce of three ranks through rank 0, with a scratch chunk and a
// dependency across channels: channel 1 of rank 0 broadcasts only once
// channel 0 has reduced.
// CHECK-NEXT: sched-verify: @reduce_then_broadcast: n = 3, k = 1: verified (10 instructions, 4 transfers)
// CHECK-NOT:  error
sched.schedule @reduce_then_broadcast collective = all_reduce
    algorithm = "through_root" group_size = 3 chunks_per_part = 1 scratch = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.recv from 1 dst = scratch[0] step = 1
      sched.copy src = input[0] dst = output[0] step = 1
      sched.reduce src = scratch[0] dst = output[0] step = 1
      sched.recv_reduce_copy from 2 src = output[0] dst = output[0] step = 2
    }
    sched.channel 1 {
      sched.send to 1 src = output[0] step = 3 after = [(channel 0, index 3)]
      sched.send to 2 src = output[0] step = 3
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.send to 0 src = input[0] step = 1
    }
    sched.channel 1 {
      sched.recv from 0 dst = output[0] step = 3
    }
  }
  sched.rank 2 {
    sched.channel 0 {
      sched.send to 0 src = input[0] step = 2
    }
    sched.channel 1 {
      sched.recv from 0 dst = output[0] step = 3
    }
  }
}

// The examples of docs/sched-guide.md.
// RUN: collc-opt %s | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --sched-expand-check="group-size=3 schedule=ring_all_gather" -o /dev/null | FileCheck %s --check-prefix=RING
// RUN: collc-opt %s --sched-expand-check="schedule=pairwise_exchange" -o /dev/null | FileCheck %s --check-prefix=PAIR
// RUN: collc-opt %s --sched-expand-check="group-size=3 chunks=8 params=rings=4 schedule=parallel_rings instructions=0" -o /dev/null | FileCheck %s --check-prefix=RINGS

// Every whole schedule in the guide and the generated reference parses and
// verifies, so the docs cannot drift from the dialect.
// RUN: %python %S/Inputs/extract_mlir_blocks.py %collc_src/docs/sched-guide.md | collc-opt | FileCheck %s --check-prefix=GUIDE
// RUN: %python %S/Inputs/extract_mlir_blocks.py %collc_src/docs/sched-dialect.md | collc-opt | FileCheck %s --check-prefix=REFERENCE
// The sched.let example of the guide and the reference, expanded.
// RUN: %python %S/Inputs/extract_mlir_blocks.py %collc_src/docs/sched-guide.md | collc-opt --sched-expand-check="group-size=3 chunks=2 schedule=shift_all_to_all" -o /dev/null | FileCheck %s --check-prefix=SHIFT
// RUN: %python %S/Inputs/extract_mlir_blocks.py %collc_src/docs/sched-dialect.md | collc-opt --sched-expand-check="group-size=3 chunks=2 schedule=shift_all_to_all" -o /dev/null | FileCheck %s --check-prefix=SHIFT
// GUIDE: sched.schedule @ring_all_gather
// GUIDE: sched.schedule @parallel_rings
// GUIDE: sched.schedule @shift_all_to_all collective = all_to_all algorithm = "shift" {
// GUIDE:   sched.let next = "(r + c) mod n", prev = "(r - c) mod n" {
// GUIDE: sched.schedule @pairwise_exchange
// GUIDE: sched.schedule @p2p collective = send_recv
// REFERENCE: sched.schedule @ring_all_gather
// REFERENCE: sched.schedule @shift_all_to_all
// REFERENCE: sched.schedule @pairwise
// SHIFT:      schedule @shift_all_to_all: all_to_all "shift": n = 3, k = 2, buffers input 6 output 6 scratch 0, 15 instructions
// SHIFT:      rank 1: 3 channels, 5 instructions
// SHIFT-NEXT:   channel 0: 1 instruction
// SHIFT-NEXT:     0: copy src = input[2] dst = output[2] count = 2
// SHIFT-NEXT:   channel 1: 2 instructions
// SHIFT-NEXT:     0: send to 2 src = input[4] count = 2 step = 1
// SHIFT-NEXT:     1: recv from 0 dst = output[0] count = 2 step = 1
// SHIFT-NEXT:   channel 2: 2 instructions
// SHIFT-NEXT:     0: send to 0 src = input[0] count = 2 step = 2
// SHIFT-NEXT:     1: recv from 2 dst = output[4] count = 2 step = 2

// IR-LABEL: sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
// IR:         sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n" dst = output["((r - s) mod n) * k"] count = k step = s
// IR-LABEL: sched.schedule @pairwise_exchange collective = all_to_all algorithm = "pairwise" group_size = 2 chunks_per_part = 1 {

// RING:      rank 1: 1 channel, 4 instructions
// RING-NEXT:   channel 0: 4 instructions
// RING-NEXT:     0: copy src = input[0] dst = output[1]
// RING-NEXT:     1: send to 2 src = output[1]
// RING-NEXT:     2: recv_copy_send from 0 to 2 dst = output[0] step = 1
// RING-NEXT:     3: recv from 0 dst = output[2] step = 2

// PAIR:      schedule @pairwise_exchange: all_to_all "pairwise": n = 2, k = 1, buffers input 2 output 2 scratch 0, 6 instructions
// PAIR-NEXT: rank 0: 1 channel, 3 instructions
// PAIR-NEXT:   channel 0: 3 instructions
// PAIR-NEXT:     0: copy src = input[0] dst = output[0]
// PAIR-NEXT:     1: send to 1 src = input[1]
// PAIR-NEXT:     2: recv from 1 dst = output[1]
// PAIR-NEXT: rank 1: 1 channel, 3 instructions
// PAIR-NEXT:   channel 0: 3 instructions
// PAIR-NEXT:     0: copy src = input[1] dst = output[1]
// PAIR-NEXT:     1: send to 0 src = input[0]
// PAIR-NEXT:     2: recv from 0 dst = output[0]

sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.send to "(r + 1) mod n" src = output["r * k"] count = k
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r - s) mod n) * k"] count = k step = s
    }
    sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
        count = k step = "n - 1"
  }
}

// RINGS:      schedule @parallel_rings: all_gather "rings": n = 3, k = 8, buffers input 8 output 24 scratch 0, 96 instructions
// RINGS-NEXT: rank 0: 4 channels, 32 instructions
// RINGS-NEXT:   channel 0: 8 instructions
// RINGS-NEXT:   channel 1: 8 instructions
// RINGS-NEXT:   channel 2: 8 instructions
// RINGS-NEXT:   channel 3: 8 instructions

sched.schedule @parallel_rings collective = all_gather algorithm = "rings"
    params = {rings = 2} {
  sched.channel c = 0 to rings {
    sched.for j = c to k step rings {
      sched.copy src = input[j] dst = output["r * k + j"]
      sched.send to "(r + 1) mod n" src = output["r * k + j"]
      sched.for s = 1 to "n - 1" {
        sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
            dst = output["((r - s) mod n) * k + j"] step = s
      }
      sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k + j"]
          step = "n - 1"
    }
  }
}

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

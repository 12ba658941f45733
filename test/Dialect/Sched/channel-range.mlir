// Channel ranges: `sched.channel c = LB to UB` stands for channels LB..UB-1,
// with UB an expression of the symbols (here the parameter `rings`), and
// dependencies may name a channel by an expression of c.
// RUN: collc-opt %s | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --emit-bytecode | collc-opt | FileCheck %s --check-prefix=IR

// Expansion: rings = 2 (the default) and rings = 3; the explicit form built
// from the Program expands back to the same Program.
// RUN: collc-opt %s --sched-expand-check="group-size=3 chunks=4 schedule=rings" -o /dev/null | FileCheck %s --check-prefix=EXP
// RUN: collc-opt %s --sched-expand-check="group-size=3 chunks=4 params=rings=3 schedule=rings instructions=0" -o /dev/null | FileCheck %s --check-prefix=EXP3
// RUN: collc-opt %s --sched-expand-check="group-size=4 chunks=3 schedule=rings" -o /dev/null > %t.parametric
// RUN: collc-opt %s --sched-expand="group-size=4 chunks=3 schedule=rings" \
// RUN:   | collc-opt --sched-expand-check="schedule=rings" -o /dev/null > %t.explicit
// RUN: diff %t.parametric %t.explicit
// RUN: collc-opt %s --sched-expand-check="group-size=2 chunks=1 schedule=split" -o /dev/null | FileCheck %s --check-prefix=SPLIT
// RUN: collc-opt %s --sched-expand-check="group-size=2 chunks=1 schedule=empty_range instructions=0" -o /dev/null | FileCheck %s --check-prefix=EMPTY

// IR-LABEL: sched.schedule @rings collective = all_gather algorithm = "ring" params = {rings = 2} {
// IR-NEXT:    sched.channel c = 0 to rings {
// IR-NEXT:      sched.for j = c to k step rings {
// IR-NEXT:        sched.copy src = input[j] dst = output["r * k + j"]
// IR-NEXT:        sched.send to "(r + 1) mod n" src = output["r * k + j"] step = c
// IR:           sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k + j"] step = "n - 1"
sched.schedule @rings collective = all_gather algorithm = "ring"
    params = {rings = 2} {
  sched.channel c = 0 to "rings" {
    sched.for j = c to k step rings {
      sched.copy src = input[j] dst = output["r * k + j"]
      sched.send to "(r + 1) mod n" src = output["r * k + j"] step = c
      sched.for s = 1 to "n - 1" {
        sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
            dst = output["((r - s) mod n) * k + j"] step = s
      }
      sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k + j"]
          step = "n - 1"
    }
  }
}

// EXP:      schedule @rings: all_gather "ring": n = 3, k = 4, buffers input 4 output 12 scratch 0, 48 instructions
// EXP-NEXT: rank 0: 2 channels, 16 instructions
// EXP-NEXT:   channel 0: 8 instructions
// EXP-NEXT:     0: copy src = input[0] dst = output[0]
// EXP-NEXT:     1: send to 1 src = output[0]
// EXP-NEXT:     2: recv_copy_send from 2 to 1 dst = output[8] step = 1
// EXP-NEXT:     3: recv from 2 dst = output[4] step = 2
// EXP-NEXT:     4: copy src = input[2] dst = output[2]
// EXP-NEXT:     5: send to 1 src = output[2]
// EXP-NEXT:     6: recv_copy_send from 2 to 1 dst = output[10] step = 1
// EXP-NEXT:     7: recv from 2 dst = output[6] step = 2
// EXP-NEXT:   channel 1: 8 instructions
// EXP-NEXT:     0: copy src = input[1] dst = output[1]
// EXP-NEXT:     1: send to 1 src = output[1] step = 1
// EXP-NEXT:     2: recv_copy_send from 2 to 1 dst = output[9] step = 1
// EXP-NEXT:     3: recv from 2 dst = output[5] step = 2

// EXP3:      schedule @rings: all_gather "ring": n = 3, k = 4, buffers input 4 output 12 scratch 0, 48 instructions
// EXP3-NEXT: rank 0: 3 channels, 16 instructions
// EXP3-NEXT:   channel 0: 8 instructions
// EXP3-NEXT:   channel 1: 4 instructions
// EXP3-NEXT:   channel 2: 4 instructions

// A reduce on channel 1 + c waits for the copy of channel c: the dependency
// names its channel by an expression.
// IR-LABEL: sched.schedule @split collective = all_reduce params = {width = 1} {
// IR-NEXT:    sched.channel c = 0 to width {
// IR-NEXT:      sched.copy src = input[0] dst = output[0]
// IR-NEXT:    }
// IR-NEXT:    sched.channel c = 1 to "width + 1" {
// IR-NEXT:      sched.send to "(r + 1) mod n" src = input[0]
// IR-NEXT:      sched.recv_reduce_copy from "(r + 1) mod n" src = output[0] dst = output[0] after = [(channel "c - 1", index 0)]
// IR-NEXT:    }
// IR-NEXT:  }
sched.schedule @split collective = all_reduce params = {width = 1} {
  sched.channel c = 0 to width {
    sched.copy src = input[0] dst = output[0]
  }
  sched.channel c = 1 to "width + 1" {
    sched.send to "(r + 1) mod n" src = input[0]
    sched.recv_reduce_copy from "(r + 1) mod n" src = output[0] dst = output[0]
        after = [(channel "c - 1", index 0)]
  }
}

// SPLIT:      rank 0: 2 channels, 3 instructions
// SPLIT-NEXT:   channel 0: 1 instruction
// SPLIT-NEXT:     0: copy src = input[0] dst = output[0]
// SPLIT-NEXT:   channel 1: 2 instructions
// SPLIT-NEXT:     0: send to 1 src = input[0]
// SPLIT-NEXT:     1: recv_reduce_copy from 1 src = output[0] dst = output[0] after = [(channel 0, index 0)]

// An empty range expands to no channel; a constant bound is printed bare.
// IR-LABEL: sched.schedule @empty_range collective = all_gather {
// IR-NEXT:    sched.channel c = 3 to "n - 2" {
// IR:         sched.channel c = 0 to 1 {
sched.schedule @empty_range collective = all_gather {
  sched.channel c = 3 to "n - 2" {
    sched.send to "(r + 1) mod n" src = input[0]
  }
  sched.channel c = 0 to 1 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

// EMPTY: schedule @empty_range: all_gather "empty_range": n = 2, k = 1, buffers input 1 output 2 scratch 0, 2 instructions

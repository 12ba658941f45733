// sched.reduce with `fanin`, and dependencies on a range of channels
// (`after = [(channel A to B, index I)]`): syntax, round trips, expansion
// (the explicit form built from the Program expands back to the same
// Program), verification, and the errors.
// RUN: collc-opt %s | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --emit-bytecode | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --sched-expand-check="group-size=4 chunks=2 schedule=gather_sum" -o /dev/null > %t.parametric
// RUN: collc-opt %s --sched-expand="group-size=4 chunks=2 schedule=gather_sum" \
// RUN:   | collc-opt --sched-expand-check="schedule=gather_sum" -o /dev/null > %t.explicit
// RUN: diff %t.parametric %t.explicit
// RUN: FileCheck %s --check-prefix=EXP < %t.parametric
// RUN: collc-opt %s --sched-expand="group-size=4 chunks=2 schedule=gather_sum" | FileCheck %s --check-prefix=EXPLICIT
// RUN: collc-opt %s --sched-verify="group-sizes=2,3,4,7 chunks=1,2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// IR-LABEL: sched.schedule @gather_sum collective = all_reduce
// IR:         sched.reduce src = scratch[0] dst = output[0] count = k fanin = "n - 1" after = [(channel 1 to n, index 1)]
// IR:         sched.channel c = 1 to n {

// Every rank sends its input to every other rank (channel c: peer r + c),
// receives into scratch, and one reduce with fanin n - 1 combines them all
// once every channel has received.
sched.schedule @gather_sum collective = all_reduce algorithm = "gather_sum"
    scratch = "(n - 1) * k" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
    sched.reduce src = scratch[0] dst = output[0] count = k fanin = "n - 1"
        after = [(channel 1 to n, index 1)]
  }
  sched.channel c = 1 to n {
    sched.send to "(r + c) mod n" src = input[0] count = k
    sched.recv from "(r - c) mod n" dst = scratch["(c - 1) * k"] count = k
  }
}

// n = 4, k = 2: the reduce reads 3 ranges of 2 chunks and waits for
// instruction 1 of channels 1, 2 and 3.
// EXP: schedule @gather_sum: all_reduce "gather_sum": n = 4, k = 2, buffers input 2 output 2 scratch 6, 32 instructions
// EXPLICIT:      sched.rank 0 {
// EXPLICIT-NEXT:   sched.channel 0 {
// EXPLICIT-NEXT:     sched.copy src = input[0] dst = output[0] count = 2
// EXPLICIT-NEXT:     sched.reduce src = scratch[0] dst = output[0] count = 2 fanin = 3 after = [(channel 1, index 1), (channel 2, index 1), (channel 3, index 1)]

// VERIFY: sched-verify: @gather_sum: n = 2, k = 1: verified (8 instructions, 2 transfers)
// VERIFY: sched-verify: @gather_sum: n = 3, k = 2: verified (18 instructions, 6 transfers)
// VERIFY: sched-verify: @gather_sum: n = 4, k = 1: verified (32 instructions, 12 transfers)
// VERIFY: sched-verify: @gather_sum: n = 7, k = 2: verified (98 instructions, 42 transfers)
// VERIFY-NOT: error
// EXP: rank 0: 4 channels, 8 instructions
// EXP-NEXT:   channel 0: 2 instructions
// EXP-NEXT:     0: copy src = input[0] dst = output[0] count = 2
// EXP-NEXT:     1: reduce src = scratch[0] dst = output[0] count = 2 fanin = 3 after = [(channel 1, index 1), (channel 2, index 1), (channel 3, index 1)]

// sched.let: names for expressions, in scope in the let's body; each value
// sees the names bound before it. The custom form, the generic form and
// bytecode round-trip with the names.
// RUN: collc-opt %s | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s --emit-bytecode | collc-opt | FileCheck %s --check-prefix=IR
// RUN: collc-opt %s | collc-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Expansion binds each name once per arrival at the let; the explicit form
// built from the Program expands back to the same Program, and the
// schedule written without lets expands to the same Program too.
// RUN: collc-opt %s --sched-expand-check="group-size=4 chunks=2 schedule=shift" -o /dev/null | FileCheck %s --check-prefix=EXP
// RUN: collc-opt %s --sched-expand-check="group-size=5 chunks=3 schedule=shift" -o /dev/null > %t.let
// RUN: collc-opt %s --sched-expand="group-size=5 chunks=3 schedule=shift" \
// RUN:   | collc-opt --sched-expand-check="schedule=shift" -o /dev/null > %t.explicit
// RUN: diff %t.let %t.explicit
// RUN: collc-opt %s --sched-expand-check="group-size=5 chunks=3 schedule=shift_without_let" -o /dev/null \
// RUN:   | sed 's/shift_without_let/shift/g' > %t.plain
// RUN: diff %t.let %t.plain
// RUN: collc-opt %s --sched-expand-check="group-size=8 chunks=2 schedule=nested" -o /dev/null | FileCheck %s --check-prefix=NESTED
// RUN: collc-opt %s --sched-verify="group-sizes=2,3,4,7 chunks=1,2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// IR-LABEL: sched.schedule @shift collective = all_to_all {
// IR-NEXT:    sched.channel 0 {
// IR-NEXT:      sched.copy src = input["r * k"] dst = output["r * k"] count = k
// IR-NEXT:    }
// IR-NEXT:    sched.channel c = 1 to n {
// IR-NEXT:      sched.let next = "(r + c) mod n", prev = "(r - c) mod n" {
// IR-NEXT:        sched.for j = 0 to k {
// IR-NEXT:          sched.let at = "next * k + j" {
// IR-NEXT:            sched.send to next src = input[at] step = c
// IR-NEXT:          }
// IR-NEXT:          sched.recv from prev dst = output["prev * k + j"] step = c
// IR-NEXT:        }
// IR-NEXT:      }
// IR-NEXT:    }
// IR-NEXT:  }
// GENERIC-LABEL: sym_name = "shift"
// GENERIC: "sched.let"() <{names = ["next", "prev"], values = [#map{{[0-9]+}}, #map{{[0-9]+}}]}> ({
// GENERIC: "sched.let"() <{names = ["at"], values = [#map{{[0-9]+}}]}> ({
sched.schedule @shift collective = all_to_all {
  sched.channel 0 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
  }
  sched.channel c = 1 to n {
    sched.let next = "(r + c) mod n", prev = "(r - c) mod n" {
      sched.for j = 0 to k {
        sched.let at = "next * k + j" {
          sched.send to next src = input[at] step = c
        }
        sched.recv from prev dst = output["prev * k + j"] step = c
      }
    }
  }
}

sched.schedule @shift_without_let collective = all_to_all {
  sched.channel 0 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
  }
  sched.channel c = 1 to n {
    sched.for j = 0 to k {
      sched.send to "(r + c) mod n" src = input["((r + c) mod n) * k + j"] step = c
      sched.recv from "(r - c) mod n" dst = output["((r - c) mod n) * k + j"] step = c
    }
  }
}

// EXP:      schedule @shift: all_to_all "shift": n = 4, k = 2, buffers input 8 output 8 scratch 0, 52 instructions
// EXP-NEXT: rank 0: 4 channels, 13 instructions
// EXP-NEXT:   channel 0: 1 instruction
// EXP-NEXT:     0: copy src = input[0] dst = output[0] count = 2
// EXP-NEXT:   channel 1: 4 instructions
// EXP-NEXT:     0: send to 1 src = input[2] step = 1
// EXP-NEXT:     1: recv from 3 dst = output[6] step = 1
// EXP-NEXT:     2: send to 1 src = input[3] step = 1
// EXP-NEXT:     3: recv from 3 dst = output[7] step = 1
// EXP-NEXT:   channel 2: 4 instructions
// EXP-NEXT:     0: send to 2 src = input[4] step = 2
// EXP-NEXT:     1: recv from 2 dst = output[4] step = 2

// VERIFY: sched-verify: @shift: n = 2, k = 1: verified
// VERIFY: sched-verify: @shift: n = 7, k = 2: verified
// VERIFY: sched-verify: @nested: n = 2, k = 1: verified
// VERIFY: sched-verify: @nested: n = 7, k = 2: verified
// VERIFY-NOT: error

// Lets in loops, guards and else regions, a let of a constant, and a let
// whose value uses a loop variable bound inside an outer let: each name is
// evaluated where the let is reached.
// IR-LABEL: sched.schedule @nested collective = all_gather {
// IR-NEXT:    sched.channel 0 {
// IR-NEXT:      sched.let half = "n floordiv 2", one = 1 {
// IR-NEXT:        sched.copy src = input[0] dst = output["r * k"] count = k
// IR-NEXT:        sched.for s = one to n {
// IR-NEXT:          sched.if "half >= s + 1" {
// IR-NEXT:            sched.let from = "(r - s) mod n" {
// IR-NEXT:              sched.send to "(r + s) mod n" src = input[0] count = k step = s
// IR-NEXT:              sched.recv from from dst = output["from * k"] count = k step = s
// IR-NEXT:            }
// IR-NEXT:          } else {
// IR-NEXT:            sched.let to = "(r + s) mod n", from = "(r - s) mod n" {
// IR-NEXT:              sched.send to to src = input[0] count = k step = "s + half"
// IR-NEXT:              sched.recv from from dst = output["from * k"] count = k step = "s + half"
sched.schedule @nested collective = all_gather {
  sched.channel 0 {
    sched.let half = "n floordiv 2", one = 1 {
      sched.copy src = input[0] dst = output["r * k"] count = k
      sched.for s = one to n {
        sched.if "s < half" {
          sched.let from = "(r - s) mod n" {
            sched.send to "(r + s) mod n" src = input[0] count = k step = s
            sched.recv from from dst = output["from * k"] count = k step = s
          }
        } else {
          sched.let to = "(r + s) mod n", from = "(r - s) mod n" {
            sched.send to to src = input[0] count = k step = "s + half"
            sched.recv from from dst = output["from * k"] count = k
                step = "s + half"
          }
        }
      }
    }
  }
}

// NESTED:      rank 0: 1 channel, 15 instructions
// NESTED-NEXT:   channel 0: 15 instructions
// NESTED-NEXT:     0: copy src = input[0] dst = output[0] count = 2
// NESTED-NEXT:     1: send to 1 src = input[0] count = 2 step = 1
// NESTED-NEXT:     2: recv from 7 dst = output[14] count = 2 step = 1
// NESTED:          6: recv from 5 dst = output[10] count = 2 step = 3
// NESTED-NEXT:     7: send to 4 src = input[0] count = 2 step = 8
// NESTED-NEXT:     8: recv from 4 dst = output[8] count = 2 step = 8

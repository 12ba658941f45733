// Errors that come from what a schedule is expanded for.
// RUN: not collc-opt %s --sched-expand-check="schedule=ring" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-N
// RUN: not collc-opt %s --sched-expand-check="group-size=-3 schedule=ring" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-N
// RUN: not collc-opt %s --sched-expand-check="group-size=1048576 chunks=5000 schedule=ring" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not collc-opt %s --sched-expand-check="group-size=4 chunks=3 schedule=fixed_k" -o /dev/null 2>&1 | FileCheck %s --check-prefix=K
// RUN: not collc-opt %s --sched-expand-check="group-size=4 params=foo=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not collc-opt %s --sched-expand-check="group-size=4 params=width" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAM-SYNTAX
// RUN: not collc-opt %s --sched-expand-check="group-size=4 max-instructions=5 schedule=ring" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAX-INSTRUCTIONS
// RUN: not collc-opt %s --sched-expand-check="group-size=4 max-loop-iterations=3 schedule=ring" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAX-ITERATIONS
// RUN: collc-opt %s --sched-expand-check="group-size=4 params=width=3 schedule=fixed_k instructions=0" -o /dev/null | FileCheck %s --check-prefix=OVERRIDE

// NO-N: error: schedule @ring is parametric; expanding it needs a group size
// BAD-N: error: schedule @ring cannot be expanded for -3 ranks; the group size must be in [1, 2^20]
// TOO-MANY: error: schedule @ring needs 5242880000 chunks per buffer, more than 2^32
// K: error: schedule @fixed_k is written for 2 chunks per part, not 3
// PARAM: error: no schedule has the parameter 'foo' (params option)
// PARAM-SYNTAX: error: parameter override 'width' is not of the form name=integer
// MAX-INSTRUCTIONS: error: expansion exceeds the limit of 5 instructions
// MAX-ITERATIONS: error: expansion exceeds the limit of 3 loop iterations
// OVERRIDE: schedule @fixed_k: all_reduce "fixed_k": n = 4, k = 2, buffers input 2 output 2 scratch 3, 0 instructions

sched.schedule @ring collective = all_gather {
  sched.channel 0 {
    sched.for s = 0 to "n - 1" {
      sched.send to "(r + 1) mod n" src = output["(r - s) mod n"] step = s
    }
  }
}

sched.schedule @fixed_k collective = all_reduce chunks_per_part = 2
    params = {width = 1} scratch = width {
}

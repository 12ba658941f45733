// sched.reduce's fanin and range dependencies: the errors, at parse and
// verification time and when expanded.
// RUN: collc-opt %s -split-input-file -verify-diagnostics
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-expand-check="group-size=4" -o /dev/null

sched.schedule @fanin0 collective = all_reduce scratch = 4 {
  sched.channel 0 {
    // expected-error @+1 {{fanin must be at least 1, got 0}}
    sched.reduce src = scratch[0] dst = output[0] fanin = 0
  }
}

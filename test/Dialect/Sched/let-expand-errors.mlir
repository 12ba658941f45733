// sched.let values checked when the schedule is expanded; the note names
// the bound names with their values.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-expand-check="group-size=4" -o /dev/null

sched.schedule @divides_by_zero collective = all_gather {
  sched.channel 0 {
    sched.for s = 0 to 2 {
      // expected-error @+2 {{the value of 'b' divides by zero}}
      // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1, s = 0, a = 0}}
      sched.let a = "s * n", b = "r floordiv a" {
      }
    }
  }
}

// -----

sched.schedule @bound_value_in_note collective = all_gather {
  sched.channel 0 {
    sched.let to = "r + 1" {
      // expected-error @+2 {{peer 4 of rank 3 at step 0 is outside the group of 4 ranks}}
      // expected-note @+1 {{expanding rank 3, channel 0 for n = 4, k = 1, to = 4}}
      sched.send to to src = input[0]
    }
  }
}

// sched.reduce's fanin and range dependencies, checked when expanded.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-expand-check="group-size=4" -o /dev/null

sched.schedule @too_wide collective = all_reduce scratch = 4 {
  sched.channel 0 {
    // expected-error @+2 {{scratch chunks [0, 5) of rank 0 at step 0 are outside the buffer's 4 chunks}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1}}
    sched.reduce src = scratch[0] dst = output[0] fanin = "n + 1"
  }
}

// -----

sched.schedule @negative_fanin collective = all_reduce scratch = 4 {
  sched.channel 0 {
    // expected-error @+2 {{fanin -1 of rank 0 at step 0 is not positive}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1}}
    sched.reduce src = scratch[0] dst = output[0] fanin = "3 - n"
  }
}

// -----

sched.schedule @own_channel collective = all_reduce scratch = 4 {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0]
  }
  sched.channel 1 {
    // expected-error @+2 {{instruction of rank 0 at step 0 depends on its own channel 1; a channel's instructions already run in order}}
    // expected-note @+1 {{expanding rank 0, channel 1 for n = 4, k = 1}}
    sched.reduce src = scratch[0] dst = output[0] after = [(channel 0 to "n - 2", index 0)]
  }
}

// -----

sched.schedule @past_the_end collective = all_reduce scratch = 4 {
  sched.channel 0 {
    // expected-error @+2 {{dependency channel range [1, 300) of rank 0 at step 0 goes past channel 255}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1}}
    sched.reduce src = scratch[0] dst = output[0] after = [(channel 1 to "n + 296", index 0)]
  }
}

// Channel ranges checked when the schedule is expanded: the bound's value,
// distinct ids, and dependencies whose channel is an expression.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-expand-check="group-size=4" -o /dev/null

sched.schedule @collides collective = all_gather params = {rings = 3} {
  sched.channel c = 0 to rings {
  }
  // expected-error @+2 {{channel 2 of rank 0 comes from two sched.channel ops}}
  // expected-note @+1 {{expanding rank 0, channel 2 for n = 4, k = 1}}
  sched.channel 2 {
  }
}

// -----

sched.schedule @too_many collective = all_gather params = {rings = 300} {
  // expected-error @+2 {{channel range of rank 0 reaches channel 299, outside [0, 256)}}
  // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1}}
  sched.channel c = 0 to rings {
  }
}

// -----

sched.schedule @divides_by_zero collective = all_gather {
  // expected-error @+2 {{the channel range's upper bound expression divides by zero}}
  // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1}}
  sched.channel c = 0 to "n floordiv (n - 4)" {
  }
}

// -----

sched.schedule @own_channel collective = all_gather {
  sched.channel c = 0 to 2 {
    // expected-error @+2 {{instruction of rank 0 at step 0 depends on its own channel 0; a channel's instructions already run in order}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1, c = 0}}
    sched.copy src = input[0] dst = output[0] after = [(channel "c mod 2", index 0)]
  }
}

// -----

sched.schedule @missing_channel collective = all_gather {
  sched.channel c = 0 to 2 {
    // expected-error @+2 {{instruction 0 of rank 0, channel 0 waits for channel 2, which the rank does not have}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1}}
    sched.copy src = input[0] dst = output[0] after = [(channel "c + 2", index 0)]
  }
}

// -----

sched.schedule @channel_out_of_range collective = all_gather {
  sched.channel c = 0 to 2 {
    // expected-error @+2 {{dependency channel 300 of rank 0 at step 0 is outside [0, 256)}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 4, k = 1, c = 0}}
    sched.copy src = input[0] dst = output[0] after = [(channel "c + 300", index 0)]
  }
}

// -----

sched.schedule @index_past_the_end collective = all_gather {
  sched.channel c = 0 to 2 {
    sched.copy src = input[0] dst = output[0]
  }
  sched.channel c = 2 to 4 {
    // expected-error @+2 {{instruction 0 of rank 0, channel 2 waits for instruction 1 of channel 0, which has only 1 instruction}}
    // expected-note @+1 {{expanding rank 0, channel 2 for n = 4, k = 1}}
    sched.copy src = input[0] dst = output[0] after = [(channel "c - 2", index 1)]
  }
}

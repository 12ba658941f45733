// Channel ranges that the parser or the verifier rejects.
// RUN: collc-opt %s -split-input-file -verify-diagnostics

sched.schedule @bound_uses_rank collective = all_gather {
  // expected-error @+1 {{the upper bound of a channel range may only use n, k and the parameters, not 'r'}}
  sched.channel c = 0 to "r + 1" {
  }
}

// -----

sched.schedule @bound_uses_itself collective = all_gather {
  // expected-error @+1 {{unknown name 'c'; in scope: r, n, k}}
  sched.channel c = 0 to "c + 1" {
  }
}

// -----

sched.schedule @missing_to collective = all_gather {
  // expected-error @+1 {{expected 'to'}}
  sched.channel c = 0 "n" {
  }
}

// -----

sched.schedule @symbolic_lower collective = all_gather {
  // expected-error @+1 {{expected integer value}}
  sched.channel c = n to "2 * n" {
  }
}

// -----

sched.schedule @reserved_var collective = all_gather {
  // expected-error @+1 {{channel variable 'k' is reserved (r, n, k, mod, floordiv, ceildiv)}}
  sched.channel k = 0 to 2 {
  }
}

// -----

sched.schedule @shadows_param collective = all_gather params = {rings = 2} {
  // expected-error @+1 {{channel variable 'rings' shadows the schedule's parameter}}
  sched.channel rings = 0 to rings {
  }
}

// -----

sched.schedule @loop_shadows_channel collective = all_gather {
  sched.channel c = 0 to 2 {
    // expected-error @+1 {{loop variable 'c' shadows an enclosing loop's variable}}
    sched.for c = 0 to 2 {
    }
  }
}

// -----

sched.schedule @beyond_256 collective = all_gather {
  // expected-error @+1 {{channel range reaches channel 299, outside [0, 256)}}
  sched.channel c = 250 to 300 {
  }
}

// -----

sched.schedule @overlap collective = all_gather {
  sched.channel c = 0 to 4 {
  }
  // expected-error @+1 {{channel 3 appears twice in the schedule}}
  sched.channel 3 {
  }
}

// -----

sched.schedule @overlap_in_rank collective = all_gather group_size = 2 {
  sched.rank 0 {
    sched.channel c = 2 to 4 {
    }
    // expected-error @+1 {{channel 2 appears twice in rank 0}}
    sched.channel c = 0 to 3 {
    }
  }
}

// -----

sched.schedule @depends_on_itself collective = all_gather {
  sched.channel c = 0 to 4 {
    // expected-error @+1 {{depends on its own channel 2; a channel's instructions already run in order}}
    sched.copy src = input[0] dst = output[0] after = [(channel 2, index 0)]
  }
}

// -----

sched.schedule @depends_on_missing collective = all_gather {
  sched.channel c = 0 to 4 {
    // expected-error @+1 {{depends on channel 4, which the schedule does not have}}
    sched.copy src = input[0] dst = output[0] after = [(channel 4, index 0)]
  }
}

// -----

sched.schedule @negative_dependency_channel collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{channel -1 of a dependency is not a channel id}}
    sched.copy src = input[0] dst = output[0] after = [(channel "1 - 2", index 0)]
  }
}

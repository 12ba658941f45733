// Expansion errors, located at the op responsible, with where the
// expansion was as a note.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-expand-check="group-size=8" -o /dev/null

sched.schedule @peer_outside collective = all_gather {
  sched.channel 0 {
    sched.for s = 1 to 3 {
      // expected-error @+2 {{peer 8 of rank 6 at step 2 is outside the group of 8 ranks}}
      // expected-note @+1 {{expanding rank 6, channel 0 for n = 8, k = 1, s = 2}}
      sched.send to "r + s" src = input[0] step = s
    }
  }
}

// -----

sched.schedule @self collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{rank 0 at step 0 receives from itself; use sched.copy for local moves}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 8, k = 1}}
    sched.recv from "r * 2 mod n" dst = output[0]
  }
}

// -----

sched.schedule @divide_by_zero collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{the peer ('to') expression divides by zero}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 8, k = 1}}
    sched.send to "r mod (n - 8)" src = input[0]
  }
}

// -----

sched.schedule @negative_divisor collective = all_gather {
  sched.channel 3 {
    sched.for s = 0 to 2 {
      // expected-error @+2 {{the source index expression divides by a negative value}}
      // expected-note @+1 {{expanding rank 0, channel 3 for n = 8, k = 1, s = 0}}
      sched.send to "(r + 1) mod n" src = input["s floordiv (k - 2)"]
    }
  }
}

// -----

sched.schedule @overflow collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{the step expression overflows 64-bit integers}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 8, k = 1}}
    sched.copy src = input[0] dst = output[0] step = "n * 4611686018427387904"
  }
}

// -----

sched.schedule @step32 collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{step 8000000000 of rank 0 does not fit in 32 bits}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.copy src = input[0] dst = output[0] step = "n * 1000000000"
  }
}

// -----

sched.schedule @count0 collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{count 0 of rank 0 at step 0 is not positive}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.copy src = input[0] dst = output[0] count = "n - 8"
  }
}

// -----

sched.schedule @range collective = all_reduce {
  sched.channel 0 {
    sched.if "r == 5" {
      // expected-error @+2 {{output chunks [5, 6) of rank 5 at step 0 are outside the buffer's 1 chunks}}
      // expected-note @+1 {{expanding rank 5, channel 0}}
      sched.copy src = input[0] dst = output[r]
    }
  }
}

// -----

sched.schedule @scratch_range collective = all_gather scratch = "n - 7" {
  sched.channel 0 {
    // expected-error @+2 {{scratch chunks [1, 2) of rank 0 at step 0 are outside the buffer's 1 chunks}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.copy src = input[0] dst = scratch[1]
  }
}

// -----

sched.schedule @loop_step collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{loop step 0 of rank 0 is not positive}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.for s = 0 to n step "n - 8" {
    }
  }
}

// -----

sched.schedule @geometric_factor collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{geometric step factor 1 of rank 0 is less than 2}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.for d = 1 to n step * "n - 7" {
    }
  }
}

// -----

sched.schedule @geometric_start collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{geometric loop of rank 0 starts at 0; it must start at 1 or more}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.for d = "n - 8" to n step * 2 {
    }
  }
}

// -----

sched.schedule @guard collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{the condition expression divides by zero}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.if "r mod (n - 8) == 0" {
    }
  }
}

// -----

sched.schedule @dependency_index collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{dependency index -1 of rank 0 at step 0 is negative}}
    // expected-note @+1 {{expanding rank 0, channel 0}}
    sched.copy src = input[0] dst = output[0] after = [(channel 1, index "r - 1")]
  }
  sched.channel 1 {
  }
}

// -----

sched.schedule @dependency_missing collective = all_gather {
  sched.channel 0 {
    // expected-error @+2 {{instruction 0 of rank 0, channel 0 waits for instruction 1 of channel 1, which has only 1 instruction}}
    // expected-note @+1 {{expanding rank 0, channel 0 for n = 8, k = 1}}
    sched.copy src = input[0] dst = output[0] count = 1 after = [(channel 1, index "r + 1")]
  }
  sched.channel 1 {
    sched.copy src = input[0] dst = output[1]
  }
}

// -----

// expected-error @+1 {{schedule @fixed is written for 4 ranks, not 8}}
sched.schedule @fixed collective = all_gather group_size = 4 {
}

// -----

// expected-error @+1 {{schedule @root_outside has root 8, outside the group of 8 ranks}}
sched.schedule @root_outside collective = broadcast root = n {
}

// -----

// expected-error @+1 {{schedule @same_rank sends and receives on the same rank 0}}
sched.schedule @same_rank collective = send_recv root = 0 peer = "n - 8" {
}

// -----

// expected-error @+1 {{schedule @scratch_negative has -1 scratch chunks; expected [0, 2^32)}}
sched.schedule @scratch_negative collective = all_reduce scratch = "n - 9" {
}

// -----

// expected-error @+1 {{schedule @root_divides has a root expression that divides by zero}}
sched.schedule @root_divides collective = gather root = "n mod (k - 1)" {
}


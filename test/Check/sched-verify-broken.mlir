// Hand-written broken schedules: sched-verify catches each, with the
// message compiler/Verify/README.md documents. Errors and notes are all
// located at the sched.schedule (expansion errors at the op responsible).
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-verify="group-sizes=4" -o /dev/null

// A wrong peer: the first send of a ring all-gather skips a rank. Matching
// finds sends nobody receives and receives nobody sends.
// expected-error @+7 {{sched-verify: @wrong_peer: n = 4, k = 1: 6 error(s)}}
// expected-note @+6 {{rank 0 channel 0 step 0 sends 1 chunk to rank 2 on channel 0 (its send #1 on that connection), but rank 2 never receives from rank 0 on channel 0}}
// expected-note @+5 {{rank 1 channel 0 step 3 receives 1 chunk from rank 0 on channel 0 (its recv #3 on that connection), but rank 0 sends to rank 1 on channel 0 only 2 times}}
// expected-note @+4 {{rank 0 channel 0 step 3 receives 1 chunk from rank 3 on channel 0 (its recv #3 on that connection), but rank 3 sends to rank 0 on channel 0 only 2 times}}
// expected-note @+3 {{rank 1 channel 0 step 0 sends 1 chunk to rank 3 on channel 0 (its send #1 on that connection), but rank 3 never receives from rank 1 on channel 0}}
// expected-note @+2 {{rank 2 channel 0 step 3 receives 1 chunk from rank 1 on channel 0 (its recv #3 on that connection), but rank 1 sends to rank 2 on channel 0 only 2 times}}
// expected-note @+1 {{3 more mismatch errors not shown}}
sched.schedule @wrong_peer collective = all_gather algorithm = "ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.send to "(r + 2) mod n" src = output["r * k"] count = k
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r - s) mod n) * k"] count = k step = s
    }
    sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
        count = k step = "n - 1"
  }
}

// -----

// Send and recv swapped: both ranks receive before they send. The deadlock
// message walks the wait-for cycle.
// expected-error @+2 {{sched-verify: @swapped: n = 2, k = 1: 1 error(s)}}
// expected-note @+1 {{deadlock: rank 0 channel 0 step 1 (instruction 1: recv from rank 1) waits for rank 1 channel 0 to post its send #1 to rank 0 (step 1, instruction 2), but rank 1 channel 0 is stuck at step 1 (instruction 1: recv from rank 0), which waits for rank 0 channel 0 to post its send #1 to rank 1 (step 1, instruction 2), but rank 0 channel 0 is stuck as said (a wait-for cycle of 2 channel streams; 2 of 2 channel streams are stuck)}}
sched.schedule @swapped collective = all_to_all algorithm = "pairwise"
    group_size = 2 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.recv from 1 dst = output[1] step = 1
      sched.send to 1 src = input[1] step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[1] dst = output[1]
      sched.recv from 0 dst = output[0] step = 1
      sched.send to 0 src = input[0] step = 1
    }
  }
}

// -----

// A missing contribution: rank 2 never sends its input to the root.
// expected-error @+4 {{sched-verify: @missing: n = 3, k = 1: 3 error(s)}}
// expected-note @+3 {{rank 0, output chunk 0 holds the sum over ranks {0,1} but must hold the sum over ranks 0..2}}
// expected-note @+2 {{rank 1, output chunk 0 holds the sum over ranks {0,1} but must hold the sum over ranks 0..2}}
// expected-note @+1 {{rank 2, output chunk 0 holds the sum over ranks {0,1} but must hold the sum over ranks 0..2}}
sched.schedule @missing collective = all_reduce algorithm = "to_root"
    group_size = 3 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.recv_reduce_copy from 1 src = output[0] dst = output[0] step = 1
      sched.send to 1 src = output[0] step = 2
      sched.send to 2 src = output[0] step = 2
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.send to 0 src = input[0] step = 1
      sched.recv from 0 dst = output[0] step = 2
    }
  }
  sched.rank 2 {
    sched.channel 0 {
      sched.recv from 0 dst = output[0] step = 2
    }
  }
}

// -----

// A contribution counted twice: rank 0 adds its own input again.
// expected-error @+2 {{sched-verify: @double: n = 2, k = 1: 1 error(s)}}
// expected-note @+1 {{rank 0 channel 0 step 1 (instruction 1: reduce), output chunk 0: the contribution of rank 0 is counted twice}}
sched.schedule @double collective = all_reduce algorithm = "twice"
    group_size = 2 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.reduce src = input[0] dst = output[0] step = 1
      sched.send to 1 src = output[0] step = 2
      sched.recv_reduce_copy from 1 src = output[0] dst = output[0] step = 3
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.recv_reduce_copy from 0 src = input[0] dst = output[0] step = 2
      sched.send to 0 src = input[0] step = 3
    }
  }
}

// -----

// Chunks of equal count but different sizes: with k = 2 chunk 0 carries
// one element more than chunk 1 (compiler/Verify/README.md, Model).
// expected-error @+3 {{sched-verify: @elements: n = 2, k = 2: 2 error(s)}}
// expected-note @+2 {{rank 0 channel 0 step 0 sends 1 chunk (1010 elements) to rank 1 on channel 0 (its send #1 on that connection), but rank 1 channel 0 step 1 receives 1 chunk (1009 elements) from rank 0 (its recv #1)}}
// expected-note @+1 {{rank 1 channel 0 step 0 sends 1 chunk (1009 elements) to rank 0 on channel 0 (its send #1 on that connection), but rank 0 channel 0 step 1 receives 1 chunk (1010 elements) from rank 1 (its recv #1)}}
sched.schedule @elements collective = all_reduce algorithm = "mixed"
    group_size = 2 chunks_per_part = 2 {
  sched.rank 0 {
    sched.channel 0 {
      sched.send to 1 src = input[0]
      sched.recv_reduce_copy from 1 src = input[0] dst = output[0] step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.send to 0 src = input[1]
      sched.recv_reduce_copy from 0 src = input[1] dst = output[1] step = 1
    }
  }
}

// -----

// Reducing two different chunks of equal size (k = 4: chunks 0 and 1 have
// 1010 elements each): chunk 0 of rank 0 with chunk 1 of rank 1.
// Each invalid reduce is reported once; the postcondition then names the
// invalid value, and the chunks the exchange never wrote.
// expected-error @+9 {{sched-verify: @mixed: n = 2, k = 4: 8 error(s)}}
// expected-note @+8 {{rank 1 channel 0 step 1 (instruction 1: recv_reduce_copy from rank 0), output chunk 1: reduces input chunk 0 of rank 0 with input chunk 1 of rank 1}}
// expected-note @+7 {{rank 0 channel 0 step 1 (instruction 1: recv_reduce_copy from rank 1), output chunk 0: reduces input chunk 1 of rank 1 with input chunk 0 of rank 0}}
// expected-note @+6 {{rank 0, output chunk 0 holds the result of an invalid reduce but must hold the sum over ranks {0,1}}}
// expected-note @+5 {{rank 0, output chunk 1 was never written but must hold the sum over ranks {0,1}}}
// expected-note @+4 {{rank 0, output chunk 2 was never written but must hold the sum over ranks {0,1}}}
// expected-note @+3 {{rank 0, output chunk 3 was never written but must hold the sum over ranks {0,1}}}
// expected-note @+2 {{rank 1, output chunk 0 was never written but must hold the sum over ranks {0,1}}}
// expected-note @+1 {{3 more postcondition errors not shown}}
sched.schedule @mixed collective = all_reduce algorithm = "mixed"
    group_size = 2 chunks_per_part = 4 {
  sched.rank 0 {
    sched.channel 0 {
      sched.send to 1 src = input[0]
      sched.recv_reduce_copy from 1 src = input[0] dst = output[0] step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.send to 0 src = input[1]
      sched.recv_reduce_copy from 0 src = input[1] dst = output[1] step = 1
    }
  }
}

// -----

// A cycle through a cross-channel dependency: rank 0's channel 0 waits for
// its channel 1, which waits for rank 1's channel 1, which waits (after =)
// for rank 1's channel 0, which waits for rank 0's channel 0.
// expected-error @+2 {{sched-verify: @dep_cycle: n = 2, k = 1: 1 error(s)}}
// expected-note @+1 {{deadlock: rank 0 channel 0 step 0 (instruction 0: copy) waits for rank 0 channel 1 to complete its instruction 0 (step 1: recv from rank 1), but rank 0 channel 1 is stuck at step 1 (instruction 0: recv from rank 1), which waits for rank 1 channel 1 to post its send #1 to rank 0 (step 0, instruction 0), but rank 1 channel 1 is stuck at step 0 (instruction 0: send to rank 0), which waits for rank 1 channel 0 to complete its instruction 1 (step 1: recv from rank 0), but rank 1 channel 0 is stuck at step 1 (instruction 1: recv from rank 0), which waits for rank 0 channel 0 to post its send #1 to rank 1 (step 0, instruction 1), but rank 0 channel 0 is stuck as said (a wait-for cycle of 4 channel streams; 4 of 4 channel streams are stuck)}}
sched.schedule @dep_cycle collective = all_gather algorithm = "two_channels"
    group_size = 2 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0] after = [(channel 1, index 0)]
      sched.send to 1 src = input[0]
    }
    sched.channel 1 {
      sched.recv from 1 dst = output[1] step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[1]
      sched.recv from 0 dst = output[0] step = 1
    }
    sched.channel 1 {
      sched.send to 0 src = input[0] after = [(channel 0, index 1)]
    }
  }
}

// -----

// A send/recv size mismatch: rank 0 sends its part (2 chunks) at once, rank
// 1 receives it one chunk at a time.
// expected-error @+3 {{sched-verify: @sizes: n = 2, k = 2: 2 error(s)}}
// expected-note @+2 {{rank 0 channel 0 step 0 sends 2 chunks to rank 1 on channel 0 (its send #1 on that connection), but rank 1 channel 0 step 1 receives 1 chunk from rank 0 (its recv #1)}}
// expected-note @+1 {{rank 1 channel 0 step 1 receives 1 chunk from rank 0 on channel 0 (its recv #2 on that connection), but rank 0 sends to rank 1 on channel 0 only 1 time}}
sched.schedule @sizes collective = all_gather algorithm = "pair"
    group_size = 2 chunks_per_part = 2 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0] count = 2
      sched.send to 1 src = input[0] count = 2
      sched.recv from 1 dst = output[2] count = 2 step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[2] count = 2
      sched.send to 0 src = input[0] count = 2
      sched.recv from 0 dst = output[0] step = 1
      sched.recv from 0 dst = output[1] step = 1
    }
  }
}

// -----

// The wrong chunk: rank 1 stores rank 0's part in its own slot.
// expected-error @+3 {{sched-verify: @wrong_chunk: n = 2, k = 1: 2 error(s)}}
// expected-note @+2 {{rank 1, output chunk 0 was never written but must hold input chunk 0 of rank 0}}
// expected-note @+1 {{rank 1, output chunk 1 holds input chunk 0 of rank 0 but must hold input chunk 0 of rank 1}}
sched.schedule @wrong_chunk collective = all_gather algorithm = "pair"
    group_size = 2 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.send to 1 src = input[0]
      sched.recv from 1 dst = output[1] step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[1]
      sched.send to 0 src = input[0]
      sched.recv from 0 dst = output[1] step = 1
    }
  }
}

// -----

// An out-of-range chunk is caught when the schedule is expanded, at the op.
sched.schedule @out_of_range collective = all_gather algorithm = "pair"
    group_size = 2 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      // expected-error @+2 {{input chunks [1, 2) of rank 0 at step 0 are outside the buffer's 1 chunks}}
      // expected-note @+1 {{expanding rank 0, channel 0 for n = 2, k = 1}}
      sched.send to 1 src = input[1]
      sched.recv from 1 dst = output[1] step = 1
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[1]
      sched.send to 0 src = input[0]
      sched.recv from 0 dst = output[0] step = 1
    }
  }
}

// -----

// An index off by one: the last rank writes past the end of its output.
sched.schedule @past_the_end collective = all_gather algorithm = "off_by_one" {
  sched.channel 0 {
    // expected-error @+2 {{output chunks [4, 5) of rank 3 at step 0 are outside the buffer's 4 chunks}}
    // expected-note @+1 {{expanding rank 3, channel 0 for n = 4, k = 1}}
    sched.copy src = input[0] dst = output["(r + 1) * k"] count = k
  }
}

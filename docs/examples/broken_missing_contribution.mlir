// docs/writing-algorithms.md, mistake 3: the last step of channel 0 stores
// the arrival without adding the rank's own part.
sched.schedule @broken_missing_contribution collective = reduce_scatter
    algorithm = "bidir_ring"
    attributes {collc.chunk_unit = 2, collc.volume = "(n-1)/n M",
                collc.steps = "n - 1"}
    description = "bidirectional ring: half of each part clockwise, half counter-clockwise; n-1 steps, (n-1)/n M sent per rank" {
  // Clockwise: the first k/2 chunks of every part.
  sched.channel 0 {
    sched.if "n == 1" {
      sched.copy src = input[0] dst = output[0] count = "k floordiv 2"
    } else {
      sched.send to "(r + 1) mod n" src = input["((r - 1) mod n) * k"]
          count = "k floordiv 2"
      sched.for s = 1 to "n - 1" {
        sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
            src = input["((r - 1 - s) mod n) * k"] count = "k floordiv 2"
            step = s
      }
      sched.recv from "(r - 1) mod n"
          dst = output[0] count = "k floordiv 2" step = "n - 1"
    }
  }
  // Counter-clockwise: the last k/2 chunks of every part.
  sched.channel 1 {
    sched.if "n == 1" {
      sched.copy src = input["k floordiv 2"] dst = output["k floordiv 2"]
          count = "k floordiv 2"
    } else {
      sched.send to "(r - 1) mod n" src = input["((r + 1) mod n) * k + k floordiv 2"]
          count = "k floordiv 2"
      sched.for s = 1 to "n - 1" {
        sched.recv_reduce_send from "(r + 1) mod n" to "(r - 1) mod n"
            src = input["((r + 1 + s) mod n) * k + k floordiv 2"]
            count = "k floordiv 2" step = s
      }
      sched.recv_reduce_copy from "(r + 1) mod n" src = input["r * k + k floordiv 2"]
          dst = output["k floordiv 2"] count = "k floordiv 2" step = "n - 1"
    }
  }
}

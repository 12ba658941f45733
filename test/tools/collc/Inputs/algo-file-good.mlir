// A user's algorithm: a bidirectional ring all-gather. The first half of
// every part travels clockwise on channel 0, the second half
// counter-clockwise on channel 1 (k even: collc.chunk_unit = 2).
sched.schedule @bidir_ring_all_gather collective = all_gather
    algorithm = "bidir_ring"
    attributes {collc.chunk_unit = 2, collc.volume = "(n-1) M",
                collc.steps = "n - 1"} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = "k floordiv 2"
    sched.if "n >= 2" {
      sched.send to "(r + 1) mod n" src = input[0] count = "k floordiv 2"
      sched.for s = 1 to "n - 1" {
        sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
            dst = output["((r - s) mod n) * k"] count = "k floordiv 2"
            step = s
      }
      sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
          count = "k floordiv 2" step = "n - 1"
    }
  }
  sched.channel 1 {
    sched.copy src = input["k floordiv 2"] dst = output["r * k + k floordiv 2"]
        count = "k floordiv 2"
    sched.if "n >= 2" {
      sched.send to "(r - 1) mod n" src = input["k floordiv 2"]
          count = "k floordiv 2"
      sched.for s = 1 to "n - 1" {
        sched.recv_copy_send from "(r + 1) mod n" to "(r - 1) mod n"
            dst = output["((r + s) mod n) * k + k floordiv 2"]
            count = "k floordiv 2" step = s
      }
      sched.recv from "(r + 1) mod n"
          dst = output["((r - 1) mod n) * k + k floordiv 2"]
          count = "k floordiv 2" step = "n - 1"
    }
  }
}

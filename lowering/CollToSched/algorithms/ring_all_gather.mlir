// Ring all-gather. At step s (1 <= s < n) rank r receives part (r - s) mod n
// from rank r - 1 and, while s < n - 1, forwards it to rank r + 1; step 0
// sends its own input. Its own part is copied on channel 1, in parallel.
// Chunking: chunk-major (chunk c goes all the way round before chunk c + 1),
// so a connection holds at most two unreceived sends: deadlock-free for any
// k with >= 2 slots (a step-major order deadlocks once k >= slots).
// Bytes sent per rank: (n-1) M (M = input bytes of a rank). Steps: n - 1.
// Instructions: n (k n + 1); transfers: n (n - 1) k.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @ring_all_gather collective = all_gather algorithm = "ring"
    attributes {collc.volume = "(n-1) M", collc.steps = "n - 1"}
    description = "ring: parts travel n-1 hops around one ring, chunk-pipelined; n-1 steps, (n-1) M sent per rank" {
  sched.channel 0 {
    sched.for c = 0 to k {
      sched.send to "(r + 1) mod n" src = input[c]
      sched.for s = 1 to "n - 1" {
        sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
            dst = output["((r - s) mod n) * k + c"] step = s
      }
      sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k + c"]
          step = "n - 1"
    }
  }
  sched.channel 1 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

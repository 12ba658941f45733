// Ring reduce-scatter. Part p is summed along the chain p + 1, p + 2, ..., p:
// step 0 sends the rank's part r - 1; at step s (1 <= s < n - 1) rank r adds
// its part (r - 1 - s) mod n to the partial sum from rank r - 1 and sends it
// on; at step n - 1 it adds its part r and stores the sum.
// Chunking: chunk-major, deadlock-free for any k with >= 2 slots.
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank, n parts).
// Steps: n - 1. Instructions: n^2 k; transfers: n (n - 1) k.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @ring_reduce_scatter collective = reduce_scatter algorithm = "ring"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "n - 1"}
    description = "ring: partial sums travel n-1 hops around one ring, chunk-pipelined; n-1 steps, (n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.for c = 0 to k {
      sched.send to "(r + 1) mod n" src = input["((r - 1) mod n) * k + c"]
      sched.for s = 1 to "n - 1" {
        sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
            src = input["((r - 1 - s) mod n) * k + c"] step = s
      }
      sched.recv_reduce_copy from "(r - 1) mod n" src = input["r * k + c"]
          dst = output[c] step = "n - 1"
    }
  }
}

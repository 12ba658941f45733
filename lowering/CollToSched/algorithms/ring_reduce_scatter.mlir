// Ring reduce-scatter.
//
// Part p is reduced along the chain p + 1, p + 2, ..., p (n - 1 hops): at
// step 0 rank r sends its part r - 1; at step s (1 <= s < n - 1) it receives
// the partial sum of part (r - 1 - s) mod n from rank r - 1, adds its own and
// sends it on; at step n - 1 it receives part r and stores the full sum.
//
// Chunking: chunk-major, as NCCL: chunk c goes all the way round before
// chunk c + 1 starts, so a connection never holds more than two unreceived
// sends (no deadlock for any k with >= 2 slots).
//
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank, n parts).
// Steps: n - 1. Instructions per rank: k n; transfers: n (n - 1) k.

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

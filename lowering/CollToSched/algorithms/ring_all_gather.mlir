// Ring all-gather.
//
// At step s (1 <= s < n) rank r receives part (r - s) mod n from rank r - 1
// and, while s < n - 1, forwards it to rank r + 1; at step 0 it sends its
// own input. Its own part is copied locally at the end.
//
// Chunking: chunk-major, as NCCL: chunk c goes all the way round (n - 1
// transfers) before chunk c + 1 starts, so a connection never holds more
// than two unreceived sends (no deadlock for any k with >= 2 slots; a
// step-major order deadlocks once k >= slots). Chunk c + 1's step 0 is on
// the wire while chunk c's later steps are forwarded downstream.
//
// Bytes sent per rank: (n-1) M (M = input bytes of a rank; (n-1)/n of the
// output). Steps: n - 1.
// Instructions per rank: k n + 1; transfers: n (n - 1) k.

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
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

// One-shot all-reduce: every rank sends its whole buffer to every other
// rank (to r + d for d = 1 .. n-1, staggered) and reduces the n
// contributions locally, chunk by chunk (chunk_unit 1: k = chunks), so the
// reduction of chunk j overlaps the arrival of chunk j + 1. One step: the
// latency of a single transfer, for small messages on a switch or full mesh.
// Bytes sent per rank: (n-1) M. Steps: 1.
// Instructions: 2 (n-1) k per rank, 2 n (n-1) k in all; transfers: n (n-1) k.
sched.schedule @one_shot_all_reduce collective = all_reduce algorithm = "one_shot"
    attributes {collc.chunk_unit = 1, collc.volume = "(n-1) M",
                collc.steps = "1"}
    description = "one_shot: every rank sends its buffer to all others and reduces locally; 1 step, (n-1) M sent per rank" {
  sched.channel 0 {
    sched.if "n >= 2" {
      sched.for j = 0 to k {
        sched.for d = 1 to n {
          sched.send to "(r + d) mod n" src = input[j]
        }
        sched.recv_reduce_copy from "(r - 1) mod n" src = input[j]
            dst = output[j]
        sched.for d = 2 to n {
          sched.recv_reduce_copy from "(r - d) mod n" src = output[j]
              dst = output[j]
        }
      }
    } else {
      // A group of one rank only copies.
      sched.copy src = input[0] dst = output[0] count = k
    }
  }
}

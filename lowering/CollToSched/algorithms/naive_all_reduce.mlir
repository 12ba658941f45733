// Naive all-reduce: every rank sends its buffer to rank 0, which reduces
// them one by one and sends the result back to every rank (reduce, then
// broadcast, both direct). Rank 0 receives (n-1) M and sends (n-1) M, so
// it moves 2 (n-1) M; every other rank sends M. The bytes on the wire,
// 2 (n-1) M in all, equal the ring's; what the ring fixes is that one rank
// carries them all. Steps: 2 (n-1) at rank 0. A baseline, not a contender.
sched.schedule @naive_all_reduce collective = all_reduce algorithm = "naive"
    attributes {collc.volume = "(n-1) M at rank 0, M elsewhere; 2 (n-1) M in all",
                collc.steps = "2 (n-1)"}
    description = "naive: direct reduce to rank 0, then direct broadcast; rank 0 moves 2(n-1) M" {
  sched.channel 0 {
    sched.if "r == 0" {
      sched.copy src = input[0] dst = output[0] count = k
      sched.for s = 1 to n {
        sched.recv_reduce_copy from s src = output[0] dst = output[0]
            count = k step = s
      }
      sched.for s = 1 to n {
        sched.send to s src = output[0] count = k step = "n - 1 + s"
      }
    } else {
      sched.send to 0 src = input[0] count = k step = r
      sched.recv from 0 dst = output[0] count = k step = "n - 1 + r"
    }
  }
}

// Pairwise all-to-all: the shifted pairing of direct, one peer at a time.
//
// At step s (1 <= s < n) rank r sends part (r + s) mod n of its input to rank
// (r + s) mod n and receives part (r - s) mod n of its output from rank
// (r - s) mod n; part r is copied locally. All steps run in order on one
// channel, so a rank exchanges with one peer at a time (Open MPI's pairwise
// exchange). Where the ranks share a few cores (the CPU executor with more
// processes than cores) one exchange at a time keeps a rank's partner
// scheduled; on a GPU, direct's 16 channels in flight are faster.
//
// Chunking: each step moves the k chunks of the part as k messages,
// alternating send chunk c / recv chunk c (no deadlock for any k and any
// number of slots >= 1, as in direct).
//
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank). Steps: n - 1.
// Instructions per rank: 1 + 2 k (n - 1); transfers: n (n - 1) k.
sched.schedule @pairwise_all_to_all collective = all_to_all algorithm = "pairwise"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "n - 1"}
    description = "pairwise: shifted pairing, one peer at a time on one channel, k messages per peer; n-1 steps, (n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
    sched.for s = 1 to n {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
}

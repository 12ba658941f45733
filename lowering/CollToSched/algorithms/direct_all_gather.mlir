// Direct all-gather by shifted pairing. At step s (1 <= s < n) rank r sends
// its input to rank (r + s) mod n and receives part (r - s) mod n from rank
// (r - s) mod n: every step is a permutation, so no rank receives from two
// peers in a step; every part travels one hop. Steps are dealt round-robin
// to channels 0..7 (step s on channel (s - 1) mod 8); channel 8 copies the
// own part. Chunking: nothing to pipeline over one hop, so each part goes as
// one message of k chunks (k only sets chunk sizes); every connection
// carries one message (deadlock-free with any slots >= 1).
// Bytes sent per rank: (n-1) M (M = input bytes of a rank). Steps: n - 1
// one-hop rounds. Instructions: n (2 n - 1); transfers: n (n - 1).
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @direct_all_gather collective = all_gather algorithm = "direct"
    attributes {collc.volume = "(n-1) M", collc.steps = "n - 1"}
    description = "direct: shifted pairing over 8 channels, one message per peer; n-1 one-hop rounds, (n-1) M sent per rank" {
  sched.channel c = 0 to 8 {
    sched.for s = "c + 1" to n step 8 {
      sched.send to "(r + s) mod n" src = input[0] count = k step = s
      sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k"]
          count = k step = s
    }
  }
  sched.channel 8 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

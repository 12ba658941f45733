// Direct reduce-scatter by shifted pairing. At step s (1 <= s < n) rank r
// sends its part (r + s) mod n to rank (r + s) mod n and adds the part r of
// rank (r - s) mod n: every step is a permutation, every contribution one
// hop. Steps are dealt round-robin to channels 0..7 (step s on channel
// (s - 1) mod 8). Channel 0 sums into the output (from the own part),
// channel c >= 1 into its scratch slot c - 1 (k chunks; scratch = 7 k), which
// channel 0 adds after channel c's last instruction: no two channels reduce
// into one chunk. Chunking: k messages per peer, alternating send / recv.
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank, n parts).
// Steps: n - 1 one-hop rounds. Instructions: n (2 k (n - 1) + min(7, n - 2));
// transfers: n (n - 1) k. See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @direct_reduce_scatter collective = reduce_scatter algorithm = "direct"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "n - 1"}
    scratch = "7 * k"
    description = "direct: shifted pairing over 8 channels, k messages per peer, per-channel partial sums; n-1 one-hop rounds, (n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.for s = 1 to n step 8 {
      sched.for j = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + j"]
            step = s
        sched.if "s == 1" {
          sched.recv_reduce_copy from "(r - s) mod n" src = input["r * k + j"]
              dst = output[j] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = output[j]
              dst = output[j] step = s
        }
      }
    }
    // Add the partial sums of channels 1..7 (those that have a step), each
    // after that channel's last instruction.
    sched.for c = 1 to 8 {
      sched.if "n >= c + 2" {
        sched.reduce src = scratch["(c - 1) * k"] dst = output[0] count = k
            step = n after = [(channel "c", index "2 * k * ((n + 6 - c) floordiv 8) - 1")]
      }
    }
  }
  sched.channel c = 1 to 8 {
    sched.for s = "c + 1" to n step 8 {
      sched.for j = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + j"]
            step = s
        sched.if "s == c + 1" {
          sched.recv from "(r - s) mod n" dst = scratch["(c - 1) * k + j"]
              step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n"
              src = scratch["(c - 1) * k + j"] dst = scratch["(c - 1) * k + j"]
              step = s
        }
      }
    }
  }
}

// Direct reduce-scatter by shifted pairing. At step s (1 <= s < n) rank r
// sends its part (r + s) mod n to rank (r + s) mod n and adds the part r of
// rank (r - s) mod n: every step is a permutation, every contribution one
// hop. Steps are dealt round-robin to channels 0..7 (step s on channel
// (s - 1) mod 8). No two channels reduce into one chunk: channel 0 sums into
// the output (from the own part), channel c >= 1 into its scratch slot c - 1
// (k chunks; scratch = 7 k); the 8 partial sums are then added in a binary
// tree of depth 3 (level 1: c += c + 1 for even c; level 2: 4 += 6, 0 += 2;
// level 3: 0 += 4), each add after the channel it reads is done.
// Chunking: one message of k chunks per peer (k only sets chunk sizes);
// every connection carries one message (any slots >= 1).
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank, n parts).
// Steps: n - 1 one-hop rounds, then 3 levels of local adds.
// Instructions: n (2 (n - 1) + min(7, n - 2)); transfers: n (n - 1).
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @direct_reduce_scatter collective = reduce_scatter algorithm = "direct"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "n - 1"}
    scratch = "7 * k"
    description = "direct: shifted pairing over 8 channels, one message per peer, per-channel partial sums added in a tree; n-1 one-hop rounds, (n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.for s = 1 to n step 8 {
      sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k"]
          count = k step = s
      sched.if "s == 1" {
        sched.recv_reduce_copy from "(r - s) mod n" src = input["r * k"]
            dst = output[0] count = k step = s
      } else {
        sched.recv_reduce_copy from "(r - s) mod n" src = output[0]
            dst = output[0] count = k step = s
      }
    }
    // Tree of partial sums: add channel 1's (level 1), channel 2's (level 2,
    // after its level 1) and channel 4's (level 3, after its levels 1, 2).
    sched.if "n >= 3" {
      sched.reduce src = scratch[0] dst = output[0] count = k step = n
          after = [(channel 1, index "2 * ((n + 5) floordiv 8) - 1")]
    }
    sched.if "n >= 5" {
      sched.reduce src = scratch[k] dst = output[0] count = k step = n
          after = [(channel 2, index "2 * ((n + 4) floordiv 8)")]
    } else {
      sched.if "n >= 4" {
        sched.reduce src = scratch[k] dst = output[0] count = k step = n
            after = [(channel 2, index "2 * ((n + 4) floordiv 8) - 1")]
      }
    }
    sched.if "n >= 8" {
      sched.reduce src = scratch["3 * k"] dst = output[0] count = k step = n
          after = [(channel 4, index "2 * ((n + 2) floordiv 8) + 1")]
    } else {
      sched.if "n >= 7" {
        sched.reduce src = scratch["3 * k"] dst = output[0] count = k step = n
            after = [(channel 4, index "2 * ((n + 2) floordiv 8)")]
      } else {
        sched.if "n >= 6" {
          sched.reduce src = scratch["3 * k"] dst = output[0] count = k step = n
              after = [(channel 4, index "2 * ((n + 2) floordiv 8) - 1")]
        }
      }
    }
  }
  sched.channel c = 1 to 8 {
    sched.for s = "c + 1" to n step 8 {
      sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k"]
          count = k step = s
      sched.if "s == c + 1" {
        sched.recv from "(r - s) mod n" dst = scratch["(c - 1) * k"] count = k
            step = s
      } else {
        sched.recv_reduce_copy from "(r - s) mod n" src = scratch["(c - 1) * k"]
            dst = scratch["(c - 1) * k"] count = k step = s
      }
    }
    // Level 1: even c adds channel c + 1's sum (odd channels add nothing).
    sched.if "c mod 2 == 0, n >= c + 3" {
      sched.reduce src = scratch["c * k"] dst = scratch["(c - 1) * k"] count = k
          step = n
          after = [(channel "c + 1", index "2 * ((n + 5 - c) floordiv 8) - 1")]
    }
    // Level 2: c = 4 adds channel 6's sum, after channel 6's level 1.
    sched.if "c == 4, n >= 9" {
      sched.reduce src = scratch["5 * k"] dst = scratch["3 * k"] count = k
          step = n after = [(channel "c + 2", index "2 * ((n) floordiv 8)")]
    } else {
      sched.if "c == 4, n >= 8" {
        sched.reduce src = scratch["5 * k"] dst = scratch["3 * k"] count = k
            step = n after = [(channel "c + 2", index "2 * ((n) floordiv 8) - 1")]
      }
    }
  }
}

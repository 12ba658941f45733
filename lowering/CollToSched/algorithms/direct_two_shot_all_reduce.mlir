// Direct two-shot all-reduce: one_shot reduce-scatter then a direct
// all-gather, every peer at once. The buffer is n parts of q = k/n chunks
// (chunk_unit n). Peer d = 1 .. n - 1 is served on channel
// ((d - 1) mod channels) + 1: send part (r + d) mod n of the input to
// rank (r + d) mod n and receive part r of rank (r - d) mod n into scratch
// slot d - 1; channel 0 copies the rank's own part to the output and adds
// the n - 1 arrivals in one pass (a reduce with fanin n - 1, after every
// channel's last reduce-scatter receive); then every channel sends the
// reduced part r to its peers and receives theirs into place. Two transfer
// latencies and one combine whatever n, and 2 (n-1)/n M sent per rank
// where direct sends (n-1) M: for mid-size messages on a switch or a mesh.
// Each part is one transfer of q chunks.
// Channels: min(n - 1, channels) + 1 per rank.
// Bytes sent per rank: 2 (n-1)/n M. Steps: 2, and one combine.
// Instructions: n (4n - 2) (n = 1: 1); transfers: 2 n (n - 1).
sched.schedule @direct_two_shot_all_reduce collective = all_reduce
    algorithm = "direct_two_shot"
    attributes {collc.chunk_unit = "n", collc.volume = "2 (n-1)/n M",
                collc.steps = "2", collc.channel_param = "channels"}
    params = {channels = 31}
    scratch = "(n - 1) * (k floordiv n)"
    description = "direct_two_shot: every rank sends each part to its owner at once, combines its part in one pass and sends it to every peer at once, on up to 31 channels; 2 steps, 2(n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.if "n >= 2" {
      sched.copy src = input["r * (k floordiv n)"]
          dst = output["r * (k floordiv n)"] count = "k floordiv n"
      // After each channel's last reduce-scatter receive: with m = n - 1
      // peers, channels 1 .. m mod channels serve m floordiv channels + 1
      // of them, the rest one fewer (where m > channels).
      sched.if "channels + 1 - n >= 0" {
        sched.reduce src = scratch[0] dst = output["r * (k floordiv n)"]
            count = "k floordiv n" fanin = "n - 1" step = 2
            after = [(channel 1 to n, index 1)]
      }
      sched.if "n - 1 - channels >= 1" {
        sched.reduce src = scratch[0] dst = output["r * (k floordiv n)"]
            count = "k floordiv n" fanin = "n - 1" step = 2
            after = [(channel 1 to "(n - 1) mod channels + 1",
                      index "2 * ((n - 1) floordiv channels) + 1"),
                     (channel "(n - 1) mod channels + 1" to "channels + 1",
                      index "2 * ((n - 1) floordiv channels) - 1")]
      }
    } else {
      sched.copy src = input[0] dst = output[0] count = k
    }
  }
  sched.channel c = 1 to "channels + 1" {
    sched.for d = c to n step channels {
      sched.send to "(r + d) mod n"
          src = input["((r + d) mod n) * (k floordiv n)"]
          count = "k floordiv n" step = 1
      sched.recv from "(r - d) mod n" dst = scratch["(d - 1) * (k floordiv n)"]
          count = "k floordiv n" step = 1
    }
    // The all-gather of the reduced part, after channel 0's combine.
    sched.for d = c to n step channels {
      sched.send to "(r + d) mod n" src = output["r * (k floordiv n)"]
          count = "k floordiv n" step = 3 after = [(channel 0, index 1)]
      sched.recv from "(r - d) mod n"
          dst = output["((r - d) mod n) * (k floordiv n)"]
          count = "k floordiv n" step = 3
    }
  }
}

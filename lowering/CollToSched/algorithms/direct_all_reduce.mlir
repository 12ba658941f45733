// Direct all-reduce: every rank sends its whole input to every other rank
// at once (peer d: send to (r + d) mod n, receive from (r - d) mod n into
// scratch slot d - 1, on up to `channels` channels), copies its input to
// its output, and combines the n - 1 arrivals in one pass (a reduce with
// fanin n - 1, after every channel's last receive). One transfer latency and one
// combine whatever n: one_shot's data movement without its single
// channel's serialized receives, for small messages on machines whose
// routes join every pair (a switch, a full mesh, routes through GPUs).
// Each message is one transfer of k chunks (k only sets chunk sizes).
// Channels: min(n - 1, channels) + 1 per rank: peer d on channel
// ((d - 1) mod channels) + 1, one after another on a channel.
// Bytes sent per rank: (n-1) M. Steps: 1, then one combine.
// Instructions: 2 n^2 (n = 1: 1); transfers: n (n - 1).
sched.schedule @direct_all_reduce collective = all_reduce algorithm = "direct"
    attributes {collc.chunk_unit = 1, collc.volume = "(n-1) M",
                collc.steps = "1",
                collc.channel_param = "channels"}
    params = {channels = 31}
    scratch = "(n - 1) * k"
    description = "direct: every rank sends its buffer to all others at once, on up to 31 channels, and combines all arrivals in one pass; 1 step, (n-1) M sent per rank; for small messages" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
    // After each channel's last receive: with m = n - 1 peers, channels
    // 1 .. m mod channels serve m floordiv channels + 1 of them, the rest
    // one fewer (where m > channels).
    sched.if "n >= 2, channels + 1 - n >= 0" {
      sched.reduce src = scratch[0] dst = output[0] count = k fanin = "n - 1"
          step = 2 after = [(channel 1 to n, index 1)]
    }
    sched.if "n - 1 - channels >= 1" {
      sched.reduce src = scratch[0] dst = output[0] count = k fanin = "n - 1"
          step = 2
          after = [(channel 1 to "(n - 1) mod channels + 1",
                    index "2 * ((n - 1) floordiv channels) + 1"),
                   (channel "(n - 1) mod channels + 1" to "channels + 1",
                    index "2 * ((n - 1) floordiv channels) - 1")]
    }
  }
  sched.channel c = 1 to "channels + 1" {
    sched.for d = c to n step channels {
      sched.send to "(r + d) mod n" src = input[0] count = k
          step = 1
      sched.recv from "(r - d) mod n" dst = scratch["(d - 1) * k"] count = k
          step = 1
    }
  }
}

// Direct reduce: every rank sends its input straight to the root at once;
// the root receives them on up to `channels` channels (relative rank q =
// (r - root) mod n on channel ((q - 1) mod channels) + 1, one after another
// on a channel) into scratch slot q - 1, copies its input to its output,
// and combines the n - 1 arrivals in one pass (a reduce with fanin n - 1,
// after every channel's last receive). One transfer latency and one
// combine whatever n, where a binomial tree pays ceil(log2 n) of each: for
// small messages on machines whose routes join every rank to the root; the
// root's ingress carries (n-1) M. Each message is one transfer of k chunks
// (k only sets chunk sizes).
// Channels: min(n - 1, channels) + 1 on the root, 1 elsewhere.
// Bytes sent: M by every rank but the root, which receives (n-1) M.
// Steps: 1, then one combine. Instructions: 2n (n = 1: 1); transfers:
// n - 1.
sched.schedule @direct_reduce collective = reduce algorithm = "direct"
    attributes {collc.chunk_unit = 1,
                collc.volume = "M (every rank but the root); the root receives (n-1) M",
                collc.steps = "1", collc.channel_param = "channels"}
    params = {channels = 31, root = 0} root = root
    scratch = "(n - 1) * k"
    description = "direct: every rank sends to the root at once, received on up to 31 channels, and the root combines all arrivals in one pass; 1 step, the root receives (n-1) M; for small messages" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output[0] count = k
      // After each receiving channel's last receive: with m = n - 1 peers,
      // channels 1 .. m mod channels hold m floordiv channels + 1 of them,
      // the rest one fewer (where m >= channels).
      sched.if "n >= 2, channels + 1 - n >= 0" {
        sched.reduce src = scratch[0] dst = output[0] count = k
            fanin = "n - 1" step = 2 after = [(channel 1 to n, index 0)]
      }
      sched.if "n - 1 - channels >= 1" {
        sched.reduce src = scratch[0] dst = output[0] count = k
            fanin = "n - 1" step = 2
            after = [(channel 1 to "(n - 1) mod channels + 1",
                      index "(n - 1) floordiv channels"),
                     (channel "(n - 1) mod channels + 1" to "channels + 1",
                      index "(n - 1) floordiv channels - 1")]
      }
    }
  }
  sched.channel c = 1 to "channels + 1" {
    sched.if "r == root" {
      sched.for t = c to n step channels {
        sched.recv from "(r + t) mod n" dst = scratch["(t - 1) * k"]
            count = k step = 1
      }
    }
    sched.if "(r - root) mod n >= 1, ((r - root) mod n - 1) mod channels + 1 == c" {
      sched.send to root src = input[0] count = k step = 1
    }
  }
}

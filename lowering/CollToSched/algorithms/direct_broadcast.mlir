// Direct broadcast: the root sends its whole input straight to every other
// rank at once, on up to `channels` channels (relative rank q = (r - root)
// mod n on channel ((q - 1) mod channels) + 1, the root's sends on one
// channel one after another), and copies it to its own output on channel
// 0. One transfer
// latency whatever n: the least-depth tree where the runtime's routes join
// the root to every rank (a switch, a full mesh, or routes through GPUs),
// for small messages; the root's egress carries (n-1) M, so large messages
// go to the trees that spread it. Each message is one transfer of k chunks
// (k only sets chunk sizes).
// Channels: min(n - 1, channels) + 1 on the root, 1 elsewhere.
// Bytes sent: (n-1) M by the root, nothing by the others. Steps: 1.
// Instructions: 2n - 1; transfers: n - 1.
sched.schedule @direct_broadcast collective = broadcast algorithm = "direct"
    attributes {collc.chunk_unit = 1, collc.volume = "(n-1) M (root)",
                collc.steps = "1", collc.channel_param = "channels"}
    params = {channels = 31, root = 0} root = root
    description = "direct: the root sends to every rank at once, on up to 31 channels; 1 step, (n-1) M sent by the root; for small messages" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output[0] count = k
    }
  }
  sched.channel c = 1 to "channels + 1" {
    sched.if "r == root" {
      sched.for t = c to n step channels {
        sched.send to "(r + t) mod n" src = input[0] count = k step = 1
      }
    }
    sched.if "(r - root) mod n >= 1, ((r - root) mod n - 1) mod channels + 1 == c" {
      sched.recv from root dst = output[0] count = k step = 1
    }
  }
}

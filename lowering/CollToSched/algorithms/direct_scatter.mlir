// Direct scatter: the root sends part t of its input straight to rank t, one
// message of k chunks each, and copies its own part; every other rank
// receives its part once. The root's sends are spread over `channels`
// channels (relative rank q on channel (q - 1) mod channels, where it also
// receives), so that up to `channels` messages are in flight at once
// instead of one after the other.
// Bytes sent (M = the root's whole input, n parts): (n-1)/n M by the root,
// nothing by the others. Steps: 1 (n - 1 messages leave the root,
// `channels` at a time, bounded by its egress).
sched.schedule @direct_scatter collective = scatter algorithm = "direct"
    attributes {collc.chunk_unit = 1, collc.volume = "(n-1)/n M (root)",
                collc.steps = "1", collc.channel_param = "channels"}
    params = {channels = 8, root = 0} root = root
    description = "direct: the root sends every rank its part, on up to 8 channels at once; 1 step, (n-1)/n M sent by the root; wins for small groups or a root with full-bandwidth links to all" {
  sched.channel c = 0 to channels {
    sched.if "r == root" {
      sched.if "c == 0" {
        sched.copy src = input["root * k"] dst = output[0] count = k
      }
      sched.for t = "c + 1" to n step channels {
        sched.send to "(r + t) mod n" src = input["((r + t) mod n) * k"] count = k
            step = 1
      }
    } else {
      sched.if "((r - root) mod n - 1) mod channels == c" {
        sched.recv from root dst = output[0] count = k step = 1
      }
    }
  }
}

// Direct gather: every rank sends its input straight to the root, which
// copies its own part and receives part t from rank t into place. The
// root's receives are spread over `channels` channels (relative rank q
// sends on channel (q - 1) mod channels), so that up to `channels` arrivals
// are stored at once instead of one after the other.
// Bytes sent (M = one rank's input): M by every rank but the root, which
// receives (n-1) M. Steps: 1 (n - 1 messages reach the root at once,
// bounded by its ingress).
sched.schedule @direct_gather collective = gather algorithm = "direct"
    attributes {collc.chunk_unit = 1,
                collc.volume = "M (every rank but the root); the root receives (n-1) M",
                collc.steps = "1", collc.channel_param = "channels"}
    params = {channels = 8, root = 0} root = root
    description = "direct: every rank sends its part to the root, received on up to 8 channels at once; 1 step, the root receives (n-1) M; wins for small groups or a root with full-bandwidth links to all" {
  sched.channel c = 0 to channels {
    sched.if "r == root" {
      sched.if "c == 0" {
        sched.copy src = input[0] dst = output["root * k"] count = k
      }
      sched.for t = "c + 1" to n step channels {
        sched.recv from "(r + t) mod n" dst = output["((r + t) mod n) * k"]
            count = k step = 1
      }
    } else {
      sched.if "((r - root) mod n - 1) mod channels == c" {
        sched.send to root src = input[0] count = k step = 1
      }
    }
  }
}

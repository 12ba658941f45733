// Direct gather: every rank sends its input straight to the root, which
// copies its own part and receives part t from rank t (in the order
// root + 1, root + 2, ...) into place.
// Bytes sent (M = one rank's input): M by every rank but the root, which
// receives (n-1) M. Steps: 1 (n - 1 messages reach the root at once,
// bounded by its ingress).
sched.schedule @direct_gather collective = gather algorithm = "direct"
    attributes {collc.chunk_unit = 1,
                collc.volume = "M (every rank but the root); the root receives (n-1) M",
                collc.steps = "1"}
    params = {root = 0} root = root
    description = "direct: every rank sends its part to the root; 1 step, the root receives (n-1) M; wins for small groups or a root with full-bandwidth links to all" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output["root * k"] count = k
      sched.for t = 1 to n {
        sched.recv from "(r + t) mod n" dst = output["((r + t) mod n) * k"] count = k
            step = 1
      }
    } else {
      sched.send to root src = input[0] count = k step = 1
    }
  }
}

// Direct scatter: the root sends part t of its input straight to rank t
// (in the order root + 1, root + 2, ...), one message of k chunks each, and
// copies its own part; every other rank receives its part once.
// Bytes sent (M = the root's whole input, n parts): (n-1)/n M by the root,
// nothing by the others. Steps: 1 (n - 1 messages leave the root at once,
// bounded by its egress).
sched.schedule @direct_scatter collective = scatter algorithm = "direct"
    attributes {collc.chunk_unit = 1, collc.volume = "(n-1)/n M (root)",
                collc.steps = "1"}
    params = {root = 0} root = root
    description = "direct: the root sends every rank its part; 1 step, (n-1)/n M sent by the root; wins for small groups or a root with full-bandwidth links to all" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input["root * k"] dst = output[0] count = k
      sched.for t = 1 to n {
        sched.send to "(r + t) mod n" src = input["((r + t) mod n) * k"] count = k
            step = 1
      }
    } else {
      sched.recv from root dst = output[0] count = k step = 1
    }
  }
}

// Reduce as a ring reduce-scatter followed by a gather to the root
// (Rabenseifner's reduce, with a ring for the first half). The message is
// n blocks of u = k / n chunks (chunk unit n).
//  1. Ring reduce-scatter (as in the ring all-reduce): at steps 1..n-1 rank
//     r adds its input block (r - s) mod n to the arrival from r - 1 and
//     sends it on; after n - 1 steps rank r holds the full sum of block
//     (r + 1) mod n.
//  2. Direct gather: every rank but the root sends that block straight to
//     the root, fused with its last reduce-scatter step (recv_reduce_send:
//     nothing is stored); the root keeps its own block in its output and
//     receives the others into place.
// Bytes sent: (n-1)/n M in the reduce-scatter plus M/n in the gather = M by
// every rank but the root, (n-1)/n M by the root; the root receives
// 2 (n-1)/n M. Steps: n - 1 + 1 = n.
sched.schedule @reducescatter_gather_reduce collective = reduce
    algorithm = "reducescatter_gather"
    attributes {collc.chunk_unit = "n",
                collc.volume = "M (every rank but the root); the root sends (n-1)/n M and receives 2 (n-1)/n M",
                collc.steps = "n"}
    params = {root = 0} root = root
    description = "ring reduce-scatter then a direct gather to the root: n steps, M sent per rank, the root receives 2 (n-1)/n M; for large messages" {
  sched.channel 0 {
    sched.if "n == 1" {
      sched.copy src = input[0] dst = output[0] count = k
    } else {
      // 1. Ring reduce-scatter, steps 0..n-2.
      sched.send to "(r + 1) mod n" src = input["r * (k floordiv n)"]
          count = "k floordiv n"
      sched.for s = 1 to "n - 1" {
        sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
            src = input["((r - s) mod n) * (k floordiv n)"]
            count = "k floordiv n" step = s
      }
      sched.if "r == root" {
        // The root's last reduce-scatter step: block (r + 1) mod n.
        sched.recv_reduce_copy from "(r - 1) mod n"
            src = input["((r + 1) mod n) * (k floordiv n)"]
            dst = output["((r + 1) mod n) * (k floordiv n)"]
            count = "k floordiv n" step = "n - 1"
        // 2. The other blocks: block (t + 1) mod n from rank t.
        sched.for t = 1 to n {
          sched.recv from "(r + t) mod n"
              dst = output["((r + t + 1) mod n) * (k floordiv n)"]
              count = "k floordiv n" step = n
        }
      } else {
        // The last reduce-scatter step, its sum sent to the root.
        sched.recv_reduce_send from "(r - 1) mod n" to root
            src = input["((r + 1) mod n) * (k floordiv n)"]
            count = "k floordiv n" step = "n - 1"
      }
    }
  }
}

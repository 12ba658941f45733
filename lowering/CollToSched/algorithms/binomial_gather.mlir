// Binomial-tree gather, the reverse of the binomial scatter. With
// q = (r - root) mod n, at distances d = 1, 2, 4, ...: a rank q with
// q mod 2d == 0 receives from q + d (if q + d < n) the parts of the ranks
// [q + d, min(q + 2d, n)), and a rank with q mod 2d == d sends everything
// it holds, the parts of [q, min(q + d, n)), to q - d and is done. The root
// holds all parts after ceil(log2 n) steps.
// Buffers: a rank with children collects its subtree's parts in scratch in
// relative order (its own input copied to scratch[0], that of q + i at
// scratch[i k]); a leaf sends its input. The root receives straight into
// its output when the root is rank 0, and otherwise into scratch, rotating
// the parts into place at the end (two copies).
// Bytes sent (M = one rank's input): at most n/2 M by any rank but the root
// (its subtree), M by a leaf; the root receives (n-1) M in ceil(log2 n)
// messages. Steps: ceil(log2 n).
sched.schedule @binomial_gather collective = gather algorithm = "binomial"
    attributes {collc.chunk_unit = 1,
                collc.volume = "<= n/2 M (others); the root receives (n-1) M",
                collc.steps = "ceil(log2 n)"}
    params = {root = 0} root = root scratch = "n * k"
    description = "binomial tree: ceil(log2 n) steps, the root receives (n-1) M in ceil(log2 n) messages; for small and medium messages" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output["root * k"] count = k
    } else {
      sched.if "((r - root) mod n) mod 2 == 0, (r - root) mod n + 1 < n" {
        sched.copy src = input[0] dst = scratch[0] count = k
      }
    }
    sched.for d = 1 to n step * 2 {
      // Receive the parts of the subtree of q + d.
      sched.if "((r - root) mod n) mod (2 * d) == 0, (r - root) mod n + d < n" {
        sched.if "r == 0, root == 0" {
          sched.if "r + 2 * d <= n" {
            sched.recv from "r + d" dst = output["d * k"] count = "d * k" step = d
          } else {
            sched.recv from "r + d" dst = output["d * k"] count = "(n - d) * k" step = d
          }
        } else {
          sched.if "(r - root) mod n + 2 * d <= n" {
            sched.recv from "(r + d) mod n" dst = scratch["d * k"] count = "d * k"
                step = d
          } else {
            sched.recv from "(r + d) mod n" dst = scratch["d * k"]
                count = "(n - (r - root) mod n - d) * k" step = d
          }
        }
      }
      // Send what this rank holds to its parent q - d.
      sched.if "((r - root) mod n) mod (2 * d) == d" {
        sched.if "d >= 2, (r - root) mod n + 1 < n" {
          sched.if "(r - root) mod n + d <= n" {
            sched.send to "(r - d) mod n" src = scratch[0] count = "d * k" step = d
          } else {
            sched.send to "(r - d) mod n" src = scratch[0]
                count = "(n - (r - root) mod n) * k" step = d
          }
        } else {
          sched.send to "(r - d) mod n" src = input[0] count = k step = d
        }
      }
    }
    // A root other than rank 0 rotates the parts of ranks root + 1, ...
    // from scratch into place.
    sched.if "r == root, root >= 1" {
      sched.if "root + 2 <= n" {
        sched.copy src = scratch[k] dst = output["(root + 1) * k"]
            count = "(n - root - 1) * k"
      }
      sched.copy src = scratch["(n - root) * k"] dst = output[0] count = "root * k"
    }
  }
}

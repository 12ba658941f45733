// Binomial-tree scatter. With q = (r - root) mod n, the subtree of q is the
// relative ranks [q, min(q + lowbit(q), n)) (all ranks for the root): at
// distances d = P/2, ..., 2, 1 (P the least power of two >= n), every q
// with q mod 2d == 0 that holds parts sends the parts of [q + d,
// min(q + 2d, n)) to q + d, so the root sends half the parts first and
// each half is split again. The loop over d runs downwards: an outer loop
// over powers of two p < 2n whose guard `p >= n` holds once (p = P), and
// an inner loop e = 1, 2, ..., P/2 with d = P / (2e).
// Buffers: a rank with children stages its subtree's parts in scratch in
// relative order (its own part at scratch[0], that of q + i at
// scratch[i k]) and copies its own part to its output; a leaf receives its
// part straight into its output. The root sends from its input when the
// root is rank 0, and otherwise first rotates its input into scratch (two
// copies) so that every subtree is one contiguous range.
// Bytes sent (M = the root's whole input, n parts): (n-1)/n M by the root,
// under M/2 by any other rank. Steps: ceil(log2 n).
sched.schedule @binomial_scatter collective = scatter algorithm = "binomial"
    attributes {collc.chunk_unit = 1,
                collc.volume = "(n-1)/n M (root); < M/2 (others)",
                collc.steps = "ceil(log2 n)"}
    params = {root = 0} root = root scratch = "n * k"
    description = "binomial tree: ceil(log2 n) steps, the root sends (n-1)/n M in ceil(log2 n) messages, halves first; for small and medium messages" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input["root * k"] dst = output[0] count = k
      sched.if "root >= 1" {
        sched.copy src = input["root * k"] dst = scratch[0] count = "(n - root) * k"
        sched.copy src = input[0] dst = scratch["(n - root) * k"] count = "root * k"
      }
    }
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= n" {
        sched.for e = 1 to p step * 2 {
          // d = p floordiv (2 * e). Receive the parts of the subtree.
          sched.if "((r - root) mod n) mod (2 * (p floordiv (2 * e))) == p floordiv (2 * e)" {
            sched.if "p floordiv (2 * e) >= 2, (r - root) mod n + 1 < n" {
              sched.if "(r - root) mod n + p floordiv (2 * e) <= n" {
                sched.recv from "(r - p floordiv (2 * e)) mod n" dst = scratch[0]
                    count = "(p floordiv (2 * e)) * k" step = "p floordiv (2 * e)"
              } else {
                sched.recv from "(r - p floordiv (2 * e)) mod n" dst = scratch[0]
                    count = "(n - (r - root) mod n) * k" step = "p floordiv (2 * e)"
              }
              sched.copy src = scratch[0] dst = output[0] count = k
            } else {
              sched.recv from "(r - p floordiv (2 * e)) mod n" dst = output[0] count = k
                  step = "p floordiv (2 * e)"
            }
          }
          // Send child q + d the parts of its subtree.
          sched.if "((r - root) mod n) mod (2 * (p floordiv (2 * e))) == 0, (r - root) mod n + p floordiv (2 * e) < n" {
            sched.if "r == 0, root == 0" {
              sched.if "r + 2 * (p floordiv (2 * e)) <= n" {
                sched.send to "r + p floordiv (2 * e)"
                    src = input["(p floordiv (2 * e)) * k"]
                    count = "(p floordiv (2 * e)) * k" step = "p floordiv (2 * e)"
              } else {
                sched.send to "r + p floordiv (2 * e)"
                    src = input["(p floordiv (2 * e)) * k"]
                    count = "(n - p floordiv (2 * e)) * k" step = "p floordiv (2 * e)"
              }
            } else {
              sched.if "(r - root) mod n + 2 * (p floordiv (2 * e)) <= n" {
                sched.send to "(r + p floordiv (2 * e)) mod n"
                    src = scratch["(p floordiv (2 * e)) * k"]
                    count = "(p floordiv (2 * e)) * k" step = "p floordiv (2 * e)"
              } else {
                sched.send to "(r + p floordiv (2 * e)) mod n"
                    src = scratch["(p floordiv (2 * e)) * k"]
                    count = "(n - (r - root) mod n - p floordiv (2 * e)) * k"
                    step = "p floordiv (2 * e)"
              }
            }
          }
        }
      }
    }
  }
}

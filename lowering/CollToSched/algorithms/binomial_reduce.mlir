// Binomial-tree reduce. With q = (r - root) mod n the rank relative to the
// root, at distances d = 1, 2, 4, ...: a rank q with q mod 2d == 0 receives
// the partial sum of q + d (if q + d < n) and adds it to its own, and a rank
// with q mod 2d == d sends its partial sum to q - d and is done. So q
// combines the ranks [q, q + lowbit(q)) and the root all of them after
// ceil(log2 n) steps. A rank with children accumulates in its output buffer
// (only the root's must hold the result); a leaf sends its input. No copies.
// Pipelined over chunks: a rank sends chunk j to its parent before it
// combines chunk j + 1.
// Bytes sent: M by every rank but the root, (n-1) M in all; the root
// receives ceil(log2 n) M. Steps: ceil(log2 n).
sched.schedule @binomial_reduce collective = reduce algorithm = "binomial"
    attributes {collc.chunk_unit = 1,
                collc.volume = "M (every rank but the root); the root receives ceil(log2 n) M",
                collc.steps = "ceil(log2 n)"}
    params = {root = 0} root = root
    description = "binomial tree: ceil(log2 n) steps, every non-root rank sends M once, chunks pipelined up the tree" {
  sched.channel 0 {
    sched.if "n == 1" {
      sched.copy src = input[0] dst = output[0] count = k
    }
    sched.for j = 0 to k {
      sched.for d = 1 to n step * 2 {
        // Combine the partial sum of child q + d; the first child (d = 1)
        // is added to the input, the others to the output.
        sched.if "((r - root) mod n) mod (2 * d) == 0, (r - root) mod n + d < n" {
          sched.if "d == 1" {
            sched.recv_reduce_copy from "(r + 1) mod n" src = input[j] dst = output[j]
                step = 1
          } else {
            sched.recv_reduce_copy from "(r + d) mod n" src = output[j] dst = output[j]
                step = d
          }
        }
        // Send the partial sum to the parent: a leaf (q odd or q = n - 1)
        // sends its input, an inner rank its output.
        sched.if "((r - root) mod n) mod (2 * d) == d" {
          sched.if "d >= 2, (r - root) mod n + 1 < n" {
            sched.send to "(r - d) mod n" src = output[j] step = d
          } else {
            sched.send to "(r - d) mod n" src = input[j] step = d
          }
        }
      }
    }
  }
}

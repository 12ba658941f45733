// Scatter-allgather broadcast (van de Geijn). The message is n blocks of
// u = k / n chunks (chunk unit n); with q = (r - root) mod n, relative rank
// q is given block q.
//  1. Binomial scatter: at distances d = P/2, ..., 2, 1 (P the least power
//     of two >= n), every q with q mod 2d == 0 that holds blocks sends the
//     blocks [q + d, min(q + 2d, n)) to q + d. The loop over d runs
//     downwards: an outer loop over powers of two p < 2n whose guard
//     `p >= n` holds once (p = P), and an inner loop e = 1, 2, ..., P/2
//     with d = P / (2e).
//  2. Open-ring all-gather: in n - 1 steps every block travels along
//     root -> root + 1 -> ... -> root + n - 1; the root already holds
//     everything, so nothing is sent back to it.
// Bytes sent: the root 2 (n-1)/n M ((n-1)/n M in the scatter, as much in
// the ring); any other rank (n-1)/n M in the ring (the last rank none)
// plus its subtree's blocks in the scatter (under M/2).
// Instructions: n^2 + 2n - 3; transfers: n (n-1) (n - 1 in the scatter,
// (n-1)^2 in the ring), whatever the chunk count.
// Steps: ceil(log2 n) + n - 1.
sched.schedule @scatter_allgather_broadcast collective = broadcast
    algorithm = "scatter_allgather"
    attributes {collc.chunk_unit = "n",
                collc.volume = "2 (n-1)/n M (root); (n-1)/n M + < M/2 (others)",
                collc.steps = "ceil(log2 n) + n - 1"}
    params = {root = 0} root = root
    description = "scatter-allgather (van de Geijn): binomial scatter of n blocks, then an open ring all-gather; ceil(log2 n) + n - 1 steps, about 2 M sent by the root; for large messages" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output[0] count = k
    }
    // 1. Binomial scatter, distances P/2, ..., 1.
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= n" {
        sched.for e = 1 to p step * 2 {
          sched.if "((r - root) mod n) mod (2 * (p floordiv (2 * e))) == p floordiv (2 * e)" {
            sched.if "(r - root) mod n + p floordiv (2 * e) <= n" {
              sched.recv from "(r - p floordiv (2 * e)) mod n"
                  dst = output["((r - root) mod n) * (k floordiv n)"]
                  count = "(p floordiv (2 * e)) * (k floordiv n)"
                  step = "p floordiv (2 * e)"
            } else {
              sched.recv from "(r - p floordiv (2 * e)) mod n"
                  dst = output["((r - root) mod n) * (k floordiv n)"]
                  count = "(n - (r - root) mod n) * (k floordiv n)"
                  step = "p floordiv (2 * e)"
            }
          }
          sched.if "((r - root) mod n) mod (2 * (p floordiv (2 * e))) == 0, (r - root) mod n + p floordiv (2 * e) < n" {
            sched.if "(r - root) mod n + 2 * (p floordiv (2 * e)) <= n" {
              sched.send to "(r + p floordiv (2 * e)) mod n"
                  src = output["((r - root) mod n + p floordiv (2 * e)) * (k floordiv n)"]
                  count = "(p floordiv (2 * e)) * (k floordiv n)"
                  step = "p floordiv (2 * e)"
            } else {
              sched.send to "(r + p floordiv (2 * e)) mod n"
                  src = output["((r - root) mod n + p floordiv (2 * e)) * (k floordiv n)"]
                  count = "(n - (r - root) mod n - p floordiv (2 * e)) * (k floordiv n)"
                  step = "p floordiv (2 * e)"
            }
          }
        }
      }
    }
    // 2. Open-ring all-gather: relative rank q receives block q - s at
    //    step n + s and forwards it unless it is the last rank.
    sched.if "r == root" {
      sched.for s = 0 to "n - 1" {
        sched.send to "(r + 1) mod n" src = output["((n - s) mod n) * (k floordiv n)"]
            count = "k floordiv n" step = "n + s + 1"
      }
    } else {
      sched.if "(r - root) mod n + 1 < n" {
        sched.send to "(r + 1) mod n"
            src = output["((r - root) mod n) * (k floordiv n)"]
            count = "k floordiv n" step = "n + 1"
        sched.for s = 1 to "n - 1" {
          sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
              dst = output["((r - root - s) mod n) * (k floordiv n)"]
              count = "k floordiv n" step = "n + s"
        }
      } else {
        sched.for s = 1 to "n - 1" {
          sched.recv from "(r - 1) mod n"
              dst = output["((r - root - s) mod n) * (k floordiv n)"]
              count = "k floordiv n" step = "n + s"
        }
      }
      sched.recv from "(r - 1) mod n"
          dst = output["((r - root + 1) mod n) * (k floordiv n)"]
          count = "k floordiv n" step = "2 * n - 1"
    }
  }
}

// Recursive-doubling all-gather. q = the largest power of two <= n. The
// n - q remainder ranks r >= q are folded onto r - q: a pre step sends their
// input there, a post step sends them all other parts. Ranks r < q exchange
// with r xor d, d = 1, 2, ..., q/2, everything they hold: the parts of the
// aligned block b = r - r mod d of d ranks, [b, b + d), and its remainder
// parts [q + b, min(q + b + d, n)). Main blocks first, then remainder
// blocks: deadlock-free with 1 slot. Whole blocks per step (count d k).
// Distance 1 sends the input itself; channel 1 copies it into the output.
// n a power of two: (n-1) M sent per rank (M = input bytes of a rank),
// log2 n steps, n (2 log2 n + 1) instructions, n log2 n transfers.
// Otherwise floor(log2 n) + 2 steps; with L = log2 q, R = n - q and
// E = sum over d < q of d ceil(R / d): q (2 L + 1) + 7 R - 2 + 2 E
// instructions, q L + E + 3 R - 1 transfers. Step labels: 0, d, q.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @recursive_doubling_all_gather collective = all_gather
    algorithm = "recursive_doubling"
    attributes {collc.volume = "(n-1) M (n a power of two)",
                collc.steps = "log2 n (n a power of two), else floor(log2 n) + 2"}
    description = "recursive doubling: log2 n exchanges with r xor 2^i of doubling blocks, remainder ranks folded in by a pre and a post step; (n-1) M sent per rank for n a power of two" {
  sched.channel 0 {
    sched.for q = 1 to "n + 1" step * 2 {
      sched.if "2 * q > n" {
        sched.if "r >= q" {
          // Remainder rank: hand the input to r - q, get everything back.
          sched.send to "r - q" src = input[0] count = k
          sched.recv from "r - q" dst = output[0] count = "r * k" step = q
          sched.if "r + 1 < n" {
            sched.recv from "r - q" dst = output["(r + 1) * k"]
                count = "(n - r - 1) * k" step = q
          }
        } else {
          sched.if "r + q < n" {
            sched.recv from "r + q" dst = output["(r + q) * k"] count = k
          }
          sched.for d = 1 to q step * 2 {
            // Partner r xor d; own block b = r - r mod d, the partner's
            // block b xor d.
            sched.if "d == 1" {
              sched.send to "r + 1 - 2 * (r mod 2)" src = input[0] count = k
                  step = 1
            } else {
              sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d"
                  src = output["r floordiv d * d * k"] count = "d * k" step = d
                  after = [(channel 1, index 0)]
            }
            sched.recv from "r + d - 2 * ((r floordiv d) mod 2) * d"
                dst = output["(r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                count = "d * k" step = d
            sched.if "r floordiv d * d + d <= n - q" {
              sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d"
                  src = output["(q + r floordiv d * d) * k"] count = "d * k"
                  step = d
            } else {
              sched.if "r floordiv d * d < n - q" {
                sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d"
                    src = output["(q + r floordiv d * d) * k"]
                    count = "(n - q - r floordiv d * d) * k" step = d
              }
            }
            sched.if "r floordiv d * d + 2 * d - 2 * ((r floordiv d) mod 2) * d <= n - q" {
              sched.recv from "r + d - 2 * ((r floordiv d) mod 2) * d"
                  dst = output["(q + r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                  count = "d * k" step = d
            } else {
              sched.if "r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d < n - q" {
                sched.recv from "r + d - 2 * ((r floordiv d) mod 2) * d"
                    dst = output["(q + r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                    count = "(n - q - r floordiv d * d - d + 2 * ((r floordiv d) mod 2) * d) * k"
                    step = d
              }
            }
          }
          sched.if "r + q < n" {
            sched.send to "r + q" src = output[0] count = "(r + q) * k" step = q
            sched.if "r + q + 1 < n" {
              sched.send to "r + q" src = output["(r + q + 1) * k"]
                  count = "(n - r - q - 1) * k" step = q
            }
          }
        }
      }
    }
  }
  sched.channel 1 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

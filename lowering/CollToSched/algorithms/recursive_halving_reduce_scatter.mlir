// Recursive-halving reduce-scatter. q = the largest power of two <= n. The
// n - q remainder ranks r >= q are folded onto r - q: a pre step sends their
// whole input there (added into scratch), a post step returns their part.
// Ranks r < q exchange with r xor d, d = q/2, ..., 2, 1: each sends the
// partner's half of the block of 2d ranks they share (parts [b', b' + d) and
// remainder parts [q + b', min(q + b' + d, n)), b' = the partner's aligned
// block) and adds the partner's copy of its own half. Partial sums live in
// scratch (n k chunks, laid out as the input); the last step writes part r
// to the output. Main blocks first, then remainder blocks (1 slot suffices).
// n a power of two: (n-1)/n M sent per rank (M = input bytes of a rank, n
// parts), log2 n steps, 2 n log2 n instructions, n log2 n transfers.
// Otherwise floor(log2 n) + 2 steps; with L = log2 q, R = n - q and
// E = sum over d < q of d ceil(R / d): 2 q L + 4 R + 2 E instructions,
// q L + E + 2 R transfers. Step labels: 0, d, q.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @recursive_halving_reduce_scatter collective = reduce_scatter
    algorithm = "recursive_halving"
    attributes {collc.volume = "(n-1)/n M (n a power of two)",
                collc.steps = "log2 n (n a power of two), else floor(log2 n) + 2"}
    scratch = "n * k"
    description = "recursive halving: log2 n exchanges with r xor 2^i of halving blocks, remainder ranks folded in by a pre and a post step; (n-1)/n M sent per rank for n a power of two" {
  sched.channel 0 {
    sched.for q = 1 to "n + 1" step * 2 {
      sched.if "2 * q > n" {
        sched.if "r >= q" {
          // Remainder rank: hand the whole input to r - q, get part r back.
          sched.send to "r - q" src = input[0] count = "n * k"
          sched.recv from "r - q" dst = output[0] count = k step = q
        } else {
          sched.if "r + q < n" {
            sched.recv_reduce_copy from "r + q" src = input[0] dst = scratch[0]
                count = "n * k"
          }
          // d = q/2, q/4, ..., 1: e doubles, d = q / (2 e).
          sched.for e = 1 to q step * 2 {
            sched.for d = "q floordiv (2 * e)" to "q floordiv (2 * e) + 1" {
              // Partner r xor d; own block b = r - r mod d, the partner's
              // block b xor d. The first step of a rank without a remainder
              // partner reads the input, every other step the scratch.
              sched.if "2 * d == q, r + q >= n" {
                sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["(r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                    count = "d * k" step = d
              } else {
                sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["(r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                    count = "d * k" step = d
              }
              sched.if "2 * d == q, r + q >= n" {
                sched.if "d == 1" {
                  sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["r * k"] dst = output[0]
                      count = k step = d
                } else {
                  sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["r floordiv d * d * k"]
                      dst = scratch["r floordiv d * d * k"] count = "d * k" step = d
                }
              } else {
                sched.if "d == 1" {
                  sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["r * k"] dst = output[0]
                      count = k step = d
                } else {
                  sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["r floordiv d * d * k"]
                      dst = scratch["r floordiv d * d * k"] count = "d * k" step = d
                }
              }
              sched.if "2 * d == q, r + q >= n" {
                sched.if "r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d + d <= n - q" {
                  sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["(q + r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.if "r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d < n - q" {
                    sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["(q + r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                        count = "(n - q - (r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d)) * k" step = d
                  }
                }
              } else {
                sched.if "r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d + d <= n - q" {
                  sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["(q + r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.if "r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d < n - q" {
                    sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["(q + r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d) * k"]
                        count = "(n - q - (r floordiv d * d + d - 2 * ((r floordiv d) mod 2) * d)) * k" step = d
                  }
                }
              }
              sched.if "2 * d == q, r + q >= n" {
                sched.if "r floordiv d * d + d <= n - q" {
                  sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["(q + r floordiv d * d) * k"]
                      dst = scratch["(q + r floordiv d * d) * k"] count = "d * k" step = d
                } else {
                  sched.if "r floordiv d * d < n - q" {
                    sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = input["(q + r floordiv d * d) * k"]
                        dst = scratch["(q + r floordiv d * d) * k"] count = "(n - q - r floordiv d * d) * k"
                        step = d
                  }
                }
              } else {
                sched.if "r floordiv d * d + d <= n - q" {
                  sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["(q + r floordiv d * d) * k"]
                      dst = scratch["(q + r floordiv d * d) * k"] count = "d * k" step = d
                } else {
                  sched.if "r floordiv d * d < n - q" {
                    sched.recv_reduce_copy from "r + d - 2 * ((r floordiv d) mod 2) * d" src = scratch["(q + r floordiv d * d) * k"]
                        dst = scratch["(q + r floordiv d * d) * k"] count = "(n - q - r floordiv d * d) * k"
                        step = d
                  }
                }
              }
            }
          }
          sched.if "r + q < n" {
            sched.send to "r + q" src = scratch["(r + q) * k"] count = k step = q
          }
        }
      }
    }
  }
}

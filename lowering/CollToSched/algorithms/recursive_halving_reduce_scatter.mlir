// Recursive-halving reduce-scatter.
//
// Let q be the largest power of two <= n. Ranks r >= q (the n - q remainder
// ranks) are folded onto r - q: a pre step sends their whole input there,
// which adds it to its own (in scratch), and a post step returns them their
// reduced part. Ranks r < q then run recursive halving: at distance
// d = q/2, q/4, ..., 1 rank r and r xor d split the block of 2d ranks they
// are responsible for; r sends the partner's half (parts [b', b' + d) and
// remainder parts [q + b', min(q + b' + d, n)), b' the partner's aligned
// block of d) and adds the partner's copy of its own half, so the data it
// carries halves every step. For n a power of two there is no remainder and
// no pre/post step. Each step exchanges the main blocks, then the remainder
// blocks, so a connection holds at most one unreceived send (deadlock-free
// with 1 slot).
//
// Partial sums live in scratch, laid out as the input (n k chunks); the first
// step reads the input directly (or the scratch filled by the pre step), the
// last one writes part r into the output. Chunking: whole blocks per step
// (count d k); chunks change message sizes, not the pipeline.
//
// Bytes sent per rank (n a power of two): (n-1)/n M (M = input bytes of a
// rank, n parts). Steps: log2 n; otherwise floor(log2 n) + 2, remainder
// ranks send M, the ranks that serve them 1/n M more.
// Instructions: 2 n log2 n, transfers n log2 n for n a power of two;
// otherwise, with L = log2 q, R = n - q and E = sum over d < q of
// d ceil(R / d) (remainder blocks exchanged): 2 q L + 4 R + 2 E
// instructions and q L + E + 2 R transfers.
// Step labels: 0 (pre), d (distance d), q (post).

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

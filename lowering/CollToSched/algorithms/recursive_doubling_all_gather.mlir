// Recursive-doubling all-gather.
//
// Let q be the largest power of two <= n. Ranks r >= q (the n - q remainder
// ranks) are folded onto r - q: a pre step sends their input there, and a
// post step returns everything else to them. Ranks r < q then run
// recursive doubling: at distance d = 1, 2, ..., q/2 rank r exchanges with
// r xor d everything it holds, the parts of the aligned block of d ranks
// b = r - r mod d, i.e. parts [b, b + d) and the remainder parts
// [q + b, min(q + b + d, n)), doubling what it holds. For n a power of two
// there is no remainder and no pre/post step.
//
// Each step exchanges the main blocks, then the remainder blocks, so a
// connection holds at most one unreceived send (deadlock-free with 1 slot).
//
// Chunking: each step moves whole blocks (count d k); step i + 1 forwards
// what step i received, so chunks change message sizes, not the pipeline.
//
// Bytes sent per rank (n a power of two): (n-1) M (M = input bytes of a
// rank). Steps: log2 n; otherwise floor(log2 n) + 2, rank r < n - q sends
// its RD blocks plus (n-1) M in the post step, rank r >= q sends M.
// Instructions: n (2 log2 n + 1), transfers n log2 n for n a power of two;
// otherwise, with L = log2 q, R = n - q and E = sum over d < q of
// d ceil(R / d) (remainder blocks exchanged): q (2 L + 1) + 7 R - 2 + 2 E
// instructions and q L + E + 3 R - 1 transfers.
// Step labels: 0 (pre), d (distance d), q (post).

sched.schedule @recursive_doubling_all_gather collective = all_gather
    algorithm = "recursive_doubling"
    attributes {collc.volume = "(n-1) M (n a power of two)",
                collc.steps = "log2 n (n a power of two), else floor(log2 n) + 2"}
    description = "recursive doubling: log2 n exchanges with r xor 2^i of doubling blocks, remainder ranks folded in by a pre and a post step; (n-1) M sent per rank for n a power of two" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
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
            sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d"
                src = output["r floordiv d * d * k"] count = "d * k" step = d
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
}

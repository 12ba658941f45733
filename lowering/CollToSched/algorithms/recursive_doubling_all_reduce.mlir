// Recursive-doubling all-reduce: log2 n exchanges of the whole vector. q =
// the largest power of two <= n. The n - q remainder ranks r >= q are folded
// onto r - q: a pre step sends their input there (r - q adds it to its own),
// a post step sends them the result. Ranks r < q exchange with r xor d,
// d = 1, 2, ..., q/2, their partial sum and combine it with the partner's:
// after the exchange at distance d a rank holds the sum over its aligned
// block of 2d ranks (and their folded partners). Send first, then receive:
// deadlock-free with one slot.
//
// The partial sums alternate between two scratch slots of k chunks: the
// exchange at distance d = 2^t writes slot (d mod 3) - 1 (t even: 0, odd:
// 1; 2^t mod 3 alternates 1, 2) and sends what the previous exchange wrote,
// slot 2 - (d mod 3); the last exchange writes the output. A slot is
// overwritten only by the exchange after next, whose arrival comes after the
// partner received this rank's send of it. The folded sum lands in slot 2.
//
// Whole vector per step (chunk_unit 1, k = chunks; every instruction moves
// all k chunks). n a power of two: log2 n steps, log2 n M sent per rank;
// 2 n log2 n instructions, n log2 n transfers. Otherwise floor(log2 n) + 2
// steps; with L = log2 q and R = n - q: 2 q L + 4 R instructions,
// q L + 2 R transfers. Step labels: 0 (pre), d, q (post).
// A small-message algorithm: each step pays one transfer's latency.

sched.schedule @recursive_doubling_all_reduce collective = all_reduce
    algorithm = "recursive_doubling"
    attributes {collc.chunk_unit = 1,
                collc.volume = "log2 n M (n a power of two)",
                collc.steps = "log2 n (n a power of two), else floor(log2 n) + 2"}
    scratch = "3 * k"
    description = "recursive doubling: log2 n exchanges of the whole vector with r xor 2^i, remainder ranks folded in by a pre and a post step; few steps, log2 n M sent per rank: for small messages" {
  sched.channel 0 {
    sched.if "n == 1" {
      sched.copy src = input[0] dst = output[0] count = k
    } else {
      sched.for q = 1 to "n + 1" step * 2 {
        sched.if "2 * q > n" {
          sched.if "r >= q" {
            // Remainder rank: hand the input to r - q, get the sum back.
            sched.send to "r - q" src = input[0] count = k
            sched.recv from "r - q" dst = output[0] count = k step = q
          } else {
            sched.if "r + q < n" {
              sched.recv_reduce_copy from "r + q" src = input[0]
                  dst = scratch["2 * k"] count = k
            }
            sched.for d = 1 to q step * 2 {
              // Partner r xor d.
              sched.if "d == 1" {
                sched.if "r + q < n" {
                  sched.send to "r + 1 - 2 * (r mod 2)" src = scratch["2 * k"]
                      count = k step = 1
                } else {
                  sched.send to "r + 1 - 2 * (r mod 2)" src = input[0]
                      count = k step = 1
                }
              } else {
                sched.send to "r + d - 2 * ((r floordiv d) mod 2) * d"
                    src = scratch["(2 - d mod 3) * k"] count = k step = d
              }
              // The partial sum this step combines with the arrival.
              sched.if "d == 1" {
                sched.if "r + q < n" {
                  sched.if "q == 2" {
                    sched.recv_reduce_copy from "r + 1 - 2 * (r mod 2)"
                        src = scratch["2 * k"] dst = output[0] count = k
                        step = 1
                  } else {
                    sched.recv_reduce_copy from "r + 1 - 2 * (r mod 2)"
                        src = scratch["2 * k"] dst = scratch[0] count = k
                        step = 1
                  }
                } else {
                  sched.if "q == 2" {
                    sched.recv_reduce_copy from "r + 1 - 2 * (r mod 2)"
                        src = input[0] dst = output[0] count = k step = 1
                  } else {
                    sched.recv_reduce_copy from "r + 1 - 2 * (r mod 2)"
                        src = input[0] dst = scratch[0] count = k step = 1
                  }
                }
              } else {
                sched.if "2 * d == q" {
                  sched.recv_reduce_copy
                      from "r + d - 2 * ((r floordiv d) mod 2) * d"
                      src = scratch["(2 - d mod 3) * k"] dst = output[0]
                      count = k step = d
                } else {
                  sched.recv_reduce_copy
                      from "r + d - 2 * ((r floordiv d) mod 2) * d"
                      src = scratch["(2 - d mod 3) * k"]
                      dst = scratch["(d mod 3 - 1) * k"] count = k step = d
                }
              }
            }
            sched.if "r + q < n" {
              sched.send to "r + q" src = output[0] count = k step = q
            }
          }
        }
      }
    }
  }
}

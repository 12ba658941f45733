// Bruck reduce-scatter, ceil(log2 n) steps for any n: the Bruck all-gather
// with every transfer reversed and the steps in reverse order. Rank r first
// rotates its input into scratch (part i = its part (r + i) mod n); at
// d = D, D/2, ..., 1 (D the largest power of two below n) it sends scratch
// parts [d, d + min(d, n - d)) to rank r + d and adds what rank r - d sends
// into its parts [0, min(d, n - d)); the last step (d = 1) stores part 0, the
// sum of part r, in the output. Whole blocks per step. Scratch: n k chunks.
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank, n parts).
// Steps: ceil(log2 n) = L. Instructions: n (2 L + 2) - 1; transfers: n L.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @bruck_reduce_scatter collective = reduce_scatter algorithm = "bruck"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "ceil(log2 n)"}
    scratch = "n * k"
    description = "bruck: ceil(log2 n) steps for any n, the Bruck all-gather reversed on an input rotated into scratch; (n-1)/n M sent per rank" {
  sched.channel 0 {
    // Rotate: scratch part i is input part (r + i) mod n.
    sched.copy src = input["r * k"] dst = scratch[0] count = "(n - r) * k"
    sched.if "r >= 1" {
      sched.copy src = input[0] dst = scratch["(n - r) * k"] count = "r * k"
    }
    sched.for p = 1 to n step * 2 {
      sched.if "2 * p >= n" {
        // p = D, the largest power of two below n; d = D / e.
        sched.for e = 1 to "p + 1" step * 2 {
          sched.for d = "p floordiv e" to "p floordiv e + 1" {
            sched.if "2 * d <= n" {
              sched.send to "(r + d) mod n" src = scratch["d * k"]
                  count = "d * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["d * k"]
                  count = "(n - d) * k" step = d
            }
            sched.if "d == 1" {
              sched.recv_reduce_copy from "(r - 1) mod n" src = scratch[0]
                  dst = output[0] count = k step = d
            } else {
              sched.if "2 * d <= n" {
                sched.recv_reduce_copy from "(r - d) mod n" src = scratch[0]
                    dst = scratch[0] count = "d * k" step = d
              } else {
                sched.recv_reduce_copy from "(r - d) mod n" src = scratch[0]
                    dst = scratch[0] count = "(n - d) * k" step = d
              }
            }
          }
        }
      }
    }
  }
}

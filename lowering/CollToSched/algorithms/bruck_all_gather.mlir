// Bruck all-gather, ceil(log2 n) steps for any n. Rank r gathers rotated in
// scratch (part i = the input of rank (r + i) mod n, part 0 its own): at
// d = 1, 2, 4, ... < n it sends its first min(d, n - d) parts to rank r - d
// and receives as many from rank r + d into parts [d, d + min(d, n - d)).
// Two local copies then rotate scratch part i into output part (r + i) mod n.
// Whole blocks per step. Scratch: n k chunks.
// Bytes sent per rank: (n-1) M (M = input bytes of a rank). Steps:
// ceil(log2 n) = L. Instructions: n (2 L + 3) - 1; transfers: n L.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @bruck_all_gather collective = all_gather algorithm = "bruck"
    attributes {collc.volume = "(n-1) M", collc.steps = "ceil(log2 n)"}
    scratch = "n * k"
    description = "bruck: ceil(log2 n) steps for any n, sending to r - 2^i, gathered rotated in scratch, then rotated into place; (n-1) M sent per rank" {
  sched.channel 0 {
    sched.copy src = input[0] dst = scratch[0] count = k
    sched.for d = 1 to n step * 2 {
      sched.if "2 * d <= n" {
        sched.send to "(r - d) mod n" src = scratch[0] count = "d * k" step = d
        sched.recv from "(r + d) mod n" dst = scratch["d * k"] count = "d * k"
            step = d
      } else {
        sched.send to "(r - d) mod n" src = scratch[0] count = "(n - d) * k"
            step = d
        sched.recv from "(r + d) mod n" dst = scratch["d * k"]
            count = "(n - d) * k" step = d
      }
    }
    // Rotate: scratch part i is output part (r + i) mod n.
    sched.copy src = scratch[0] dst = output["r * k"] count = "(n - r) * k"
        step = n
    sched.if "r >= 1" {
      sched.copy src = scratch["(n - r) * k"] dst = output[0] count = "r * k"
          step = n
    }
  }
}

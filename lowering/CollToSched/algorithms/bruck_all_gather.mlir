// Bruck all-gather, ceil(log2 n) steps for any n.
//
// Rank r gathers in scratch, rotated: scratch part i holds the input of rank
// (r + i) mod n. Part 0 is its own input; at distance d = 1, 2, 4, ... < n it
// sends its first min(d, n - d) parts to rank r - d and receives as many from
// rank r + d into parts [d, d + min(d, n - d)). A final rotation (two local
// copies) moves scratch part i to output part (r + i) mod n.
//
// Chunking: whole blocks per step (count min(d, n - d) k); each step
// forwards what the previous ones received, so chunks change message sizes,
// not the pipeline.
//
// Bytes sent per rank: (n-1) M (M = input bytes of a rank; the min(d, n - d)
// sum to n - 1). Steps: ceil(log2 n), plus local copies of M (in) and
// n M (the rotation out).
// Instructions per rank: 2 ceil(log2 n) + 3, one fewer on rank 0;
// transfers: n ceil(log2 n). Scratch: n k chunks.

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

// Binomial-tree broadcast. With q = (r - root) mod n the rank relative to
// the root, at distance d = 1, 2, 4, ... every rank q < d that holds the
// data sends it to q + d, so the number of holders doubles each step: q
// receives from q - d at the step d = the highest power of two <= q, and
// then sends to q + d' for every larger d' with q + d' < n.
// Pipelined over chunks: each rank forwards chunk j to its children before
// it receives chunk j + 1.
// Bytes sent: ceil(log2 n) M by the root (the busiest rank), (n-1) M in all.
// Steps: ceil(log2 n).
sched.schedule @binomial_broadcast collective = broadcast algorithm = "binomial"
    attributes {collc.chunk_unit = 1, collc.volume = "ceil(log2 n) M (root); (n-1) M in all",
                collc.steps = "ceil(log2 n)"}
    params = {root = 0} root = root
    description = "binomial tree: ceil(log2 n) steps, the root sends ceil(log2 n) M, chunks pipelined down the tree" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output[0] count = k
    }
    sched.for j = 0 to k {
      sched.for d = 1 to n step * 2 {
        sched.if "(r - root) mod n >= d, (r - root) mod n < 2 * d" {
          sched.recv from "(r - d) mod n" dst = output[j] step = d
        }
        sched.if "(r - root) mod n < d, (r - root) mod n + d < n" {
          sched.send to "(r + d) mod n" src = output[j] step = d
        }
      }
    }
  }
}

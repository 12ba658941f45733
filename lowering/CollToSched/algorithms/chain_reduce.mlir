// Pipelined chain reduce: root + n - 1 -> root + n - 2 -> ... -> root.
// With q = (r - root) mod n, the last rank (q = n - 1) sends its input
// chunk by chunk to q - 1; every middle rank adds its input to the arrival
// and sends the sum on in one fused recv_reduce_send (nothing is stored);
// the root adds its input to the arrival into its output. Chunk j reaches
// q at step n - 1 - q + j: every rank works on chunk j while its successor
// already sends chunk j + 1.
// Bytes sent: M by every rank but the root, (n-1) M in all; the root
// receives M. Steps: n + k - 2 chunk steps of M / k bytes.
sched.schedule @chain_reduce collective = reduce algorithm = "chain"
    attributes {collc.chunk_unit = 1,
                collc.volume = "M (every rank but the root); the root receives M",
                collc.steps = "n + k - 2"}
    params = {root = 0} root = root
    description = "pipelined chain: n + k - 2 chunk steps, every non-root rank sends M and the root receives only M; for large messages" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.if "n >= 2" {
        sched.for j = 0 to k {
          sched.recv_reduce_copy from "(r + 1) mod n" src = input[j] dst = output[j]
              step = "n - 1 + j"
        }
      } else {
        sched.copy src = input[0] dst = output[0] count = k
      }
    } else {
      sched.if "(r - root) mod n + 1 < n" {
        sched.for j = 0 to k {
          sched.recv_reduce_send from "(r + 1) mod n" to "(r - 1) mod n"
              src = input[j] step = "n - 1 - (r - root) mod n + j"
        }
      } else {
        sched.for j = 0 to k {
          sched.send to "(r - 1) mod n" src = input[j] step = "j + 1"
        }
      }
    }
  }
}

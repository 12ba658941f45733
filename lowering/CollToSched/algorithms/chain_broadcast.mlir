// Pipelined chain broadcast: root -> root + 1 -> ... -> root + n - 1.
// With q = (r - root) mod n, the root sends chunk j to q = 1 at step j + 1;
// every middle rank receives chunk j from q - 1 and forwards it to q + 1 in
// one fused recv_copy_send at step q + j, so that it forwards chunk j while
// its predecessor already sends chunk j + 1; the last rank only receives.
// Bytes sent: M by every rank but the last, (n-1) M in all.
// Steps: n - 1 hops for the first chunk, one more per further chunk:
// n + k - 2 chunk steps, each of M / k bytes.
sched.schedule @chain_broadcast collective = broadcast algorithm = "chain"
    attributes {collc.chunk_unit = 1, collc.volume = "M (every rank but the last); (n-1) M in all",
                collc.steps = "n + k - 2"}
    params = {root = 0} root = root
    description = "pipelined chain: n + k - 2 chunk steps, every rank but the last sends M; wins for large messages on a line of links" {
  sched.channel 0 {
    sched.if "r == root" {
      sched.copy src = input[0] dst = output[0] count = k
      sched.if "n >= 2" {
        sched.for j = 0 to k {
          sched.send to "(r + 1) mod n" src = output[j] step = "j + 1"
        }
      }
    } else {
      sched.if "(r - root) mod n + 1 < n" {
        sched.for j = 0 to k {
          sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
              dst = output[j] step = "(r - root) mod n + j"
        }
      } else {
        sched.for j = 0 to k {
          sched.recv from "(r - 1) mod n" dst = output[j]
              step = "(r - root) mod n + j"
        }
      }
    }
  }
}

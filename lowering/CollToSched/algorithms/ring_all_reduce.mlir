// Ring all-reduce (reduce-scatter then all-gather around one ring).
// Each rank owns part r of the buffer (k/n chunks): n-1 steps reduce the
// parts around the ring, n-1 steps circulate the reduced parts.
// Bytes sent per rank: 2 (n-1)/n M. Steps: 2 (n-1).
sched.schedule @ring_all_reduce collective = all_reduce algorithm = "ring"
    attributes {collc.chunk_unit = "n", collc.volume = "2 (n-1)/n M",
                collc.steps = "2 (n-1)"}
    description = "ring: reduce-scatter then all-gather around one ring; 2(n-1) steps, 2(n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.send to "(r + 1) mod n" src = input["r * (k floordiv n)"]
        count = "k floordiv n"
    sched.for s = 1 to "n - 1" {
      sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
          src = input["((r - s) mod n) * (k floordiv n)"] count = "k floordiv n"
          step = s
    }
    sched.recv_reduce_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
        src = input["((r + 1) mod n) * (k floordiv n)"]
        dst = output["((r + 1) mod n) * (k floordiv n)"]
        count = "k floordiv n" step = "n - 1"
    sched.for t = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r + 1 - t) mod n) * (k floordiv n)"]
          count = "k floordiv n" step = "n - 1 + t"
    }
    sched.recv from "(r - 1) mod n" dst = output["((r + 2) mod n) * (k floordiv n)"]
        count = "k floordiv n" step = "2 * n - 2"
  }
}

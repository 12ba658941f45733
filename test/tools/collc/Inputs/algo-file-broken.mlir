// A broken user algorithm: every rank receives before it sends, so the ring
// deadlocks.
sched.schedule @bad_ring_all_gather collective = all_gather algorithm = "bad_ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r - s) mod n) * k"] count = k step = s
    }
    sched.send to "(r + 1) mod n" src = output["r * k"] count = k
    sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
        count = k step = "n - 1"
  }
}

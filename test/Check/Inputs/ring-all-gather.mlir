// The ring all-gather of docs/sched-guide.md, without an algorithm name:
// sched-verify checks schedules whether or not collc could use them.
sched.schedule @ring_all_gather collective = all_gather {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.send to "(r + 1) mod n" src = output["r * k"] count = k
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r - s) mod n) * k"] count = k step = s
    }
    sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
        count = k step = "n - 1"
  }
}

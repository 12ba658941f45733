// A direct all-gather of two chunks per part whose chunk loop takes the
// values 0 and 2^62 - 1 (step 2^62 - 1, bound 2^62): its bound plus its step
// reaches the int64 limit, so the generated loop tests before it steps
// (expansion stops a loop whose next value would overflow) instead of
// `j += step`. No built-in algorithm needs this form; this one exercises it.
// Chunk j floordiv (2^62 - 1) of the part is 0, then 1.
sched.schedule @guarded_all_gather collective = all_gather
    algorithm = "guarded" chunks_per_part = 2 {
  sched.channel 0 {
    sched.for j = 0 to 4611686018427387904 step 4611686018427387903 {
      sched.copy src = input["j floordiv 4611686018427387903"]
          dst = output["r * k + j floordiv 4611686018427387903"]
      sched.for s = 1 to n {
        sched.send to "(r + s) mod n"
            src = input["j floordiv 4611686018427387903"] step = s
        sched.recv from "(r - s) mod n"
            dst = output["((r - s) mod n) * k + j floordiv 4611686018427387903"]
            step = s
      }
    }
  }
}

// A schedule without `algorithm = "..."`: collc cannot name it.
sched.schedule @anonymous collective = all_gather {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

// An all_reduce named like a built-in one: names are unique per collective.
sched.schedule @my_ring collective = all_reduce algorithm = "ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
  }
}

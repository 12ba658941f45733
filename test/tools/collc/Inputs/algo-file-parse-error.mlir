// A syntax error: a send without its source.
sched.schedule @typo collective = all_gather algorithm = "typo" {
  sched.channel 0 {
    sched.send to "(r + 1) mod n" count = k
  }
}

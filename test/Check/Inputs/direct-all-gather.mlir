// A direct all-gather whose chunk unit is a parameter (collc.chunk_unit =
// "pieces"): sched-verify expands it with k = chunks * pieces, as collc does.
sched.schedule @direct_all_gather collective = all_gather algorithm = "direct"
    attributes {collc.chunk_unit = "pieces"} params = {pieces = 2} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.for s = 1 to n {
      sched.send to "(r + s) mod n" src = input[0] count = k step = s
      sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k"]
          count = k step = s
    }
  }
}

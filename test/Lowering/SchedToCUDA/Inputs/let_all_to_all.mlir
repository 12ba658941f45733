// An all-to-all whose expressions name their pieces with sched.let: a name
// that folds to a constant (one), names used by the body and by a later
// value (next, base), a name nothing uses (unused), and a nested let.
sched.schedule @let_all_to_all collective = all_to_all algorithm = "shift" {
  sched.channel 0 {
    sched.let one = "n - 2", unused = "r + 5" {
      sched.copy src = input["r * k"] dst = output["r * k"] count = "k * one"
    }
  }
  sched.channel c = 1 to n {
    sched.let next = "(r + c) mod n", base = "next * k",
        prev = "(r - c) mod n" {
      sched.for j = 0 to k {
        sched.let at = "base + j" {
          sched.send to next src = input[at] step = c
        }
        sched.recv from prev dst = output["prev * k + j"] step = c
      }
    }
  }
}

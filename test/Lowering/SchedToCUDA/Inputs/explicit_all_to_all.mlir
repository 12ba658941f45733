// An explicit schedule (one sched.rank per rank, group_size fixed): the
// pairwise all-to-all of two ranks from docs/sched-guide.md with two chunks
// per part, rank 1 sending its chunks to rank 0 one at a time in a loop.
// --emit=cuda turns the ranks into a switch on the rank.
sched.schedule @pairwise_all_to_all collective = all_to_all
    algorithm = "two_rank_pairwise" group_size = 2 chunks_per_part = 2 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0] count = 2
      sched.send to 1 src = input[2] count = 2
      sched.for j = 0 to 2 {
        sched.recv from 1 dst = output["2 + j"] step = j
      }
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[2] dst = output[2] count = 2
      sched.for j = 0 to 2 {
        sched.send to 0 src = input[j] step = j
      }
      sched.recv from 0 dst = output[0] count = 2
    }
  }
}

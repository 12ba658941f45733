// An all-gather on four GPUs wired as a line, 0 - 1 - 2 - 3, with no link
// from 3 back to 0 (a chain of bridges): parts flow right on channel 0 and
// left on channel 1, and the end ranks do less than the middle ones. Written
// in the explicit form, one sched.rank per rank, for a group of 4.
// The walkthrough of docs/writing-algorithms.md; verified by
// test/Check/writing-algorithms.mlir.
sched.schedule @line_all_gather collective = all_gather algorithm = "line"
    group_size = 4 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.send to 1 src = input[0]
    }
    sched.channel 1 {
      sched.recv from 1 dst = output[1] step = 1
      sched.recv from 1 dst = output[2] step = 2
      sched.recv from 1 dst = output[3] step = 3
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[1]
      sched.send to 2 src = input[0]
      sched.recv_copy_send from 0 to 2 dst = output[0] step = 1
    }
    sched.channel 1 {
      sched.send to 0 src = input[0]
      sched.recv_copy_send from 2 to 0 dst = output[2] step = 1
      sched.recv_copy_send from 2 to 0 dst = output[3] step = 2
    }
  }
  sched.rank 2 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[2]
      sched.send to 3 src = input[0]
      sched.recv_copy_send from 1 to 3 dst = output[1] step = 1
      sched.recv_copy_send from 1 to 3 dst = output[0] step = 2
    }
    sched.channel 1 {
      sched.send to 1 src = input[0]
      sched.recv_copy_send from 3 to 1 dst = output[3] step = 1
    }
  }
  sched.rank 3 {
    sched.channel 0 {
      sched.recv from 2 dst = output[2] step = 1
      sched.recv from 2 dst = output[1] step = 2
      sched.recv from 2 dst = output[0] step = 3
    }
    sched.channel 1 {
      sched.copy src = input[0] dst = output[3]
      sched.send to 2 src = input[0]
    }
  }
}

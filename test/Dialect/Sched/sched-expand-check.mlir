// The parametric ring all_gather expands, for n = 3, to exactly the
// hand-written explicit schedule below: both runs must match the same lines.
// RUN: collc-opt %s --sched-expand-check="group-size=3 schedule=ring_all_gather" -o /dev/null | FileCheck %s --check-prefix=N3
// RUN: collc-opt %s --sched-expand-check="schedule=ring_all_gather_n3" -o /dev/null | FileCheck %s --check-prefix=N3

// For n = 8 (and k = 2), the explicit form built from the Program
// (sched-expand) expands back to the same Program.
// RUN: collc-opt %s --sched-expand-check="group-size=8 chunks=2 schedule=ring_all_gather" -o /dev/null > %t.parametric
// RUN: collc-opt %s --sched-expand="group-size=8 chunks=2 schedule=ring_all_gather" \
// RUN:   | collc-opt --sched-expand-check="schedule=ring_all_gather" -o /dev/null > %t.explicit
// RUN: diff %t.parametric %t.explicit
// RUN: FileCheck %s --check-prefix=N8 < %t.parametric

// N3:      schedule @{{ring_all_gather(_n3)?}}: all_gather "ring": n = 3, k = 1, buffers input 1 output 3 scratch 0, 12 instructions
// N3-NEXT: rank 0: 1 channel, 4 instructions
// N3-NEXT:   channel 0: 4 instructions
// N3-NEXT:     0: copy src = input[0] dst = output[0]
// N3-NEXT:     1: send to 1 src = output[0]
// N3-NEXT:     2: recv_copy_send from 2 to 1 dst = output[2] step = 1
// N3-NEXT:     3: recv from 2 dst = output[1] step = 2
// N3-NEXT: rank 1: 1 channel, 4 instructions
// N3-NEXT:   channel 0: 4 instructions
// N3-NEXT:     0: copy src = input[0] dst = output[1]
// N3-NEXT:     1: send to 2 src = output[1]
// N3-NEXT:     2: recv_copy_send from 0 to 2 dst = output[0] step = 1
// N3-NEXT:     3: recv from 0 dst = output[2] step = 2
// N3-NEXT: rank 2: 1 channel, 4 instructions
// N3-NEXT:   channel 0: 4 instructions
// N3-NEXT:     0: copy src = input[0] dst = output[2]
// N3-NEXT:     1: send to 0 src = output[2]
// N3-NEXT:     2: recv_copy_send from 1 to 0 dst = output[1] step = 1
// N3-NEXT:     3: recv from 1 dst = output[0] step = 2
// N3-NOT:  rank

// N8:      schedule @ring_all_gather: all_gather "ring": n = 8, k = 2, buffers input 2 output 16 scratch 0, 72 instructions
// N8:      rank 5: 1 channel, 9 instructions
// N8-NEXT:   channel 0: 9 instructions
// N8-NEXT:     0: copy src = input[0] dst = output[10] count = 2
// N8-NEXT:     1: send to 6 src = output[10] count = 2
// N8-NEXT:     2: recv_copy_send from 4 to 6 dst = output[8] count = 2 step = 1
// N8-NEXT:     3: recv_copy_send from 4 to 6 dst = output[6] count = 2 step = 2
// N8-NEXT:     4: recv_copy_send from 4 to 6 dst = output[4] count = 2 step = 3
// N8-NEXT:     5: recv_copy_send from 4 to 6 dst = output[2] count = 2 step = 4
// N8-NEXT:     6: recv_copy_send from 4 to 6 dst = output[0] count = 2 step = 5
// N8-NEXT:     7: recv_copy_send from 4 to 6 dst = output[14] count = 2 step = 6
// N8-NEXT:     8: recv from 4 dst = output[12] count = 2 step = 7

sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
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

sched.schedule @ring_all_gather_n3 collective = all_gather algorithm = "ring"
    group_size = 3 chunks_per_part = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.send to 1 src = output[0]
      sched.recv_copy_send from 2 to 1 dst = output[2] step = 1
      sched.recv from 2 dst = output[1] step = 2
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[1]
      sched.send to 2 src = output[1]
      sched.recv_copy_send from 0 to 2 dst = output[0] step = 1
      sched.recv from 0 dst = output[2] step = 2
    }
  }
  sched.rank 2 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[2]
      sched.send to 0 src = output[2]
      sched.recv_copy_send from 1 to 0 dst = output[1] step = 1
      sched.recv from 1 dst = output[0] step = 2
    }
  }
}

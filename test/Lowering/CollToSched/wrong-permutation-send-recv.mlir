// sched-verify catches a send/recv schedule that does not follow the
// permutation it is expanded with: this one always shifts to r + 1 whatever
// send_peer says. It is right for its own peer (a ring shift), wrong for
// the reverse shift, and a table in which two ranks send to one is refused
// before anything runs.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-verify="group-sizes=3 send-to=schedule,reverse,2:2:-1" -o /dev/null 2>&1 | FileCheck %s
// CHECK: sched-verify: @shift_always: n = 3, k = 1, send-to schedule: verified (6 instructions, 3 transfers)

// expected-error @+4 {{sched-verify: @shift_always: n = 3, k = 1, send-to reverse: 2 error(s)}}
// expected-note @+3 {{rank 0, output chunk 0 holds input chunk 0 of rank 2 but must hold input chunk 0 of rank 1}}
// expected-note @+2 {{rank 1, output chunk 0 holds input chunk 0 of rank 0 but must hold input chunk 0 of rank 2}}
// expected-error @+1 {{schedule @shift_always sends ranks 0 and 1 to rank 2; a rank receives from one at most}}
sched.schedule @shift_always collective = send_recv algorithm = "shift_always"
    params = {send_peer = -1} peer = "(r + 1) mod n" {
  sched.channel 0 {
    sched.send to "(r + 1) mod n" src = input[0] count = k
    sched.recv from "(r - 1) mod n" dst = output[0] count = k
  }
}


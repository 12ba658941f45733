// send_recv schedules: the permutation as a peer function of r (every rank
// sends), as the single pair root -> peer(root), or as a send_to table for
// a fixed group size; the per-rank parameters send_peer and recv_peer.
// RUN: collc-opt %s | collc-opt | FileCheck %s --check-prefix=ROUND
// RUN: collc-opt %s --sched-expand-check="group-size=3 chunks=1" | FileCheck %s --check-prefix=EXPAND
// RUN: collc-opt %s --sched-expand="group-size=3" | FileCheck %s --check-prefix=EXPLICIT
// RUN: collc-opt %s --sched-expand="group-size=3" | collc-opt --sched-expand-check | FileCheck %s --check-prefix=EXPAND

// ROUND-LABEL: sched.schedule @shift collective = send_recv params = {recv_peer = -1, send_peer = -1} peer = "(r + 1) mod n" {
// ROUND:         sched.send to send_peer src = input[0] count = k
// EXPAND-LABEL: schedule @shift: send_recv "shift": n = 3, k = 1, send_to = [1, 2, 0], buffers input 1 output 1 scratch 0, 6 instructions
// EXPAND:       rank 0: 1 channel, 2 instructions
// EXPAND-NEXT:    channel 0: 2 instructions
// EXPAND-NEXT:      0: send to 1 src = input[0]
// EXPAND-NEXT:      1: recv from 2 dst = output[0]
// EXPLICIT-LABEL: sched.schedule @shift collective = send_recv algorithm = "shift" group_size = 3 chunks_per_part = 1 send_to = array<i64: 1, 2, 0> {
sched.schedule @shift collective = send_recv params = {recv_peer = -1, send_peer = -1}
    peer = "(r + 1) mod n" {
  sched.channel 0 {
    sched.if "send_peer >= 0" {
      sched.send to send_peer src = input[0] count = k
    }
    sched.if "recv_peer >= 0" {
      sched.recv from recv_peer dst = output[0] count = k
    }
  }
}

// With a root only the root sends, to peer(root): here rank 2 to rank 0.
// ROUND-LABEL: sched.schedule @pair collective = send_recv params = {recv_peer = -1, send_peer = -1} root = "n - 1" peer = "(r + 1) mod n" {
// EXPAND-LABEL: schedule @pair: send_recv "pair": n = 3, k = 1, root = 2, peer = 0, buffers input 1 output 1 scratch 0, 2 instructions
// EXPAND:       rank 0: 1 channel, 1 instruction
// EXPAND-NEXT:    channel 0: 1 instruction
// EXPAND-NEXT:      0: recv from 2 dst = output[0]
// EXPAND:       rank 1: 1 channel, 0 instructions
// EXPAND:       rank 2: 1 channel, 1 instruction
// EXPAND-NEXT:    channel 0: 1 instruction
// EXPAND-NEXT:      0: send to 0 src = input[0]
// EXPLICIT-LABEL: sched.schedule @pair collective = send_recv algorithm = "pair" group_size = 3 chunks_per_part = 1 root = 2 peer = 0 {
sched.schedule @pair collective = send_recv params = {recv_peer = -1, send_peer = -1}
    root = "n - 1" peer = "(r + 1) mod n" {
  sched.channel 0 {
    sched.if "send_peer >= 0" {
      sched.send to send_peer src = input[0] count = k
    }
    sched.if "recv_peer >= 0" {
      sched.recv from recv_peer dst = output[0] count = k
    }
  }
}

// A table, -1 for a rank that sends nothing: a pipeline hand-off.
// ROUND-LABEL: sched.schedule @hand_off collective = send_recv group_size = 3 params = {recv_peer = -1, send_peer = -1} send_to = array<i64: 1, 2, -1> {
// EXPAND-LABEL: schedule @hand_off: send_recv "hand_off": n = 3, k = 1, send_to = [1, 2, -1], buffers input 1 output 1 scratch 0, 4 instructions
// EXPAND:       rank 2: 1 channel, 1 instruction
// EXPAND-NEXT:    channel 0: 1 instruction
// EXPAND-NEXT:      0: recv from 1 dst = output[0]
// EXPLICIT-LABEL: sched.schedule @hand_off collective = send_recv algorithm = "hand_off" group_size = 3 chunks_per_part = 1 send_to = array<i64: 1, 2, -1> {
sched.schedule @hand_off collective = send_recv group_size = 3
    params = {recv_peer = -1, send_peer = -1} send_to = array<i64: 1, 2, -1> {
  sched.channel 0 {
    sched.if "send_peer >= 0" {
      sched.send to send_peer src = input[0] count = k
    }
    sched.if "recv_peer >= 0" {
      sched.recv from recv_peer dst = output[0] count = k
    }
  }
}

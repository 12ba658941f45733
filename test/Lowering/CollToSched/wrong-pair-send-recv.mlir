// sched-verify catches a send/recv schedule of the single-pair form
// (root -> peer) that delivers to another rank than its peer.
// RUN: collc-opt %s -verify-diagnostics --sched-verify="group-sizes=3" -o /dev/null

// expected-error @+2 {{sched-verify: @wrong_peer: n = 3, k = 1: 1 error(s)}}
// expected-note @+1 {{rank 1, output chunk 0 was never written but must hold input chunk 0 of rank 0}}
sched.schedule @wrong_peer collective = send_recv algorithm = "wrong_peer"
    root = 0 peer = 1 {
  sched.channel 0 {
    sched.if "r == 0" {
      sched.send to 2 src = input[0] count = k
    }
    sched.if "r == 2" {
      sched.recv from 0 dst = output[0] count = k
    }
  }
}

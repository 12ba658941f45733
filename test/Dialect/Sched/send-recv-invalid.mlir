// What the verifier refuses in a send_recv schedule's header.
// RUN: collc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{collective send_recv needs a peer (the receiver) or a send_to table}}
sched.schedule @nothing collective = send_recv {
}

// -----

// expected-error @+1 {{only send_recv takes send_to}}
sched.schedule @not_p2p collective = all_gather group_size = 2 send_to = array<i64: 1, 0> {
}

// -----

// expected-error @+1 {{send_to replaces root and peer; give one or the other}}
sched.schedule @both collective = send_recv group_size = 2 peer = 1 send_to = array<i64: 1, 0> {
}

// -----

// expected-error @+1 {{send_to needs a group_size}}
sched.schedule @no_size collective = send_recv send_to = array<i64: 1, 0> {
}

// -----

// expected-error @+1 {{send_to has 2 entries; a group of 3 ranks needs 3}}
sched.schedule @short collective = send_recv group_size = 3 send_to = array<i64: 1, 0> {
}

// -----

// expected-error @+1 {{send_to sends rank 1 to 3, outside the group of 3 ranks (-1: no send)}}
sched.schedule @outside collective = send_recv group_size = 3 send_to = array<i64: 1, 3, -1> {
}

// -----

// expected-error @+1 {{send_to sends rank 1 to itself}}
sched.schedule @itself collective = send_recv group_size = 3 send_to = array<i64: -1, 1, 0> {
}

// -----

// expected-error @+1 {{send_to sends ranks 0 and 2 to rank 1}}
sched.schedule @twice collective = send_recv group_size = 3 send_to = array<i64: 1, -1, 1> {
}

// -----

// expected-error @+1 {{send_to must be an array<i64: ...>}}
sched.schedule @not_array collective = send_recv group_size = 2 send_to = [1, 0] {
}

// -----

// The peer may use r, the root may not.
// expected-error @+1 {{root has 1 dims but 0 are in scope (none in a schedule's header)}}
"sched.schedule"() <{sym_name = "root_r", collective = #sched<collective send_recv>, root = affine_map<(d0)[s0, s1] -> (d0)>, peer = affine_map<(d0)[s0, s1] -> (d0 + 1)>}> ({
^bb0:
}) : () -> ()

// -----

// expected-error @+1 {{peer has 0 dims but 1 are in scope (r and 0 loop variables)}}
"sched.schedule"() <{sym_name = "peer_no_r", collective = #sched<collective send_recv>, peer = affine_map<()[s0, s1] -> (s0 - 1)>}> ({
^bb0:
}) : () -> ()

// Expansion errors of send_recv permutations.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-expand-check="group-size=4" -o /dev/null

// expected-error @+1 {{schedule @outside has peer 4 for rank 3, outside the group of 4 ranks}}
sched.schedule @outside collective = send_recv peer = "r + 1" {
}

// -----

// expected-error @+1 {{schedule @itself sends and receives on the same rank 0}}
sched.schedule @itself collective = send_recv peer = "2 * r" {
}

// -----

// expected-error @+1 {{schedule @twice sends ranks 0 and 2 to rank 1; a rank receives from one at most}}
sched.schedule @twice collective = send_recv peer = "(r mod 2) + 1" {
}

// -----

// expected-error @+1 {{schedule @divides has a peer expression that divides by zero for rank 0}}
sched.schedule @divides collective = send_recv peer = "r mod (n - 4)" {
}

// -----

// The root's peer only: the other ranks' peers are not evaluated.
sched.schedule @pair collective = send_recv root = 3 peer = "r - 1" {
}

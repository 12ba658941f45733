// send_peer and recv_peer are set per rank by expansion; an override is an
// error.
// RUN: collc-opt %s -verify-diagnostics --sched-expand-check="group-size=4 params=send_peer=2" -o /dev/null

// expected-error @+1 {{schedule @over sets its parameter 'send_peer' per rank from the permutation; it cannot be overridden}}
sched.schedule @over collective = send_recv params = {send_peer = -1} peer = "(r + 1) mod n" {
}

// A ring shift on channel 0 and 31 more channels that all copy the input
// into scratch chunk 0: a write-write race among them on every rank. Used by
// sched-verify-races.mlir to show where the race check stops following
// streams (VerifyOptions::maxRaceStreams, 2048): 31 per rank, so up to 66
// ranks.
sched.schedule @many_copy_channels collective = send_recv algorithm = "shift"
    peer = "(r + 1) mod n" scratch = 1 {
  sched.channel 0 {
    sched.send to "(r + 1) mod n" src = input[0] count = k
    sched.recv from "(r - 1) mod n" dst = output[0] count = k
  }
  sched.channel c = 1 to 32 {
    sched.copy src = input[0] dst = scratch[0]
  }
}

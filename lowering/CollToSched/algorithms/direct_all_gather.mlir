// Direct all-gather by shifted pairing.
//
// At step s (1 <= s < n) rank r sends its input to rank (r + s) mod n and
// receives part (r - s) mod n of its output from rank (r - s) mod n; its own
// part is copied locally. Every step is a permutation, so no rank receives
// from two peers in the same step, and on a non-blocking switch no two flows
// of a step share a port. Every part reaches its destination in one hop.
//
// Channels: as direct all-to-all, the n - 1 steps are dealt round-robin to 8
// channels (step s on channel (s - 1) mod 8), so that up to 8 peers are in
// flight per rank; each connection (r, r + s, channel) is used by one step.
//
// Chunking: each step moves the k chunks of the part as k messages,
// alternating send chunk c / recv chunk c, so a connection never holds more
// than one unreceived send (no deadlock for any k and any slots >= 1).
//
// Bytes sent per rank: (n-1) M (M = input bytes of a rank). Steps: n - 1
// (rounds of one hop each). Instructions per rank: 1 + 2 k (n - 1);
// transfers: n (n - 1) k.

sched.schedule @direct_all_gather collective = all_gather algorithm = "direct"
    attributes {collc.volume = "(n-1) M", collc.steps = "n - 1"}
    description = "direct: shifted pairing over 8 channels, k messages per peer; n-1 one-hop rounds, (n-1) M sent per rank" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.for s = 1 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 1 {
    sched.for s = 2 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 2 {
    sched.for s = 3 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 3 {
    sched.for s = 4 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 4 {
    sched.for s = 5 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 5 {
    sched.for s = 6 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 6 {
    sched.for s = 7 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 7 {
    sched.for s = 8 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input[c] step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
}

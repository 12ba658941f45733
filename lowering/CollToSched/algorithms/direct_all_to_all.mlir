// Direct all-to-all by shifted pairing.
//
// At step s (1 <= s < n) rank r sends part (r + s) mod n of its input to rank
// (r + s) mod n and receives part (r - s) mod n of its output from rank
// (r - s) mod n; part r is copied locally. Every step is a permutation, so on
// a non-blocking switch no two flows of a step share a port.
//
// Channels: the n - 1 steps are dealt round-robin to 16 channels (step s on
// channel (s - 1) mod 16), so that up to 16 peers are in flight per rank
// (16 thread blocks of >= 28 GB/s fill 450 GB/s of NVLink, see docs/design.md);
// a channel runs its steps in order. Each connection (r, r + s, channel) is
// used by one step only.
//
// Chunking: each step moves the k chunks of the part as k messages,
// alternating send chunk c / recv chunk c, so a step never holds more than one
// unreceived send per connection (no deadlock for any k and any number of
// slots >= 1) and the receiver stores chunk c while chunk c + 1 is on the
// wire.
//
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank). Steps: n - 1.
// Instructions per rank: 1 + 2 k (n - 1); transfers: n (n - 1) k.
sched.schedule @direct_all_to_all collective = all_to_all algorithm = "direct"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "n - 1"}
    description = "direct: shifted pairing over 16 channels, k messages per peer; n-1 steps, (n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
    sched.for s = 1 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 1 {
    sched.for s = 2 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 2 {
    sched.for s = 3 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 3 {
    sched.for s = 4 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 4 {
    sched.for s = 5 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 5 {
    sched.for s = 6 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 6 {
    sched.for s = 7 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 7 {
    sched.for s = 8 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 8 {
    sched.for s = 9 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 9 {
    sched.for s = 10 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 10 {
    sched.for s = 11 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 11 {
    sched.for s = 12 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 12 {
    sched.for s = 13 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 13 {
    sched.for s = 14 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 14 {
    sched.for s = 15 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
  sched.channel 15 {
    sched.for s = 16 to n step 16 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k + c"]
            step = s
      }
    }
  }
}

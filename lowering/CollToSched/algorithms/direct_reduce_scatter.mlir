// Direct reduce-scatter by shifted pairing.
//
// At step s (1 <= s < n) rank r sends part (r + s) mod n of its input to rank
// (r + s) mod n and receives part r of rank (r - s) mod n's input, which it
// adds to its own. Every step is a permutation, so no rank receives from two
// peers in the same step. Every contribution travels one hop.
//
// Channels: the n - 1 steps are dealt round-robin to 8 channels (step s on
// channel (s - 1) mod 8), up to 8 peers in flight per rank. Channels must not
// reduce into the same chunk concurrently, so channel 0 accumulates into the
// output (starting from the rank's own part) and channel j (1 <= j < 8)
// into its own k chunks of scratch (slot j - 1); channel 0 then adds slot
// j - 1 into the output after channel j's last instruction. Scratch: 7 k
// chunks (slots of channels that have no step stay unused).
//
// Chunking: each step moves the k chunks of the part as k messages,
// alternating send chunk c / recv chunk c, so a connection never holds more
// than one unreceived send (no deadlock for any k and any slots >= 1).
//
// Bytes sent per rank: (n-1)/n M (M = input bytes of a rank, n parts).
// Steps: n - 1 (rounds of one hop each), plus min(7, n - 2) local reduces.
// Instructions per rank: 2 k (n - 1) + min(7, n - 2); transfers: n (n - 1) k.

sched.schedule @direct_reduce_scatter collective = reduce_scatter algorithm = "direct"
    attributes {collc.volume = "(n-1)/n M", collc.steps = "n - 1"}
    scratch = "7 * k"
    description = "direct: shifted pairing over 8 channels, k messages per peer, per-channel partial sums; n-1 one-hop rounds, (n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.for s = 1 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 1" {
          sched.recv_reduce_copy from "(r - s) mod n" src = input["r * k + c"]
              dst = output[c] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = output[c]
              dst = output[c] step = s
        }
      }
    }
    sched.if "n >= 3" {
      sched.reduce src = scratch["0 * k"] dst = output[0] count = k step = n
          after = [(channel 1, index "2 * k * ((n + 5) floordiv 8) - 1")]
    }
    sched.if "n >= 4" {
      sched.reduce src = scratch["1 * k"] dst = output[0] count = k step = n
          after = [(channel 2, index "2 * k * ((n + 4) floordiv 8) - 1")]
    }
    sched.if "n >= 5" {
      sched.reduce src = scratch["2 * k"] dst = output[0] count = k step = n
          after = [(channel 3, index "2 * k * ((n + 3) floordiv 8) - 1")]
    }
    sched.if "n >= 6" {
      sched.reduce src = scratch["3 * k"] dst = output[0] count = k step = n
          after = [(channel 4, index "2 * k * ((n + 2) floordiv 8) - 1")]
    }
    sched.if "n >= 7" {
      sched.reduce src = scratch["4 * k"] dst = output[0] count = k step = n
          after = [(channel 5, index "2 * k * ((n + 1) floordiv 8) - 1")]
    }
    sched.if "n >= 8" {
      sched.reduce src = scratch["5 * k"] dst = output[0] count = k step = n
          after = [(channel 6, index "2 * k * ((n + 0) floordiv 8) - 1")]
    }
    sched.if "n >= 9" {
      sched.reduce src = scratch["6 * k"] dst = output[0] count = k step = n
          after = [(channel 7, index "2 * k * ((n + -1) floordiv 8) - 1")]
    }
  }
  sched.channel 1 {
    sched.for s = 2 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 2" {
          sched.recv from "(r - s) mod n" dst = scratch["c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["c"]
              dst = scratch["c"] step = s
        }
      }
    }
  }
  sched.channel 2 {
    sched.for s = 3 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 3" {
          sched.recv from "(r - s) mod n" dst = scratch["1 * k + c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["1 * k + c"]
              dst = scratch["1 * k + c"] step = s
        }
      }
    }
  }
  sched.channel 3 {
    sched.for s = 4 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 4" {
          sched.recv from "(r - s) mod n" dst = scratch["2 * k + c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["2 * k + c"]
              dst = scratch["2 * k + c"] step = s
        }
      }
    }
  }
  sched.channel 4 {
    sched.for s = 5 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 5" {
          sched.recv from "(r - s) mod n" dst = scratch["3 * k + c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["3 * k + c"]
              dst = scratch["3 * k + c"] step = s
        }
      }
    }
  }
  sched.channel 5 {
    sched.for s = 6 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 6" {
          sched.recv from "(r - s) mod n" dst = scratch["4 * k + c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["4 * k + c"]
              dst = scratch["4 * k + c"] step = s
        }
      }
    }
  }
  sched.channel 6 {
    sched.for s = 7 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 7" {
          sched.recv from "(r - s) mod n" dst = scratch["5 * k + c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["5 * k + c"]
              dst = scratch["5 * k + c"] step = s
        }
      }
    }
  }
  sched.channel 7 {
    sched.for s = 8 to n step 8 {
      sched.for c = 0 to k {
        sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k + c"]
            step = s
        sched.if "s == 8" {
          sched.recv from "(r - s) mod n" dst = scratch["6 * k + c"] step = s
        } else {
          sched.recv_reduce_copy from "(r - s) mod n" src = scratch["6 * k + c"]
              dst = scratch["6 * k + c"] step = s
        }
      }
    }
  }
}

// Bruck's all-to-all (the "index" algorithm), for small messages and any n.
//
// Blocks are numbered by their distance: on rank r, block j (0 <= j < n) is
// the one that must travel j ranks forward, from r to (r + j) mod n. For
// d = 1, 2, 4, ... < n (bit i of j, d = 2^i; ceil(log2 n) steps) every block
// j with j & d != 0 moves d ranks forward: rank r sends those blocks to
// (r + d) mod n and receives the same positions from (r - d) mod n. A block
// keeps its position j while it travels and has moved j ranks once every
// bit of j has been handled, so at the end position j of rank r holds the
// block of rank (r - j) mod n for r.
//
// Channels: position j belongs to channel c = j mod 16, which keeps its blocks
// i = 0, 1, ... (j = c + 16 i) contiguous in its own slice of scratch, tmp_c.
// Positions never change channel, so the 16 channels are 16 independent
// Bruck exchanges that run in parallel without a single cross-channel
// dependency. This layout also removes most local copies:
//  - a step d < 16 moves the blocks with bit d of j set, that is every block
//    of the channels c with bit d set and none of the others: such a channel
//    sends its whole slice, straight from tmp_c, and receives straight into it;
//  - a step d = 16 e >= 16 moves, in every channel, the blocks whose i has
//    bit e set: runs of e blocks, packed (one copy per run) into the
//    channel's staging area, sent as one message, received into the staging
//    area and unpacked into the same positions.
// The rotation before (tmp_c[i] = input part (r + c + 16 i) mod n) and the
// reversal after (output part (r - c - 16 i) mod n = tmp_c[i]) copy block by
// block.
//
// Messages: ceil(log2 n) steps; a step d < 16 is 8 messages per rank
// (one per channel with bit d), a step d >= 16 one message per channel; the
// messages of a step travel in parallel. Bytes sent per rank: the sum over
// steps of the blocks with bit d, m(d) = floor(n / 2d) d + max(0, n mod 2d - d)
// blocks of M/n: (M/2) log2 n for a power of two, B(n)/n M in general (B(n)
// = the one bits of 0 .. n-1), against (n-1)/n M for direct: Bruck trades
// volume for fewer messages. Local copies per rank: 2n for the rotations and
// 2 R runs for d >= 16, R = sum over channels and steps of
// ceil((n_c - e) / 2e), n_c = ceil((n - c) / 16), e = d / 16 (about n for
// large n); per channel about 4 n / 16. No chunk pipelining: a step is one
// message per channel of all its blocks (k chunks each); k only scales them.
// Scratch: a slice of ceil(n / 16) blocks per channel for tmp_c and as much
// for its staging area.
sched.schedule @bruck_all_to_all collective = all_to_all algorithm = "bruck"
    attributes {collc.volume = "(M/2) log2 n (n a power of two; B(n)/n M in general)",
                collc.steps = "ceil(log2 n)"}
    scratch = "32 * ((n + 15) floordiv 16) * k"
    description = "bruck: ceil(log2 n) steps, each moving the blocks whose distance has bit i set, over 16 independent channels (distance mod 16); (M/2) log2 n sent per rank" {
  // Distances j = 0, 16, 32, ...
  sched.channel 0 {
    sched.for i = 0 to "((n + 15) floordiv 16)" {
      sched.copy src = input["((r + 16 * i) mod n) * k"]
          dst = scratch["i * k"] count = k
    }
    sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
      sched.if "((n + 15) floordiv 16) > e" {
        sched.for q = 0 to "(((n + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
          sched.if "2 * q * e + 2 * e <= ((n + 15) floordiv 16)" {
            sched.copy src = scratch["(2 * q * e + e) * k"]
                dst = scratch["(16 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
          } else {
            sched.copy src = scratch["(2 * q * e + e) * k"]
                dst = scratch["(16 * ((n + 15) floordiv 16) + q * e) * k"]
                count = "(((n + 15) floordiv 16) - 2 * q * e - e) * k"
                step = "16 * e"
          }
        }
        sched.if "((n + 15) floordiv 16) mod (2 * e) > e" {
          sched.send to "(r + 16 * e) mod n" src = scratch["(16 * ((n + 15) floordiv 16)) * k"]
              count = "((((n + 15) floordiv 16) floordiv (2 * e)) * e + ((n + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          sched.recv from "(r - 16 * e) mod n" dst = scratch["(16 * ((n + 15) floordiv 16)) * k"]
              count = "((((n + 15) floordiv 16) floordiv (2 * e)) * e + ((n + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
        } else {
          sched.send to "(r + 16 * e) mod n" src = scratch["(16 * ((n + 15) floordiv 16)) * k"]
              count = "(((n + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          sched.recv from "(r - 16 * e) mod n" dst = scratch["(16 * ((n + 15) floordiv 16)) * k"]
              count = "(((n + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
        }
        sched.for q = 0 to "(((n + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
          sched.if "2 * q * e + 2 * e <= ((n + 15) floordiv 16)" {
            sched.copy src = scratch["(16 * ((n + 15) floordiv 16) + q * e) * k"]
                dst = scratch["(2 * q * e + e) * k"] count = "e * k" step = "16 * e"
          } else {
            sched.copy src = scratch["(16 * ((n + 15) floordiv 16) + q * e) * k"]
                dst = scratch["(2 * q * e + e) * k"]
                count = "(((n + 15) floordiv 16) - 2 * q * e - e) * k"
                step = "16 * e"
          }
        }
      }
    }
    sched.for i = 0 to "((n + 15) floordiv 16)" {
      sched.copy src = scratch["i * k"]
          dst = output["((r - 16 * i) mod n) * k"] count = k step = n
    }
  }
  // Distances j = 1, 17, 33, ...
  sched.channel 1 {
    sched.if "n > 1" {
      sched.for i = 0 to "((n - 1 + 15) floordiv 16)" {
        sched.copy src = input["((r + 1 + 16 * i) mod n) * k"]
            dst = scratch["(1 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["1 * ((n + 15) floordiv 16) * k"]
            count = "((n - 1 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["1 * ((n + 15) floordiv 16) * k"]
            count = "((n - 1 + 15) floordiv 16) * k" step = 1
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 1 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 1 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 1 + 15) floordiv 16)" {
              sched.copy src = scratch["(1 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(17 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(1 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(17 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 1 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 1 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(17 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 1 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 1 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(17 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 1 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 1 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(17 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 1 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(17 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 1 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 1 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 1 + 15) floordiv 16)" {
              sched.copy src = scratch["(17 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(1 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(17 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(1 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 1 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 1 + 15) floordiv 16)" {
        sched.copy src = scratch["(1 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 1 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 2, 18, 34, ...
  sched.channel 2 {
    sched.if "n > 2" {
      sched.for i = 0 to "((n - 2 + 15) floordiv 16)" {
        sched.copy src = input["((r + 2 + 16 * i) mod n) * k"]
            dst = scratch["(2 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["2 * ((n + 15) floordiv 16) * k"]
            count = "((n - 2 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["2 * ((n + 15) floordiv 16) * k"]
            count = "((n - 2 + 15) floordiv 16) * k" step = 2
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 2 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 2 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 2 + 15) floordiv 16)" {
              sched.copy src = scratch["(2 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(18 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(2 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(18 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 2 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 2 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(18 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 2 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 2 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(18 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 2 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 2 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(18 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 2 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(18 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 2 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 2 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 2 + 15) floordiv 16)" {
              sched.copy src = scratch["(18 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(2 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(18 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(2 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 2 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 2 + 15) floordiv 16)" {
        sched.copy src = scratch["(2 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 2 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 3, 19, 35, ...
  sched.channel 3 {
    sched.if "n > 3" {
      sched.for i = 0 to "((n - 3 + 15) floordiv 16)" {
        sched.copy src = input["((r + 3 + 16 * i) mod n) * k"]
            dst = scratch["(3 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["3 * ((n + 15) floordiv 16) * k"]
            count = "((n - 3 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["3 * ((n + 15) floordiv 16) * k"]
            count = "((n - 3 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["3 * ((n + 15) floordiv 16) * k"]
            count = "((n - 3 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["3 * ((n + 15) floordiv 16) * k"]
            count = "((n - 3 + 15) floordiv 16) * k" step = 2
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 3 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 3 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 3 + 15) floordiv 16)" {
              sched.copy src = scratch["(3 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(19 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(3 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(19 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 3 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 3 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(19 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 3 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 3 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(19 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 3 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 3 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(19 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 3 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(19 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 3 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 3 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 3 + 15) floordiv 16)" {
              sched.copy src = scratch["(19 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(3 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(19 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(3 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 3 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 3 + 15) floordiv 16)" {
        sched.copy src = scratch["(3 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 3 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 4, 20, 36, ...
  sched.channel 4 {
    sched.if "n > 4" {
      sched.for i = 0 to "((n - 4 + 15) floordiv 16)" {
        sched.copy src = input["((r + 4 + 16 * i) mod n) * k"]
            dst = scratch["(4 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["4 * ((n + 15) floordiv 16) * k"]
            count = "((n - 4 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["4 * ((n + 15) floordiv 16) * k"]
            count = "((n - 4 + 15) floordiv 16) * k" step = 4
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 4 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 4 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 4 + 15) floordiv 16)" {
              sched.copy src = scratch["(4 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(20 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(4 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(20 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 4 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 4 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(20 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 4 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 4 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(20 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 4 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 4 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(20 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 4 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(20 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 4 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 4 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 4 + 15) floordiv 16)" {
              sched.copy src = scratch["(20 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(4 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(20 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(4 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 4 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 4 + 15) floordiv 16)" {
        sched.copy src = scratch["(4 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 4 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 5, 21, 37, ...
  sched.channel 5 {
    sched.if "n > 5" {
      sched.for i = 0 to "((n - 5 + 15) floordiv 16)" {
        sched.copy src = input["((r + 5 + 16 * i) mod n) * k"]
            dst = scratch["(5 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["5 * ((n + 15) floordiv 16) * k"]
            count = "((n - 5 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["5 * ((n + 15) floordiv 16) * k"]
            count = "((n - 5 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["5 * ((n + 15) floordiv 16) * k"]
            count = "((n - 5 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["5 * ((n + 15) floordiv 16) * k"]
            count = "((n - 5 + 15) floordiv 16) * k" step = 4
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 5 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 5 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 5 + 15) floordiv 16)" {
              sched.copy src = scratch["(5 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(21 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(5 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(21 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 5 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 5 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(21 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 5 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 5 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(21 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 5 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 5 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(21 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 5 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(21 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 5 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 5 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 5 + 15) floordiv 16)" {
              sched.copy src = scratch["(21 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(5 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(21 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(5 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 5 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 5 + 15) floordiv 16)" {
        sched.copy src = scratch["(5 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 5 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 6, 22, 38, ...
  sched.channel 6 {
    sched.if "n > 6" {
      sched.for i = 0 to "((n - 6 + 15) floordiv 16)" {
        sched.copy src = input["((r + 6 + 16 * i) mod n) * k"]
            dst = scratch["(6 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["6 * ((n + 15) floordiv 16) * k"]
            count = "((n - 6 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["6 * ((n + 15) floordiv 16) * k"]
            count = "((n - 6 + 15) floordiv 16) * k" step = 2
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["6 * ((n + 15) floordiv 16) * k"]
            count = "((n - 6 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["6 * ((n + 15) floordiv 16) * k"]
            count = "((n - 6 + 15) floordiv 16) * k" step = 4
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 6 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 6 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 6 + 15) floordiv 16)" {
              sched.copy src = scratch["(6 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(22 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(6 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(22 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 6 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 6 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(22 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 6 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 6 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(22 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 6 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 6 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(22 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 6 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(22 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 6 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 6 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 6 + 15) floordiv 16)" {
              sched.copy src = scratch["(22 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(6 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(22 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(6 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 6 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 6 + 15) floordiv 16)" {
        sched.copy src = scratch["(6 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 6 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 7, 23, 39, ...
  sched.channel 7 {
    sched.if "n > 7" {
      sched.for i = 0 to "((n - 7 + 15) floordiv 16)" {
        sched.copy src = input["((r + 7 + 16 * i) mod n) * k"]
            dst = scratch["(7 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["7 * ((n + 15) floordiv 16) * k"]
            count = "((n - 7 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["7 * ((n + 15) floordiv 16) * k"]
            count = "((n - 7 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["7 * ((n + 15) floordiv 16) * k"]
            count = "((n - 7 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["7 * ((n + 15) floordiv 16) * k"]
            count = "((n - 7 + 15) floordiv 16) * k" step = 2
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["7 * ((n + 15) floordiv 16) * k"]
            count = "((n - 7 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["7 * ((n + 15) floordiv 16) * k"]
            count = "((n - 7 + 15) floordiv 16) * k" step = 4
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 7 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 7 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 7 + 15) floordiv 16)" {
              sched.copy src = scratch["(7 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(23 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(7 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(23 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 7 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 7 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(23 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 7 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 7 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(23 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 7 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 7 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(23 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 7 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(23 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 7 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 7 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 7 + 15) floordiv 16)" {
              sched.copy src = scratch["(23 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(7 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(23 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(7 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 7 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 7 + 15) floordiv 16)" {
        sched.copy src = scratch["(7 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 7 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 8, 24, 40, ...
  sched.channel 8 {
    sched.if "n > 8" {
      sched.for i = 0 to "((n - 8 + 15) floordiv 16)" {
        sched.copy src = input["((r + 8 + 16 * i) mod n) * k"]
            dst = scratch["(8 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["8 * ((n + 15) floordiv 16) * k"]
            count = "((n - 8 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["8 * ((n + 15) floordiv 16) * k"]
            count = "((n - 8 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 8 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 8 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 8 + 15) floordiv 16)" {
              sched.copy src = scratch["(8 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(24 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(8 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(24 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 8 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 8 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(24 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 8 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 8 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(24 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 8 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 8 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(24 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 8 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(24 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 8 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 8 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 8 + 15) floordiv 16)" {
              sched.copy src = scratch["(24 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(8 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(24 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(8 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 8 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 8 + 15) floordiv 16)" {
        sched.copy src = scratch["(8 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 8 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 9, 25, 41, ...
  sched.channel 9 {
    sched.if "n > 9" {
      sched.for i = 0 to "((n - 9 + 15) floordiv 16)" {
        sched.copy src = input["((r + 9 + 16 * i) mod n) * k"]
            dst = scratch["(9 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["9 * ((n + 15) floordiv 16) * k"]
            count = "((n - 9 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["9 * ((n + 15) floordiv 16) * k"]
            count = "((n - 9 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["9 * ((n + 15) floordiv 16) * k"]
            count = "((n - 9 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["9 * ((n + 15) floordiv 16) * k"]
            count = "((n - 9 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 9 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 9 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 9 + 15) floordiv 16)" {
              sched.copy src = scratch["(9 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(25 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(9 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(25 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 9 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 9 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(25 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 9 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 9 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(25 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 9 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 9 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(25 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 9 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(25 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 9 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 9 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 9 + 15) floordiv 16)" {
              sched.copy src = scratch["(25 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(9 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(25 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(9 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 9 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 9 + 15) floordiv 16)" {
        sched.copy src = scratch["(9 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 9 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 10, 26, 42, ...
  sched.channel 10 {
    sched.if "n > 10" {
      sched.for i = 0 to "((n - 10 + 15) floordiv 16)" {
        sched.copy src = input["((r + 10 + 16 * i) mod n) * k"]
            dst = scratch["(10 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["10 * ((n + 15) floordiv 16) * k"]
            count = "((n - 10 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["10 * ((n + 15) floordiv 16) * k"]
            count = "((n - 10 + 15) floordiv 16) * k" step = 2
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["10 * ((n + 15) floordiv 16) * k"]
            count = "((n - 10 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["10 * ((n + 15) floordiv 16) * k"]
            count = "((n - 10 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 10 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 10 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 10 + 15) floordiv 16)" {
              sched.copy src = scratch["(10 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(26 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(10 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(26 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 10 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 10 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(26 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 10 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 10 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(26 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 10 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 10 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(26 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 10 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(26 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 10 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 10 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 10 + 15) floordiv 16)" {
              sched.copy src = scratch["(26 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(10 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(26 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(10 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 10 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 10 + 15) floordiv 16)" {
        sched.copy src = scratch["(10 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 10 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 11, 27, 43, ...
  sched.channel 11 {
    sched.if "n > 11" {
      sched.for i = 0 to "((n - 11 + 15) floordiv 16)" {
        sched.copy src = input["((r + 11 + 16 * i) mod n) * k"]
            dst = scratch["(11 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["11 * ((n + 15) floordiv 16) * k"]
            count = "((n - 11 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["11 * ((n + 15) floordiv 16) * k"]
            count = "((n - 11 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["11 * ((n + 15) floordiv 16) * k"]
            count = "((n - 11 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["11 * ((n + 15) floordiv 16) * k"]
            count = "((n - 11 + 15) floordiv 16) * k" step = 2
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["11 * ((n + 15) floordiv 16) * k"]
            count = "((n - 11 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["11 * ((n + 15) floordiv 16) * k"]
            count = "((n - 11 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 11 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 11 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 11 + 15) floordiv 16)" {
              sched.copy src = scratch["(11 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(27 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(11 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(27 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 11 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 11 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(27 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 11 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 11 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(27 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 11 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 11 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(27 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 11 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(27 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 11 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 11 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 11 + 15) floordiv 16)" {
              sched.copy src = scratch["(27 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(11 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(27 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(11 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 11 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 11 + 15) floordiv 16)" {
        sched.copy src = scratch["(11 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 11 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 12, 28, 44, ...
  sched.channel 12 {
    sched.if "n > 12" {
      sched.for i = 0 to "((n - 12 + 15) floordiv 16)" {
        sched.copy src = input["((r + 12 + 16 * i) mod n) * k"]
            dst = scratch["(12 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["12 * ((n + 15) floordiv 16) * k"]
            count = "((n - 12 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["12 * ((n + 15) floordiv 16) * k"]
            count = "((n - 12 + 15) floordiv 16) * k" step = 4
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["12 * ((n + 15) floordiv 16) * k"]
            count = "((n - 12 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["12 * ((n + 15) floordiv 16) * k"]
            count = "((n - 12 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 12 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 12 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 12 + 15) floordiv 16)" {
              sched.copy src = scratch["(12 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(28 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(12 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(28 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 12 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 12 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(28 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 12 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 12 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(28 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 12 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 12 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(28 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 12 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(28 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 12 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 12 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 12 + 15) floordiv 16)" {
              sched.copy src = scratch["(28 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(12 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(28 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(12 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 12 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 12 + 15) floordiv 16)" {
        sched.copy src = scratch["(12 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 12 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 13, 29, 45, ...
  sched.channel 13 {
    sched.if "n > 13" {
      sched.for i = 0 to "((n - 13 + 15) floordiv 16)" {
        sched.copy src = input["((r + 13 + 16 * i) mod n) * k"]
            dst = scratch["(13 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["13 * ((n + 15) floordiv 16) * k"]
            count = "((n - 13 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["13 * ((n + 15) floordiv 16) * k"]
            count = "((n - 13 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["13 * ((n + 15) floordiv 16) * k"]
            count = "((n - 13 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["13 * ((n + 15) floordiv 16) * k"]
            count = "((n - 13 + 15) floordiv 16) * k" step = 4
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["13 * ((n + 15) floordiv 16) * k"]
            count = "((n - 13 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["13 * ((n + 15) floordiv 16) * k"]
            count = "((n - 13 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 13 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 13 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 13 + 15) floordiv 16)" {
              sched.copy src = scratch["(13 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(29 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(13 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(29 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 13 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 13 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(29 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 13 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 13 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(29 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 13 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 13 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(29 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 13 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(29 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 13 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 13 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 13 + 15) floordiv 16)" {
              sched.copy src = scratch["(29 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(13 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(29 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(13 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 13 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 13 + 15) floordiv 16)" {
        sched.copy src = scratch["(13 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 13 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 14, 30, 46, ...
  sched.channel 14 {
    sched.if "n > 14" {
      sched.for i = 0 to "((n - 14 + 15) floordiv 16)" {
        sched.copy src = input["((r + 14 + 16 * i) mod n) * k"]
            dst = scratch["(14 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["14 * ((n + 15) floordiv 16) * k"]
            count = "((n - 14 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["14 * ((n + 15) floordiv 16) * k"]
            count = "((n - 14 + 15) floordiv 16) * k" step = 2
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["14 * ((n + 15) floordiv 16) * k"]
            count = "((n - 14 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["14 * ((n + 15) floordiv 16) * k"]
            count = "((n - 14 + 15) floordiv 16) * k" step = 4
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["14 * ((n + 15) floordiv 16) * k"]
            count = "((n - 14 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["14 * ((n + 15) floordiv 16) * k"]
            count = "((n - 14 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 14 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 14 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 14 + 15) floordiv 16)" {
              sched.copy src = scratch["(14 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(30 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(14 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(30 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 14 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 14 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(30 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 14 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 14 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(30 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 14 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 14 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(30 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 14 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(30 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 14 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 14 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 14 + 15) floordiv 16)" {
              sched.copy src = scratch["(30 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(14 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(30 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(14 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 14 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 14 + 15) floordiv 16)" {
        sched.copy src = scratch["(14 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 14 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
  // Distances j = 15, 31, 47, ...
  sched.channel 15 {
    sched.if "n > 15" {
      sched.for i = 0 to "((n - 15 + 15) floordiv 16)" {
        sched.copy src = input["((r + 15 + 16 * i) mod n) * k"]
            dst = scratch["(15 * ((n + 15) floordiv 16) + i) * k"] count = k
      }
      sched.if "n > 1" {
        sched.send to "(r + 1) mod n" src = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 1
        sched.recv from "(r - 1) mod n" dst = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 1
      }
      sched.if "n > 2" {
        sched.send to "(r + 2) mod n" src = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 2
        sched.recv from "(r - 2) mod n" dst = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 2
      }
      sched.if "n > 4" {
        sched.send to "(r + 4) mod n" src = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 4
        sched.recv from "(r - 4) mod n" dst = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 4
      }
      sched.if "n > 8" {
        sched.send to "(r + 8) mod n" src = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 8
        sched.recv from "(r - 8) mod n" dst = scratch["15 * ((n + 15) floordiv 16) * k"]
            count = "((n - 15 + 15) floordiv 16) * k" step = 8
      }
      sched.for e = 1 to "((n + 15) floordiv 16)" step * 2 {
        sched.if "((n - 15 + 15) floordiv 16) > e" {
          sched.for q = 0 to "(((n - 15 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 15 + 15) floordiv 16)" {
              sched.copy src = scratch["(15 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(31 * ((n + 15) floordiv 16) + q * e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(15 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  dst = scratch["(31 * ((n + 15) floordiv 16) + q * e) * k"]
                  count = "(((n - 15 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
          sched.if "((n - 15 + 15) floordiv 16) mod (2 * e) > e" {
            sched.send to "(r + 16 * e) mod n" src = scratch["(31 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 15 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 15 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(31 * ((n + 15) floordiv 16)) * k"]
                count = "((((n - 15 + 15) floordiv 16) floordiv (2 * e)) * e + ((n - 15 + 15) floordiv 16) mod (2 * e) - e) * k" step = "16 * e"
          } else {
            sched.send to "(r + 16 * e) mod n" src = scratch["(31 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 15 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
            sched.recv from "(r - 16 * e) mod n" dst = scratch["(31 * ((n + 15) floordiv 16)) * k"]
                count = "(((n - 15 + 15) floordiv 16) floordiv (2 * e)) * e * k" step = "16 * e"
          }
          sched.for q = 0 to "(((n - 15 + 15) floordiv 16) + e - 1) floordiv (2 * e)" {
            sched.if "2 * q * e + 2 * e <= ((n - 15 + 15) floordiv 16)" {
              sched.copy src = scratch["(31 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(15 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"] count = "e * k" step = "16 * e"
            } else {
              sched.copy src = scratch["(31 * ((n + 15) floordiv 16) + q * e) * k"]
                  dst = scratch["(15 * ((n + 15) floordiv 16) + 2 * q * e + e) * k"]
                  count = "(((n - 15 + 15) floordiv 16) - 2 * q * e - e) * k"
                  step = "16 * e"
            }
          }
        }
      }
      sched.for i = 0 to "((n - 15 + 15) floordiv 16)" {
        sched.copy src = scratch["(15 * ((n + 15) floordiv 16) + i) * k"]
            dst = output["((r - 15 - 16 * i) mod n) * k"] count = k step = n
      }
    }
  }
}

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
// Channels: the distances are cut into 16 slices of p blocks, p the least
// power of two >= ceil(n / 16) (p is no affine expression of n, so a loop
// over p = 1, 2, 4, ... whose guard holds once binds it); channel c (one
// channel range, c = 0 .. 15) owns the slice j = c p .. c p + p - 1 (lo ..
// hi - 1, clipped to n), kept at scratch position j (tmp). Positions never
// change slice, so the 16 channels are 16 independent Bruck exchanges that
// run in parallel without a single cross-channel dependency:
//  - rotation: tmp[j] = input part (r + j) mod n, the slice is contiguous in
//    the input up to one wrap: one or two copies;
//  - a step d < p moves the runs of d blocks with bit d inside the slice:
//    one copy per run packs them into the channel's staging area, one
//    message goes to (r + d) mod n, one comes from (r - d) mod n into the
//    staging area, one copy per run unpacks it;
//  - a step d >= p moves the whole slice or nothing (p and d are powers of
//    two, so bit d is the same for the whole slice): one message straight
//    from and into tmp, no copies;
//  - reversal: output part (r - j) mod n = tmp[j], block by block (it
//    reverses the order, so no range copy does it).
//
// Messages: ceil(log2 n) steps; each step d < p is one message per channel,
// a step d >= p one per channel whose slice has bit d; the messages of a
// step travel in parallel. Bytes sent per rank: the sum over steps of the
// blocks with bit d, m(d) = floor(n / 2d) d + max(0, n mod 2d - d) blocks of
// M/n: (M/2) log2 n for a power of two, B(n)/n M in general (B(n) = the one
// bits of 0 .. n-1), against (n-1)/n M for direct: Bruck trades volume for
// fewer messages. Local copies per rank: at most 32 for the rotation, n for
// the reversal and 2 R for packing, R = the runs of the steps d < p (about
// n for large n): about 3 n / 16 per channel. No chunk pipelining: a step
// is one message per channel of all its blocks (k chunks each); k only
// scales them. Scratch: tmp (16 p <= 2 n + 30 blocks) and a staging area of
// p / 2 blocks per channel.
sched.schedule @bruck_all_to_all collective = all_to_all algorithm = "bruck"
    attributes {collc.volume = "(M/2) log2 n (n a power of two; B(n)/n M in general)",
                collc.steps = "ceil(log2 n)"}
    scratch = "48 * ((n + 15) floordiv 16) * k"
    description = "bruck: ceil(log2 n) steps, each moving the blocks whose distance has bit i set; the distances cut into 16 slices, one channel each; (M/2) log2 n sent per rank" {
  // Channel c: the distances c p .. c p + p - 1.
  sched.channel c = 0 to 16 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > c * p" {
        // The slice lo .. hi - 1 (the last one clipped to n), the channel's
        // staging area of p / 2 blocks at stage, and first, the input part
        // that goes to tmp[lo].
        sched.let lo = "c * p", hi = "lo + p",
            stage = "16 * p + c * (p floordiv 2)", first = "(r + lo) mod n" {
          // Rotation: tmp[lo + i] = input part (r + lo + i) mod n, i below p
          // (below n - lo for the last slice); one copy, or two where it
          // wraps.
          sched.if "n >= hi" {
            sched.if "first + p <= n" {
              sched.copy src = input["first * k"] dst = scratch["lo * k"]
                  count = "p * k"
            } else {
              sched.copy src = input["first * k"] dst = scratch["lo * k"]
                  count = "(n - first) * k"
              sched.copy src = input[0] dst = scratch["(lo + n - first) * k"]
                  count = "(first + p - n) * k"
            }
          } else {
            sched.if "first <= lo" {
              sched.copy src = input["first * k"] dst = scratch["lo * k"]
                  count = "(n - lo) * k"
            } else {
              sched.copy src = input["first * k"] dst = scratch["lo * k"]
                  count = "(n - first) * k"
              sched.copy src = input[0] dst = scratch["(lo + n - first) * k"]
                  count = "(first - lo) * k"
            }
          }
          // Steps d < p: pack the runs of d blocks with bit d of the slice
          // (runs q = q0 .. q0 + p / 2d - 1, blocks 2 q d + d .. 2 q d + 2 d
          // - 1, clipped to n), send one message, receive one, unpack.
          sched.for d = 1 to p step * 2 {
            sched.if "n > lo + d" {
              sched.let q0 = "c * (p floordiv (2 * d))" {
                sched.for q = q0 to "q0 + p floordiv (2 * d)" {
                  sched.if "2 * q * d + d < n" {
                    sched.if "2 * q * d + 2 * d <= n" {
                      sched.copy src = scratch["(2 * q * d + d) * k"]
                          dst = scratch["(stage + (q - q0) * d) * k"]
                          count = "d * k" step = d
                    } else {
                      sched.copy src = scratch["(2 * q * d + d) * k"]
                          dst = scratch["(stage + (q - q0) * d) * k"]
                          count = "(n - 2 * q * d - d) * k" step = d
                    }
                  }
                }
                // p / 2 blocks, or for the last slice those below n: m(d)
                // less the c p / 2 of the slices before.
                sched.if "n >= hi" {
                  sched.send to "(r + d) mod n" src = scratch["stage * k"]
                      count = "(p floordiv 2) * k" step = d
                  sched.recv from "(r - d) mod n" dst = scratch["stage * k"]
                      count = "(p floordiv 2) * k" step = d
                } else {
                  sched.if "n mod (2 * d) > d" {
                    sched.send to "(r + d) mod n" src = scratch["stage * k"]
                        count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - c * (p floordiv 2)) * k" step = d
                    sched.recv from "(r - d) mod n" dst = scratch["stage * k"]
                        count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - c * (p floordiv 2)) * k" step = d
                  } else {
                    sched.send to "(r + d) mod n" src = scratch["stage * k"]
                        count = "((n floordiv (2 * d)) * d - c * (p floordiv 2)) * k" step = d
                    sched.recv from "(r - d) mod n" dst = scratch["stage * k"]
                        count = "((n floordiv (2 * d)) * d - c * (p floordiv 2)) * k" step = d
                  }
                }
                sched.for q = q0 to "q0 + p floordiv (2 * d)" {
                  sched.if "2 * q * d + d < n" {
                    sched.if "2 * q * d + 2 * d <= n" {
                      sched.copy src = scratch["(stage + (q - q0) * d) * k"]
                          dst = scratch["(2 * q * d + d) * k"]
                          count = "d * k" step = d
                    } else {
                      sched.copy src = scratch["(stage + (q - q0) * d) * k"]
                          dst = scratch["(2 * q * d + d) * k"]
                          count = "(n - 2 * q * d - d) * k" step = d
                    }
                  }
                }
              }
            }
          }
          // Steps d >= p: the whole slice moves, straight from and into tmp,
          // when bit d of its distances (lo .. hi - 1, all alike) is set.
          sched.for d = p to n step * 2 {
            sched.if "lo mod (2 * d) >= d" {
              sched.if "n >= hi" {
                sched.send to "(r + d) mod n" src = scratch["lo * k"]
                    count = "p * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["lo * k"]
                    count = "p * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["lo * k"]
                    count = "(n - lo) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["lo * k"]
                    count = "(n - lo) * k" step = d
              }
            }
          }
          // Reversal: output part (r - lo - i) mod n = tmp[lo + i].
          sched.for i = 0 to p {
            sched.if "lo + i < n" {
              sched.copy src = scratch["(lo + i) * k"]
                  dst = output["((r - lo - i) mod n) * k"] count = k step = n
            }
          }
        }
      }
    }
  }
}

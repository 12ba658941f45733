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
// power of two >= ceil(n / 16) (a loop over p = 1, 2, 4, ... whose guard
// holds once); channel c owns the slice j = c p .. c p + p - 1 (clipped to
// n), kept at scratch position j (tmp). Positions never change slice, so the
// 16 channels are 16 independent Bruck exchanges that run in parallel
// without a single cross-channel dependency:
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
  // Distances 0 .. p - 1.
  sched.channel 0 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16)" {
        // Rotation: tmp[i] = input part (r + i) mod n (p <= n: slice 0 is
        // whole); one copy, or two where it wraps.
        sched.if "r + p <= n" {
          sched.copy src = input["r * k"] dst = scratch[0] count = "p * k"
        } else {
          sched.copy src = input["r * k"] dst = scratch[0]
              count = "(n - r) * k"
          sched.copy src = input[0] dst = scratch["(n - r) * k"]
              count = "(r + p - n) * k"
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > d" {
            sched.for q = 0 to "p floordiv (2 * d)" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + q * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + q * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.send to "(r + d) mod n" src = scratch["(16 * p) * k"]
                count = "(p floordiv 2) * k" step = d
            sched.recv from "(r - d) mod n" dst = scratch["(16 * p) * k"]
                count = "(p floordiv 2) * k" step = d
            sched.for q = 0 to "p floordiv (2 * d)" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + q * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + q * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the distances 0 .. p - 1 have no bit d >= p.
        // Reversal: output part (r - i) mod n = tmp[i].
        sched.for i = 0 to p {
          sched.copy src = scratch["i * k"]
              dst = output["((r - i) mod n) * k"] count = k step = n
        }
      }
    }
  }
  // Distances 1 p .. 1 p + p - 1.
  sched.channel 1 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 1 * p" {
        // Rotation: tmp[1 p + i] = input part (r + 1 p + i) mod n, i below p
        // (below n - 1 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 2 * p" {
          sched.if "(r + 1 * p) mod n + p <= n" {
            sched.copy src = input["((r + 1 * p) mod n) * k"] dst = scratch["1 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 1 * p) mod n) * k"] dst = scratch["1 * p * k"]
                count = "(n - (r + 1 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(1 * p + n - (r + 1 * p) mod n) * k"]
                count = "((r + 1 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 1 * p) mod n <= 1 * p" {
            sched.copy src = input["((r + 1 * p) mod n) * k"] dst = scratch["1 * p * k"]
                count = "(n - 1 * p) * k"
          } else {
            sched.copy src = input["((r + 1 * p) mod n) * k"] dst = scratch["1 * p * k"]
                count = "(n - (r + 1 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(1 * p + n - (r + 1 * p) mod n) * k"]
                count = "((r + 1 * p) mod n - 1 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 1 * p + d" {
            sched.for q = "1 * (p floordiv (2 * d))" to "2 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 1 * (p floordiv 2) + (q - 1 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 1 * (p floordiv 2) + (q - 1 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 2 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 1 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 1 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 1 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 1 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 1 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 1 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 1 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 1 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 1 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 1 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "1 * (p floordiv (2 * d))" to "2 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 1 * (p floordiv 2) + (q - 1 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 1 * (p floordiv 2) + (q - 1 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (1 p .. 1 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(1 * p) mod (2 * d) >= d" {
            sched.if "n >= 2 * p" {
              sched.send to "(r + d) mod n" src = scratch["1 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["1 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["1 * p * k"]
                  count = "(n - 1 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["1 * p * k"]
                  count = "(n - 1 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 1 p - i) mod n = tmp[1 p + i].
        sched.for i = 0 to p {
          sched.if "1 * p + i < n" {
            sched.copy src = scratch["(1 * p + i) * k"]
                dst = output["((r - 1 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 2 p .. 2 p + p - 1.
  sched.channel 2 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 2 * p" {
        // Rotation: tmp[2 p + i] = input part (r + 2 p + i) mod n, i below p
        // (below n - 2 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 3 * p" {
          sched.if "(r + 2 * p) mod n + p <= n" {
            sched.copy src = input["((r + 2 * p) mod n) * k"] dst = scratch["2 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 2 * p) mod n) * k"] dst = scratch["2 * p * k"]
                count = "(n - (r + 2 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(2 * p + n - (r + 2 * p) mod n) * k"]
                count = "((r + 2 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 2 * p) mod n <= 2 * p" {
            sched.copy src = input["((r + 2 * p) mod n) * k"] dst = scratch["2 * p * k"]
                count = "(n - 2 * p) * k"
          } else {
            sched.copy src = input["((r + 2 * p) mod n) * k"] dst = scratch["2 * p * k"]
                count = "(n - (r + 2 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(2 * p + n - (r + 2 * p) mod n) * k"]
                count = "((r + 2 * p) mod n - 2 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 2 * p + d" {
            sched.for q = "2 * (p floordiv (2 * d))" to "3 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 2 * (p floordiv 2) + (q - 2 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 2 * (p floordiv 2) + (q - 2 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 3 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 2 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 2 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 2 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 2 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 2 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 2 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 2 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 2 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 2 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 2 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "2 * (p floordiv (2 * d))" to "3 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 2 * (p floordiv 2) + (q - 2 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 2 * (p floordiv 2) + (q - 2 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (2 p .. 2 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(2 * p) mod (2 * d) >= d" {
            sched.if "n >= 3 * p" {
              sched.send to "(r + d) mod n" src = scratch["2 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["2 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["2 * p * k"]
                  count = "(n - 2 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["2 * p * k"]
                  count = "(n - 2 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 2 p - i) mod n = tmp[2 p + i].
        sched.for i = 0 to p {
          sched.if "2 * p + i < n" {
            sched.copy src = scratch["(2 * p + i) * k"]
                dst = output["((r - 2 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 3 p .. 3 p + p - 1.
  sched.channel 3 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 3 * p" {
        // Rotation: tmp[3 p + i] = input part (r + 3 p + i) mod n, i below p
        // (below n - 3 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 4 * p" {
          sched.if "(r + 3 * p) mod n + p <= n" {
            sched.copy src = input["((r + 3 * p) mod n) * k"] dst = scratch["3 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 3 * p) mod n) * k"] dst = scratch["3 * p * k"]
                count = "(n - (r + 3 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(3 * p + n - (r + 3 * p) mod n) * k"]
                count = "((r + 3 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 3 * p) mod n <= 3 * p" {
            sched.copy src = input["((r + 3 * p) mod n) * k"] dst = scratch["3 * p * k"]
                count = "(n - 3 * p) * k"
          } else {
            sched.copy src = input["((r + 3 * p) mod n) * k"] dst = scratch["3 * p * k"]
                count = "(n - (r + 3 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(3 * p + n - (r + 3 * p) mod n) * k"]
                count = "((r + 3 * p) mod n - 3 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 3 * p + d" {
            sched.for q = "3 * (p floordiv (2 * d))" to "4 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 3 * (p floordiv 2) + (q - 3 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 3 * (p floordiv 2) + (q - 3 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 4 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 3 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 3 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 3 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 3 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 3 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 3 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 3 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 3 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 3 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 3 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "3 * (p floordiv (2 * d))" to "4 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 3 * (p floordiv 2) + (q - 3 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 3 * (p floordiv 2) + (q - 3 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (3 p .. 3 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(3 * p) mod (2 * d) >= d" {
            sched.if "n >= 4 * p" {
              sched.send to "(r + d) mod n" src = scratch["3 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["3 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["3 * p * k"]
                  count = "(n - 3 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["3 * p * k"]
                  count = "(n - 3 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 3 p - i) mod n = tmp[3 p + i].
        sched.for i = 0 to p {
          sched.if "3 * p + i < n" {
            sched.copy src = scratch["(3 * p + i) * k"]
                dst = output["((r - 3 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 4 p .. 4 p + p - 1.
  sched.channel 4 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 4 * p" {
        // Rotation: tmp[4 p + i] = input part (r + 4 p + i) mod n, i below p
        // (below n - 4 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 5 * p" {
          sched.if "(r + 4 * p) mod n + p <= n" {
            sched.copy src = input["((r + 4 * p) mod n) * k"] dst = scratch["4 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 4 * p) mod n) * k"] dst = scratch["4 * p * k"]
                count = "(n - (r + 4 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(4 * p + n - (r + 4 * p) mod n) * k"]
                count = "((r + 4 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 4 * p) mod n <= 4 * p" {
            sched.copy src = input["((r + 4 * p) mod n) * k"] dst = scratch["4 * p * k"]
                count = "(n - 4 * p) * k"
          } else {
            sched.copy src = input["((r + 4 * p) mod n) * k"] dst = scratch["4 * p * k"]
                count = "(n - (r + 4 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(4 * p + n - (r + 4 * p) mod n) * k"]
                count = "((r + 4 * p) mod n - 4 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 4 * p + d" {
            sched.for q = "4 * (p floordiv (2 * d))" to "5 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 4 * (p floordiv 2) + (q - 4 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 4 * (p floordiv 2) + (q - 4 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 5 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 4 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 4 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 4 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 4 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 4 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 4 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 4 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 4 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 4 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 4 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "4 * (p floordiv (2 * d))" to "5 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 4 * (p floordiv 2) + (q - 4 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 4 * (p floordiv 2) + (q - 4 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (4 p .. 4 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(4 * p) mod (2 * d) >= d" {
            sched.if "n >= 5 * p" {
              sched.send to "(r + d) mod n" src = scratch["4 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["4 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["4 * p * k"]
                  count = "(n - 4 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["4 * p * k"]
                  count = "(n - 4 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 4 p - i) mod n = tmp[4 p + i].
        sched.for i = 0 to p {
          sched.if "4 * p + i < n" {
            sched.copy src = scratch["(4 * p + i) * k"]
                dst = output["((r - 4 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 5 p .. 5 p + p - 1.
  sched.channel 5 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 5 * p" {
        // Rotation: tmp[5 p + i] = input part (r + 5 p + i) mod n, i below p
        // (below n - 5 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 6 * p" {
          sched.if "(r + 5 * p) mod n + p <= n" {
            sched.copy src = input["((r + 5 * p) mod n) * k"] dst = scratch["5 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 5 * p) mod n) * k"] dst = scratch["5 * p * k"]
                count = "(n - (r + 5 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(5 * p + n - (r + 5 * p) mod n) * k"]
                count = "((r + 5 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 5 * p) mod n <= 5 * p" {
            sched.copy src = input["((r + 5 * p) mod n) * k"] dst = scratch["5 * p * k"]
                count = "(n - 5 * p) * k"
          } else {
            sched.copy src = input["((r + 5 * p) mod n) * k"] dst = scratch["5 * p * k"]
                count = "(n - (r + 5 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(5 * p + n - (r + 5 * p) mod n) * k"]
                count = "((r + 5 * p) mod n - 5 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 5 * p + d" {
            sched.for q = "5 * (p floordiv (2 * d))" to "6 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 5 * (p floordiv 2) + (q - 5 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 5 * (p floordiv 2) + (q - 5 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 6 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 5 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 5 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 5 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 5 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 5 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 5 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 5 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 5 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 5 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 5 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "5 * (p floordiv (2 * d))" to "6 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 5 * (p floordiv 2) + (q - 5 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 5 * (p floordiv 2) + (q - 5 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (5 p .. 5 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(5 * p) mod (2 * d) >= d" {
            sched.if "n >= 6 * p" {
              sched.send to "(r + d) mod n" src = scratch["5 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["5 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["5 * p * k"]
                  count = "(n - 5 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["5 * p * k"]
                  count = "(n - 5 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 5 p - i) mod n = tmp[5 p + i].
        sched.for i = 0 to p {
          sched.if "5 * p + i < n" {
            sched.copy src = scratch["(5 * p + i) * k"]
                dst = output["((r - 5 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 6 p .. 6 p + p - 1.
  sched.channel 6 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 6 * p" {
        // Rotation: tmp[6 p + i] = input part (r + 6 p + i) mod n, i below p
        // (below n - 6 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 7 * p" {
          sched.if "(r + 6 * p) mod n + p <= n" {
            sched.copy src = input["((r + 6 * p) mod n) * k"] dst = scratch["6 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 6 * p) mod n) * k"] dst = scratch["6 * p * k"]
                count = "(n - (r + 6 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(6 * p + n - (r + 6 * p) mod n) * k"]
                count = "((r + 6 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 6 * p) mod n <= 6 * p" {
            sched.copy src = input["((r + 6 * p) mod n) * k"] dst = scratch["6 * p * k"]
                count = "(n - 6 * p) * k"
          } else {
            sched.copy src = input["((r + 6 * p) mod n) * k"] dst = scratch["6 * p * k"]
                count = "(n - (r + 6 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(6 * p + n - (r + 6 * p) mod n) * k"]
                count = "((r + 6 * p) mod n - 6 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 6 * p + d" {
            sched.for q = "6 * (p floordiv (2 * d))" to "7 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 6 * (p floordiv 2) + (q - 6 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 6 * (p floordiv 2) + (q - 6 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 7 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 6 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 6 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 6 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 6 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 6 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 6 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 6 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 6 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 6 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 6 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "6 * (p floordiv (2 * d))" to "7 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 6 * (p floordiv 2) + (q - 6 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 6 * (p floordiv 2) + (q - 6 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (6 p .. 6 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(6 * p) mod (2 * d) >= d" {
            sched.if "n >= 7 * p" {
              sched.send to "(r + d) mod n" src = scratch["6 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["6 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["6 * p * k"]
                  count = "(n - 6 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["6 * p * k"]
                  count = "(n - 6 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 6 p - i) mod n = tmp[6 p + i].
        sched.for i = 0 to p {
          sched.if "6 * p + i < n" {
            sched.copy src = scratch["(6 * p + i) * k"]
                dst = output["((r - 6 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 7 p .. 7 p + p - 1.
  sched.channel 7 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 7 * p" {
        // Rotation: tmp[7 p + i] = input part (r + 7 p + i) mod n, i below p
        // (below n - 7 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 8 * p" {
          sched.if "(r + 7 * p) mod n + p <= n" {
            sched.copy src = input["((r + 7 * p) mod n) * k"] dst = scratch["7 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 7 * p) mod n) * k"] dst = scratch["7 * p * k"]
                count = "(n - (r + 7 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(7 * p + n - (r + 7 * p) mod n) * k"]
                count = "((r + 7 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 7 * p) mod n <= 7 * p" {
            sched.copy src = input["((r + 7 * p) mod n) * k"] dst = scratch["7 * p * k"]
                count = "(n - 7 * p) * k"
          } else {
            sched.copy src = input["((r + 7 * p) mod n) * k"] dst = scratch["7 * p * k"]
                count = "(n - (r + 7 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(7 * p + n - (r + 7 * p) mod n) * k"]
                count = "((r + 7 * p) mod n - 7 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 7 * p + d" {
            sched.for q = "7 * (p floordiv (2 * d))" to "8 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 7 * (p floordiv 2) + (q - 7 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 7 * (p floordiv 2) + (q - 7 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 8 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 7 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 7 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 7 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 7 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 7 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 7 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 7 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 7 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 7 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 7 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "7 * (p floordiv (2 * d))" to "8 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 7 * (p floordiv 2) + (q - 7 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 7 * (p floordiv 2) + (q - 7 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (7 p .. 7 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(7 * p) mod (2 * d) >= d" {
            sched.if "n >= 8 * p" {
              sched.send to "(r + d) mod n" src = scratch["7 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["7 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["7 * p * k"]
                  count = "(n - 7 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["7 * p * k"]
                  count = "(n - 7 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 7 p - i) mod n = tmp[7 p + i].
        sched.for i = 0 to p {
          sched.if "7 * p + i < n" {
            sched.copy src = scratch["(7 * p + i) * k"]
                dst = output["((r - 7 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 8 p .. 8 p + p - 1.
  sched.channel 8 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 8 * p" {
        // Rotation: tmp[8 p + i] = input part (r + 8 p + i) mod n, i below p
        // (below n - 8 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 9 * p" {
          sched.if "(r + 8 * p) mod n + p <= n" {
            sched.copy src = input["((r + 8 * p) mod n) * k"] dst = scratch["8 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 8 * p) mod n) * k"] dst = scratch["8 * p * k"]
                count = "(n - (r + 8 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(8 * p + n - (r + 8 * p) mod n) * k"]
                count = "((r + 8 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 8 * p) mod n <= 8 * p" {
            sched.copy src = input["((r + 8 * p) mod n) * k"] dst = scratch["8 * p * k"]
                count = "(n - 8 * p) * k"
          } else {
            sched.copy src = input["((r + 8 * p) mod n) * k"] dst = scratch["8 * p * k"]
                count = "(n - (r + 8 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(8 * p + n - (r + 8 * p) mod n) * k"]
                count = "((r + 8 * p) mod n - 8 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 8 * p + d" {
            sched.for q = "8 * (p floordiv (2 * d))" to "9 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 8 * (p floordiv 2) + (q - 8 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 8 * (p floordiv 2) + (q - 8 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 9 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 8 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 8 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 8 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 8 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 8 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 8 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 8 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 8 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 8 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 8 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "8 * (p floordiv (2 * d))" to "9 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 8 * (p floordiv 2) + (q - 8 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 8 * (p floordiv 2) + (q - 8 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (8 p .. 8 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(8 * p) mod (2 * d) >= d" {
            sched.if "n >= 9 * p" {
              sched.send to "(r + d) mod n" src = scratch["8 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["8 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["8 * p * k"]
                  count = "(n - 8 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["8 * p * k"]
                  count = "(n - 8 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 8 p - i) mod n = tmp[8 p + i].
        sched.for i = 0 to p {
          sched.if "8 * p + i < n" {
            sched.copy src = scratch["(8 * p + i) * k"]
                dst = output["((r - 8 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 9 p .. 9 p + p - 1.
  sched.channel 9 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 9 * p" {
        // Rotation: tmp[9 p + i] = input part (r + 9 p + i) mod n, i below p
        // (below n - 9 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 10 * p" {
          sched.if "(r + 9 * p) mod n + p <= n" {
            sched.copy src = input["((r + 9 * p) mod n) * k"] dst = scratch["9 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 9 * p) mod n) * k"] dst = scratch["9 * p * k"]
                count = "(n - (r + 9 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(9 * p + n - (r + 9 * p) mod n) * k"]
                count = "((r + 9 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 9 * p) mod n <= 9 * p" {
            sched.copy src = input["((r + 9 * p) mod n) * k"] dst = scratch["9 * p * k"]
                count = "(n - 9 * p) * k"
          } else {
            sched.copy src = input["((r + 9 * p) mod n) * k"] dst = scratch["9 * p * k"]
                count = "(n - (r + 9 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(9 * p + n - (r + 9 * p) mod n) * k"]
                count = "((r + 9 * p) mod n - 9 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 9 * p + d" {
            sched.for q = "9 * (p floordiv (2 * d))" to "10 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 9 * (p floordiv 2) + (q - 9 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 9 * (p floordiv 2) + (q - 9 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 10 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 9 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 9 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 9 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 9 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 9 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 9 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 9 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 9 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 9 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 9 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "9 * (p floordiv (2 * d))" to "10 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 9 * (p floordiv 2) + (q - 9 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 9 * (p floordiv 2) + (q - 9 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (9 p .. 9 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(9 * p) mod (2 * d) >= d" {
            sched.if "n >= 10 * p" {
              sched.send to "(r + d) mod n" src = scratch["9 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["9 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["9 * p * k"]
                  count = "(n - 9 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["9 * p * k"]
                  count = "(n - 9 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 9 p - i) mod n = tmp[9 p + i].
        sched.for i = 0 to p {
          sched.if "9 * p + i < n" {
            sched.copy src = scratch["(9 * p + i) * k"]
                dst = output["((r - 9 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 10 p .. 10 p + p - 1.
  sched.channel 10 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 10 * p" {
        // Rotation: tmp[10 p + i] = input part (r + 10 p + i) mod n, i below p
        // (below n - 10 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 11 * p" {
          sched.if "(r + 10 * p) mod n + p <= n" {
            sched.copy src = input["((r + 10 * p) mod n) * k"] dst = scratch["10 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 10 * p) mod n) * k"] dst = scratch["10 * p * k"]
                count = "(n - (r + 10 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(10 * p + n - (r + 10 * p) mod n) * k"]
                count = "((r + 10 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 10 * p) mod n <= 10 * p" {
            sched.copy src = input["((r + 10 * p) mod n) * k"] dst = scratch["10 * p * k"]
                count = "(n - 10 * p) * k"
          } else {
            sched.copy src = input["((r + 10 * p) mod n) * k"] dst = scratch["10 * p * k"]
                count = "(n - (r + 10 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(10 * p + n - (r + 10 * p) mod n) * k"]
                count = "((r + 10 * p) mod n - 10 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 10 * p + d" {
            sched.for q = "10 * (p floordiv (2 * d))" to "11 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 10 * (p floordiv 2) + (q - 10 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 10 * (p floordiv 2) + (q - 10 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 11 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 10 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 10 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 10 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 10 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 10 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 10 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 10 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 10 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 10 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 10 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "10 * (p floordiv (2 * d))" to "11 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 10 * (p floordiv 2) + (q - 10 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 10 * (p floordiv 2) + (q - 10 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (10 p .. 10 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(10 * p) mod (2 * d) >= d" {
            sched.if "n >= 11 * p" {
              sched.send to "(r + d) mod n" src = scratch["10 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["10 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["10 * p * k"]
                  count = "(n - 10 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["10 * p * k"]
                  count = "(n - 10 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 10 p - i) mod n = tmp[10 p + i].
        sched.for i = 0 to p {
          sched.if "10 * p + i < n" {
            sched.copy src = scratch["(10 * p + i) * k"]
                dst = output["((r - 10 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 11 p .. 11 p + p - 1.
  sched.channel 11 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 11 * p" {
        // Rotation: tmp[11 p + i] = input part (r + 11 p + i) mod n, i below p
        // (below n - 11 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 12 * p" {
          sched.if "(r + 11 * p) mod n + p <= n" {
            sched.copy src = input["((r + 11 * p) mod n) * k"] dst = scratch["11 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 11 * p) mod n) * k"] dst = scratch["11 * p * k"]
                count = "(n - (r + 11 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(11 * p + n - (r + 11 * p) mod n) * k"]
                count = "((r + 11 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 11 * p) mod n <= 11 * p" {
            sched.copy src = input["((r + 11 * p) mod n) * k"] dst = scratch["11 * p * k"]
                count = "(n - 11 * p) * k"
          } else {
            sched.copy src = input["((r + 11 * p) mod n) * k"] dst = scratch["11 * p * k"]
                count = "(n - (r + 11 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(11 * p + n - (r + 11 * p) mod n) * k"]
                count = "((r + 11 * p) mod n - 11 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 11 * p + d" {
            sched.for q = "11 * (p floordiv (2 * d))" to "12 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 11 * (p floordiv 2) + (q - 11 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 11 * (p floordiv 2) + (q - 11 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 12 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 11 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 11 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 11 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 11 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 11 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 11 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 11 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 11 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 11 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 11 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "11 * (p floordiv (2 * d))" to "12 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 11 * (p floordiv 2) + (q - 11 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 11 * (p floordiv 2) + (q - 11 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (11 p .. 11 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(11 * p) mod (2 * d) >= d" {
            sched.if "n >= 12 * p" {
              sched.send to "(r + d) mod n" src = scratch["11 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["11 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["11 * p * k"]
                  count = "(n - 11 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["11 * p * k"]
                  count = "(n - 11 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 11 p - i) mod n = tmp[11 p + i].
        sched.for i = 0 to p {
          sched.if "11 * p + i < n" {
            sched.copy src = scratch["(11 * p + i) * k"]
                dst = output["((r - 11 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 12 p .. 12 p + p - 1.
  sched.channel 12 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 12 * p" {
        // Rotation: tmp[12 p + i] = input part (r + 12 p + i) mod n, i below p
        // (below n - 12 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 13 * p" {
          sched.if "(r + 12 * p) mod n + p <= n" {
            sched.copy src = input["((r + 12 * p) mod n) * k"] dst = scratch["12 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 12 * p) mod n) * k"] dst = scratch["12 * p * k"]
                count = "(n - (r + 12 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(12 * p + n - (r + 12 * p) mod n) * k"]
                count = "((r + 12 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 12 * p) mod n <= 12 * p" {
            sched.copy src = input["((r + 12 * p) mod n) * k"] dst = scratch["12 * p * k"]
                count = "(n - 12 * p) * k"
          } else {
            sched.copy src = input["((r + 12 * p) mod n) * k"] dst = scratch["12 * p * k"]
                count = "(n - (r + 12 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(12 * p + n - (r + 12 * p) mod n) * k"]
                count = "((r + 12 * p) mod n - 12 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 12 * p + d" {
            sched.for q = "12 * (p floordiv (2 * d))" to "13 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 12 * (p floordiv 2) + (q - 12 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 12 * (p floordiv 2) + (q - 12 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 13 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 12 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 12 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 12 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 12 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 12 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 12 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 12 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 12 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 12 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 12 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "12 * (p floordiv (2 * d))" to "13 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 12 * (p floordiv 2) + (q - 12 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 12 * (p floordiv 2) + (q - 12 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (12 p .. 12 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(12 * p) mod (2 * d) >= d" {
            sched.if "n >= 13 * p" {
              sched.send to "(r + d) mod n" src = scratch["12 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["12 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["12 * p * k"]
                  count = "(n - 12 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["12 * p * k"]
                  count = "(n - 12 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 12 p - i) mod n = tmp[12 p + i].
        sched.for i = 0 to p {
          sched.if "12 * p + i < n" {
            sched.copy src = scratch["(12 * p + i) * k"]
                dst = output["((r - 12 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 13 p .. 13 p + p - 1.
  sched.channel 13 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 13 * p" {
        // Rotation: tmp[13 p + i] = input part (r + 13 p + i) mod n, i below p
        // (below n - 13 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 14 * p" {
          sched.if "(r + 13 * p) mod n + p <= n" {
            sched.copy src = input["((r + 13 * p) mod n) * k"] dst = scratch["13 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 13 * p) mod n) * k"] dst = scratch["13 * p * k"]
                count = "(n - (r + 13 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(13 * p + n - (r + 13 * p) mod n) * k"]
                count = "((r + 13 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 13 * p) mod n <= 13 * p" {
            sched.copy src = input["((r + 13 * p) mod n) * k"] dst = scratch["13 * p * k"]
                count = "(n - 13 * p) * k"
          } else {
            sched.copy src = input["((r + 13 * p) mod n) * k"] dst = scratch["13 * p * k"]
                count = "(n - (r + 13 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(13 * p + n - (r + 13 * p) mod n) * k"]
                count = "((r + 13 * p) mod n - 13 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 13 * p + d" {
            sched.for q = "13 * (p floordiv (2 * d))" to "14 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 13 * (p floordiv 2) + (q - 13 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 13 * (p floordiv 2) + (q - 13 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 14 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 13 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 13 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 13 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 13 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 13 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 13 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 13 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 13 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 13 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 13 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "13 * (p floordiv (2 * d))" to "14 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 13 * (p floordiv 2) + (q - 13 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 13 * (p floordiv 2) + (q - 13 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (13 p .. 13 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(13 * p) mod (2 * d) >= d" {
            sched.if "n >= 14 * p" {
              sched.send to "(r + d) mod n" src = scratch["13 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["13 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["13 * p * k"]
                  count = "(n - 13 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["13 * p * k"]
                  count = "(n - 13 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 13 p - i) mod n = tmp[13 p + i].
        sched.for i = 0 to p {
          sched.if "13 * p + i < n" {
            sched.copy src = scratch["(13 * p + i) * k"]
                dst = output["((r - 13 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 14 p .. 14 p + p - 1.
  sched.channel 14 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 14 * p" {
        // Rotation: tmp[14 p + i] = input part (r + 14 p + i) mod n, i below p
        // (below n - 14 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 15 * p" {
          sched.if "(r + 14 * p) mod n + p <= n" {
            sched.copy src = input["((r + 14 * p) mod n) * k"] dst = scratch["14 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 14 * p) mod n) * k"] dst = scratch["14 * p * k"]
                count = "(n - (r + 14 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(14 * p + n - (r + 14 * p) mod n) * k"]
                count = "((r + 14 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 14 * p) mod n <= 14 * p" {
            sched.copy src = input["((r + 14 * p) mod n) * k"] dst = scratch["14 * p * k"]
                count = "(n - 14 * p) * k"
          } else {
            sched.copy src = input["((r + 14 * p) mod n) * k"] dst = scratch["14 * p * k"]
                count = "(n - (r + 14 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(14 * p + n - (r + 14 * p) mod n) * k"]
                count = "((r + 14 * p) mod n - 14 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 14 * p + d" {
            sched.for q = "14 * (p floordiv (2 * d))" to "15 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 14 * (p floordiv 2) + (q - 14 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 14 * (p floordiv 2) + (q - 14 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 15 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 14 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 14 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 14 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 14 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 14 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 14 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 14 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 14 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 14 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 14 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "14 * (p floordiv (2 * d))" to "15 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 14 * (p floordiv 2) + (q - 14 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 14 * (p floordiv 2) + (q - 14 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (14 p .. 14 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(14 * p) mod (2 * d) >= d" {
            sched.if "n >= 15 * p" {
              sched.send to "(r + d) mod n" src = scratch["14 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["14 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["14 * p * k"]
                  count = "(n - 14 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["14 * p * k"]
                  count = "(n - 14 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 14 p - i) mod n = tmp[14 p + i].
        sched.for i = 0 to p {
          sched.if "14 * p + i < n" {
            sched.copy src = scratch["(14 * p + i) * k"]
                dst = output["((r - 14 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
  // Distances 15 p .. 15 p + p - 1.
  sched.channel 15 {
    // p: the least power of two >= ceil(n / 16) (the guard holds once).
    sched.for p = 1 to "2 * n" step * 2 {
      sched.if "p >= ((n + 15) floordiv 16), p < 2 * ((n + 15) floordiv 16), n > 15 * p" {
        // Rotation: tmp[15 p + i] = input part (r + 15 p + i) mod n, i below p
        // (below n - 15 p for the last slice); one copy, or two where it wraps.
        sched.if "n >= 16 * p" {
          sched.if "(r + 15 * p) mod n + p <= n" {
            sched.copy src = input["((r + 15 * p) mod n) * k"] dst = scratch["15 * p * k"] count = "p * k"
          } else {
            sched.copy src = input["((r + 15 * p) mod n) * k"] dst = scratch["15 * p * k"]
                count = "(n - (r + 15 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(15 * p + n - (r + 15 * p) mod n) * k"]
                count = "((r + 15 * p) mod n + p - n) * k"
          }
        } else {
          sched.if "(r + 15 * p) mod n <= 15 * p" {
            sched.copy src = input["((r + 15 * p) mod n) * k"] dst = scratch["15 * p * k"]
                count = "(n - 15 * p) * k"
          } else {
            sched.copy src = input["((r + 15 * p) mod n) * k"] dst = scratch["15 * p * k"]
                count = "(n - (r + 15 * p) mod n) * k"
            sched.copy src = input[0] dst = scratch["(15 * p + n - (r + 15 * p) mod n) * k"]
                count = "((r + 15 * p) mod n - 15 * p) * k"
          }
        }
        // Steps d < p: pack the runs of d blocks with bit d of the slice, send
        // one message, receive one, unpack.
        sched.for d = 1 to p step * 2 {
          sched.if "n > 15 * p + d" {
            sched.for q = "15 * (p floordiv (2 * d))" to "16 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 15 * (p floordiv 2) + (q - 15 * (p floordiv (2 * d))) * d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(2 * q * d + d) * k"] dst = scratch["(16 * p + 15 * (p floordiv 2) + (q - 15 * (p floordiv (2 * d))) * d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
            sched.if "n >= 16 * p" {
              sched.send to "(r + d) mod n" src = scratch["(16 * p + 15 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 15 * (p floordiv 2)) * k"]
                  count = "(p floordiv 2) * k" step = d
            } else {
              sched.if "n mod (2 * d) > d" {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 15 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 15 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 15 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d + n mod (2 * d) - d - 15 * (p floordiv 2)) * k" step = d
              } else {
                sched.send to "(r + d) mod n" src = scratch["(16 * p + 15 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 15 * (p floordiv 2)) * k" step = d
                sched.recv from "(r - d) mod n" dst = scratch["(16 * p + 15 * (p floordiv 2)) * k"]
                    count = "((n floordiv (2 * d)) * d - 15 * (p floordiv 2)) * k" step = d
              }
            }
            sched.for q = "15 * (p floordiv (2 * d))" to "16 * (p floordiv (2 * d))" {
              sched.if "2 * q * d + d < n" {
                sched.if "2 * q * d + 2 * d <= n" {
                  sched.copy src = scratch["(16 * p + 15 * (p floordiv 2) + (q - 15 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "d * k" step = d
                } else {
                  sched.copy src = scratch["(16 * p + 15 * (p floordiv 2) + (q - 15 * (p floordiv (2 * d))) * d) * k"] dst = scratch["(2 * q * d + d) * k"]
                      count = "(n - 2 * q * d - d) * k" step = d
                }
              }
            }
          }
        }
        // Steps d >= p: the whole slice moves, straight from and into tmp, when
        // bit d of its distances (15 p .. 15 p + p - 1, all alike) is set.
        sched.for d = p to n step * 2 {
          sched.if "(15 * p) mod (2 * d) >= d" {
            sched.if "n >= 16 * p" {
              sched.send to "(r + d) mod n" src = scratch["15 * p * k"]
                  count = "p * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["15 * p * k"]
                  count = "p * k" step = d
            } else {
              sched.send to "(r + d) mod n" src = scratch["15 * p * k"]
                  count = "(n - 15 * p) * k" step = d
              sched.recv from "(r - d) mod n" dst = scratch["15 * p * k"]
                  count = "(n - 15 * p) * k" step = d
            }
          }
        }
        // Reversal: output part (r - 15 p - i) mod n = tmp[15 p + i].
        sched.for i = 0 to p {
          sched.if "15 * p + i < n" {
            sched.copy src = scratch["(15 * p + i) * k"]
                dst = output["((r - 15 * p - i) mod n) * k"] count = k step = n
          }
        }
      }
    }
  }
}

// Rabenseifner all-reduce: recursive halving reduce-scatter, then recursive
// doubling all-gather, over p = the largest power of two <= n ranks. The
// other e = n - p ranks are folded: of the first 2e ranks, odd rank r sends
// its buffer to r - 1 first and gets the result back at the end; core rank
// v is r / 2 below 2e and r - e above. The buffer is p blocks (block b =
// chunks [b k / p, (b + 1) k / p), k = chunks * n so every block has at
// least `chunks` chunks); at distance d = p/2, ..., 1 core rank v swaps
// half of its blocks with v xor d and keeps blocks [(v / d) d, + d), ending
// with block v; the all-gather retraces the steps with d = 1, ..., p/2.
// Every exchange, fold and unfold goes as `chunks` transfers, so transfers
// and reductions pipeline. Steps are labelled by distance: 0 (fold), then
// d' = 1, 2, ..., p/2 (reduce-scatter, d = p / 2d'), p + d (all-gather),
// 2p (unfold).
// Bytes sent per rank: 2 (p-1)/p M (+ M for the 2e folded pairs). Steps:
// 2 log2 p (+ 2). Instructions: 4 c p log2 p + 4 c e + p - e; transfers:
// 2 c p log2 p + 2 c e (c = k / n).
sched.schedule @rabenseifner_all_reduce collective = all_reduce
    algorithm = "rabenseifner"
    attributes {collc.chunk_unit = "n",
                collc.volume = "2 (p-1)/p M, p = 2^floor(log2 n); + M for the 2(n-p) folded ranks",
                collc.steps = "2 log2 p (+ 2 when n is not a power of two)"}
    description = "rabenseifner: recursive halving reduce-scatter then recursive doubling all-gather, non-powers of two folded; 2 log2 p (+2) steps, 2(p-1)/p M (+M) sent per rank" {
  sched.channel 0 {
    // p: the one power of two with p <= n < 2 p.
    sched.for p = 1 to "n + 1" step * 2 {
      sched.if "2 * p > n" {
        sched.if "r < 2 * n - 2 * p, r mod 2 == 1" {
          // Folded: hand the buffer to r - 1, then take the result.
          sched.for i = 0 to "k floordiv n" {
            sched.send to "r - 1" src = input["i * n"] count = n
          }
          sched.for i = 0 to "k floordiv n" {
            sched.recv from "r - 1" dst = output["i * n"] count = n
                step = "2 * p"
          }
        } else {
          sched.if "r < 2 * n - 2 * p" {
            sched.for i = 0 to "k floordiv n" {
              sched.recv_reduce_copy from "r + 1" src = input["i * n"]
                  dst = output["i * n"] count = n
            }
          } else {
            sched.copy src = input[0] dst = output[0] count = k
          }
          // v = r - min(r / 2, e): the core rank (a one-iteration loop
          // binds it). Peer w of the core is rank 2 w - max(w - e, 0).
          sched.for v = "r - r floordiv 2 + (r floordiv 2 - n + p) * ((r floordiv 2 - n + 2 * p - 1) floordiv p)"
              to "r - r floordiv 2 + (r floordiv 2 - n + p) * ((r floordiv 2 - n + 2 * p - 1) floordiv p) + 1" {
            // Reduce-scatter: d = p / (2 t) = p/2, ..., 1; keep blocks
            // [(v / d) d, + d) = chunks [ka, kb), send the partner's half
            // [(w / d) d, + d) = chunks [sa, sb), each in `chunks` pieces.
            sched.for t = 1 to p step * 2 {
              sched.for d = "p floordiv (2 * t)" to "p floordiv (2 * t) + 1" {
                sched.for w = "v + d - 2 * ((v floordiv d) mod 2) * d"
                    to "v + d - 2 * ((v floordiv d) mod 2) * d + 1" {
                  sched.for ka = "(v floordiv d) * d * k floordiv p"
                      to "(v floordiv d) * d * k floordiv p + 1" {
                    sched.for kb = "((v floordiv d) * d + d) * k floordiv p"
                        to "((v floordiv d) * d + d) * k floordiv p + 1" {
                      sched.for sa = "(w floordiv d) * d * k floordiv p"
                          to "(w floordiv d) * d * k floordiv p + 1" {
                        sched.for sb = "((w floordiv d) * d + d) * k floordiv p"
                            to "((w floordiv d) * d + d) * k floordiv p + 1" {
                          sched.for i = 0 to "k floordiv n" {
                            sched.send
                                to "2 * w - (w - n + p) * ((w - n + 2 * p - 1) floordiv p)"
                                src = output["sa + i * (sb - sa) floordiv (k floordiv n)"]
                                count = "(i + 1) * (sb - sa) floordiv (k floordiv n) - i * (sb - sa) floordiv (k floordiv n)"
                                step = t
                            sched.recv_reduce_copy
                                from "2 * w - (w - n + p) * ((w - n + 2 * p - 1) floordiv p)"
                                src = output["ka + i * (kb - ka) floordiv (k floordiv n)"]
                                dst = output["ka + i * (kb - ka) floordiv (k floordiv n)"]
                                count = "(i + 1) * (kb - ka) floordiv (k floordiv n) - i * (kb - ka) floordiv (k floordiv n)"
                                step = t
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
            // All-gather: d = 1, ..., p/2; send blocks [(v / d) d, + d),
            // receive the partner's [(w / d) d, + d).
            sched.for d = 1 to p step * 2 {
              sched.for w = "v + d - 2 * ((v floordiv d) mod 2) * d"
                  to "v + d - 2 * ((v floordiv d) mod 2) * d + 1" {
                sched.for ka = "(v floordiv d) * d * k floordiv p"
                    to "(v floordiv d) * d * k floordiv p + 1" {
                  sched.for kb = "((v floordiv d) * d + d) * k floordiv p"
                      to "((v floordiv d) * d + d) * k floordiv p + 1" {
                    sched.for sa = "(w floordiv d) * d * k floordiv p"
                        to "(w floordiv d) * d * k floordiv p + 1" {
                      sched.for sb = "((w floordiv d) * d + d) * k floordiv p"
                          to "((w floordiv d) * d + d) * k floordiv p + 1" {
                        sched.for i = 0 to "k floordiv n" {
                          sched.send
                              to "2 * w - (w - n + p) * ((w - n + 2 * p - 1) floordiv p)"
                              src = output["ka + i * (kb - ka) floordiv (k floordiv n)"]
                              count = "(i + 1) * (kb - ka) floordiv (k floordiv n) - i * (kb - ka) floordiv (k floordiv n)"
                              step = "p + d"
                          sched.recv
                              from "2 * w - (w - n + p) * ((w - n + 2 * p - 1) floordiv p)"
                              dst = output["sa + i * (sb - sa) floordiv (k floordiv n)"]
                              count = "(i + 1) * (sb - sa) floordiv (k floordiv n) - i * (sb - sa) floordiv (k floordiv n)"
                              step = "p + d"
                        }
                      }
                    }
                  }
                }
              }
            }
          }
          sched.if "r < 2 * n - 2 * p" {
            sched.for i = 0 to "k floordiv n" {
              sched.send to "r + 1" src = output["i * n"] count = n
                  step = "2 * p"
            }
          }
        }
      }
    }
  }
}

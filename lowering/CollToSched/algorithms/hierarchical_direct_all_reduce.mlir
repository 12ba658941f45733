// Hierarchical direct all-reduce: the hierarchical_direct reduce-scatter
// (node first, then rails, direct exchanges combined in one pass with
// fanin reduces) followed by its mirror all-gather (rails first, then the
// node, direct), chunk by chunk, all overlapped. Where `hierarchical` runs
// rings (g - 1 and N - 1 steps per chunk, each a fixed cost and a latency),
// every unit here pays one step per level, so fine pipelining is cheap.
// Requires nodes: n = N g ranks, g = gpus_per_node >= 2 consecutive ranks
// per node, N = n / g >= 2 nodes; rank r is local rank l of node a.
//
// Layout (chunk_unit n, k = K n): part p (owned by rank p) is chunks
// [p K, (p + 1) K). Reduce-scatter unit (c, u), c < K, u = 0 .. N-1: chunk
// c of the parts of node a - 1 - u (u = N-1: the own node); all-gather
// unit (c, v), v = 0 .. N-1: chunk c of the parts of node a - v (v = 0:
// the own node). Scratch (K (n + N - 1) chunks): the node sum of unit
// (c, u < N-1) at u K + c; node peer d's contribution to unit (c, u) at
// (N-1) K + (u K + c)(g-1) + d - 1; rail peer e's node sum for chunk c at
// (N-1) K + N K (g-1) + c (N-1) + e - 1.
// Channels (F + 2 g + 2 N - 3, F = folders; 29 + F on 8 nodes of 8):
//   0 .. F-1: fold channel f, per reduce-scatter unit u = f, f + F, ...
//      (c-major), copy the own contribution and combine the g - 1
//      received ones (fanin g - 1) into the node sum (own node: into
//      output[r K + c]). These combines are most of a rank's memory
//      traffic, so where one channel's rate is capped (a thread block on a
//      GPU) selection chooses F (collc.channel_param);
//   F .. F+2g-3: node peer d = (p - F) mod (g - 1) + 1, two channels per
//      peer (parity q = (p - F) floordiv (g - 1)). A peer's units come in groups
//      of N: reduce-scatter chunks 0 .. LAG-1, then reduce-scatter chunk c
//      and all-gather chunk c - LAG alternately, then the last LAG
//      all-gather chunks (LAG = 2: the all-gather of a chunk comes back from
//      the rails while the node works on the next two). Unit u (or v) of a
//      group goes to the channel of parity u mod 2 and sends after the
//      previous unit's send on the other channel: the two take turns on the
//      NVSwitch port, one sending while the other stores what it received.
//      A reduce-scatter unit sends this rank's chunk of the part of rank
//      l + d and receives l - d's into scratch; an all-gather unit sends
//      node a - v's reduced chunk of this rank's rail (the own one after the
//      final combine, the others after the rail delivered them) and
//      receives l - d's into the output;
//   F+2g-2 .. F+2g+N-4: reduce-scatter, rail peer e = p - F - 2g + 3: send
//      the node sum of unit (c, e - 1) to node a - e, receive node a + e's;
//   F+2g+N-3: per chunk, combine the N - 1 rail arrivals into
//      output[r K + c] (fanin N - 1): this rank's part of chunk c is reduced;
//   F+2g+N-2 .. F+2g+2N-4: all-gather, rail peer e = p - F - 2g - N + 3:
//      send the reduced chunk to node a + e, receive node a - e's into its
//      place.
// Bytes sent per rank: 2 (g-1)/g M intra-node + 2 (N-1)/n M inter-node =
// 2 (n-1)/n M. Steps: 4. Instructions per rank: K (4 N g + 2 N - 3);
// transfers: 2 n (n - 1) K.
sched.schedule @hierarchical_direct_all_reduce collective = all_reduce
    algorithm = "hierarchical_direct"
    attributes {collc.chunk_unit = "n", collc.requires = ["nodes"],
                collc.volume = "2 (n-1)/n M: 2 (g-1)/g M intra-node + 2 (n/g-1)/n M inter-node",
                collc.steps = "4", collc.channel_param = "folders"}
    params = {folders = 1, gpus_per_node = 8}
    scratch = "k floordiv n * (n + n floordiv gpus_per_node - 1)"
    description = "hierarchical direct: direct node reduce-scatter and rail reduce-scatter combined in one pass each, then direct rail and node all-gathers, chunk-pipelined and overlapped; needs nodes; 2(n-1)/n M sent per rank" {
  sched.channel p = 0 to "folders + 2 * gpus_per_node + 2 * (n floordiv gpus_per_node) - 3" {
    // g ranks per node, N nodes, K chunks per part; fold: the final fold
    // channel (F + 2 g + N - 3).
    sched.let g = gpus_per_node, N = "n floordiv gpus_per_node",
        K = "k floordiv n", fold = "folders + 2 * g + N - 3" {
      // Fold channels p < F: the node folds of reduce-scatter units u = p,
      // p + F, ... of chunk c (u = N - 1 into the output). The reduce waits
      // for unit u's recv on the node channels of parity u mod 2: recv
      // number gn cnt + u / 2 there, gn the group of chunk c (c for the
      // first LAG = 2 chunks, then 2 c - 2), cnt the units of a group on
      // that channel.
      sched.if "p < folders" {
        sched.for c = 0 to K {
          sched.for u = p to "N - 1" step folders {
            sched.copy src = input["(((r floordiv g - 1 - u) mod N) * g + r mod g) * K + c"]
                dst = scratch["u * K + c"]
            sched.let cnt = "(N + 1 - u mod 2) floordiv 2" {
              sched.if "c < 2" {
                sched.reduce src = scratch["(N - 1) * K + (u * K + c) * (g - 1)"]
                    dst = scratch["u * K + c"] fanin = "g - 1"
                    after = [(channel "folders + (u mod 2) * (g - 1)" to "folders + g - 1 + (u mod 2) * (g - 1)", index "2 * (c * cnt + u floordiv 2) + 1")]
              } else {
                sched.reduce src = scratch["(N - 1) * K + (u * K + c) * (g - 1)"]
                    dst = scratch["u * K + c"] fanin = "g - 1"
                    after = [(channel "folders + (u mod 2) * (g - 1)" to "folders + g - 1 + (u mod 2) * (g - 1)", index "2 * ((2 * c - 2) * cnt + u floordiv 2) + 1")]
              }
            }
          }
          sched.if "(N - 1) mod folders == p" {
            sched.copy src = input["r * K + c"] dst = output["r * K + c"]
            sched.let u = "N - 1", cnt = "(N + 1 - (N - 1) mod 2) floordiv 2" {
              sched.if "c < 2" {
                sched.reduce src = scratch["(N - 1) * K + (u * K + c) * (g - 1)"]
                    dst = output["r * K + c"] fanin = "g - 1"
                    after = [(channel "folders + (u mod 2) * (g - 1)" to "folders + g - 1 + (u mod 2) * (g - 1)", index "2 * (c * cnt + u floordiv 2) + 1")]
              } else {
                sched.reduce src = scratch["(N - 1) * K + (u * K + c) * (g - 1)"]
                    dst = output["r * K + c"] fanin = "g - 1"
                    after = [(channel "folders + (u mod 2) * (g - 1)" to "folders + g - 1 + (u mod 2) * (g - 1)", index "2 * ((2 * c - 2) * cnt + u floordiv 2) + 1")]
              }
            }
          }
        }
      }
      // Node channels F .. F+2g-3: peer d, parity q, the channel of the
      // other parity. Iteration c runs reduce-scatter chunk c (group c, then
      // 2 c - 2) and all-gather chunk c - 2 (group 2 c - 1, then K + c - 2).
      // A unit's send waits for the previous unit's send on the other
      // channel: its send number gn' ucnt + u' / 2 there. (ucnt = (N - q) / 2
      // is what the schedule has always used; the other parity's units per
      // group are (N + q) / 2, so for q = 1 the wait is for an earlier send.)
      sched.if "p >= folders, p < folders + 2 * g - 2" {
        sched.let d = "(p - folders) mod (g - 1) + 1",
            q = "(p - folders) floordiv (g - 1)",
            other = "p + (1 - 2 * q) * (g - 1)",
            next = "r - r mod g + (r + d) mod g",
            prev = "r - r mod g + (r - d) mod g", ucnt = "(N - q) floordiv 2" {
          sched.for c = 0 to "K + 2" {
            sched.if "c < K" {
              sched.for u = 0 to N {
                sched.if "u mod 2 == q" {
                  sched.let src = "(((r floordiv g - 1 - u) mod N) * g + (r + d) mod g) * K + c" {
                    sched.if "c < 2" {
                      sched.if "u >= 1" {
                        sched.send to next src = input[src] step = 0
                            after = [(channel other, index "2 * (c * ucnt + (u - 1) floordiv 2)")]
                      } else {
                        sched.if "c >= 1, N mod 2 == 0" {
                          sched.send to next src = input[src] step = 0
                              after = [(channel other, index "2 * ((c - 1) * ucnt + (N - 1) floordiv 2)")]
                        } else {
                          sched.send to next src = input[src] step = 0
                        }
                      }
                    } else {
                      sched.if "u >= 1" {
                        sched.send to next src = input[src] step = 0
                            after = [(channel other, index "2 * ((2 * c - 2) * ucnt + (u - 1) floordiv 2)")]
                      } else {
                        sched.if "N mod 2 == 0" {
                          sched.send to next src = input[src] step = 0
                              after = [(channel other, index "2 * ((2 * c - 3) * ucnt + (N - 1) floordiv 2)")]
                        } else {
                          sched.send to next src = input[src] step = 0
                        }
                      }
                    }
                    sched.recv from prev dst = scratch["(N - 1) * K + (u * K + c) * (g - 1) + d - 1"] step = 0
                  }
                }
              }
            }
            // The all-gather of a unit also waits for its data: the final
            // fold (v = 0) or rail v's recv.
            sched.if "c >= 2" {
              sched.for v = 0 to N {
                sched.if "v mod 2 == q" {
                  sched.let src = "((r - v * g) mod n) * K + c - 2",
                      dst = "(((r floordiv g - v) mod N) * g + (r - d) mod g) * K + c - 2" {
                    sched.if "c >= K" {
                      sched.if "v == 0" {
                        sched.if "N mod 2 == 0" {
                          sched.send to next src = output[src] step = 3
                              after = [(channel other, index "2 * ((K + c - 3) * ucnt + (N - 1) floordiv 2)"), (channel fold, index "c - 2")]
                        } else {
                          sched.send to next src = output[src] step = 3
                              after = [(channel fold, index "c - 2")]
                        }
                      } else {
                        sched.send to next src = output[src] step = 3
                            after = [(channel other, index "2 * ((K + c - 2) * ucnt + (v - 1) floordiv 2)"), (channel "fold + v", index "2 * (c - 2) + 1")]
                      }
                    } else {
                      sched.if "v == 0" {
                        sched.if "N mod 2 == 0" {
                          sched.send to next src = output[src] step = 3
                              after = [(channel other, index "2 * ((2 * c - 2) * ucnt + (N - 1) floordiv 2)"), (channel fold, index "c - 2")]
                        } else {
                          sched.send to next src = output[src] step = 3
                              after = [(channel fold, index "c - 2")]
                        }
                      } else {
                        sched.send to next src = output[src] step = 3
                            after = [(channel other, index "2 * ((2 * c - 1) * ucnt + (v - 1) floordiv 2)"), (channel "fold + v", index "2 * (c - 2) + 1")]
                      }
                    }
                    sched.recv from prev dst = output[dst] step = 3
                  }
                }
              }
            }
          }
        }
      }
      // Reduce-scatter rail channels F+2g-2 .. F+2g+N-4: rail peer e sends
      // the node sum of unit (c, e - 1) once its fold is done.
      sched.if "p >= folders + 2 * g - 2, p < fold" {
        sched.let e = "p - folders - 2 * g + 3" {
          sched.for c = 0 to K {
            sched.send to "(r - e * g) mod n" src = scratch["(e - 1) * K + c"] step = 1
                after = [(channel "(e - 1) mod folders", index "2 * (c * ((N + folders - 1 - (e - 1) mod folders) floordiv folders) + (e - 1) floordiv folders) + 1")]
            sched.recv from "(r + e * g) mod n" dst = scratch["(N - 1) * K + N * K * (g - 1) + c * (N - 1) + e - 1"] step = 1
          }
        }
      }
      // The final fold: the own node's sum and the N - 1 rail arrivals.
      sched.if "p == fold" {
        sched.for c = 0 to K {
          sched.reduce src = scratch["(N - 1) * K + N * K * (g - 1) + c * (N - 1)"]
              dst = output["r * K + c"] fanin = "N - 1" step = 1
              after = [(channel "(N - 1) mod folders", index "2 * (c * ((N + folders - 1 - (N - 1) mod folders) floordiv folders) + (N - 1) floordiv folders) + 1"),
                       (channel "folders + 2 * g - 2" to "folders + 2 * g + N - 3", index "2 * c + 1")]
        }
      }
      // All-gather rail channels F+2g+N-2 ..: rail peer e.
      sched.if "p > fold" {
        sched.let e = "p - fold" {
          sched.for c = 0 to K {
            sched.send to "(r + e * g) mod n" src = output["r * K + c"] step = 2
                after = [(channel fold, index c)]
            sched.recv from "(r - e * g) mod n" dst = output["((r - e * g) mod n) * K + c"] step = 2
          }
        }
      }
    }
  }
}

// Hierarchical direct reduce-scatter: per destination node, a direct
// reduce-scatter inside the node (each rank sends every node peer its part
// at once, a channel per peer, and combines the g contributions in one
// pass: a reduce with fanin g - 1), and the node sums go straight to the
// rank of the destination node on the same rail, which combines the N - 1
// arriving node sums with its own in one pass. Where the `hierarchical`
// rings pay g - 1 and N - 1 steps per chunk, each a fixed cost and a
// latency, this pays one of each per level, so finer pipelining (more
// chunks) costs little and the network starts after one unit of node work.
// Requires nodes: n = N g ranks, g = gpus_per_node >= 2 consecutive ranks
// per node, N = n / g >= 2 nodes; rank r is local rank l of node a.
//
// Units: for chunk c (k per part) and u = 0 .. N-1, unit (c, u) is chunk c
// of the parts of destination node a - 1 - u (mod N); u = N-1 is the own
// node. Scratch (k (n + N - 1) chunks): the node sum of unit (c, u < N-1) at
// u k + c; node peer d's contribution to unit (c, u) at
// (N-1) k + (u k + c)(g-1) + d - 1; rail peer e's node sum for chunk c at
// (N-1) k + N k (g-1) + c (N-1) + e - 1.
// Channels (F + 2 g + N - 2, F = folders; 22 + F on 8 nodes of 8):
// 0 .. F-1: fold channel f, for units u = f, f + F, ... of each chunk,
// copies the own contribution and combines the g - 1 received ones (fanin
// g - 1) once the node channels received them, into the node sum (own
// node: into the output); these combines are most of a rank's memory
// traffic, so where a channel's rate is capped (a thread block on a GPU)
// selection chooses F (collc.channel_param); F .. F+2g-3: node peer
// d = (p - F) mod (g - 1) + 1 for the units of parity
// q = (p - F) floordiv (g - 1) (unit number c N + u): send the unit's part
// of rank l + d, receive l - d's; two channels per peer so that one stores
// what it received while the other sends; F+2g-2 .. F+2g+N-4: rail peer
// e = p - F - 2g + 3: send the node sum of unit (c, e - 1) to node a - e,
// receive node a + e's for this rank; F+2g+N-3: combines chunk c's N - 1
// rail arrivals into the output (fanin N - 1).
// Bytes sent per rank: (g-1)/g M intra-node + (N-1)/n M inter-node (M the
// input bytes, n parts). Steps: 2. Instructions per rank: k (2 N g + 2 N -
// 1); transfers: n k (N (g - 1) + N - 1) = n (n - 1) k.
sched.schedule @hierarchical_direct_reduce_scatter collective = reduce_scatter
    algorithm = "hierarchical_direct"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(n-1)/n M: (g-1) M/g intra-node + (n/g-1) M/n inter-node",
                collc.steps = "2", collc.channel_param = "folders"}
    params = {folders = 1, gpus_per_node = 8}
    scratch = "k * (n + n floordiv gpus_per_node - 1)"
    description = "hierarchical direct: per destination node a direct node reduce-scatter combined in one pass, node sums sent straight along the rail and combined in one pass; chunk-pipelined; needs nodes; (n-1)/n M sent per rank" {
  sched.channel p = 0 to "folders + 2 * gpus_per_node + n floordiv gpus_per_node - 2" {
    sched.if "p < folders" {
      // Fold channel p: units u = p, p + folders, ... of every chunk.
      sched.for c = 0 to k {
        sched.for u = p to "n floordiv gpus_per_node - 1" step folders {
          sched.copy
              src = input["(((r floordiv gpus_per_node - 1 - u) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node) * k + c"]
              dst = scratch["u * k + c"]
          sched.reduce
              src = scratch["(n floordiv gpus_per_node - 1) * k + (u * k + c) * (gpus_per_node - 1)"]
              dst = scratch["u * k + c"] fanin = "gpus_per_node - 1"
              after = [(channel "folders + ((c * (n floordiv gpus_per_node) + u) mod 2) * (gpus_per_node - 1)" to "folders + gpus_per_node - 1 + ((c * (n floordiv gpus_per_node) + u) mod 2) * (gpus_per_node - 1)", index "2 * ((c * (n floordiv gpus_per_node) + u) floordiv 2) + 1")]
        }
        // The own node's unit: into the output.
        sched.if "(n floordiv gpus_per_node - 1) mod folders == p" {
          sched.copy src = input["r * k + c"] dst = output[c]
          sched.reduce
              src = scratch["(n floordiv gpus_per_node - 1) * k + ((n floordiv gpus_per_node - 1) * k + c) * (gpus_per_node - 1)"]
              dst = output[c] fanin = "gpus_per_node - 1"
              after = [(channel "folders + ((c * (n floordiv gpus_per_node) + n floordiv gpus_per_node - 1) mod 2) * (gpus_per_node - 1)" to "folders + gpus_per_node - 1 + ((c * (n floordiv gpus_per_node) + n floordiv gpus_per_node - 1) mod 2) * (gpus_per_node - 1)", index "2 * ((c * (n floordiv gpus_per_node) + n floordiv gpus_per_node - 1) floordiv 2) + 1")]
        }
      }
    } else {
      sched.if "p < folders + 2 * gpus_per_node - 2" {
        // Node peer d = (p - folders) mod (g - 1) + 1, units of parity
        // (p - folders) floordiv (g - 1).
        sched.for c = 0 to k {
          sched.for u = 0 to "n floordiv gpus_per_node" {
            sched.if "(c * (n floordiv gpus_per_node) + u) mod 2 == (p - folders) floordiv (gpus_per_node - 1)" {
              // Unit i = c N + u sends after unit i - 1's send on the other
              // parity's channel: the two take turns on the links, one
              // sending while the other stores.
              sched.if "c * (n floordiv gpus_per_node) + u == 0" {
                sched.send to "r - r mod gpus_per_node + (r + (p - folders) mod (gpus_per_node - 1) + 1) mod gpus_per_node"
                    src = input["(((r floordiv gpus_per_node - 1 - u) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + (p - folders) mod (gpus_per_node - 1) + 1) mod gpus_per_node) * k + c"]
              } else {
                sched.send to "r - r mod gpus_per_node + (r + (p - folders) mod (gpus_per_node - 1) + 1) mod gpus_per_node"
                    src = input["(((r floordiv gpus_per_node - 1 - u) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + (p - folders) mod (gpus_per_node - 1) + 1) mod gpus_per_node) * k + c"]
                    after = [(channel "p + (1 - 2 * ((p - folders) floordiv (gpus_per_node - 1))) * (gpus_per_node - 1)", index "2 * ((c * (n floordiv gpus_per_node) + u - 1) floordiv 2)")]
              }
              sched.recv from "r - r mod gpus_per_node + (r - (p - folders) mod (gpus_per_node - 1) - 1) mod gpus_per_node"
                  dst = scratch["(n floordiv gpus_per_node - 1) * k + (u * k + c) * (gpus_per_node - 1) + (p - folders) mod (gpus_per_node - 1)"]
            }
          }
        }
      } else {
        sched.if "p < folders + 2 * gpus_per_node + n floordiv gpus_per_node - 3" {
          // Rail peer e = p - folders - 2g + 3: node sums to node a - e,
          // from a + e, each after its fold (unit e - 1 of the chunk).
          sched.for c = 0 to k {
            sched.send to "(r - (p - folders - 2 * gpus_per_node + 3) * gpus_per_node) mod n"
                src = scratch["(p - folders - 2 * gpus_per_node + 2) * k + c"] step = 1
                after = [(channel "(p - folders - 2 * gpus_per_node + 2) mod folders", index "2 * (c * ((n floordiv gpus_per_node + folders - 1 - (p - folders - 2 * gpus_per_node + 2) mod folders) floordiv folders) + (p - folders - 2 * gpus_per_node + 2) floordiv folders) + 1")]
            sched.recv from "(r + (p - folders - 2 * gpus_per_node + 3) * gpus_per_node) mod n"
                dst = scratch["(n floordiv gpus_per_node - 1) * k + (n floordiv gpus_per_node) * k * (gpus_per_node - 1) + c * (n floordiv gpus_per_node - 1) + p - folders - 2 * gpus_per_node + 2"]
                step = 1
          }
        } else {
          // The rail arrivals of chunk c, into the output.
          sched.for c = 0 to k {
            sched.reduce
                src = scratch["(n floordiv gpus_per_node - 1) * k + (n floordiv gpus_per_node) * k * (gpus_per_node - 1) + c * (n floordiv gpus_per_node - 1)"]
                dst = output[c] fanin = "n floordiv gpus_per_node - 1" step = 1
                after = [(channel "(n floordiv gpus_per_node - 1) mod folders", index "2 * (c * ((n floordiv gpus_per_node + folders - 1 - (n floordiv gpus_per_node - 1) mod folders) floordiv folders) + (n floordiv gpus_per_node - 1) floordiv folders) + 1"),
                         (channel "folders + 2 * gpus_per_node - 2" to "folders + 2 * gpus_per_node + n floordiv gpus_per_node - 3", index "2 * c + 1")]
          }
        }
      }
    }
  }
}

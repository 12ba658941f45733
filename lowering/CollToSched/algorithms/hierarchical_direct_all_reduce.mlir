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
// [p K, (p + 1) K). Reduce-scatter units: for chunk c < K and u = 0 .. N-1,
// unit (c, u) is chunk c of the parts of node a - 1 - u (u = N-1: the own
// node). Scratch (K (n + N - 1) chunks): the node sum of unit (c, u < N-1)
// at u K + c; node peer d's contribution to unit (c, u) at
// (N-1) K + (u K + c)(g-1) + d - 1; rail peer e's node sum for chunk c at
// (N-1) K + N K (g-1) + c (N-1) + e - 1.
// Channels (2 g + 2 N - 2):
//   0: per unit, copy the own contribution and combine the g - 1 received
//      ones (fanin g - 1) into the node sum (own node: output[r K + c]);
//   1 .. g-1: reduce-scatter, node peer d: send the unit's part of rank
//      l + d, receive l - d's into scratch;
//   g .. g+N-2: reduce-scatter, rail peer e = p - g + 1: send the node sum of
//      unit (c, e - 1) to node a - e, receive node a + e's;
//   g+N-1: per chunk, combine the N - 1 rail arrivals into output[r K + c]
//      (fanin N - 1): the rank's part of chunk c is reduced;
//   g+N .. g+2N-2: all-gather, rail peer e = p - g - N + 1: send the reduced
//      chunk to node a + e, receive node a - e's into its place;
//   g+2N-1 .. 2g+2N-3: all-gather, node peer d = p - g - 2N + 2: for each
//      node a - v (v = 0 .. N-1, the own node first, the others as the rail
//      delivers them), send this rank's chunk of that node's parts to l + d,
//      receive l - d's.
// Bytes sent per rank: 2 (g-1)/g M intra-node + 2 (N-1)/n M inter-node =
// 2 (n-1)/n M. Steps: 4. Instructions per rank: K (4 N g + 2 N - 3);
// transfers: 2 n (n - 1) K.
sched.schedule @hierarchical_direct_all_reduce collective = all_reduce
    algorithm = "hierarchical_direct"
    attributes {collc.chunk_unit = "n", collc.requires = ["nodes"],
                collc.volume = "2 (n-1)/n M: 2 (g-1)/g M intra-node + 2 (n/g-1)/n M inter-node",
                collc.steps = "4"}
    params = {gpus_per_node = 8}
    scratch = "k floordiv n * (n + n floordiv gpus_per_node - 1)"
    description = "hierarchical direct: direct node reduce-scatter and rail reduce-scatter combined in one pass each, then direct rail and node all-gathers, chunk-pipelined and overlapped; needs nodes; 2(n-1)/n M sent per rank" {
  sched.channel 0 {
    sched.for c = 0 to "k floordiv n" {
      sched.for u = 0 to "n floordiv gpus_per_node - 1" {
        sched.copy
            src = input["(((r floordiv gpus_per_node - 1 - u) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node) * (k floordiv n) + c"]
            dst = scratch["u * (k floordiv n) + c"]
        sched.reduce
            src = scratch["(n floordiv gpus_per_node - 1) * (k floordiv n) + (u * (k floordiv n) + c) * (gpus_per_node - 1)"]
            dst = scratch["u * (k floordiv n) + c"] fanin = "gpus_per_node - 1"
            after = [(channel 1 to "gpus_per_node", index "2 * (c * (n floordiv gpus_per_node) + u) + 1")]
      }
      sched.copy src = input["r * (k floordiv n) + c"]
          dst = output["r * (k floordiv n) + c"]
      sched.reduce
          src = scratch["(n floordiv gpus_per_node - 1) * (k floordiv n) + ((n floordiv gpus_per_node - 1) * (k floordiv n) + c) * (gpus_per_node - 1)"]
          dst = output["r * (k floordiv n) + c"] fanin = "gpus_per_node - 1"
          after = [(channel 1 to "gpus_per_node", index "2 * (c * (n floordiv gpus_per_node) + n floordiv gpus_per_node - 1) + 1")]
    }
  }
  sched.channel p = 1 to "2 * gpus_per_node + 2 * (n floordiv gpus_per_node) - 2" {
    sched.if "p < gpus_per_node" {
      // Reduce-scatter, node peer d = p.
      sched.for c = 0 to "k floordiv n" {
        sched.for u = 0 to "n floordiv gpus_per_node" {
          sched.send to "r - r mod gpus_per_node + (r + p) mod gpus_per_node"
              src = input["(((r floordiv gpus_per_node - 1 - u) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + p) mod gpus_per_node) * (k floordiv n) + c"]
          sched.recv from "r - r mod gpus_per_node + (r - p) mod gpus_per_node"
              dst = scratch["(n floordiv gpus_per_node - 1) * (k floordiv n) + (u * (k floordiv n) + c) * (gpus_per_node - 1) + p - 1"]
        }
      }
    }
    sched.if "p >= gpus_per_node, p < gpus_per_node + n floordiv gpus_per_node - 1" {
      // Reduce-scatter, rail peer e = p - g + 1.
      sched.for c = 0 to "k floordiv n" {
        sched.send to "(r - (p - gpus_per_node + 1) * gpus_per_node) mod n"
            src = scratch["(p - gpus_per_node) * (k floordiv n) + c"] step = 1
            after = [(channel 0, index "2 * (c * (n floordiv gpus_per_node) + p - gpus_per_node) + 1")]
        sched.recv from "(r + (p - gpus_per_node + 1) * gpus_per_node) mod n"
            dst = scratch["(n floordiv gpus_per_node - 1) * (k floordiv n) + (n floordiv gpus_per_node) * (k floordiv n) * (gpus_per_node - 1) + c * (n floordiv gpus_per_node - 1) + p - gpus_per_node"]
            step = 1
      }
    }
    sched.if "p == gpus_per_node + n floordiv gpus_per_node - 1" {
      // The rail arrivals of chunk c, into this rank's part.
      sched.for c = 0 to "k floordiv n" {
        sched.reduce
            src = scratch["(n floordiv gpus_per_node - 1) * (k floordiv n) + (n floordiv gpus_per_node) * (k floordiv n) * (gpus_per_node - 1) + c * (n floordiv gpus_per_node - 1)"]
            dst = output["r * (k floordiv n) + c"] fanin = "n floordiv gpus_per_node - 1"
            step = 1
            after = [(channel 0, index "2 * (c * (n floordiv gpus_per_node) + n floordiv gpus_per_node - 1) + 1"),
                     (channel gpus_per_node to "gpus_per_node + n floordiv gpus_per_node - 1", index "2 * c + 1")]
      }
    }
    sched.if "p >= gpus_per_node + n floordiv gpus_per_node, p < gpus_per_node + 2 * (n floordiv gpus_per_node) - 1" {
      // All-gather, rail peer e = p - g - N + 1.
      sched.for c = 0 to "k floordiv n" {
        sched.send to "(r + (p - gpus_per_node - n floordiv gpus_per_node + 1) * gpus_per_node) mod n"
            src = output["r * (k floordiv n) + c"] step = 2
            after = [(channel "gpus_per_node + n floordiv gpus_per_node - 1", index c)]
        sched.recv from "(r - (p - gpus_per_node - n floordiv gpus_per_node + 1) * gpus_per_node) mod n"
            dst = output["((r - (p - gpus_per_node - n floordiv gpus_per_node + 1) * gpus_per_node) mod n) * (k floordiv n) + c"]
            step = 2
      }
    }
    sched.if "p >= gpus_per_node + 2 * (n floordiv gpus_per_node) - 1" {
      // All-gather, node peer d = p - g - 2N + 2: node a - v's chunk c.
      sched.for c = 0 to "k floordiv n" {
        sched.for v = 0 to "n floordiv gpus_per_node" {
          sched.if "v == 0" {
            sched.send to "r - r mod gpus_per_node + (r + p - gpus_per_node - 2 * (n floordiv gpus_per_node) + 2) mod gpus_per_node"
                src = output["r * (k floordiv n) + c"] step = 3
                after = [(channel "gpus_per_node + n floordiv gpus_per_node - 1", index c)]
          } else {
            sched.send to "r - r mod gpus_per_node + (r + p - gpus_per_node - 2 * (n floordiv gpus_per_node) + 2) mod gpus_per_node"
                src = output["((r - v * gpus_per_node) mod n) * (k floordiv n) + c"] step = 3
                after = [(channel "gpus_per_node + n floordiv gpus_per_node - 1 + v", index "2 * c + 1")]
          }
          sched.recv from "r - r mod gpus_per_node + (r - p + gpus_per_node + 2 * (n floordiv gpus_per_node) - 2) mod gpus_per_node"
              dst = output["(((r floordiv gpus_per_node - v) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - p + gpus_per_node + 2 * (n floordiv gpus_per_node) - 2) mod gpus_per_node) * (k floordiv n) + c"]
              step = 3
        }
      }
    }
  }
}

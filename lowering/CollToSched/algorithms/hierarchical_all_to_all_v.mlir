// Hierarchical all-to-all-v: the hierarchical all-to-all over the send-count
// matrix. Part p of rank s's input and part s of rank p's output hold
// sendCounts[s][p] elements, cut into k chunks; a zero block is still sent
// (0 elements), so the structure never depends on the counts. Scratch chunks
// have the size of the largest input chunk; a chunk keeps its own size when it
// is staged there (the verifier compares scratch ranges by chunk count).
//
// n = N g ranks on N nodes of g = gpus_per_node ranks; rank r is local rank
// l = r mod g of node a = r floordiv g. Block (a, l) -> (b, m) is part
// b g + m of rank (a, l)'s input and part a g + l of rank (b, m)'s output.
//
// Phase 1, across nodes, on the rail of local rank l: at step t = 1 .. N-1,
// rank (a, l) sends to (a + t, l) everything it has for node a + t, input
// parts (a + t) g .. (a + t) g + g - 1, which are contiguous, and receives
// from (a - t, l) what that rank has for this node into scratch parts
// (a - t) g .. (a - t) g + g - 1. This is shifted pairing of the nodes (a
// permutation on every rail at every step): N - 1 inter-node messages per
// rank, each of g M / n bytes, sent in k pieces of g chunks.
//
// Phase 2, inside the node: for t = 0 .. N-1, rank (a, l) delivers the blocks
// of source node a - t to the ranks of its node. It sends to (a, l + u),
// u = 1 .. g-1, the block of (a - t, l) for that rank (from the input for
// t = 0, from scratch for t >= 1) and receives from (a, l - u) the block of
// (a - t, l - u) into output part (a - t) g + (l - u) mod g; its own block is
// a local copy. Every block moves as k messages of one chunk. A phase-2 send
// of scratch chunk c of block m waits (after =) only for the phase-1 piece
// that holds it, so the delivery of node a - t overlaps the rail transfers of
// later steps. Phase 1 never waits for phase 2, so no wait-for cycle can form.
//
// Channels (4 G, G = `groups`, 16 by default): the source-node offsets t
// are dealt to G groups (t mod G); group x has one rail channel (G rail
// transfers in flight per rank) and 3 delivery channels that take the
// node's peers u mod 3 (3 G NVLink transfers in flight). Channel 4 x is
// the rail of group x (offsets t0, t0 + G, ..., t0 = (x - 1) mod G + 1:
// x, or G for group 0), channels 4 x + 1 .. 4 x + 3 its delivery; group 0
// also delivers the own node's blocks (t = 0), which need no rail
// transfer. Where a channel's rate is capped (a thread block on a GPU)
// selection chooses G (collc.channel_param): more groups, more rails in
// flight.
//
// Bytes sent per rank: (N-1)/N M across nodes + (g-1)/g M inside the node
// (the own node's blocks plus the forwarding hop of the others). Direct sends
// the same (n-g)/n M = (N-1)/N M across nodes, but as n - g messages of M/n
// bytes to n - g peers; here they go as N - 1 messages of g M/n bytes to the
// N - 1 peers of one rail. Steps: N - 1 rail steps, overlapped with N delivery
// rounds of g - 1 peers each. Instructions per rank: 2k(N-1) + N (1 + 2k(g-1)).
// Transfers: n k (N-1) across nodes + n k N (g-1) inside the nodes, which
// equals n k (n-1).

sched.schedule @hierarchical_all_to_all_v collective = all_to_all_v algorithm = "hierarchical"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(N-1)/N M inter-node + (g-1)/g M intra-node (N = n/g, g = gpus_per_node)",
                collc.steps = "N - 1 inter-node + N (g - 1) intra-node",
                collc.channel_param = "groups"}
    params = {gpus_per_node = 8, groups = 4} scratch = "n * k"
    description = "hierarchical all-to-all-v: rail exchange of per-node aggregates (N-1 messages of g M/n), then NVLink delivery; 4 x `groups` channels (16)" {
  sched.channel p = 0 to "4 * groups" {
    sched.if "p mod 4 == 0" {
      // Phase 1, source-node offsets t = t0, t0 + G, ...: shifted pairing
      // on this rank's rail.
      sched.for t = "((p floordiv 4 - 1) mod groups + 1)" to "n floordiv gpus_per_node" step groups {
        sched.for q = 0 to k {
          sched.send to "((r floordiv gpus_per_node + t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node"
              src = input["((r floordiv gpus_per_node + t) mod (n floordiv gpus_per_node)) * gpus_per_node * k + q * gpus_per_node"] count = gpus_per_node
              step = t
          sched.recv from "((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node"
              dst = scratch["((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node * k + q * gpus_per_node"] count = gpus_per_node
              step = t
        }
      }
    } else {
      // Phase 2, delivery channel j = p mod 4 of group x = p floordiv 4:
      // peers u = j, j + 3, ... of the node (j = 1 also the local copies).
      sched.if "p floordiv 4 == 0" {
        // The own node's blocks (t = 0), from the input.
        sched.if "p == 1" {
          sched.copy src = input["r * k"] dst = output["r * k"] count = k
        }
        sched.for u = "p mod 4" to gpus_per_node step 3 {
          sched.for c = 0 to k {
            sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
                src = input["(r - r mod gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
            sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
                dst = output["(r - r mod gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
          }
        }
      }
      sched.for t = "((p floordiv 4 - 1) mod groups + 1)" to "n floordiv gpus_per_node" step groups {
        sched.if "p mod 4 == 1" {
          sched.copy src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node) * k"]
              dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node) * k"] count = k
              step = t after = [(channel "p - p mod 4", index "(t - ((p floordiv 4 - 1) mod groups + 1)) floordiv groups * 2 * k + 2 * (((r mod gpus_per_node) * k + k - 1) floordiv gpus_per_node) + 1")]
        }
        sched.for u = "p mod 4" to gpus_per_node step 3 {
          sched.for c = 0 to k {
            sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
                src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
                step = t after = [(channel "p - p mod 4", index "(t - ((p floordiv 4 - 1) mod groups + 1)) floordiv groups * 2 * k + 2 * ((((r + u) mod gpus_per_node) * k + c) floordiv gpus_per_node) + 1")]
            sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
                dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
                step = t
          }
        }
      }
    }
  }
}

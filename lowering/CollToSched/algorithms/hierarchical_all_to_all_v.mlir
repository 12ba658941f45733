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
// Phase 1, across nodes, on the rail of local rank l (channel 0): at step
// t = 1 .. N-1, rank (a, l) sends to (a + t, l) everything it has for node
// a + t, input parts (a + t) g .. (a + t) g + g - 1, contiguous, and receives
// from (a - t, l) what that rank has for this node into scratch parts
// (a - t) g .. (a - t) g + g - 1. Shifted pairing of the nodes: a permutation
// on every rail at every step, N - 1 inter-node messages per rank, each
// g M / n bytes, in k pieces of g chunks.
//
// Phase 2, inside the node (channels 1 .. 4): for t = 0 .. N-1, rank (a, l)
// delivers the blocks of source node a - t to the ranks of its node: to
// (a, l + u), u = 1 .. g-1, the block of (a - t, l) for it (from the input
// for t = 0, from scratch for t >= 1), and receives from (a, l - u) the block
// of (a - t, l - u) into output part (a - t) g + (l - u) mod g; the block for
// itself is a local copy. Peers u are dealt to channels 1 .. 4 (u mod 4), so
// up to 4 NVLink peers are in flight, and every block moves as k messages of
// one chunk. A phase-2 send of scratch chunk c of block m waits (after =) only
// for the phase-1 piece that holds it, so delivery of node a - t overlaps the
// rail transfers of later steps. Phase 1 never waits for phase 2: no
// wait-for cycle can form.
//
// Bytes sent per rank: (N-1)/N M across nodes + (g-1)/g M inside the node
// (the own node's blocks and the forwarding hop of the others); direct sends
// (n-g)/n M = (N-1)/N M across nodes too, but in n - g messages of M/n.
// Steps: N - 1 rail steps, then (overlapped) N delivery rounds of g - 1 peers.
// Instructions per rank: 2k(N-1) + N (1 + 2k(g-1)); transfers:
// n k (N-1) + n k N (g-1).

sched.schedule @hierarchical_all_to_all_v collective = all_to_all_v algorithm = "hierarchical"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(N-1)/N M inter-node + (g-1)/g M intra-node (N = n/g, g = gpus_per_node)",
                collc.steps = "N - 1 inter-node + N (g - 1) intra-node"}
    params = {gpus_per_node = 8} scratch = "n * k"
    description = "hierarchical all-to-all-v: rail exchange of per-node aggregates (N-1 messages of g M/n), then NVLink delivery over 4 channels" {
  // Phase 1: shifted pairing of the nodes on this rank's rail.
  sched.channel 0 {
    sched.for t = 1 to "n floordiv gpus_per_node" {
      sched.for p = 0 to k {
        sched.send to "((r floordiv gpus_per_node + t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node"
            src = input["((r floordiv gpus_per_node + t) mod (n floordiv gpus_per_node)) * gpus_per_node * k + p * gpus_per_node"] count = gpus_per_node
            step = t
        sched.recv from "((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node"
            dst = scratch["((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node * k + p * gpus_per_node"] count = gpus_per_node
            step = t
      }
    }
  }
  // Phase 2: peers u = 1, 5, ... of the node (and the local copy).
  sched.channel 1 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
    sched.for u = 1 to gpus_per_node step 4 {
      sched.for c = 0 to k {
        sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
            src = input["(r - r mod gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
        sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
            dst = output["(r - r mod gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
      }
    }
    sched.for t = 1 to "n floordiv gpus_per_node" {
      sched.copy src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node) * k"]
          dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + r mod gpus_per_node) * k"] count = k
          step = t after = [(channel 0, index "(t - 1) * 2 * k + 2 * (((r mod gpus_per_node) * k + k - 1) floordiv gpus_per_node) + 1")]
      sched.for u = 1 to gpus_per_node step 4 {
        sched.for c = 0 to k {
          sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
              src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
              step = t after = [(channel 0, index "(t - 1) * 2 * k + 2 * ((((r + u) mod gpus_per_node) * k + c) floordiv gpus_per_node) + 1")]
          sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
              dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
              step = t
        }
      }
    }
  }
  // Phase 2: peers u = 2, 6, ... of the node.
  sched.channel 2 {
    sched.for u = 2 to gpus_per_node step 4 {
      sched.for c = 0 to k {
        sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
            src = input["(r - r mod gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
        sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
            dst = output["(r - r mod gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
      }
    }
    sched.for t = 1 to "n floordiv gpus_per_node" {
      sched.for u = 2 to gpus_per_node step 4 {
        sched.for c = 0 to k {
          sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
              src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
              step = t after = [(channel 0, index "(t - 1) * 2 * k + 2 * ((((r + u) mod gpus_per_node) * k + c) floordiv gpus_per_node) + 1")]
          sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
              dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
              step = t
        }
      }
    }
  }
  // Phase 2: peers u = 3, 7, ... of the node.
  sched.channel 3 {
    sched.for u = 3 to gpus_per_node step 4 {
      sched.for c = 0 to k {
        sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
            src = input["(r - r mod gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
        sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
            dst = output["(r - r mod gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
      }
    }
    sched.for t = 1 to "n floordiv gpus_per_node" {
      sched.for u = 3 to gpus_per_node step 4 {
        sched.for c = 0 to k {
          sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
              src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
              step = t after = [(channel 0, index "(t - 1) * 2 * k + 2 * ((((r + u) mod gpus_per_node) * k + c) floordiv gpus_per_node) + 1")]
          sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
              dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
              step = t
        }
      }
    }
  }
  // Phase 2: peers u = 4, 8, ... of the node.
  sched.channel 4 {
    sched.for u = 4 to gpus_per_node step 4 {
      sched.for c = 0 to k {
        sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
            src = input["(r - r mod gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
        sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
            dst = output["(r - r mod gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
      }
    }
    sched.for t = 1 to "n floordiv gpus_per_node" {
      sched.for u = 4 to gpus_per_node step 4 {
        sched.for c = 0 to k {
          sched.send to "r - r mod gpus_per_node + (r + u) mod gpus_per_node"
              src = scratch["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + u) mod gpus_per_node) * k + c"]
              step = t after = [(channel 0, index "(t - 1) * 2 * k + 2 * ((((r + u) mod gpus_per_node) * k + c) floordiv gpus_per_node) + 1")]
          sched.recv from "r - r mod gpus_per_node + (r - u) mod gpus_per_node"
              dst = output["(((r floordiv gpus_per_node - t) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - u) mod gpus_per_node) * k + c"]
              step = t
        }
      }
    }
  }
}

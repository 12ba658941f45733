// Hierarchical all-gather: rail rings across nodes, then node rings,
// overlapped. Requires nodes: g = gpus_per_node >= 2 consecutive ranks per
// node, N = n / g >= 2 nodes; rank r is local rank r mod g of node r / g.
// Rail channels 0 .. Q-1: the ranks of a rail (peers r +- g) all-gather
// their inputs around a ring of N; at step s rank r receives the input of
// rank (r - s g) mod n. Node channels Q .. Q+R-1 (R = rings): for each
// s = 0 .. N-1 the g ranks of a node all-gather those rail parts around a
// ring of g (peers l +- 1 mod g), each chunk after the rail channel
// received it. Node ring j takes chunks j, j + R, ... of each part, rail
// ring i chunks i, i + Q, ...; Q = ceil(R / g) rail rings for R node rings,
// as a rank's node rings move g - 1 times its rail rings' bytes (g = 1
// ring each with R = 1). Where a channel's rate is capped (a thread block
// on a GPU) selection chooses R (collc.channel_param). Channel Q + R copies
// the own part.
// Chunking: chunk-major on both channels (deadlock-free for any k).
// Bytes sent per rank: (N-1) M inter-node + (g-1) N M intra-node = (n-1) M
// (M = input bytes of a rank). Steps: (N-1) + (g-1).
// Instructions: n (k N (g + 1) + 1); transfers: n (n - 1) k, for any R.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @hierarchical_all_gather collective = all_gather
    algorithm = "hierarchical"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(n-1) M: (n/g-1) M inter-node + (g-1) n/g M intra-node",
                collc.steps = "(n/g-1) + (g-1)", collc.channel_param = "rings"}
    params = {gpus_per_node = 8, rings = 1, per_rail = 4}
    description = "hierarchical: rail rings across nodes, then node rings, chunk-pipelined and overlapped; `rings` parallel node rings and ceil(rings / g) rail rings; needs nodes; (n-1) M sent per rank, (n/g-1) M of it inter-node" {
  sched.channel j = 0 to "rings ceildiv per_rail + rings + 1" {
    sched.if "rings ceildiv per_rail - 1 - j >= 0" {
      // Rail ring j.
      sched.for c = j to k step "rings ceildiv per_rail" {
        sched.send to "(r + gpus_per_node) mod n" src = input[c]
        sched.for s = 1 to "n floordiv gpus_per_node - 1" {
          sched.recv_copy_send from "(r - gpus_per_node) mod n"
              to "(r + gpus_per_node) mod n"
              dst = output["((r - s * gpus_per_node) mod n) * k + c"] step = s
        }
        sched.recv from "(r - gpus_per_node) mod n"
            dst = output["((r + gpus_per_node) mod n) * k + c"]
            step = "n floordiv gpus_per_node - 1"
      }
    } else {
      sched.if "rings ceildiv per_rail + rings - 1 - j >= 0" {
        // Node ring j - Q.
        sched.for c = "j - rings ceildiv per_rail" to k step rings {
          sched.for s = 0 to "n floordiv gpus_per_node" {
            // The rail-l part of node a - s: (r - s g) mod n. Rail channel
            // c mod Q receives chunk c of it at its instruction
            // (c floordiv Q) N + s.
            sched.if "s == 0" {
              sched.send to "r floordiv gpus_per_node * gpus_per_node + (r + 1) mod gpus_per_node"
                  src = input[c] step = "n floordiv gpus_per_node - 1"
            } else {
              sched.send to "r floordiv gpus_per_node * gpus_per_node + (r + 1) mod gpus_per_node"
                  src = output["((r - s * gpus_per_node) mod n) * k + c"]
                  step = "n floordiv gpus_per_node - 1"
                  after = [(channel "c mod (rings ceildiv per_rail)", index "c floordiv (rings ceildiv per_rail) * (n floordiv gpus_per_node) + s")]
            }
            sched.for t = 1 to "gpus_per_node - 1" {
              sched.recv_copy_send
                  from "r floordiv gpus_per_node * gpus_per_node + (r - 1) mod gpus_per_node"
                  to "r floordiv gpus_per_node * gpus_per_node + (r + 1) mod gpus_per_node"
                  dst = output["((r - s * gpus_per_node) mod n - r mod gpus_per_node + (r - t) mod gpus_per_node) * k + c"]
                  step = "n floordiv gpus_per_node - 1 + t"
            }
            sched.recv
                from "r floordiv gpus_per_node * gpus_per_node + (r - 1) mod gpus_per_node"
                dst = output["((r - s * gpus_per_node) mod n - r mod gpus_per_node + (r + 1) mod gpus_per_node) * k + c"]
                step = "n floordiv gpus_per_node + gpus_per_node - 2"
          }
        }
      } else {
        sched.copy src = input[0] dst = output["r * k"] count = k
      }
    }
  }
}

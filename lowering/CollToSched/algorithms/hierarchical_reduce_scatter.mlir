// Hierarchical reduce-scatter: node rings, then rail rings across nodes,
// overlapped; the mirror of hierarchical all-gather. Requires nodes:
// g = gpus_per_node >= 2 consecutive ranks per node, N = n / g >= 2 nodes.
// Node channels 0 .. R-1 (R = rings): for each destination node a - 1 - u
// (u = 0 .. N-1) the g ranks of node a reduce-scatter that node's parts
// around a ring of g (peers l +- 1 mod g); local rank l keeps the node sum
// of part (a-1-u) g + l in scratch part u. Rail channels R .. R+Q-1: the
// ranks of a rail (peers r +- g) reduce-scatter these node sums around a
// ring of N, each chunk after the node channel produced it. Node ring j
// takes chunks j, j + R, ... of each part, rail ring i chunks i, i + Q, ...;
// Q = ceil(R / per_rail) rail rings (default per_rail 4: a rank's node
// rings move g - 1 times its rail rings' bytes, and a rail ring's chunks
// wait on the node rings; one ring each with R = 1). Where a channel's rate
// is capped (a thread block on a GPU) selection chooses R
// (collc.channel_param). Chunking: chunk-major (deadlock-free for any k).
// Bytes sent per rank: (g-1) N M/n intra-node + (N-1) M/n inter-node =
// (n-1)/n M (M = input bytes of a rank, n parts). Steps: (g-1) + (N-1).
// Instructions: n k N (g + 1); transfers: n (n - 1) k, for any R. Scratch:
// N k chunks.
// See docs/algorithms/all_gather_reduce_scatter.md.

sched.schedule @hierarchical_reduce_scatter collective = reduce_scatter
    algorithm = "hierarchical"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(n-1)/n M: (g-1) M/g intra-node + (n/g-1) M/n inter-node",
                collc.steps = "(g-1) + (n/g-1)", collc.channel_param = "rings"}
    params = {gpus_per_node = 8, rings = 1, per_rail = 4}
    scratch = "n floordiv gpus_per_node * k"
    description = "hierarchical: node rings, then rail rings across nodes, chunk-pipelined and overlapped; `rings` parallel node rings and ceil(rings / per_rail) rail rings; needs nodes; (n-1)/n M sent per rank, (n/g-1)/n M of it inter-node" {
  sched.channel j = 0 to "rings + rings ceildiv per_rail" {
    sched.if "rings - 1 - j >= 0" {
      // Node ring j.
      sched.for c = j to k step rings {
        sched.for u = 0 to "n floordiv gpus_per_node" {
          // Node a' = a - 1 - u: its parts start at (r - (1 + u) g) mod n - l.
          sched.send to "r floordiv gpus_per_node * gpus_per_node + (r + 1) mod gpus_per_node"
              src = input["((r - (1 + u) * gpus_per_node) mod n - r mod gpus_per_node + (r - 1) mod gpus_per_node) * k + c"]
          sched.for t = 1 to "gpus_per_node - 1" {
            sched.recv_reduce_send
                from "r floordiv gpus_per_node * gpus_per_node + (r - 1) mod gpus_per_node"
                to "r floordiv gpus_per_node * gpus_per_node + (r + 1) mod gpus_per_node"
                src = input["((r - (1 + u) * gpus_per_node) mod n - r mod gpus_per_node + (r - 1 - t) mod gpus_per_node) * k + c"]
                step = t
          }
          sched.recv_reduce_copy
              from "r floordiv gpus_per_node * gpus_per_node + (r - 1) mod gpus_per_node"
              src = input["((r - (1 + u) * gpus_per_node) mod n) * k + c"]
              dst = scratch["u * k + c"] step = "gpus_per_node - 1"
        }
      }
    } else {
      // Rail ring j - R.
      sched.for c = "j - rings" to k step "rings ceildiv per_rail" {
        // Node channel c mod R produces scratch part u of chunk c at its
        // instruction i n + u g + g - 1, i = c floordiv R.
        sched.send to "(r + gpus_per_node) mod n" src = scratch[c]
            step = "gpus_per_node - 1"
            after = [(channel "c mod rings", index "c floordiv rings * n + gpus_per_node - 1")]
        sched.for u = 1 to "n floordiv gpus_per_node - 1" {
          sched.recv_reduce_send from "(r - gpus_per_node) mod n"
              to "(r + gpus_per_node) mod n" src = scratch["u * k + c"]
              step = "gpus_per_node - 1 + u"
              after = [(channel "c mod rings", index "c floordiv rings * n + (u + 1) * gpus_per_node - 1")]
        }
        sched.recv_reduce_copy from "(r - gpus_per_node) mod n"
            src = scratch["(n floordiv gpus_per_node - 1) * k + c"]
            dst = output[c] step = "gpus_per_node - 2 + n floordiv gpus_per_node"
            after = [(channel "c mod rings", index "c floordiv rings * n + n - 1")]
      }
    }
  }
}

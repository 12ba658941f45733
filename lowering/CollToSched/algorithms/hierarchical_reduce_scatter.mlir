// Hierarchical reduce-scatter: intra-node rings, then inter-node rings per
// rail, overlapped: the mirror of hierarchical all-gather. Requires nodes:
// n = N g ranks, g = gpus_per_node >= 2 consecutive ranks per node,
// N = n / g >= 2 nodes; rank r is local rank l = r mod g of node a = r
// floordiv g.
//
// Channel 0 (node): for each destination node a' = a - 1 - u (u = 0 .. N-1,
// the order channel 1 consumes them) the g ranks of a node reduce-scatter
// the parts of node a' around a ring of g (peers l +- 1 mod g): local rank l
// ends with the node's sum of part a' g + l, in scratch part u.
// Channel 1 (network): the ranks of rail l (peers r +- g) reduce-scatter
// these node sums around a ring of N: at step u rank r adds its scratch part
// u to the partial sum of part (a - 1 - u) g + l from rank r - g and passes
// it on; at step N - 1 it stores the sum of part r. Each scratch part waits
// for channel 0 to produce it.
//
// Why intra-node first: every node must export the sums of the other nodes'
// parts, (N-1) M/n per rank, which the rails carry once, already reduced
// within the node; reduce-scattering over the rails first would send each
// rank's (N-1)/N M unreduced (g times more). The intra-node phase moves
// (g-1) N M/n per rank over NVLink, overlapped with the network chunk by
// chunk.
//
// Chunking: chunk-major on both channels (all N destination nodes of chunk
// c before chunk c + 1), so channel 1 sends chunk c of a node sum as soon as
// channel 0 has it, and no connection holds more than two unreceived sends.
//
// Bytes sent per rank: (g-1) N M/n within the node + (N-1) M/n over the
// network = (n-1)/n M (M = input bytes of a rank, n parts). Steps:
// (g-1) + (N-1). Instructions per rank: k N (g + 1); transfers:
// n k (N - 1 + N (g - 1)) = n (n - 1) k. Scratch: N k chunks.

sched.schedule @hierarchical_reduce_scatter collective = reduce_scatter
    algorithm = "hierarchical"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(n-1)/n M: (g-1) M/g intra-node + (n/g-1) M/n inter-node",
                collc.steps = "(g-1) + (n/g-1)"}
    params = {gpus_per_node = 8}
    scratch = "n floordiv gpus_per_node * k"
    description = "hierarchical: node rings, then rail rings across nodes, chunk-pipelined and overlapped; needs nodes; (n-1)/n M sent per rank, (n/g-1)/n M of it inter-node" {
  sched.channel 0 {
    sched.for c = 0 to k {
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
  }
  sched.channel 1 {
    sched.for c = 0 to k {
      // Channel 0 produces scratch part u of chunk c at its instruction
      // c n + u g + g - 1.
      sched.send to "(r + gpus_per_node) mod n" src = scratch[c]
          step = "gpus_per_node - 1"
          after = [(channel 0, index "c * n + gpus_per_node - 1")]
      sched.for u = 1 to "n floordiv gpus_per_node - 1" {
        sched.recv_reduce_send from "(r - gpus_per_node) mod n"
            to "(r + gpus_per_node) mod n" src = scratch["u * k + c"]
            step = "gpus_per_node - 1 + u"
            after = [(channel 0, index "c * n + (u + 1) * gpus_per_node - 1")]
      }
      sched.recv_reduce_copy from "(r - gpus_per_node) mod n"
          src = scratch["(n floordiv gpus_per_node - 1) * k + c"]
          dst = output[c] step = "gpus_per_node - 2 + n floordiv gpus_per_node"
          after = [(channel 0, index "c * n + n - 1")]
    }
  }
}

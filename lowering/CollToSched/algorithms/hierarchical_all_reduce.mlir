// Hierarchical all-reduce: intra-node reduce-scatter, inter-node all-reduce
// per rail, intra-node all-gather. Requires nodes: n = N g ranks, g =
// gpus_per_node >= 2 consecutive ranks per node, N = n / g >= 2 nodes; rank
// r is local rank l = r mod g of node a = r floordiv g.
//
// Layout (chunk_unit n, k = c n): local rank l' owns share l' = chunks
// [l' S, (l' + 1) S), S = k / g = c N; slice j (j < c) of a share is its N
// chunks [l' S + j N, + N), chunk m of which is part m of the rail ring.
// Per slice j, overlapped across slices on three channels (R = rings node
// rings of each kind, Q = ceil(R / per_rail) rail rings, default per_rail
// 4: a rank's node rings move g - 1 times its rail rings' bytes; R = 1:
// one ring of each):
//   channel j mod R (node): ring reduce-scatter of the g share slices
//     around the node (peers l +- 1 mod g); rank l ends with the node's sum
//     of share l, slice j, in its output;
//   channel R + j mod Q (network): ring all-reduce of that slice around the
//     rail (peers r +- g, N parts of one chunk), waiting for the first;
//   channel R + Q + j mod R (node): ring all-gather of the reduced share
//     slices around the node, waiting for the second.
// Where a channel's rate is capped (a thread block on a GPU) selection
// chooses R (collc.channel_param).
// Bytes sent per rank: (g-1)/g M (node RS) + 2 (N-1)/N M/g (network) +
// (g-1)/g M (node AG) = 2 (n-1)/n M, of which only 2 (N-1)/n M leaves the
// node, spread over the g rails. Steps: 2 (g-1) + 2 (N-1).
// Instructions: n c (2 g + 2 N - 1); transfers: 2 n c (g + N - 2), for any
// R.
sched.schedule @hierarchical_all_reduce collective = all_reduce
    algorithm = "hierarchical"
    attributes {collc.chunk_unit = "n", collc.requires = ["nodes"],
                collc.volume = "2 (n-1)/n M: 2 (g-1)/g M intra-node + 2 (n/g-1)/n M inter-node",
                collc.steps = "2 (g-1) + 2 (n/g-1)", collc.channel_param = "rings"}
    params = {gpus_per_node = 8, rings = 1, per_rail = 4}
    description = "hierarchical: node reduce-scatter, rail all-reduce across nodes, node all-gather, slice-pipelined and overlapped; `rings` parallel node rings of each phase and ceil(rings / per_rail) rail rings; needs nodes; 2(n-1)/n M sent per rank, 2(n/g-1)/n M of it inter-node" {
  sched.channel p = 0 to "2 * rings + rings ceildiv per_rail" {
    sched.if "rings - 1 - p >= 0" {
      // Node reduce-scatter, ring p: g instructions per slice.
      sched.for j = p to "k floordiv n" step rings {
        sched.send to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
            src = input["((r - 1) mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
            count = "n floordiv gpus_per_node"
        sched.for s = 1 to "gpus_per_node - 1" {
          sched.recv_reduce_send
              from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
              to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
              src = input["((r - 1 - s) mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node" step = s
        }
        sched.recv_reduce_copy
            from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
            src = input["(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
            dst = output["(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
            count = "n floordiv gpus_per_node" step = "gpus_per_node - 1"
      }
    } else {
      sched.if "rings + rings ceildiv per_rail - 1 - p >= 0" {
        // Rail all-reduce, ring p - R, of share l, slice j: 2 N - 1
        // instructions per slice; part m is chunk b + m, b = l S + j N.
        sched.for j = "p - rings" to "k floordiv n" step "rings ceildiv per_rail" {
          sched.for b = "(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"
              to "(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node) + 1" {
            sched.send to "(r + gpus_per_node) mod n"
                src = output["b + r floordiv gpus_per_node"]
                step = "gpus_per_node - 1"
                after = [(channel "j mod rings", index "j floordiv rings * gpus_per_node + gpus_per_node - 1")]
            sched.for s = 1 to "n floordiv gpus_per_node - 1" {
              sched.recv_reduce_send from "(r - gpus_per_node) mod n"
                  to "(r + gpus_per_node) mod n"
                  src = output["b + (r floordiv gpus_per_node - s) mod (n floordiv gpus_per_node)"]
                  step = "gpus_per_node - 1 + s"
            }
            sched.recv_reduce_copy_send from "(r - gpus_per_node) mod n"
                to "(r + gpus_per_node) mod n"
                src = output["b + (r floordiv gpus_per_node + 1) mod (n floordiv gpus_per_node)"]
                dst = output["b + (r floordiv gpus_per_node + 1) mod (n floordiv gpus_per_node)"]
                step = "gpus_per_node - 2 + n floordiv gpus_per_node"
            sched.for t = 1 to "n floordiv gpus_per_node - 1" {
              sched.recv_copy_send from "(r - gpus_per_node) mod n"
                  to "(r + gpus_per_node) mod n"
                  dst = output["b + (r floordiv gpus_per_node + 1 - t) mod (n floordiv gpus_per_node)"]
                  step = "gpus_per_node - 2 + n floordiv gpus_per_node + t"
            }
            sched.recv from "(r - gpus_per_node) mod n"
                dst = output["b + (r floordiv gpus_per_node + 2) mod (n floordiv gpus_per_node)"]
                step = "gpus_per_node - 3 + 2 * (n floordiv gpus_per_node)"
          }
        }
      } else {
        // Node all-gather, ring p - R - Q: g instructions per slice, the
        // first waiting for the rail ring's last instruction of the slice.
        sched.for j = "p - rings - rings ceildiv per_rail" to "k floordiv n" step rings {
          sched.send to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
              src = output["(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node"
              step = "gpus_per_node - 2 + 2 * (n floordiv gpus_per_node)"
              after = [(channel "rings + j mod (rings ceildiv per_rail)", index "(j floordiv (rings ceildiv per_rail) + 1) * (2 * (n floordiv gpus_per_node) - 1) - 1")]
          sched.for t = 1 to "gpus_per_node - 1" {
            sched.recv_copy_send
                from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
                to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
                dst = output["((r - t) mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
                count = "n floordiv gpus_per_node"
                step = "gpus_per_node - 2 + 2 * (n floordiv gpus_per_node) + t"
          }
          sched.recv from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
              dst = output["((r + 1) mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node"
              step = "2 * gpus_per_node - 3 + 2 * (n floordiv gpus_per_node)"
        }
      }
    }
  }
}

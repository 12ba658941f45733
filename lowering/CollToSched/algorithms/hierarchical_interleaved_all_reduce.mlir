// Hierarchical interleaved all-reduce: `hierarchical` (intra-node ring
// reduce-scatter, rail ring all-reduce, intra-node ring all-gather, slice by
// slice) with both node phases of a slice on one channel. In `hierarchical`
// a node ring channel does only one phase, so its reduce-scatter channels
// idle once the last slice has left for the rails and its all-gather
// channels until the first slice comes back: where a channel's rate is
// capped (a thread block on a GPU) and the channels a rank may run are
// few, each node phase gets half of them. Here every node channel
// reduce-scatters its slices and all-gathers them `lag` slices later, so
// all of them work from start to end. Requires nodes: n = N g ranks,
// g = gpus_per_node >= 2 consecutive ranks per node, N = n / g >= 2 nodes;
// rank r is local rank l = r mod g of node a = r floordiv g.
//
// Layout (chunk_unit n, k = c n), as `hierarchical`: local rank l' owns
// share l' = chunks [l' S, (l' + 1) S), S = k / g = c N; slice j (j < c) of
// a share is its N chunks [l' S + j N, + N), chunk m of which is part m of
// the rail ring. Channels (R = rings node channels, Q = ceil(R / per_rail)
// rail rings, per_rail default 3: the rail ring of a slice moves 2 (N-1)/N
// of a slice per rank against the node phases' 2 (g-1)), R + Q in all:
//   channel p < R (node), for t = 0, 1, ...: the ring reduce-scatter of
//     slice p + t R around the node (peers l +- 1 mod g; rank l ends with
//     the node's sum of share l, slice j, in its output), then, from
//     t = lag on, the ring all-gather of slice p + (t - lag) R (waiting for
//     the rail ring's last instruction of that slice);
//   channel R + j mod Q (network): ring all-reduce of slice j around the
//     rail (peers r +- g, N parts of one chunk), waiting for the node
//     reduce-scatter of the slice.
// Every node ring runs the same sequence of slices and phases on every
// rank, so each connection's sends and receives pair in order; lag 0
// makes a node channel wait for the rails after each slice (correct, but
// serial). Where channels are capped selection chooses R
// (collc.channel_param).
// Bytes sent per rank: (g-1)/g M (node RS) + 2 (N-1)/N M/g (network) +
// (g-1)/g M (node AG) = 2 (n-1)/n M, of which only 2 (N-1)/n M leaves the
// node, spread over the g rails. Steps: 2 (g-1) + 2 (N-1).
// Instructions: n c (2 g + 2 N - 1); transfers: 2 n c (g + N - 2), for any
// R and lag (the instructions of `hierarchical`, on fewer channels).
sched.schedule @hierarchical_interleaved_all_reduce collective = all_reduce
    algorithm = "hierarchical_interleaved"
    attributes {collc.chunk_unit = "n", collc.requires = ["nodes"],
                collc.volume = "2 (n-1)/n M: 2 (g-1)/g M intra-node + 2 (n/g-1)/n M inter-node",
                collc.steps = "2 (g-1) + 2 (n/g-1)", collc.channel_param = "rings"}
    params = {gpus_per_node = 8, rings = 1, per_rail = 3, lag = 2}
    description = "hierarchical interleaved: hierarchical's node reduce-scatter, rail all-reduce and node all-gather, with both node phases on each of `rings` node channels (the all-gather of a slice `lag` slices after its reduce-scatter) and ceil(rings / per_rail) rail rings; needs nodes; 2(n-1)/n M sent per rank, 2(n/g-1)/n M of it inter-node" {
  sched.channel p = 0 to "rings + rings ceildiv per_rail" {
    sched.if "rings - 1 - p >= 0" {
      // Slices p, p + R, ...: reduce-scatter of slice p + t R, then
      // all-gather of slice p + (t - lag) R.
      sched.for t = 0 to "(k floordiv n - 1 - p) floordiv rings + 1 + lag" {
        sched.if "k floordiv n - 1 - p - t * rings >= 0" {
          sched.send to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
              src = input["((r - 1) mod gpus_per_node) * (k floordiv gpus_per_node) + (p + t * rings) * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node"
          sched.for s = 1 to "gpus_per_node - 1" {
            sched.recv_reduce_send
                from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
                to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
                src = input["((r - 1 - s) mod gpus_per_node) * (k floordiv gpus_per_node) + (p + t * rings) * (n floordiv gpus_per_node)"]
                count = "n floordiv gpus_per_node" step = s
          }
          sched.recv_reduce_copy
              from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
              src = input["(r mod gpus_per_node) * (k floordiv gpus_per_node) + (p + t * rings) * (n floordiv gpus_per_node)"]
              dst = output["(r mod gpus_per_node) * (k floordiv gpus_per_node) + (p + t * rings) * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node" step = "gpus_per_node - 1"
        }
        sched.if "t - lag >= 0" {
          sched.send to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
              src = output["(r mod gpus_per_node) * (k floordiv gpus_per_node) + (p + (t - lag) * rings) * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node"
              step = "gpus_per_node - 2 + 2 * (n floordiv gpus_per_node)"
              after = [(channel "rings + (p + (t - lag) * rings) mod (rings ceildiv per_rail)", index "((p + (t - lag) * rings) floordiv (rings ceildiv per_rail) + 1) * (2 * (n floordiv gpus_per_node) - 1) - 1")]
          sched.for u = 1 to "gpus_per_node - 1" {
            sched.recv_copy_send
                from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
                to "r - r mod gpus_per_node + (r + 1) mod gpus_per_node"
                dst = output["((r - u) mod gpus_per_node) * (k floordiv gpus_per_node) + (p + (t - lag) * rings) * (n floordiv gpus_per_node)"]
                count = "n floordiv gpus_per_node"
                step = "gpus_per_node - 2 + 2 * (n floordiv gpus_per_node) + u"
          }
          sched.recv from "r - r mod gpus_per_node + (r - 1) mod gpus_per_node"
              dst = output["((r + 1) mod gpus_per_node) * (k floordiv gpus_per_node) + (p + (t - lag) * rings) * (n floordiv gpus_per_node)"]
              count = "n floordiv gpus_per_node"
              step = "2 * gpus_per_node - 3 + 2 * (n floordiv gpus_per_node)"
        }
      }
    } else {
      // Rail all-reduce, ring p - R, of share l, slice j: 2 N - 1
      // instructions per slice; part m is chunk b + m, b = l S + j N. Its
      // first send waits for the slice's last reduce-scatter instruction,
      // index g (t + max(0, t - lag)) + g - 1 on node channel j mod R,
      // t = j floordiv R.
      sched.for j = "p - rings" to "k floordiv n" step "rings ceildiv per_rail" {
        sched.for b = "(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node)"
            to "(r mod gpus_per_node) * (k floordiv gpus_per_node) + j * (n floordiv gpus_per_node) + 1" {
          sched.if "j floordiv rings - lag >= 0" {
            sched.send to "(r + gpus_per_node) mod n"
                src = output["b + r floordiv gpus_per_node"]
                step = "gpus_per_node - 1"
                after = [(channel "j mod rings", index "(2 * (j floordiv rings) - lag) * gpus_per_node + gpus_per_node - 1")]
          } else {
            sched.send to "(r + gpus_per_node) mod n"
                src = output["b + r floordiv gpus_per_node"]
                step = "gpus_per_node - 1"
                after = [(channel "j mod rings", index "j floordiv rings * gpus_per_node + gpus_per_node - 1")]
          }
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
    }
  }
}

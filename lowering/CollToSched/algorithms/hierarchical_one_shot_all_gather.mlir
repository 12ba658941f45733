// Two-level one-shot all-gather, for small messages on nodes: every rank
// sends its input to the g - 1 other ranks of its node at once (a channel
// per peer), so that each holds its node's g parts, contiguous in the
// output; then sends that block of g parts to the N - 1 ranks of its rail
// at once. Two transfer latencies whatever n, where recursive doubling pays
// log2 n. The rail step sends g parts per peer where a rail-first schedule
// sends one: (N - 1) g M per NIC instead of (N - 1) M, cheap only while
// latency dominates; selection weighs it.
// Requires nodes: n = N g ranks, g = gpus_per_node >= 2 consecutive ranks
// per node, N = n / g >= 2 nodes; rank r is local rank l of node a.
// Channels: 0 copies the own part; 1 .. g-1: node peer d = c: send the
// input, receive l - d's part into its place; g .. g+N-2: rail peer
// e = c - g + 1: once the node's g parts are in the output, send them to
// node a + e, receive node a - e's block into its place.
// Bytes sent per rank: (g - 1) M + (N - 1) g M. Steps: 2.
// Instructions per rank: 2 g + 2 N - 3; transfers: n (g + N - 2).
sched.schedule @hierarchical_one_shot_all_gather collective = all_gather
    algorithm = "hierarchical_one_shot"
    attributes {collc.requires = ["nodes"],
                collc.volume = "(g-1) M intra-node + (n/g-1) g M inter-node",
                collc.steps = "2"}
    params = {gpus_per_node = 8}
    description = "hierarchical one-shot: send to every node peer at once, then the node's parts to every rail peer at once; 2 steps, for small messages; needs nodes" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
  // Channel c < g: node peer c; else rail peer c - g + 1.
  sched.channel c = 1 to "gpus_per_node + n floordiv gpus_per_node - 1" {
    sched.if "gpus_per_node - 1 - c >= 0" {
      sched.send to "r - r mod gpus_per_node + (r + c) mod gpus_per_node"
          src = input[0] count = k
      sched.recv from "r - r mod gpus_per_node + (r - c) mod gpus_per_node"
          dst = output["(r - r mod gpus_per_node + (r - c) mod gpus_per_node) * k"]
          count = k
    } else {
      sched.send to "(r + (c - gpus_per_node + 1) * gpus_per_node) mod n"
          src = output["(r - r mod gpus_per_node) * k"]
          count = "gpus_per_node * k" step = 1
          after = [(channel 0, index 0), (channel 1 to "gpus_per_node", index 1)]
      sched.recv from "(r - (c - gpus_per_node + 1) * gpus_per_node) mod n"
          dst = output["((r - (c - gpus_per_node + 1) * gpus_per_node) mod n - r mod gpus_per_node) * k"]
          count = "gpus_per_node * k" step = 1
    }
  }
}

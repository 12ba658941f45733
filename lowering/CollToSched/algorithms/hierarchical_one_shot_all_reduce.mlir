// Two-level one-shot all-reduce, for small messages on nodes. Every rank
// sends its input to the g - 1 other ranks of its node at once (a channel
// per peer) and combines the node's g inputs in one pass (a reduce with
// fanin g - 1); then it sends that node sum to the N - 1 ranks of its rail
// (the same local rank on the other nodes, a channel per peer) and combines
// the N node sums in one pass. Two transfer latencies and two combining
// passes whatever n, where recursive doubling pays log2 n of each.
// Requires nodes: n = N g, g = gpus_per_node >= 2 consecutive ranks per
// node, N = n / g >= 2 nodes; rank r is local rank l = r mod g of node
// a = r floordiv g.
//
// Layout (chunk_unit 1, k = chunks; every instruction moves all k chunks):
// output holds the node sum, then the total; scratch chunks
// [(d - 1) k, d k) receive node peer (l - d) mod g's input (d = 1 .. g-1),
// and [(g - 2 + e) k, (g - 1 + e) k) rail peer (a - e) mod N's node sum
// (e = 1 .. N-1).
// Channels: 0 copies the input to the output, then combines the node (after
// every node channel's recv), then the rail (after every rail channel's
// recv, which comes after that channel's send of the node sum); 1 .. g-1:
// node peer d = c: send the input, receive; g .. g+N-2: rail peer
// e = c - g + 1: after the node combine, send the node sum, receive.
// Bytes sent per rank: (g - 1) M + (N - 1) M (M = input bytes). Steps: 2.
// Instructions per rank: 2 g + 2 N - 1; transfers: n (g + N - 2).
// Channels per rank: g + N - 1 (selection passes over it where more than
// can be resident at once).
sched.schedule @hierarchical_one_shot_all_reduce collective = all_reduce
    algorithm = "hierarchical_one_shot"
    attributes {collc.chunk_unit = 1, collc.requires = ["nodes"],
                collc.volume = "(g-1) M intra-node + (n/g-1) M inter-node",
                collc.steps = "2"}
    params = {gpus_per_node = 8}
    scratch = "(gpus_per_node + n floordiv gpus_per_node - 2) * k"
    description = "hierarchical one-shot: send to every node peer at once and combine in one pass, then the same over the rail; 2 steps, for small messages; needs nodes" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
    sched.reduce src = scratch[0] dst = output[0] count = k
        fanin = "gpus_per_node - 1"
        after = [(channel 1 to "gpus_per_node", index 1)]
    sched.reduce src = scratch["(gpus_per_node - 1) * k"] dst = output[0]
        count = k fanin = "n floordiv gpus_per_node - 1" step = 1
        after = [(channel "gpus_per_node" to
                  "gpus_per_node + n floordiv gpus_per_node - 1", index 1)]
  }
  // Channel c < g: node peer c; else rail peer c - g + 1.
  sched.channel c = 1 to "gpus_per_node + n floordiv gpus_per_node - 1" {
    sched.if "c < gpus_per_node" {
      sched.send to "r - r mod gpus_per_node + (r + c) mod gpus_per_node"
          src = input[0] count = k
      sched.recv from "r - r mod gpus_per_node + (r - c) mod gpus_per_node"
          dst = scratch["(c - 1) * k"] count = k
    } else {
      sched.send to "(r + (c - gpus_per_node + 1) * gpus_per_node) mod n"
          src = output[0] count = k step = 1 after = [(channel 0, index 1)]
      sched.recv from "(r - (c - gpus_per_node + 1) * gpus_per_node) mod n"
          dst = scratch["(c - 1) * k"] count = k step = 1
    }
  }
}

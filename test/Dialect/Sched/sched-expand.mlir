// Every schedule here, expanded for n = 8 and k = 8, gives the same Program
// as its explicit form (sched-expand, then expansion again).
// RUN: collc-opt %s --sched-expand-check="group-size=8 chunks=8 params=gpus_per_node=4" -o /dev/null > %t.parametric
// RUN: collc-opt %s --sched-expand="group-size=8 chunks=8 params=gpus_per_node=4" \
// RUN:   | collc-opt --sched-expand-check -o /dev/null > %t.explicit
// RUN: diff %t.parametric %t.explicit
// RUN: FileCheck %s --check-prefix=N8 < %t.parametric

// The explicit form itself, for a small case.
// RUN: collc-opt %s --sched-expand="group-size=3 chunks=1 schedule=binary_tree_broadcast" | FileCheck %s --check-prefix=IR

// Ring all_reduce: a reduce-scatter then an all-gather of n blocks of k/n
// chunks (k a multiple of n).
// N8-LABEL: schedule @ring_all_reduce: all_reduce "ring": n = 8, k = 8, buffers input 8 output 8 scratch 0, 120 instructions
// N8:       rank 3: 1 channel, 15 instructions
// N8-NEXT:    channel 0: 15 instructions
// N8-NEXT:      0: send to 4 src = input[3]
// N8-NEXT:      1: recv_reduce_send from 2 to 4 src = input[2] step = 1
// N8:           7: recv_reduce_copy_send from 2 to 4 src = input[4] dst = output[4] step = 7
// N8-NEXT:      8: recv_copy_send from 2 to 4 dst = output[3] step = 8
// N8:           14: recv from 2 dst = output[5] step = 14
sched.schedule @ring_all_reduce collective = all_reduce algorithm = "ring" {
  sched.channel 0 {
    sched.send to "(r + 1) mod n" src = input["r * (k floordiv n)"]
        count = "k floordiv n"
    sched.for s = 1 to "n - 1" {
      sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
          src = input["((r - s) mod n) * (k floordiv n)"] count = "k floordiv n"
          step = s
    }
    sched.recv_reduce_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
        src = input["((r + 1) mod n) * (k floordiv n)"]
        dst = output["((r + 1) mod n) * (k floordiv n)"]
        count = "k floordiv n" step = "n - 1"
    sched.for t = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r + 1 - t) mod n) * (k floordiv n)"]
          count = "k floordiv n" step = "n - 1 + t"
    }
    sched.recv from "(r - 1) mod n" dst = output["((r + 2) mod n) * (k floordiv n)"]
        count = "k floordiv n" step = "2 * n - 2"
  }
}

// Binary tree broadcast from rank 0: guards and an else region.
// N8-LABEL: schedule @binary_tree_broadcast: broadcast "binary_tree": n = 8, k = 8, root = 0, buffers input 8 output 8 scratch 0, 15 instructions
// N8:       rank 0: 1 channel, 3 instructions
// N8-NEXT:    channel 0: 3 instructions
// N8-NEXT:      0: copy src = input[0] dst = output[0] count = 8
// N8-NEXT:      1: send to 1 src = output[0] count = 8 step = 1
// N8-NEXT:      2: send to 2 src = output[0] count = 8 step = 2
// N8:       rank 3: 1 channel, 2 instructions
// N8-NEXT:    channel 0: 2 instructions
// N8-NEXT:      0: recv from 1 dst = output[0] count = 8
// N8-NEXT:      1: send to 7 src = output[0] count = 8 step = 1
// N8:       rank 4: 1 channel, 1 instruction
// N8-NEXT:    channel 0: 1 instruction
// N8-NEXT:      0: recv from 1 dst = output[0] count = 8
sched.schedule @binary_tree_broadcast collective = broadcast
    algorithm = "binary_tree" root = 0 {
  sched.channel 0 {
    sched.if "r >= 1" {
      sched.recv from "(r - 1) floordiv 2" dst = output[0] count = k
    } else {
      sched.copy src = input[0] dst = output[0] count = k
    }
    sched.for c = 1 to 3 {
      sched.if "2 * r + c < n" {
        sched.send to "2 * r + c" src = output[0] count = k step = c
      }
    }
  }
}

// Recursive doubling all_gather (n a power of 2): partner r xor d for
// d = 1, 2, 4, ..., exchanging aligned blocks of d parts.
// N8-LABEL: schedule @recursive_doubling_all_gather: all_gather "recursive_doubling": n = 8, k = 8, buffers input 8 output 64 scratch 0, 56 instructions
// N8:       rank 5: 1 channel, 7 instructions
// N8-NEXT:    channel 0: 7 instructions
// N8-NEXT:      0: copy src = input[0] dst = output[40] count = 8
// N8-NEXT:      1: send to 4 src = output[40] count = 8 step = 1
// N8-NEXT:      2: recv from 4 dst = output[32] count = 8 step = 1
// N8-NEXT:      3: send to 7 src = output[32] count = 16 step = 2
// N8-NEXT:      4: recv from 7 dst = output[48] count = 16 step = 2
// N8-NEXT:      5: send to 1 src = output[32] count = 32 step = 4
// N8-NEXT:      6: recv from 1 dst = output[0] count = 32 step = 4
sched.schedule @recursive_doubling_all_gather collective = all_gather
    algorithm = "recursive_doubling" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.for d = 1 to n step * 2 {
      sched.send to "r + d - 2 * (r mod (2 * d) floordiv d) * d"
          src = output["r floordiv d * d * k"] count = "d * k" step = d
      sched.recv from "r + d - 2 * (r mod (2 * d) floordiv d) * d"
          dst = output["((r floordiv d * d + d) mod (2 * d) + r floordiv (2 * d) * 2 * d) * k"]
          count = "d * k" step = d
    }
  }
}

// Hierarchical all_to_all: a parameter (overridden to 4), nested loops and
// a second channel whose local copy the first channel waits for.
// N8-LABEL: schedule @hierarchical_all_to_all: all_to_all "hierarchical": n = 8, k = 8, buffers input 64 output 64 scratch 0, 120 instructions
// N8:       rank 6: 2 channels, 15 instructions
// N8-NEXT:    channel 0: 14 instructions
// N8-NEXT:      0: send to 7 src = input[56] count = 8 step = 1 after = [(channel 1, index 0)]
// N8-NEXT:      1: recv from 5 dst = output[40] count = 8 step = 1
// N8-NEXT:      2: send to 4 src = input[32] count = 8 step = 2 after = [(channel 1, index 0)]
// N8:           6: send to 2 src = input[16] count = 8 step = 4
// N8-NEXT:      7: recv from 2 dst = output[16] count = 8 step = 4
// N8:         channel 1: 1 instruction
// N8-NEXT:      0: copy src = input[48] dst = output[48] count = 8
sched.schedule @hierarchical_all_to_all collective = all_to_all
    algorithm = "hierarchical" params = {gpus_per_node = 8} {
  sched.channel 0 {
    // Inside the node, then across nodes to the same local index first.
    sched.for g = 1 to gpus_per_node {
      sched.send to "r floordiv gpus_per_node * gpus_per_node + (r + g) mod gpus_per_node"
          src = input["(r floordiv gpus_per_node * gpus_per_node + (r + g) mod gpus_per_node) * k"]
          count = k step = g after = [(channel 1, index 0)]
      sched.recv from "r floordiv gpus_per_node * gpus_per_node + (r - g) mod gpus_per_node"
          dst = output["(r floordiv gpus_per_node * gpus_per_node + (r - g) mod gpus_per_node) * k"]
          count = k step = g
    }
    sched.for m = 1 to "n floordiv gpus_per_node" {
      sched.for g = 0 to gpus_per_node {
        sched.send to "((r floordiv gpus_per_node + m) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + g) mod gpus_per_node"
            src = input["(((r floordiv gpus_per_node + m) mod (n floordiv gpus_per_node)) * gpus_per_node + (r + g) mod gpus_per_node) * k"]
            count = k step = "m * gpus_per_node + g"
        sched.recv from "((r floordiv gpus_per_node - m) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - g) mod gpus_per_node"
            dst = output["(((r floordiv gpus_per_node - m) mod (n floordiv gpus_per_node)) * gpus_per_node + (r - g) mod gpus_per_node) * k"]
            count = k step = "m * gpus_per_node + g"
      }
    }
  }
  sched.channel 1 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
  }
}

// The other schedules stay as they are.
// IR:       sched.schedule @ring_all_reduce collective = all_reduce algorithm = "ring" {
// IR-LABEL: sched.schedule @binary_tree_broadcast collective = broadcast algorithm = "binary_tree" group_size = 3 chunks_per_part = 1 root = 0 {
// IR-NEXT:    sched.rank 0 {
// IR-NEXT:      sched.channel 0 {
// IR-NEXT:        sched.copy src = input[0] dst = output[0]
// IR-NEXT:        sched.send to 1 src = output[0] step = 1
// IR-NEXT:        sched.send to 2 src = output[0] step = 2
// IR-NEXT:      }
// IR-NEXT:    }
// IR-NEXT:    sched.rank 1 {
// IR-NEXT:      sched.channel 0 {
// IR-NEXT:        sched.recv from 0 dst = output[0]
// IR-NEXT:      }
// IR-NEXT:    }
// IR-NEXT:    sched.rank 2 {
// IR-NEXT:      sched.channel 0 {
// IR-NEXT:        sched.recv from 0 dst = output[0]
// IR-NEXT:      }
// IR-NEXT:    }
// IR-NEXT:  }

// RUN: collc-opt %s | collc-opt | FileCheck %s
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s
// RUN: collc-opt %s --emit-bytecode | collc-opt | FileCheck %s

// The rank-parametric form: one program for every rank and any n.

// CHECK-LABEL: sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
// CHECK-NEXT:    sched.channel 0 {
// CHECK-NEXT:      sched.copy src = input[0] dst = output["r * k"] count = k
// CHECK-NEXT:      sched.send to "(r + 1) mod n" src = output["r * k"] count = k
// CHECK-NEXT:      sched.for s = 1 to "n - 1" {
// CHECK-NEXT:        sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n" dst = output["((r - s) mod n) * k"] count = k step = s
// CHECK-NEXT:      }
// CHECK-NEXT:      sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"] count = k step = "n - 1"
// CHECK-NEXT:    }
// CHECK-NEXT:  }
sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
    sched.send to "(r + 1) mod n" src = output["r * k"] count = k
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["((r - s) mod n) * k"] count = k step = s
    }
    sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
        count = k step = "n - 1"
  }
}

// Every fused instruction, in a ring all_reduce (reduce-scatter then
// all-gather, chunk c of each part moving around the ring).
// CHECK-LABEL: sched.schedule @ring_all_reduce collective = all_reduce algorithm = "ring" chunks_per_part = 4 scratch = 1 {
// CHECK:         sched.send to "(r + 1) mod n" src = input["(r - 1) mod n"]
// CHECK:         sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n" src = input["(r - s - 1) mod n"] step = s
// CHECK:         sched.recv_reduce_copy_send from "(r - 1) mod n" to "(r + 1) mod n" src = input[r] dst = output[r] step = "n - 1"
// CHECK:         sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n" dst = output["(r - s) mod n"] step = "s + n - 1"
// CHECK:         sched.recv from "(r - 1) mod n" dst = output["(r + 1) mod n"] step = "n * 2 - 2"
// CHECK:         sched.recv_reduce_copy from "(r - 1) mod n" src = input[0] dst = scratch[0] step = 0
// CHECK:         sched.reduce src = scratch[0] dst = output[0] count = 2
sched.schedule @ring_all_reduce collective = all_reduce algorithm = "ring"
    chunks_per_part = 4 scratch = 1 {
  sched.channel 0 {
    sched.send to "(r + 1) mod n" src = input["(r - 1) mod n"]
    sched.for s = 1 to "n - 1" {
      sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
          src = input["(r - s - 1) mod n"] step = s
    }
    sched.recv_reduce_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
        src = input[r] dst = output[r] step = "n - 1"
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["(r - s) mod n"] step = "n - 1 + s"
    }
    sched.recv from "(r - 1) mod n" dst = output["(r + 1) mod n"]
        step = "2 * n - 2"
  }
  sched.channel 1 {
    sched.recv_reduce_copy from "(r - 1) mod n" src = input[0] dst = scratch[0]
        step = 0
    sched.reduce src = scratch[0] dst = output[0] count = 2
  }
}

// Guards, else regions, a rooted collective and parameters.
// CHECK-LABEL: sched.schedule @binary_tree_broadcast collective = broadcast algorithm = "binary_tree" params = {fanout = 2} root = 0 description = "children 2r+1 and 2r+2" {
// CHECK:         sched.if "r >= 1" {
// CHECK-NEXT:      sched.recv from "(r - 1) floordiv 2" dst = output[0]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      sched.copy src = input[0] dst = output[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    sched.for c = 1 to "fanout + 1" {
// CHECK-NEXT:      sched.if "n >= r * 2 + c + 1" {
// CHECK-NEXT:        sched.send to "r * 2 + c" src = output[0] step = c
sched.schedule @binary_tree_broadcast collective = broadcast
    algorithm = "binary_tree" params = {fanout = 2} root = 0
    description = "children 2r+1 and 2r+2" {
  sched.channel 0 {
    sched.if "r >= 1" {
      sched.recv from "(r - 1) floordiv 2" dst = output[0]
    } else {
      sched.copy src = input[0] dst = output[0]
    }
    sched.for c = 1 to "fanout + 1" {
      sched.if "2 * r + c < n" {
        sched.send to "2 * r + c" src = output[0] step = c
      }
    }
  }
}

// Geometric loops, products and divisions by loop variables: recursive
// doubling exchanges with r xor d for d = 1, 2, 4, ...
// CHECK-LABEL: sched.schedule @recursive_doubling_all_gather
// CHECK:         sched.for d = 1 to n step * 2 {
// CHECK-NEXT:      sched.send to "r + d - (((r mod (d * 2)) floordiv d) * 2) * d" src = output["(r floordiv d) * d"] count = d step = d
// CHECK-NEXT:      sched.recv from "r + d - (((r mod (d * 2)) floordiv d) * 2) * d" dst = output["((r floordiv d) * d + d) mod (d * 2) + ((r floordiv (d * 2)) * 2) * d"] count = d step = d
// CHECK-NEXT:      sched.if "r mod (d * 2) >= d" {
// CHECK-NEXT:        sched.copy src = output[0] dst = output[0] step = d
// CHECK-NEXT:      }
sched.schedule @recursive_doubling_all_gather collective = all_gather
    algorithm = "recursive_doubling" chunks_per_part = 1 {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[r]
    sched.for d = 1 to n step * 2 {
      sched.send to "r + d - 2 * (r mod (2 * d) floordiv d) * d"
          src = output["r floordiv d * d"] count = d step = d
      sched.recv from "r + d - 2 * (r mod (2 * d) floordiv d) * d"
          dst = output["(r floordiv d * d + d) mod (2 * d) + r floordiv (2 * d) * 2 * d"]
          count = d step = d
      sched.if "r mod (2 * d) >= d" {
        sched.copy src = output[0] dst = output[0] step = d
      }
    }
  }
}

// Nested loops, additive steps, a symbol step and channel dependencies.
// CHECK-LABEL: sched.schedule @hierarchical_all_to_all collective = all_to_all algorithm = "hierarchical" params = {gpus_per_node = 8} {
// CHECK:         sched.for node = 0 to "n floordiv gpus_per_node" {
// CHECK-NEXT:      sched.for g = 0 to gpus_per_node step 2 {
// CHECK-NEXT:        sched.send to "node * gpus_per_node + g" src = input["node * gpus_per_node + g"] step = node after = [(channel 1, index "node + g"), (channel 2, index 0)]
// CHECK:         sched.channel 1 {
// CHECK:         sched.channel 2 {
sched.schedule @hierarchical_all_to_all collective = all_to_all
    algorithm = "hierarchical" params = {gpus_per_node = 8} {
  sched.channel 0 {
    sched.for node = 0 to "n floordiv gpus_per_node" {
      sched.for g = 0 to gpus_per_node step 2 {
        sched.send to "node * gpus_per_node + g"
            src = input["node * gpus_per_node + g"] step = node
            after = [(channel 1, index "node + g"), (channel 2, index 0)]
      }
    }
  }
  sched.channel 1 {
    sched.copy src = input[r] dst = output[r]
  }
  sched.channel 2 {
  }
}

// The explicit form: constant operands, one sched.rank per rank.
// CHECK-LABEL: sched.schedule @pairwise_exchange collective = all_to_all algorithm = "pairwise" group_size = 2 chunks_per_part = 1 scratch = 1 {
// CHECK-NEXT:    sched.rank 0 {
// CHECK-NEXT:      sched.channel 0 {
// CHECK-NEXT:        sched.copy src = input[0] dst = output[0]
// CHECK-NEXT:        sched.send to 1 src = input[1]
// CHECK-NEXT:        sched.recv from 1 dst = output[1]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    sched.rank 1 {
// CHECK-NEXT:      sched.channel 0 {
// CHECK-NEXT:        sched.copy src = input[1] dst = output[1]
// CHECK-NEXT:        sched.recv from 0 dst = output[0] step = 1 after = [(channel 1, index 0)]
// CHECK-NEXT:        sched.send to 0 src = input[0] step = 1
// CHECK-NEXT:      }
// CHECK-NEXT:      sched.channel 1 {
// CHECK-NEXT:        sched.copy src = input[0] dst = scratch[0] count = 1
sched.schedule @pairwise_exchange collective = all_to_all algorithm = "pairwise"
    group_size = 2 chunks_per_part = 1 scratch = 1 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.send to 1 src = input[1]
      sched.recv from 1 dst = output[1]
    }
  }
  sched.rank 1 {
    sched.channel 0 {
      sched.copy src = input[1] dst = output[1]
      sched.recv from 0 dst = output[0] step = 1 after = [(channel 1, index 0)]
      sched.send to 0 src = input[0] step = 1
    }
    sched.channel 1 {
      sched.copy src = input[0] dst = scratch[0] count = 1
    }
  }
}

// Explicit ranks may still loop and guard; r is the rank's id.
// CHECK-LABEL: sched.schedule @explicit_with_loop collective = gather group_size = 3 root = 0 {
// CHECK:         sched.rank 0 {
// CHECK:           sched.for s = 1 to n {
// CHECK-NEXT:        sched.recv from s dst = output[s]
// CHECK:         sched.rank 2 {
// CHECK:           sched.send to 0 src = input[0] {note = "last"}
sched.schedule @explicit_with_loop collective = gather group_size = 3 root = 0 {
  sched.rank 0 {
    sched.channel 0 {
      sched.copy src = input[0] dst = output[0]
      sched.for s = 1 to n {
        sched.recv from s dst = output[s]
      }
    }
  }
  sched.rank 2 {
    sched.channel 0 {
      sched.send to 0 src = input[0] {note = "last"}
    }
  }
}

// send_recv names its sender (root) and receiver (peer); all_to_all_v may
// fix its send counts.
// CHECK-LABEL: sched.schedule @p2p collective = send_recv root = 0 peer = "n - 1" {
// CHECK:         sched.if "r == 0" {
// CHECK:         sched.if "r + 1 == n" {
sched.schedule @p2p collective = send_recv root = 0 peer = "n - 1" {
  sched.channel 0 {
    sched.if "r == 0" {
      sched.send to "n - 1" src = input[0] count = k
    }
    sched.if "r == n - 1" {
      sched.recv from 0 dst = output[0] count = k
    }
  }
}

// CHECK-LABEL: sched.schedule @v collective = all_to_all_v group_size = 2 send_counts = array<i64: 1, 2, 3, 4> {
sched.schedule @v collective = all_to_all_v group_size = 2
    send_counts = array<i64: 1, 2, 3, 4> {
  sched.channel 0 {
    sched.copy src = input[r] dst = output[r]
  }
}

// Maps and sets may be written positionally, as attributes or aliases.
// CHECK-LABEL: sched.schedule @positional collective = all_gather {
// CHECK-NEXT:    sched.channel 0 {
// CHECK-NEXT:      sched.send to "(r + 1) mod n" src = input[0] count = 2
// CHECK-NEXT:      sched.recv from "(r - 1) mod n" dst = output[r]
// CHECK-NEXT:      sched.if "r >= 1" {
// CHECK-NEXT:        sched.copy src = input[0] dst = output[r]
#left = affine_map<(d0)[s0, s1] -> ((d0 - 1) mod s0)>
sched.schedule @positional collective = all_gather {
  sched.channel 0 {
    sched.send to affine_map<(d0)[s0, s1] -> ((d0 + 1) mod s0)> src = input[0]
        count = affine_map<(d0)[s0, s1] -> (2)>
    sched.recv from #left dst = output[#sched.map<(d0)[s0, s1] -> "d0">]
    sched.if affine_set<(d0)[s0, s1] : (d0 - 1 >= 0)> {
      sched.copy src = input[0] dst = output[#sched.map<(d0)[s0, s1] -> "d0 * 1">]
    }
  }
}

// Names that would read as something else bare print quoted.
// CHECK-LABEL: sched.schedule @odd_names collective = all_reduce params = {affine_map = 2, true = 3} {
// CHECK:         sched.copy src = input[0] dst = output[0] count = "true" step = "affine_map"
sched.schedule @odd_names collective = all_reduce params = {true = 3, affine_map = 2} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = "true" step = "affine_map"
  }
}

// Attributes of a schedule and an empty body.
// CHECK-LABEL: sched.schedule @empty collective = reduce_scatter attributes {owner = "me"} {
sched.schedule @empty collective = reduce_scatter attributes {owner = "me"} {
}

// Double binary tree all-reduce: correct and deadlock-free for every group
// size asked for and chunk counts (k = 2 chunks, chunks per tree). Counts:
// 2 k (n + floor((n-2)/2)) instructions (per tree and chunk, one per rank
// up and one down, plus one more up and down at each of the floor((n-2)/2)
// ranks with two children) and 2 (n-1) k transfers (each of the n-1 edges
// of a tree carries a chunk up and down).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/double_binary_tree_all_reduce.mlir --sched-verify="group-sizes=1,2,3,6,12,24,64 chunks=1,2,3" -o /dev/null 2>&1 | FileCheck %s
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/double_binary_tree_all_reduce.mlir --sched-verify="group-sizes=5,7,9,33,100 chunks=1,12 slots=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MORE
// The trees: 4 channels per rank (reduce and broadcast of each tree).
// RUN: collc-opt %collc_src/lowering/CollToSched/algorithms/double_binary_tree_all_reduce.mlir --sched-expand-check="group-size=6 chunks=2 ranks=2" -o /dev/null | FileCheck %s --check-prefix=TREES

// A group of one rank copies its input.
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 1, k = 2: verified (2 instructions, 0 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 2, k = 2: verified (8 instructions, 4 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 3, k = 2: verified (12 instructions, 8 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 3, k = 4: verified (24 instructions, 16 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 3, k = 6: verified (36 instructions, 24 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 6, k = 2: verified (32 instructions, 20 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 64, k = 2: verified (380 instructions, 252 transfers)
// CHECK: sched-verify: @double_binary_tree_all_reduce: n = 64, k = 6: verified (1140 instructions, 756 transfers)
// CHECK-NOT: error

// MORE: sched-verify: @double_binary_tree_all_reduce: n = 100, k = 24: verified (7152 instructions, 4752 transfers)
// MORE-NOT: error

// n = 6, tree 0 over positions = ranks: 0 -> 4; 4 -> 2, 5; 2 -> 1, 3.
// Tree 1 is shifted by one: rank r at position r - 1, so rank 0 (position
// 5) is a leaf under rank 5 (position 4), and rank 1 is its root.
// TREES:      rank 0: 4 channels, 4 instructions
// TREES-NEXT:   channel 0: 1 instruction
// TREES-NEXT:     0: recv_reduce_copy from 4 src = input[0] dst = output[0]
// TREES-NEXT:   channel 1: 1 instruction
// TREES-NEXT:     0: send to 5 src = input[1]
// TREES-NEXT:   channel 2: 1 instruction
// TREES-NEXT:     0: send to 4 src = output[0] step = 1 after = [(channel 0, index 0)]
// TREES-NEXT:   channel 3: 1 instruction
// TREES-NEXT:     0: recv from 5 dst = output[1] step = 1
// TREES-NEXT: rank 1: 4 channels, 4 instructions
// TREES-NEXT:   channel 0: 1 instruction
// TREES-NEXT:     0: send to 2 src = input[0]
// TREES-NEXT:   channel 1: 1 instruction
// TREES-NEXT:     0: recv_reduce_copy from 5 src = input[1] dst = output[1]

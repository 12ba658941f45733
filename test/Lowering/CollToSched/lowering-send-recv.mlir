// The lowering passes a coll.send's peer function to the send/recv
// expansion: a ring shift written as an affine map (every rank sends M) and
// a pipeline hand-off written as a table (the last stage sends nothing, the
// first receives nothing), both lowered to the pipelined algorithm and
// verified against their own permutation.
// RUN: collc %s --topo dgx-h100 --chunks=2 --emit=volumes | FileCheck %s
// RUN: collc %s --topo dgx-h100 --chunks=2 | FileCheck %s --check-prefix=REPORT
// RUN: collc-opt %s --collc-pipeline="topo=dgx-h100 chunks=2" | FileCheck %s --check-prefix=LOWERED
// A send and its recv share one schedule; the recv is not linked to another.
// LOWERED: coll.send {{.*}}sched.chunks_per_part = 2 : i64, sched.schedule = @send_recv_pipelined_1
// LOWERED-NOT: coll.recv {{.*}}sched.schedule
// LOWERED: coll.send {{.*}}sched.chunks_per_part = 2 : i64, sched.schedule = @send_recv_pipelined_4
// LOWERED: sched.schedule @send_recv_pipelined_1 collective = send_recv algorithm = "pipelined"

// CHECK:      send_recv at lowering-send-recv.mlir:[[@LINE+13]]:3: pipelined, n = 4, k = 2, M = 4096 B per rank
// CHECK-NEXT:   closed form of the bytes sent: M (every rank that sends)
// CHECK-NEXT:   rank        sent    received
// CHECK-NEXT:      0        4096        4096
// CHECK-NEXT:      1        4096        4096
// CHECK-NEXT:      2        4096        4096
// CHECK-NEXT:      3        4096        4096
// CHECK-NEXT:   total sent: 16384 B
// REPORT: total: 2 collectives, all verified

coll.mesh @node shape = [2, 4] names = ["pair", "gpu"]

func.func @ring_shift(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  coll.send %x on @node axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  %y = coll.recv on @node axes = ["gpu"] from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// CHECK:      send_recv at lowering-send-recv.mlir:[[@LINE+10]]:3: pipelined, n = 4, k = 2, M = 4096 B per rank
// CHECK-NEXT:   closed form of the bytes sent: M (every rank that sends)
// CHECK-NEXT:   rank        sent    received
// CHECK-NEXT:      0        4096           0
// CHECK-NEXT:      1        4096        4096
// CHECK-NEXT:      2        4096        4096
// CHECK-NEXT:      3           0        4096
// CHECK-NEXT:   total sent: 12288 B
func.func @hand_off(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %h = coll.recv on @node axes = ["gpu"] from array<i64: -1, 0, 1, 2> tag = 1 : tensor<1024xf32>
  coll.send %x on @node axes = ["gpu"] to array<i64: 1, 2, 3, -1> tag = 1 : tensor<1024xf32>
  return %h : tensor<1024xf32>
}

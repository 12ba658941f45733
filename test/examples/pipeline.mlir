// RUN: collc-opt --coll-verify-graph %collc_src/examples/pipeline.mlir | collc-opt --coll-verify-graph | FileCheck %s

// CHECK: coll.mesh @pp shape = [8, 8] names = ["stage", "replica"]
// CHECK-LABEL: func.func @pipeline_step
// CHECK: coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 2, 3, 4, 5, 6> tag = 0 : tensor<4096x8192xbf16>
// CHECK: coll.compute @stage_forward
// CHECK: coll.send %{{.*}} on @pp axes = ["stage"] to array<i64: 1, 2, 3, 4, 5, 6, 7, -1> tag = 0 : tensor<4096x8192xbf16>
// CHECK: coll.recv on @pp axes = ["stage"] from array<i64: 1, 2, 3, 4, 5, 6, 7, -1> tag = 1 : tensor<4096x8192xbf16>
// CHECK: coll.compute @stage_backward
// CHECK: coll.send %{{.*}} on @pp axes = ["stage"] to array<i64: -1, 0, 1, 2, 3, 4, 5, 6> tag = 1 : tensor<4096x8192xbf16>

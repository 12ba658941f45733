// RUN: collc-opt --coll-verify-graph %collc_src/examples/tp_mlp.mlir | collc-opt --coll-verify-graph | FileCheck %s

// CHECK-LABEL: func.func @tp_mlp
// CHECK: coll.all_gather %{{.*}} on @world axes = ["gpu"] gather_axis = 0 : tensor<512x8192xbf16> -> tensor<4096x8192xbf16>
// CHECK: linalg.matmul
// CHECK-SAME: -> tensor<4096x3584xbf16>
// CHECK: coll.compute @gelu
// CHECK: linalg.matmul
// CHECK-SAME: -> tensor<4096x8192xbf16>
// CHECK: coll.reduce_scatter %{{.*}} on @world axes = ["gpu"] scatter_axis = 0 reduce = sum : tensor<4096x8192xbf16> -> tensor<512x8192xbf16>

// RUN: collc-opt --coll-verify-graph %collc_src/examples/moe_layer.mlir | collc-opt --coll-verify-graph | FileCheck %s

// The MoE example parses, verifies, passes the graph checks and round-trips.

// CHECK: coll.mesh @world shape = [8, 8] names = ["node", "gpu"]

// CHECK-LABEL: func.func @moe_layer
// CHECK: coll.compute @router
// CHECK: coll.compute @top2_permute
// CHECK-SAME: -> (tensor<2048x8192xbf16>, tensor<1024x2xf32>)
// CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> recv_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
// MLIR prints doubles that need more than 6 digits in hex: 0x41D9800000000000
// is 1711276032.0 and 0x4285000000000000 is 2.886218022912e12.
// CHECK: coll.compute @expert_ffn(%{{.*}}) {bytes = 0x41D9800000000000 : f64, chunk_axis = 0 : i64, flops = 0x4285000000000000 : f64}
// CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
// CHECK: coll.compute @weighted_sum
// CHECK-SAME: -> tensor<1024x8192xbf16>

// CHECK-LABEL: func.func @moe_layer_dynamic
// CHECK: coll.all_gather %{{.*}} on @world gather_axis = 0 : tensor<1x64xi64> -> tensor<64x64xi64>
// CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = %{{.*}} : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
// CHECK: coll.compute @expert_ffn
// CHECK: linalg.transpose
// CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = %{{.*}} : tensor<64x64xi64> : tensor<?x8192xbf16> -> tensor<?x8192xbf16>
// CHECK: tensor.cast %{{.*}} : tensor<?x8192xbf16> to tensor<2048x8192xbf16>

// RUN: collc-opt %s | collc-opt | FileCheck %s
// RUN: collc-opt %s --mlir-print-op-generic | collc-opt | FileCheck %s

// Every coll op in every attribute form round-trips through the custom
// syntax (and through the generic form).

// CHECK: #[[$RING:.+]] = affine_map<(d0)[s0] -> ((d0 + 1) mod s0)>
// CHECK: #[[$BACK:.+]] = affine_map<(d0)[s0] -> ((d0 + s0 - 1) mod s0)>
// CHECK: #[[$XOR:.+]] = affine_map<(d0) -> (d0 - (d0 mod 2) * 2 + 1)>

// CHECK: coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
// CHECK: coll.mesh @line shape = [4] names = ["x"]
coll.mesh @line shape = [4] names = ["x"]
// CHECK: coll.mesh @cube shape = [2, 3, 4] names = ["a", "b", "c"]
coll.mesh @cube shape = [2, 3, 4] names = ["a", "b", "c"]

// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%x: tensor<1024xf32>, %i: tensor<4x4xi32>, %h: tensor<8xbf16>) {
  // CHECK: coll.all_reduce %{{.*}} on @world axes = ["gpu"] reduce = sum : tensor<1024xf32> -> tensor<1024xf32>
  %0 = coll.all_reduce %x on @world axes = ["gpu"] reduce = sum : tensor<1024xf32> -> tensor<1024xf32>
  // The whole mesh: no axes.
  // CHECK: coll.all_reduce %{{.*}} on @world reduce = prod : tensor<4x4xi32> -> tensor<4x4xi32>
  %1 = coll.all_reduce %i on @world reduce = prod : tensor<4x4xi32> -> tensor<4x4xi32>
  // CHECK: coll.all_reduce %{{.*}} on @world axes = ["gpu", "node"] reduce = min
  %2 = coll.all_reduce %i on @world axes = ["gpu", "node"] reduce = min : tensor<4x4xi32> -> tensor<4x4xi32>
  // CHECK: coll.all_reduce %{{.*}} on @world axes = ["node"] reduce = max : tensor<8xbf16>
  %3 = coll.all_reduce %h on @world axes = ["node"] reduce = max : tensor<8xbf16> -> tensor<8xbf16>
  // CHECK: coll.all_reduce %{{.*}} on @world reduce = avg : tensor<8xbf16> -> tensor<8xbf16>
  %4 = coll.all_reduce %h on @world reduce = avg : tensor<8xbf16> -> tensor<8xbf16>
  return
}

// CHECK-LABEL: func.func @element_types
func.func @element_types(%a: tensor<2xf64>, %b: tensor<2xf16>, %c: tensor<2xf8E4M3FN>,
                         %d: tensor<2xf8E5M2>, %e: tensor<2xi64>, %f: tensor<2xi8>,
                         %g: tensor<f32>) {
  // CHECK: reduce = sum : tensor<2xf64> -> tensor<2xf64>
  %0 = coll.all_reduce %a on @line reduce = sum : tensor<2xf64> -> tensor<2xf64>
  // CHECK: reduce = prod : tensor<2xf16> -> tensor<2xf16>
  %1 = coll.all_reduce %b on @line reduce = prod : tensor<2xf16> -> tensor<2xf16>
  // CHECK: reduce = avg : tensor<2xf8E4M3FN> -> tensor<2xf8E4M3FN>
  %2 = coll.all_reduce %c on @line reduce = avg : tensor<2xf8E4M3FN> -> tensor<2xf8E4M3FN>
  // CHECK: reduce = max : tensor<2xf8E5M2> -> tensor<2xf8E5M2>
  %3 = coll.all_reduce %d on @line reduce = max : tensor<2xf8E5M2> -> tensor<2xf8E5M2>
  // CHECK: reduce = prod : tensor<2xi64> -> tensor<2xi64>
  %4 = coll.all_reduce %e on @line reduce = prod : tensor<2xi64> -> tensor<2xi64>
  // CHECK: reduce = sum : tensor<2xi8> -> tensor<2xi8>
  %5 = coll.all_reduce %f on @line reduce = sum : tensor<2xi8> -> tensor<2xi8>
  // A 0-d tensor is one element.
  // CHECK: reduce = sum : tensor<f32> -> tensor<f32>
  %6 = coll.all_reduce %g on @line reduce = sum : tensor<f32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @gather_and_scatter
func.func @gather_and_scatter(%x: tensor<512x8192xbf16>, %y: tensor<4096x8192xbf16>,
                              %d: tensor<?x16xf32>) {
  // CHECK: coll.all_gather %{{.*}} on @world axes = ["gpu"] gather_axis = 0 : tensor<512x8192xbf16> -> tensor<4096x8192xbf16>
  %0 = coll.all_gather %x on @world axes = ["gpu"] gather_axis = 0 : tensor<512x8192xbf16> -> tensor<4096x8192xbf16>
  // CHECK: coll.all_gather %{{.*}} on @world gather_axis = 1 : tensor<512x8192xbf16> -> tensor<512x524288xbf16>
  %1 = coll.all_gather %x on @world gather_axis = 1 : tensor<512x8192xbf16> -> tensor<512x524288xbf16>
  // Dynamic dimensions stay dynamic.
  // CHECK: coll.all_gather %{{.*}} on @line gather_axis = 0 : tensor<?x16xf32> -> tensor<?x16xf32>
  %2 = coll.all_gather %d on @line gather_axis = 0 : tensor<?x16xf32> -> tensor<?x16xf32>
  // CHECK: coll.reduce_scatter %{{.*}} on @world axes = ["gpu"] scatter_axis = 0 reduce = sum : tensor<4096x8192xbf16> -> tensor<512x8192xbf16>
  %3 = coll.reduce_scatter %y on @world axes = ["gpu"] scatter_axis = 0 reduce = sum : tensor<4096x8192xbf16> -> tensor<512x8192xbf16>
  // CHECK: coll.reduce_scatter %{{.*}} on @cube axes = ["c", "a"] scatter_axis = 1 reduce = avg : tensor<4096x8192xbf16> -> tensor<4096x1024xbf16>
  %4 = coll.reduce_scatter %y on @cube axes = ["c", "a"] scatter_axis = 1 reduce = avg : tensor<4096x8192xbf16> -> tensor<4096x1024xbf16>
  // CHECK: coll.reduce_scatter %{{.*}} on @line scatter_axis = 0 reduce = max : tensor<?x16xf32> -> tensor<?x16xf32>
  %5 = coll.reduce_scatter %d on @line scatter_axis = 0 reduce = max : tensor<?x16xf32> -> tensor<?x16xf32>
  return
}

// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%x: tensor<64x128xf32>, %y: tensor<16x8xi8>) {
  // CHECK: coll.all_to_all %{{.*}} on @world split_axis = 0 concat_axis = 1 : tensor<64x128xf32> -> tensor<1x8192xf32>
  %0 = coll.all_to_all %x on @world split_axis = 0 concat_axis = 1 : tensor<64x128xf32> -> tensor<1x8192xf32>
  // Splitting and concatenating along the same axis keeps the shape.
  // CHECK: coll.all_to_all %{{.*}} on @world axes = ["gpu"] split_axis = 0 concat_axis = 0 : tensor<64x128xf32> -> tensor<64x128xf32>
  %1 = coll.all_to_all %x on @world axes = ["gpu"] split_axis = 0 concat_axis = 0 : tensor<64x128xf32> -> tensor<64x128xf32>
  // CHECK: coll.all_to_all %{{.*}} on @line split_axis = 1 concat_axis = 0 : tensor<16x8xi8> -> tensor<64x2xi8>
  %2 = coll.all_to_all %y on @line split_axis = 1 concat_axis = 0 : tensor<16x8xi8> -> tensor<64x2xi8>
  return
}

// CHECK-LABEL: func.func @all_to_all_v
func.func @all_to_all_v(%x: tensor<2048x8192xbf16>, %counts: tensor<64x64xi64>,
                        %small: tensor<6x3xf32>, %c4: tensor<4x4xi64>, %dyn: tensor<?x3xf32>) {
  // A splat matrix: uniform routing, static result.
  // CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  // With recv_counts, and a dynamic result although the columns agree.
  // CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> recv_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  %1 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> recv_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  // Routing known only at run time: an SSA matrix and a dynamic result.
  // CHECK: coll.all_to_all_v %{{.*}} on @world split_axis = 0 send_counts = %{{.*}} : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  %2 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = %counts : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  // A dense, non-uniform matrix: rows sum to 6, columns to 5, 7, 6, 6.
  // CHECK: coll.all_to_all_v %{{.*}} on @line split_axis = 0 send_counts = dense<{{\[}}[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 3], [2, 0, 2, 2]]> : tensor<4x4xi64> recv_counts = dense<{{\[}}[1, 2, 0, 2], [2, 2, 3, 0], [3, 1, 0, 2], [0, 1, 3, 2]]> : tensor<4x4xi64> : tensor<6x3xf32> -> tensor<?x3xf32>
  %3 = coll.all_to_all_v %small on @line split_axis = 0
      send_counts = dense<[[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 3], [2, 0, 2, 2]]> : tensor<4x4xi64>
      recv_counts = dense<[[1, 2, 0, 2], [2, 2, 3, 0], [3, 1, 0, 2], [0, 1, 3, 2]]> : tensor<4x4xi64>
      : tensor<6x3xf32> -> tensor<?x3xf32>
  // Rows sum to 6 and columns to 6: the result may be static.
  // CHECK: coll.all_to_all_v %{{.*}} on @line split_axis = 0 send_counts = dense<{{\[}}[0, 6, 0, 0], [0, 0, 6, 0], [0, 0, 0, 6], [6, 0, 0, 0]]> : tensor<4x4xi64> : tensor<6x3xf32> -> tensor<6x3xf32>
  %4 = coll.all_to_all_v %small on @line split_axis = 0
      send_counts = dense<[[0, 6, 0, 0], [0, 0, 6, 0], [0, 0, 0, 6], [6, 0, 0, 0]]> : tensor<4x4xi64>
      : tensor<6x3xf32> -> tensor<6x3xf32>
  // A dynamic input: each rank's rows are its row sum.
  // CHECK: coll.all_to_all_v %{{.*}} on @line split_axis = 0 send_counts = dense<{{\[}}[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]> : tensor<4x4xi64> : tensor<?x3xf32> -> tensor<?x3xf32>
  %5 = coll.all_to_all_v %dyn on @line split_axis = 0
      send_counts = dense<[[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]> : tensor<4x4xi64>
      : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK: coll.all_to_all_v %{{.*}} on @line split_axis = 1 send_counts = %{{.*}} : tensor<4x4xi64> : tensor<6x3xf32> -> tensor<6x?xf32>
  %6 = coll.all_to_all_v %small on @line split_axis = 1 send_counts = %c4 : tensor<4x4xi64> : tensor<6x3xf32> -> tensor<6x?xf32>
  return
}

// CHECK-LABEL: func.func @rooted
func.func @rooted(%x: tensor<4096xf32>, %y: tensor<64x16xi32>, %z: tensor<16x8xi8>) {
  // CHECK: coll.broadcast %{{.*}} on @world axes = ["node"] root = 0 : tensor<4096xf32> -> tensor<4096xf32>
  %0 = coll.broadcast %x on @world axes = ["node"] root = 0 : tensor<4096xf32> -> tensor<4096xf32>
  // CHECK: coll.broadcast %{{.*}} on @world root = 63 : tensor<4096xf32> -> tensor<4096xf32>
  %1 = coll.broadcast %x on @world root = 63 : tensor<4096xf32> -> tensor<4096xf32>
  // CHECK: coll.reduce %{{.*}} on @world axes = ["gpu"] root = 3 reduce = max : tensor<4096xf32> -> tensor<4096xf32>
  %2 = coll.reduce %x on @world axes = ["gpu"] root = 3 reduce = max : tensor<4096xf32> -> tensor<4096xf32>
  // CHECK: coll.scatter %{{.*}} on @world axes = ["gpu"] root = 0 scatter_axis = 0 : tensor<64x16xi32> -> tensor<8x16xi32>
  %3 = coll.scatter %y on @world axes = ["gpu"] root = 0 scatter_axis = 0 : tensor<64x16xi32> -> tensor<8x16xi32>
  // CHECK: coll.gather %{{.*}} on @world axes = ["gpu"] root = 7 gather_axis = 1 : tensor<16x8xi8> -> tensor<16x64xi8>
  %4 = coll.gather %z on @world axes = ["gpu"] root = 7 gather_axis = 1 : tensor<16x8xi8> -> tensor<16x64xi8>
  return
}

// CHECK-LABEL: func.func @send_recv
func.func @send_recv(%x: tensor<1024xf32>, %h: tensor<16x4096xbf16>) {
  // A ring shift as an affine map of the rank r and the group size n.
  // CHECK: coll.send %{{.*}} on @world axes = ["gpu"] to #[[$RING]] tag = 0 : tensor<1024xf32>
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  // CHECK: coll.recv on @world axes = ["gpu"] from #[[$BACK]] tag = 0 : tensor<1024xf32>
  %0 = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<1024xf32>
  // A map without the group size: swap with the neighbour (0<->1, 2<->3).
  // CHECK: coll.send %{{.*}} on @line to #[[$XOR]] tag = 5 : tensor<1024xf32>
  coll.send %x on @line to affine_map<(r) -> (r + 1 - (r mod 2) * 2)> tag = 5 : tensor<1024xf32>
  // A pipeline hand-off as a table: the last stage does not send.
  // CHECK: coll.send %{{.*}} on @line to array<i64: 1, 2, 3, -1> tag = 1 : tensor<16x4096xbf16>
  coll.send %h on @line to array<i64: 1, 2, 3, -1> tag = 1 : tensor<16x4096xbf16>
  // CHECK: coll.recv on @line from array<i64: -1, 0, 1, 2> tag = 1 : tensor<16x4096xbf16>
  %1 = coll.recv on @line from array<i64: -1, 0, 1, 2> tag = 1 : tensor<16x4096xbf16>
  return
}

// CHECK-LABEL: func.func @compute
func.func @compute(%a: tensor<2048x8192xbf16>, %b: tensor<4xf32>) -> tensor<2048x8192xbf16> {
  // CHECK: coll.compute @expert_ffn(%{{.*}}) {bytes = 1.000000e+09 : f64, flops = 2.000000e+12 : f64} : (tensor<2048x8192xbf16>) -> tensor<2048x8192xbf16>
  %0 = coll.compute @expert_ffn(%a) {flops = 2.0e12 : f64, bytes = 1.0e9 : f64} : (tensor<2048x8192xbf16>) -> tensor<2048x8192xbf16>
  // Several operands and results, a chunk axis, and zero cost.
  // CHECK: coll.compute @split(%{{.*}}, %{{.*}}) {bytes = 0.000000e+00 : f64, chunk_axis = 0 : i64, flops = 0.000000e+00 : f64} : (tensor<2048x8192xbf16>, tensor<4xf32>) -> (tensor<2048x8192xbf16>, tensor<4xf32>)
  %1:2 = coll.compute @split(%0, %b) {flops = 0.0 : f64, bytes = 0.0 : f64, chunk_axis = 0 : i64} : (tensor<2048x8192xbf16>, tensor<4xf32>) -> (tensor<2048x8192xbf16>, tensor<4xf32>)
  // No operands; the kernel is not a symbol of the module.
  // CHECK: coll.compute @init() {bytes = 4.096000e+03 : f64, flops = 1.000000e+00 : f64} : () -> tensor<4xf32>
  %2 = coll.compute @init() {flops = 1.0 : f64, bytes = 4096.0 : f64} : () -> tensor<4xf32>
  return %1#0 : tensor<2048x8192xbf16>
}

// CHECK-LABEL: func.func @enum_attributes
// CHECK-SAME: elements = [#coll<element f64>, #coll<element f32>, #coll<element f16>, #coll<element bf16>, #coll<element f8E4M3FN>, #coll<element f8E5M2>, #coll<element i64>, #coll<element i32>, #coll<element i8>]
// CHECK-SAME: reductions = [#coll<reduce sum>, #coll<reduce prod>, #coll<reduce min>, #coll<reduce max>, #coll<reduce avg>]
func.func @enum_attributes() attributes {
  elements = [#coll<element f64>, #coll<element f32>, #coll<element f16>, #coll<element bf16>,
              #coll<element f8E4M3FN>, #coll<element f8E5M2>, #coll<element i64>,
              #coll<element i32>, #coll<element i8>],
  reductions = [#coll<reduce sum>, #coll<reduce prod>, #coll<reduce min>, #coll<reduce max>,
                #coll<reduce avg>]} {
  return
}

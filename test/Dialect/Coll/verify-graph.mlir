// RUN: collc-opt %s --coll-verify-graph | FileCheck %s

// Programs whose sends and recvs match: coll-verify-graph accepts them and
// leaves them unchanged.

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
coll.mesh @pp shape = [4, 2] names = ["stage", "tp"]

// CHECK-LABEL: func.func @ring_shift
// CHECK: coll.send {{.*}} tag = 0
// CHECK: coll.recv {{.*}} tag = 0
func.func @ring_shift(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  %y = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// The recv may come first, and a map may be matched by a table.
// CHECK-LABEL: func.func @map_against_table
func.func @map_against_table(%x: tensor<16xi32>) -> tensor<16xi32> {
  %y = coll.recv on @world axes = ["node"] from array<i64: 7, 0, 1, 2, 3, 4, 5, 6> tag = 3 : tensor<16xi32>
  coll.send %x on @world axes = ["node"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 3 : tensor<16xi32>
  return %y : tensor<16xi32>
}

// A pipeline: forward activations, backward gradients, with -1 entries.
// CHECK-LABEL: func.func @pipeline
func.func @pipeline(%act: tensor<8x64xbf16>, %grad: tensor<8x64xbf16>) -> (tensor<8x64xbf16>, tensor<8x64xbf16>) {
  %in = coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 2> tag = 0 : tensor<8x64xbf16>
  coll.send %act on @pp axes = ["stage"] to array<i64: 1, 2, 3, -1> tag = 0 : tensor<8x64xbf16>
  %g = coll.recv on @pp axes = ["stage"] from array<i64: 1, 2, 3, -1> tag = 1 : tensor<8x64xbf16>
  coll.send %grad on @pp axes = ["stage"] to array<i64: -1, 0, 1, 2> tag = 1 : tensor<8x64xbf16>
  return %in, %g : tensor<8x64xbf16>, tensor<8x64xbf16>
}

// A pairwise swap: the map is its own inverse.
// CHECK-LABEL: func.func @swap
func.func @swap(%x: tensor<4xf64>) -> tensor<4xf64> {
  coll.send %x on @world to affine_map<(r) -> (r + 1 - (r mod 2) * 2)> tag = 0 : tensor<4xf64>
  %y = coll.recv on @world from affine_map<(r) -> (r + 1 - (r mod 2) * 2)> tag = 0 : tensor<4xf64>
  return %y : tensor<4xf64>
}

// Omitted axes and all axes listed in mesh order are the same group.
// CHECK-LABEL: func.func @same_group
func.func @same_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  coll.send %x on @world to affine_map<(r)[n] -> ((r + 8) mod n)> tag = 0 : tensor<4xf32>
  %y = coll.recv on @world axes = ["node", "gpu"] from affine_map<(r)[n] -> ((r + 56) mod n)> tag = 0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// Two sends with one tag pair with two recvs in program order.
// CHECK-LABEL: func.func @in_order
func.func @in_order(%a: tensor<4xf32>, %b: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  coll.send %a on @pp axes = ["tp"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<4xf32>
  coll.send %b on @pp axes = ["tp"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<2xf32>
  %x = coll.recv on @pp axes = ["tp"] from affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<4xf32>
  %y = coll.recv on @pp axes = ["tp"] from affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<2xf32>
  return %x, %y : tensor<4xf32>, tensor<2xf32>
}

// A send in which no rank takes part needs no recv.
// CHECK-LABEL: func.func @nobody_sends
func.func @nobody_sends(%x: tensor<4xf32>) {
  coll.send %x on @pp axes = ["stage"] to array<i64: -1, -1, -1, -1> tag = 9 : tensor<4xf32>
  return
}

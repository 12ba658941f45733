// RUN: collc-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the coll dialect's verifiers and custom parsers, one
// expected-error per message.

//===----------------------------------------------------------------------===//
// coll.mesh
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'coll.mesh' op must have at least one axis}}
coll.mesh @m shape = [] names = []

// -----

// expected-error @+1 {{'coll.mesh' op has 2 dimensions but 1 axis names}}
coll.mesh @m shape = [8, 8] names = ["gpu"]

// -----

// expected-error @+1 {{'coll.mesh' op axis 1 has an empty name}}
coll.mesh @m shape = [8, 8] names = ["node", ""]

// -----

// expected-error @+1 {{'coll.mesh' op axis name "gpu" is used twice}}
coll.mesh @m shape = [8, 8] names = ["gpu", "gpu"]

// -----

// expected-error @+1 {{'coll.mesh' op axis "gpu" has size 0; sizes must be positive}}
coll.mesh @m shape = [8, 0] names = ["node", "gpu"]

// -----

// expected-error @+1 {{'coll.mesh' op axis "node" has size -2; sizes must be positive}}
coll.mesh @m shape = [-2, 8] names = ["node", "gpu"]

// -----

// expected-error @+1 {{'coll.mesh' op has more than 1048576 ranks (2^20), the most collc supports}}
coll.mesh @m shape = [1024, 1025] names = ["node", "gpu"]

// -----

// expected-error @+1 {{'coll.mesh' op has more than 1048576 ranks (2^20), the most collc supports}}
coll.mesh @m shape = [9999999999, 9999999999] names = ["node", "gpu"]

//===----------------------------------------------------------------------===//
// Mesh references and groups (CollectiveOpInterface)
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op mesh @nope is not defined}}
  %0 = coll.all_reduce %x on @nope reduce = sum : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op mesh @f is a 'func.func', not a coll.mesh}}
  %0 = coll.all_reduce %x on @f reduce = sum : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// A collective verified before its malformed mesh (here: at module level,
// ahead of it) reports the mesh as invalid; the mesh reports why.
// expected-error @+1 {{'coll.recv' op uses mesh @bad, which is invalid (see its error)}}
%0 = coll.recv on @bad from array<i64: 0> tag = 0 : tensor<8xf32>
coll.mesh @bad shape = [8, 8] names = ["gpu"]

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op axes must name at least one axis of mesh @world (omit them for the whole mesh)}}
  %0 = coll.all_reduce %x on @world axes = [] reduce = sum : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op mesh @world has no axis "rail"; its axes are "node" "gpu"}}
  %0 = coll.all_reduce %x on @world axes = ["gpu", "rail"] reduce = sum : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op axis "gpu" is listed twice}}
  %0 = coll.all_reduce %x on @world axes = ["gpu", "node", "gpu"] reduce = sum : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xi16>) {
  // expected-error @+1 {{'coll.all_reduce' op element type 'i16' is not supported by collectives; supported: f64, f32, f16, bf16, f8E4M3FN, f8E5M2, i64, i32, i8}}
  %0 = coll.all_reduce %x on @world reduce = sum : tensor<8xi16> -> tensor<8xi16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f() {
  // expected-error @+1 {{'coll.recv' op element type 'ui32' is not supported by collectives; supported: f64, f32, f16, bf16, f8E4M3FN, f8E5M2, i64, i32, i8}}
  %0 = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<8xui32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_gather' op element type 'complex<f16>' is not supported by collectives}}
  %0 = "coll.all_gather"(%x) {mesh = @world, gather_axis = 0 : i64} : (tensor<8xf32>) -> tensor<64xcomplex<f16>>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'coll.broadcast' op buffer 'tensor<4611686018427387904x4xf32>' has more than 2^63 - 1 bytes}}
  %0 = coll.broadcast %x on @world root = 0 : tensor<4611686018427387904x4xf32> -> tensor<4611686018427387904x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Result types
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op result element type 'bf16' differs from the input's 'f32'}}
  %0 = coll.all_reduce %x on @world reduce = sum : tensor<8xf32> -> tensor<8xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'coll.broadcast' op result has rank 1 but the input has rank 2}}
  %0 = coll.broadcast %x on @world root = 0 : tensor<8x4xf32> -> tensor<32xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'coll.all_reduce' op result dim 1 is 5 but must be 4 (as in the input)}}
  %0 = coll.all_reduce %x on @world reduce = max : tensor<8x4xf32> -> tensor<8x5xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'coll.reduce' op result dim 0 is 8 but must be ? (as in the input)}}
  %0 = coll.reduce %x on @world root = 0 reduce = sum : tensor<?x4xf32> -> tensor<8x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xi32>) {
  // expected-error @+1 {{'coll.all_reduce' op reduction avg is not valid for element type 'i32': avg is defined for floating-point types only}}
  %0 = coll.all_reduce %x on @world reduce = avg : tensor<8xi32> -> tensor<8xi32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf8E4M3FN>) {
  // expected-error @+1 {{'coll.all_reduce' op reduction prod is not valid for element type 'f8E4M3FN': a product of 8-bit floats overflows or loses all precision}}
  %0 = coll.all_reduce %x on @world reduce = prod : tensor<8xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64xf8E5M2>) {
  // expected-error @+1 {{'coll.reduce_scatter' op reduction prod is not valid for element type 'f8E5M2'}}
  %0 = coll.reduce_scatter %x on @world scatter_axis = 0 reduce = prod : tensor<64xf8E5M2> -> tensor<1xf8E5M2>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xi8>) {
  // expected-error @+1 {{'coll.reduce' op reduction avg is not valid for element type 'i8'}}
  %0 = coll.reduce %x on @world root = 0 reduce = avg : tensor<8xi8> -> tensor<8xi8>
  return
}

//===----------------------------------------------------------------------===//
// all_gather and gather
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'coll.all_gather' op gather_axis 2 is out of range for an input of rank 2}}
  %0 = coll.all_gather %x on @world gather_axis = 2 : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'coll.all_gather' op gather_axis -1 is out of range for an input of rank 2}}
  %0 = coll.all_gather %x on @world gather_axis = -1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<512x8192xbf16>) {
  // expected-error @+1 {{'coll.all_gather' op result dim 0 is 512 but must be 4096 (input dim 0 = 512 times the group size 8)}}
  %0 = coll.all_gather %x on @world axes = ["gpu"] gather_axis = 0 : tensor<512x8192xbf16> -> tensor<512x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<288230376151711744xi8>) {
  // expected-error @+1 {{'coll.all_gather' op input dim 0 (288230376151711744) times the group size 64 overflows 64 bits}}
  %0 = coll.all_gather %x on @world gather_axis = 0 : tensor<288230376151711744xi8> -> tensor<?xi8>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<16x8xi8>) {
  // expected-error @+1 {{'coll.gather' op root 8 is outside the group of 8 ranks}}
  %0 = coll.gather %x on @world axes = ["gpu"] root = 8 gather_axis = 1 : tensor<16x8xi8> -> tensor<16x64xi8>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<16x8xi8>) {
  // expected-error @+1 {{'coll.gather' op gather_axis 3 is out of range for an input of rank 2}}
  %0 = coll.gather %x on @world axes = ["gpu"] root = 0 gather_axis = 3 : tensor<16x8xi8> -> tensor<16x64xi8>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<16x8xi8>) {
  // expected-error @+1 {{'coll.gather' op result dim 1 is 8 but must be 512 (input dim 1 = 8 times the group size 64)}}
  %0 = coll.gather %x on @world root = 0 gather_axis = 1 : tensor<16x8xi8> -> tensor<16x8xi8>
  return
}

//===----------------------------------------------------------------------===//
// reduce_scatter and scatter
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1000xf32>) {
  // expected-error @+1 {{'coll.reduce_scatter' op input dim 0 (1000) is not divisible by the group size 64}}
  %0 = coll.reduce_scatter %x on @world scatter_axis = 0 reduce = sum : tensor<1000xf32> -> tensor<15xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) {
  // expected-error @+1 {{'coll.reduce_scatter' op scatter_axis 1 is out of range for an input of rank 1}}
  %0 = coll.reduce_scatter %x on @world scatter_axis = 1 reduce = sum : tensor<1024xf32> -> tensor<16xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) {
  // expected-error @+1 {{'coll.reduce_scatter' op result dim 0 is 16 but must be 128 (input dim 0 = 1024 divided by the group size 8)}}
  %0 = coll.reduce_scatter %x on @world axes = ["node"] scatter_axis = 0 reduce = sum : tensor<1024xf32> -> tensor<16xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x16xi32>) {
  // expected-error @+1 {{'coll.scatter' op root 9 is outside the group of 8 ranks}}
  %0 = coll.scatter %x on @world axes = ["gpu"] root = 9 scatter_axis = 0 : tensor<64x16xi32> -> tensor<8x16xi32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x12xi32>) {
  // expected-error @+1 {{'coll.scatter' op input dim 1 (12) is not divisible by the group size 8}}
  %0 = coll.scatter %x on @world axes = ["gpu"] root = 0 scatter_axis = 1 : tensor<64x12xi32> -> tensor<64x1xi32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x16xi32>) {
  // expected-error @+1 {{'coll.scatter' op scatter_axis 2 is out of range for an input of rank 2}}
  %0 = coll.scatter %x on @world axes = ["gpu"] root = 0 scatter_axis = 2 : tensor<64x16xi32> -> tensor<8x16xi32>
  return
}

//===----------------------------------------------------------------------===//
// broadcast and reduce
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.broadcast' op root 64 is outside the group of 64 ranks}}
  %0 = coll.broadcast %x on @world root = 64 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.reduce' op root -1 is outside the group of 8 ranks}}
  %0 = coll.reduce %x on @world axes = ["node"] root = -1 reduce = sum : tensor<8xf32> -> tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'coll.all_to_all' op split_axis 2 is out of range for an input of rank 2}}
  %0 = coll.all_to_all %x on @world split_axis = 2 concat_axis = 1 : tensor<64x128xf32> -> tensor<1x8192xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'coll.all_to_all' op concat_axis -3 is out of range for an input of rank 2}}
  %0 = coll.all_to_all %x on @world split_axis = 0 concat_axis = -3 : tensor<64x128xf32> -> tensor<1x8192xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<60x128xf32>) {
  // expected-error @+1 {{'coll.all_to_all' op input dim 0 (60) is not divisible by the group size 8}}
  %0 = coll.all_to_all %x on @world axes = ["gpu"] split_axis = 0 concat_axis = 0 : tensor<60x128xf32> -> tensor<60x128xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'coll.all_to_all' op result dim 0 is 64 but must be 1 (input dim 0 = 64 divided by the group size 64)}}
  %0 = coll.all_to_all %x on @world split_axis = 0 concat_axis = 1 : tensor<64x128xf32> -> tensor<64x8192xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'coll.all_to_all' op result dim 1 is 128 but must be 8192 (input dim 1 = 128 times the group size 64)}}
  %0 = coll.all_to_all %x on @world split_axis = 0 concat_axis = 1 : tensor<64x128xf32> -> tensor<1x128xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'coll.all_to_all' op result dim 0 is 8 but must be 64 (input dim 0 = 64 split and concatenated over the group of 8)}}
  %0 = coll.all_to_all %x on @world axes = ["gpu"] split_axis = 0 concat_axis = 0 : tensor<64x128xf32> -> tensor<8x128xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<0x288230376151711744xi8>) {
  // expected-error @+1 {{'coll.all_to_all' op input dim 1 (288230376151711744) times the group size 64 overflows 64 bits}}
  %0 = coll.all_to_all %x on @world split_axis = 0 concat_axis = 1 : tensor<0x288230376151711744xi8> -> tensor<0x?xi8>
  return
}

//===----------------------------------------------------------------------===//
// all_to_all_v
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op split_axis 2 is out of range for an input of rank 2}}
  %0 = coll.all_to_all_v %x on @world split_axis = 2 send_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op needs exactly one of a static send_counts attribute and a send_counts operand}}
  %0 = "coll.all_to_all_v"(%x) {mesh = @world, split_axis = 0 : i64} : (tensor<2048x8192xbf16>) -> tensor<?x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>, %c: tensor<64x64xi64>) {
  // expected-error @+1 {{'coll.all_to_all_v' op needs exactly one of a static send_counts attribute and a send_counts operand}}
  %0 = "coll.all_to_all_v"(%x, %c) {mesh = @world, split_axis = 0 : i64, send_counts = dense<32> : tensor<64x64xi64>} : (tensor<2048x8192xbf16>, tensor<64x64xi64>) -> tensor<?x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>, %c: tensor<64x64xi64>) {
  // expected-error @+1 {{'coll.all_to_all_v' op static recv_counts needs a static send_counts to be checked against}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = %c : tensor<64x64xi64> recv_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>, %c: tensor<8x8xi64>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts operand has type 'tensor<8x8xi64>' but the group of 64 ranks needs tensor<64x64xi64>}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = %c : tensor<8x8xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'coll.all_to_all_v' op operand #1 must be tensor of 64-bit signless integer values, but got 'tensor<64x64xi32>'}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = %c : tensor<64x64xi32> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts has type 'tensor<64x32xi64>' but the group of 64 ranks needs tensor<64x64xi64>}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<64> : tensor<64x32xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op attribute 'send_counts' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi32> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts[0][0] is -1; counts must be non-negative}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<-1> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  return
}

// -----

coll.mesh @line shape = [2] names = ["x"]
func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts[1][0] is -2; counts must be non-negative}}
  %0 = coll.all_to_all_v %x on @line split_axis = 0 send_counts = dense<[[2, 2], [-2, 6]]> : tensor<2x2xi64> : tensor<4xf32> -> tensor<?xf32>
  return
}

// -----

coll.mesh @line shape = [2] names = ["x"]
func.func @f(%x: tensor<?xf32>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts sums overflow 64 bits}}
  %0 = coll.all_to_all_v %x on @line split_axis = 0 send_counts = dense<[[9223372036854775807, 1], [0, 0]]> : tensor<2x2xi64> : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

coll.mesh @line shape = [4] names = ["x"]
func.func @f(%x: tensor<?xf32>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts sums overflow 64 bits}}
  %0 = coll.all_to_all_v %x on @line split_axis = 0 send_counts = dense<4611686018427387904> : tensor<4x4xi64> : tensor<?xf32> -> tensor<?xf32>
  return
}

// -----

coll.mesh @line shape = [4] names = ["x"]
func.func @f(%x: tensor<6x3xf32>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts row 2 sums to 5 but the input has 6 rows along split_axis 0}}
  %0 = coll.all_to_all_v %x on @line split_axis = 0
      send_counts = dense<[[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 2], [2, 0, 2, 2]]> : tensor<4x4xi64>
      : tensor<6x3xf32> -> tensor<?x3xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op send_counts row 0 sums to 1024 but the input has 2048 rows along split_axis 0}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<16> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<1024x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op recv_counts has type 'tensor<8x8xi64>' but the group of 64 ranks needs tensor<64x64xi64>}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> recv_counts = dense<32> : tensor<8x8xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op recv_counts[0][0] is 16 but send_counts[0][0] is 32; recv_counts must be the transpose of send_counts}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> recv_counts = dense<16> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

// -----

coll.mesh @line shape = [4] names = ["x"]
func.func @f(%x: tensor<6x3xf32>) {
  // The recv_counts given equal send_counts, not its transpose.
  // expected-error @+1 {{'coll.all_to_all_v' op recv_counts[0][2] is 3 but send_counts[2][0] is 0; recv_counts must be the transpose of send_counts}}
  %0 = coll.all_to_all_v %x on @line split_axis = 0
      send_counts = dense<[[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 3], [2, 0, 2, 2]]> : tensor<4x4xi64>
      recv_counts = dense<[[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 3], [2, 0, 2, 2]]> : tensor<4x4xi64>
      : tensor<6x3xf32> -> tensor<?x3xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>, %c: tensor<64x64xi64>) {
  // expected-error @+1 {{'coll.all_to_all_v' op result dim 0 must be dynamic (?): send_counts is only known at run time}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = %c : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

// -----

coll.mesh @line shape = [4] names = ["x"]
func.func @f(%x: tensor<6x3xf32>) {
  // expected-error @+1 {{'coll.all_to_all_v' op result dim 0 must be dynamic (?): ranks receive different row counts: column 0 of send_counts sums to 5, column 1 to 7}}
  %0 = coll.all_to_all_v %x on @line split_axis = 0
      send_counts = dense<[[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 3], [2, 0, 2, 2]]> : tensor<4x4xi64>
      : tensor<6x3xf32> -> tensor<6x3xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op result dim 0 is 100 but every rank receives 2048 rows (the column sums of send_counts)}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<100x8192xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{'coll.all_to_all_v' op result dim 1 is 4096 but must be 8192 (as in the input)}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = dense<32> : tensor<64x64xi64> : tensor<2048x8192xbf16> -> tensor<2048x4096xbf16>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<2048x8192xbf16>) {
  // expected-error @+1 {{expected send_counts to be an SSA value or a dense<...> : tensor<NxNxi64> attribute}}
  %0 = coll.all_to_all_v %x on @world split_axis = 0 send_counts = [32] : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  return
}

//===----------------------------------------------------------------------===//
// send and recv
//===----------------------------------------------------------------------===//

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected a peer map affine_map<(r)[n] -> (...)> or a peers table array<i64: ...>}}
  coll.send %x on @world axes = ["gpu"] to [1, 2] tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op needs exactly one of a peer map and a peers table}}
  "coll.send"(%x) {mesh = @world, tag = 0 : i64} : (tensor<8xf32>) -> ()
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f() {
  // expected-error @+1 {{'coll.recv' op needs exactly one of a peer map and a peers table}}
  %0 = "coll.recv"() {mesh = @world, tag = 0 : i64, peer = affine_map<(r) -> (r)>, peers = array<i64: 0>} : () -> tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op tag -1 is negative}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = -1 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op peer map must have 1 dimension (the rank), at most 1 symbol (the group size) and 1 result, but has 2 dimensions, 0 symbols and 1 results}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r, s) -> (r + s)> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f() {
  // expected-error @+1 {{'coll.recv' op peer map must have 1 dimension (the rank), at most 1 symbol (the group size) and 1 result, but has 1 dimensions, 1 symbols and 2 results}}
  %0 = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> (r, n)> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op peers table has 3 entries but the group has 8 ranks}}
  coll.send %x on @world axes = ["gpu"] to array<i64: 1, 2, -1> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op peer map is undefined for rank 0 (a division by a non-positive value or a 64-bit overflow)}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> (r mod (n - 8))> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op peer map is undefined for rank 1 (a division by a non-positive value or a 64-bit overflow)}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> (r * n * 4611686018427387904)> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op peer map gives 8 for rank 7, outside the group of 8 ranks}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r) -> (r + 1)> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f() {
  // expected-error @+1 {{'coll.recv' op peer map gives -1 for rank 0, outside the group of 8 ranks}}
  %0 = coll.recv on @world axes = ["node"] from affine_map<(r) -> (r - 1)> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.send' op peers table gives 9 for rank 2, outside the group of 8 ranks (-1 means no peer)}}
  coll.send %x on @world axes = ["gpu"] to array<i64: 1, 2, 9, 4, 5, 6, 7, -1> tag = 0 : tensor<8xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f() {
  // expected-error @+1 {{'coll.recv' op peers table gives -2 for rank 0, outside the group of 8 ranks (-1 means no peer)}}
  %0 = coll.recv on @world axes = ["gpu"] from array<i64: -2, 0, 1, 2, 3, 4, 5, 6> tag = 0 : tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// coll.compute
//===----------------------------------------------------------------------===//

// -----

func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.compute' op flops must be finite and non-negative, but is -1}}
  %0 = coll.compute @k(%x) {flops = -1.0 : f64, bytes = 0.0 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.compute' op bytes must be finite and non-negative, but is INF}}
  %0 = coll.compute @k(%x) {flops = 1.0 : f64, bytes = 0x7FF0000000000000 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{'coll.compute' op requires attribute 'bytes'}}
  %0 = coll.compute @k(%x) {flops = 1.0 : f64} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'coll.compute' op chunk_axis 2 is out of range for operand #0 of type 'tensor<4x4xf32>'}}
  %0 = coll.compute @k(%x) {flops = 1.0 : f64, bytes = 0.0 : f64, chunk_axis = 2 : i64} : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x4x4xf32>) {
  // expected-error @+1 {{'coll.compute' op chunk_axis 2 is out of range for result #1 of type 'tensor<4xf32>'}}
  %0:2 = coll.compute @k(%x) {flops = 1.0 : f64, bytes = 0.0 : f64, chunk_axis = 2 : i64} : (tensor<4x4x4xf32>) -> (tensor<4x4x4xf32>, tensor<4xf32>)
  return
}

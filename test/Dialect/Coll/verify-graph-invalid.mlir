// RUN: collc-opt %s --coll-verify-graph -split-input-file -verify-diagnostics

// Every diagnostic of coll-verify-graph.

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) {
  // expected-error @+1 {{coll.send on @world axes ["gpu"] with tag 0 has no matching coll.recv in this function: rank 0 of the group sends to rank 1 and nothing receives it}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f() {
  // The send of tag 0 is in another function.
  // expected-error @+1 {{coll.recv on @world with tag 0 has no matching coll.send in this function: rank 1 of the group receives from rank 0 and nothing sends it}}
  %y = coll.recv on @world from array<i64: -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62> tag = 0 : tensor<4xf32>
  return
}
func.func @g(%x: tensor<4xf32>) {
  // expected-error @+1 {{coll.send on @world with tag 0 has no matching coll.recv in this function}}
  coll.send %x on @world to array<i64: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, -1> tag = 0 : tensor<4xf32>
  return
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // Different tags do not match.
  // expected-error @+1 {{coll.send on @world axes ["gpu"] with tag 1 has no matching coll.recv in this function}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 1 : tensor<1024xf32>
  // expected-error @+1 {{coll.recv on @world axes ["gpu"] with tag 2 has no matching coll.send in this function: rank 0 of the group receives from rank 7 and nothing sends it}}
  %y = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 2 : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // Different groups do not match.
  // expected-error @+1 {{coll.send on @world axes ["gpu"] with tag 0 has no matching coll.recv}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  // expected-error @+1 {{coll.recv on @world axes ["node"] with tag 0 has no matching coll.send}}
  %y = coll.recv on @world axes = ["node"] from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xbf16> {
  // expected-error @+1 {{coll.send of 'tensor<1024xf32>' is matched by a coll.recv of 'tensor<1024xbf16>'}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  // expected-note @+1 {{the matching coll.recv}}
  %y = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<1024xbf16>
  return %y : tensor<1024xbf16>
}

// -----

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // The recv uses the same map as the send instead of its inverse.
  // expected-error @+1 {{in the group, rank 0 sends to rank 1, but rank 1 receives from rank 2}}
  coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  // expected-note @+1 {{the matching coll.recv}}
  %y = coll.recv on @world axes = ["gpu"] from affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

coll.mesh @pp shape = [4, 2] names = ["stage", "tp"]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // The last stage sends to stage 0, which does not receive.
  // expected-error @+1 {{in the group, rank 3 sends to rank 0, but rank 0 does not receive (its peers entry is -1)}}
  coll.send %x on @pp axes = ["stage"] to array<i64: 1, 2, 3, 0> tag = 0 : tensor<8xf32>
  // expected-note @+1 {{the matching coll.recv}}
  %y = coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 2> tag = 0 : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

coll.mesh @pp shape = [4, 2] names = ["stage", "tp"]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{the matching coll.send}}
  coll.send %x on @pp axes = ["stage"] to array<i64: 1, 2, -1, -1> tag = 0 : tensor<8xf32>
  // Stage 3 waits for stage 2, which does not send.
  // expected-error @+1 {{in the group, rank 3 receives from rank 2, but rank 2 does not send (its peers entry is -1)}}
  %y = coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 2> tag = 0 : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

coll.mesh @pp shape = [4, 2] names = ["stage", "tp"]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{the matching coll.send}}
  coll.send %x on @pp axes = ["stage"] to array<i64: 1, 3, -1, -1> tag = 0 : tensor<8xf32>
  // Stage 2 waits for stage 1, which sends to stage 3 instead.
  // expected-error @+1 {{in the group, rank 2 receives from rank 1, but rank 1 sends to rank 3}}
  %y = coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 1> tag = 0 : tensor<8xf32>
  return %y : tensor<8xf32>
}

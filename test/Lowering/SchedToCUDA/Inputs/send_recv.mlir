// Two send/recv pairs: a ring shift (every rank sends) and a pipeline whose
// last rank sends nothing; the pipelined schedule reads each rank's peers
// from per-rank tables in the generated kernel.
coll.mesh @world shape = [4] names = ["gpu"]
func.func @f(%x: tensor<96xf32>, %h: tensor<96xf32>) -> (tensor<96xf32>, tensor<96xf32>) {
  coll.send %x on @world to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<96xf32>
  %y = coll.recv on @world from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<96xf32>
  coll.send %h on @world to array<i64: 1, 2, 3, -1> tag = 1 : tensor<96xf32>
  %g = coll.recv on @world from array<i64: -1, 0, 1, 2> tag = 1 : tensor<96xf32>
  return %y, %g : tensor<96xf32>, tensor<96xf32>
}

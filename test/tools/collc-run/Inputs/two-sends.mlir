// Two send/recv pairs on 2 ranks: a swap (both send) and a hand-off from
// rank 0 to rank 1 (rank 1 sends nothing); a plan of two collectives.
coll.mesh @world shape = [2] names = ["gpu"]

func.func @f(%x: tensor<16xi32>, %h: tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>) {
  coll.send %x on @world to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<16xi32>
  %y = coll.recv on @world from affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<16xi32>
  coll.send %h on @world to array<i64: 1, -1> tag = 1 : tensor<16xi32>
  %g = coll.recv on @world from array<i64: -1, 0> tag = 1 : tensor<16xi32>
  return %y, %g : tensor<16xi32>, tensor<16xi32>
}

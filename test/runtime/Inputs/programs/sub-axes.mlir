// Collectives over sub-axes of a 2 x 2 x 2 mesh, for the groups of
// --emit=plan (test/tools/collc/plan.test): every group, not only rank 0's.
coll.mesh @world shape = [2, 2, 2] names = ["a", "b", "c"]

func.func @f(%x: tensor<64xbf16>, %i: tensor<16xi32>) -> (tensor<64xbf16>, tensor<16xi32>, tensor<64xbf16>) {
  %y = coll.all_reduce %x on @world axes = ["b"] reduce = max : tensor<64xbf16> -> tensor<64xbf16>
  %z = coll.all_reduce %i on @world axes = ["c", "a"] reduce = min : tensor<16xi32> -> tensor<16xi32>
  %w = coll.broadcast %x on @world root = 5 : tensor<64xbf16> -> tensor<64xbf16>
  return %y, %z, %w : tensor<64xbf16>, tensor<16xi32>, tensor<64xbf16>
}

coll.mesh @node shape = [8] names = ["gpu"]

func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  // The group has 8 ranks; root 9 does not exist.
  %y = coll.broadcast %x on @node root = 9 : tensor<64xf32> -> tensor<64xf32>
  return %y : tensor<64xf32>
}

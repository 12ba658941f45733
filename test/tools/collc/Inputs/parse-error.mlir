coll.mesh @node shape = [8] names = ["gpu"]

func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = coll.all_reduce %x on @node reduce = sum : tensor<64xf32> ->
  return %y : tensor<64xf32>
}

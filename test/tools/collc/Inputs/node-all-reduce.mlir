coll.mesh @node shape = [8] names = ["gpu"]

func.func @f(%x: tensor<262144xf32>) -> tensor<262144xf32> {
  %y = coll.all_reduce %x on @node reduce = sum
      : tensor<262144xf32> -> tensor<262144xf32>
  return %y : tensor<262144xf32>
}

coll.mesh @node shape = [8] names = ["gpu"]

func.func @f(%x: tensor<8x32768xf32>) -> tensor<8x32768xf32> {
  %y = coll.all_to_all %x on @node split_axis = 0 concat_axis = 0
      : tensor<8x32768xf32> -> tensor<8x32768xf32>
  return %y : tensor<8x32768xf32>
}

// An all-gather and a reduce-scatter over the 8 GPUs of one DGX H100.
coll.mesh @node shape = [8] names = ["gpu"]

func.func @step(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %all = coll.all_gather %x on @node gather_axis = 0
      : tensor<1024x1024xf32> -> tensor<8192x1024xf32>
  %mine = coll.reduce_scatter %all on @node scatter_axis = 0 reduce = sum
      : tensor<8192x1024xf32> -> tensor<1024x1024xf32>
  return %mine : tensor<1024x1024xf32>
}

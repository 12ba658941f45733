// Gradients reduce-scattered over the 8 GPUs of one DGX H100 (ZeRO-style):
// each GPU keeps one eighth of the summed gradients.
coll.mesh @node shape = [8] names = ["gpu"]

func.func @grads(%g: tensor<8192x1024xbf16>) -> tensor<1024x1024xbf16> {
  %s = coll.reduce_scatter %g on @node scatter_axis = 0 reduce = sum
      : tensor<8192x1024xbf16> -> tensor<1024x1024xbf16>
  return %s : tensor<1024x1024xbf16>
}

// Gradients reduce-scattered over the 16 chips of a 4x4 torus (ZeRO-style):
// each chip keeps one sixteenth of the summed gradients.
coll.mesh @chips shape = [16] names = ["chip"]

func.func @grads(%g: tensor<16384x1024xbf16>) -> tensor<1024x1024xbf16> {
  %s = coll.reduce_scatter %g on @chips scatter_axis = 0 reduce = sum
      : tensor<16384x1024xbf16> -> tensor<1024x1024xbf16>
  return %s : tensor<1024x1024xbf16>
}

// An all-gather over the 8 GPUs of one DGX H100.
coll.mesh @node shape = [8] names = ["gpu"]

func.func @gather(%x: tensor<256x1024xbf16>) -> tensor<2048x1024xbf16> {
  %y = coll.all_gather %x on @node gather_axis = 0
      : tensor<256x1024xbf16> -> tensor<2048x1024xbf16>
  return %y : tensor<2048x1024xbf16>
}

// Two groups of four GPUs on one DGX H100 (mesh axes "pair" x "gpu"), each
// gathering its members' activations: an all-gather over a group of 4.
coll.mesh @node shape = [2, 4] names = ["pair", "gpu"]

func.func @gather(%x: tensor<256x1024xbf16>) -> tensor<1024x1024xbf16> {
  %y = coll.all_gather %x on @node axes = ["gpu"] gather_axis = 0
      : tensor<256x1024xbf16> -> tensor<1024x1024xbf16>
  return %y : tensor<1024x1024xbf16>
}

coll.mesh @node shape = [8] names = ["gpu"]

func.func @f(%x: tensor<64xf32>) {
  coll.send %x on @node to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<64xf32>
  return
}

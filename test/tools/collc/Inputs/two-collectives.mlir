// Two collectives of one function, for --emit=dot (test/tools/collc/dot.test).
coll.mesh @node shape = [8] names = ["gpu"]
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = coll.all_reduce %x on @node reduce = sum : tensor<64xf32> -> tensor<64xf32>
  %z = coll.broadcast %y on @node root = 0 : tensor<64xf32> -> tensor<64xf32>
  return %z : tensor<64xf32>
}

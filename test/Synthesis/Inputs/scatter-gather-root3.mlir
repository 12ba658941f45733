// A scatter and a gather whose root is rank 3, on 8 ranks.
coll.mesh @world shape = [8] names = ["gpu"]
func.func @roots(%x: tensor<262144xf32>) -> (tensor<32768xf32>, tensor<2097152xf32>) {
  %s = coll.scatter %x on @world root = 3 scatter_axis = 0 : tensor<262144xf32> -> tensor<32768xf32>
  %g = coll.gather %x on @world root = 3 gather_axis = 0 : tensor<262144xf32> -> tensor<2097152xf32>
  return %s, %g : tensor<32768xf32>, tensor<2097152xf32>
}

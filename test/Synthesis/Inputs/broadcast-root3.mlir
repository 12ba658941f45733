// A broadcast and a reduce whose root is not rank 0, on 8 ranks.
coll.mesh @world shape = [8] names = ["gpu"]
func.func @roots(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>) {
  %b = coll.broadcast %x on @world root = 3 : tensor<262144xf32> -> tensor<262144xf32>
  %r = coll.reduce %x on @world root = 6 reduce = sum : tensor<262144xf32> -> tensor<262144xf32>
  return %b, %r : tensor<262144xf32>, tensor<262144xf32>
}

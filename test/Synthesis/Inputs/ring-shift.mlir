// A ring shift: every rank sends its tensor to the next (point to point).
coll.mesh @world shape = [4] names = ["gpu"]
func.func @shift(%x: tensor<262144xf32>) -> tensor<262144xf32> {
  coll.send %x on @world to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<262144xf32>
  %y = coll.recv on @world from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<262144xf32>
  return %y : tensor<262144xf32>
}

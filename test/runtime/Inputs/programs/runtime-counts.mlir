// An all_to_all_v whose send counts are an SSA value (known only at run
// time): its plan says "send_counts": null; the caller gives the counts.
coll.mesh @node shape = [4] names = ["gpu"]

func.func @f(%x: tensor<8x3xf32>, %counts: tensor<4x4xi64>) -> tensor<?x3xf32> {
  %y = coll.all_to_all_v %x on @node split_axis = 0 send_counts = %counts : tensor<4x4xi64>
      : tensor<8x3xf32> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// An all_to_all_v with a fixed, uneven send-count matrix (rows by sender):
// the golden plan plans/direct-all_to_all_v-4.plan.json is compiled from it.
coll.mesh @node shape = [4] names = ["gpu"]

func.func @f(%x: tensor<6x3xf32>) -> tensor<?x3xf32> {
  %y = coll.all_to_all_v %x on @node split_axis = 0
      send_counts = dense<[[1, 2, 3, 0], [2, 2, 1, 1], [0, 3, 0, 3], [2, 0, 2, 2]]> : tensor<4x4xi64>
      : tensor<6x3xf32> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

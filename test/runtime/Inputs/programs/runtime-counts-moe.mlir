// A small MoE layer with routing known only at run time (as
// examples/moe_layer.mlir's @moe_layer_dynamic): the count rows are
// all-gathered, the dispatch sends 16 rows per rank by those counts, and the
// combine sends back their transpose.
coll.mesh @world shape = [4] names = ["gpu"]

func.func @moe(%routed: tensor<16x3xf32>, %mine: tensor<1x4xi64>) -> tensor<?x3xf32> {
  %counts = coll.all_gather %mine on @world gather_axis = 0
      : tensor<1x4xi64> -> tensor<4x4xi64>
  %dispatched = coll.all_to_all_v %routed on @world split_axis = 0
      send_counts = %counts : tensor<4x4xi64>
      : tensor<16x3xf32> -> tensor<?x3xf32>
  %init = tensor.empty() : tensor<4x4xi64>
  %counts_t = linalg.transpose ins(%counts : tensor<4x4xi64>)
      outs(%init : tensor<4x4xi64>) permutation = [1, 0]
  %combined = coll.all_to_all_v %dispatched on @world split_axis = 0
      send_counts = %counts_t : tensor<4x4xi64>
      : tensor<?x3xf32> -> tensor<?x3xf32>
  return %combined : tensor<?x3xf32>
}

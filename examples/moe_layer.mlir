// A mixture-of-experts layer with expert parallelism over 64 GPUs.
//
// Model: 64 experts, one per rank of an 8 x 8 mesh (8 nodes of 8 GPUs).
// Every rank holds 1024 tokens of hidden size 8192 in bf16. A router picks
// the top 2 experts of each token, so 2 x 1024 = 2048 rows (token copies)
// leave each rank, sorted by destination expert:
//
//   router -> top-2 permute -> all_to_all_v dispatch -> expert FFN
//          -> all_to_all_v combine -> weighted sum of the 2 expert outputs
//
// @moe_layer routes with a capacity of exactly 32 rows per (source rank,
// expert) pair (2048 rows / 64 experts), so the send-count matrix is the
// static splat dense<32> and every shape is static. @moe_layer_dynamic
// routes by the router's choice: each rank counts its rows per expert, an
// all_gather assembles the 64 x 64 matrix at run time, and the dispatched
// tensor has a dynamic row count.
//
// The expert is a SwiGLU FFN, hidden 8192 -> 28672 -> 8192, three weight
// matrices of 8192 x 28672 (gate, up, down). Costs are per rank and call:
//   router:      flops = 2 * 1024 * 8192 * 64                 = 1.073741824e9
//                bytes = 1024*8192*2 (tokens) + 8192*64*2 (weights)
//                      + 1024*64*4 (f32 logits)               = 18087936
//   top2:        flops = 1024 * 64 * 5 (softmax + top-2)      = 327680
//                bytes = tokens + logits read, 2048x8192 bf16 rows and
//                        1024x2 f32 gates written             = 50601984
//   expert_ffn:  flops = 2 * 2048 * 8192 * 28672 * 3 matmuls  = 2.886218022912e12
//                bytes = 3*8192*28672*2 (weights) + 2*2048*8192*2 (in, out)
//                      + 2*2048*28672*2 (SwiGLU product written and read,
//                        gate/up fused)                       = 1711276032
//   weighted_sum: flops = 1024 * 8192 * 3 (2 mul + 1 add)      = 25165824
//                bytes = 2048*8192*2 + 1024*2*4 + 1024*8192*2 = 50339840

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]

func.func @moe_layer(%tokens: tensor<1024x8192xbf16>) -> tensor<1024x8192xbf16> {
  %logits = coll.compute @router(%tokens) {flops = 1.073741824e9 : f64, bytes = 18087936.0 : f64}
      : (tensor<1024x8192xbf16>) -> tensor<1024x64xf32>
  // Row i of %routed is a copy of a token for one of its 2 experts, in
  // expert order: rows [32 e, 32 e + 32) go to expert e.
  %routed, %gates = coll.compute @top2_permute(%tokens, %logits)
      {flops = 327680.0 : f64, bytes = 50601984.0 : f64}
      : (tensor<1024x8192xbf16>, tensor<1024x64xf32>) -> (tensor<2048x8192xbf16>, tensor<1024x2xf32>)
  // Dispatch: 32 rows from every rank to every expert; each expert receives
  // 64 x 32 = 2048 rows.
  %dispatched = coll.all_to_all_v %routed on @world split_axis = 0
      send_counts = dense<32> : tensor<64x64xi64>
      recv_counts = dense<32> : tensor<64x64xi64>
      : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  %expert_out = coll.compute @expert_ffn(%dispatched)
      {flops = 2.886218022912e12 : f64, bytes = 1711276032.0 : f64, chunk_axis = 0 : i64}
      : (tensor<2048x8192xbf16>) -> tensor<2048x8192xbf16>
  // Combine: the inverse routing (the transpose, here the same splat).
  %combined = coll.all_to_all_v %expert_out on @world split_axis = 0
      send_counts = dense<32> : tensor<64x64xi64>
      : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
  // Un-permute and add the 2 expert outputs of each token, weighted by the
  // router's gates.
  %out = coll.compute @weighted_sum(%combined, %gates)
      {flops = 25165824.0 : f64, bytes = 50339840.0 : f64}
      : (tensor<2048x8192xbf16>, tensor<1024x2xf32>) -> tensor<1024x8192xbf16>
  return %out : tensor<1024x8192xbf16>
}

// The same layer with data-dependent routing. The expert FFN's cost is
// given for the average load of 2048 rows.
func.func @moe_layer_dynamic(%tokens: tensor<1024x8192xbf16>) -> tensor<1024x8192xbf16> {
  %logits = coll.compute @router(%tokens) {flops = 1.073741824e9 : f64, bytes = 18087936.0 : f64}
      : (tensor<1024x8192xbf16>) -> tensor<1024x64xf32>
  %routed, %gates = coll.compute @top2_permute(%tokens, %logits)
      {flops = 327680.0 : f64, bytes = 50601984.0 : f64}
      : (tensor<1024x8192xbf16>, tensor<1024x64xf32>) -> (tensor<2048x8192xbf16>, tensor<1024x2xf32>)
  // This rank's row of the send-count matrix: rows per expert (sums to 2048).
  %my_counts = coll.compute @count_routes(%logits) {flops = 2048.0 : f64, bytes = 262656.0 : f64}
      : (tensor<1024x64xf32>) -> tensor<1x64xi64>
  %counts = coll.all_gather %my_counts on @world gather_axis = 0
      : tensor<1x64xi64> -> tensor<64x64xi64>
  %dispatched = coll.all_to_all_v %routed on @world split_axis = 0
      send_counts = %counts : tensor<64x64xi64>
      : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
  %expert_out = coll.compute @expert_ffn(%dispatched)
      {flops = 2.886218022912e12 : f64, bytes = 1711276032.0 : f64, chunk_axis = 0 : i64}
      : (tensor<?x8192xbf16>) -> tensor<?x8192xbf16>
  // The combine routing is the transpose of the dispatch routing.
  %init = tensor.empty() : tensor<64x64xi64>
  %counts_t = linalg.transpose ins(%counts : tensor<64x64xi64>)
      outs(%init : tensor<64x64xi64>) permutation = [1, 0]
  %combined = coll.all_to_all_v %expert_out on @world split_axis = 0
      send_counts = %counts_t : tensor<64x64xi64>
      : tensor<?x8192xbf16> -> tensor<?x8192xbf16>
  // Every rank gets back exactly the 2048 rows it sent.
  %back = tensor.cast %combined : tensor<?x8192xbf16> to tensor<2048x8192xbf16>
  %out = coll.compute @weighted_sum(%back, %gates)
      {flops = 25165824.0 : f64, bytes = 50339840.0 : f64}
      : (tensor<2048x8192xbf16>, tensor<1024x2xf32>) -> tensor<1024x8192xbf16>
  return %out : tensor<1024x8192xbf16>
}

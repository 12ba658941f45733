// A tensor-parallel MLP (Megatron-style, with sequence parallelism) on the
// "gpu" axis of an 8 x 8 mesh: each node is one tensor-parallel group of 8.
//
// A micro-batch of 4096 tokens with hidden size 8192 enters sharded by
// sequence: 512 tokens per rank. The MLP is 8192 -> 28672 -> 8192, its
// first weight split by columns (8192 x 3584 per rank) and its second by
// rows (3584 x 8192 per rank):
//
//   all_gather (sequence) -> matmul -> GeLU -> matmul
//     -> reduce_scatter (sum partial products, re-shard by sequence)
//
// Traffic per rank: the all_gather receives 7 x 512 x 8192 x 2 B = 56 MiB;
// the reduce_scatter's input is 4096 x 8192 x 2 B = 64 MiB of partial sums
// (reduced in f32, rounded once to bf16; see docs/coll-guide.md).
// GeLU (tanh form) costs about 8 flops per element: 8 * 4096 * 3584.

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]

func.func @tp_mlp(%x: tensor<512x8192xbf16>, %w1: tensor<8192x3584xbf16>,
                  %w2: tensor<3584x8192xbf16>) -> tensor<512x8192xbf16> {
  %zero = arith.constant 0.0 : bf16
  %full = coll.all_gather %x on @world axes = ["gpu"] gather_axis = 0
      : tensor<512x8192xbf16> -> tensor<4096x8192xbf16>
  %e1 = tensor.empty() : tensor<4096x3584xbf16>
  %z1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<4096x3584xbf16>) -> tensor<4096x3584xbf16>
  %h = linalg.matmul ins(%full, %w1 : tensor<4096x8192xbf16>, tensor<8192x3584xbf16>)
      outs(%z1 : tensor<4096x3584xbf16>) -> tensor<4096x3584xbf16>
  %a = coll.compute @gelu(%h) {flops = 117440512.0 : f64, bytes = 58720256.0 : f64, chunk_axis = 0 : i64}
      : (tensor<4096x3584xbf16>) -> tensor<4096x3584xbf16>
  %e2 = tensor.empty() : tensor<4096x8192xbf16>
  %z2 = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<4096x8192xbf16>) -> tensor<4096x8192xbf16>
  %partial = linalg.matmul ins(%a, %w2 : tensor<4096x3584xbf16>, tensor<3584x8192xbf16>)
      outs(%z2 : tensor<4096x8192xbf16>) -> tensor<4096x8192xbf16>
  %y = coll.reduce_scatter %partial on @world axes = ["gpu"] scatter_axis = 0 reduce = sum
      : tensor<4096x8192xbf16> -> tensor<512x8192xbf16>
  return %y : tensor<512x8192xbf16>
}

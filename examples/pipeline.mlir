// Pipeline parallelism: an 80-layer model (hidden 8192, SwiGLU FFN 28672)
// cut into 8 stages of 10 layers on an 8 x 8 mesh ["stage", "replica"]:
// the 8 ranks of a "stage" column form one pipeline, and the 8 pipelines
// are data-parallel replicas.
//
// One step of one micro-batch (4096 tokens, activations 4096 x 8192 bf16 =
// 64 MiB): each stage receives activations from the previous stage, runs
// its layers, and sends the result to the next; the backward pass sends
// gradients the other way. The peers are tables over the group (the 8
// stages of a pipeline), with -1 where a stage has no peer: stage 0 receives
// nothing (it reads the embedded tokens) and stage 7 sends nothing forward
// (it computes the loss gradient). Tags separate the two directions.
//
// Costs per rank and micro-batch, with P = 4*8192^2 + 3*8192*28672 =
// 973078528 parameters per layer and s = 4096 tokens:
//   forward:  flops = s * 10 * (2 P + 4 s 8192)  = 8.521215115264e13
//             bytes = 10 P * 2 (weights) + 2 * 64 MiB (in, out) = 19595788288
//   backward: flops = 2 x forward                 = 1.7042430230528e14
//             bytes = 2 * 10 P * 2 (weights read, gradients written)
//                   + 2 * 64 MiB                  = 39057358848

coll.mesh @pp shape = [8, 8] names = ["stage", "replica"]

func.func @pipeline_step(%embedded: tensor<4096x8192xbf16>, %loss_grad: tensor<4096x8192xbf16>)
    -> tensor<4096x8192xbf16> {
  // Forward: stage s receives from s - 1 and sends to s + 1.
  %in = coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 2, 3, 4, 5, 6> tag = 0
      : tensor<4096x8192xbf16>
  %out = coll.compute @stage_forward(%in, %embedded)
      {flops = 8.521215115264e13 : f64, bytes = 19595788288.0 : f64, chunk_axis = 0 : i64}
      : (tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) -> tensor<4096x8192xbf16>
  coll.send %out on @pp axes = ["stage"] to array<i64: 1, 2, 3, 4, 5, 6, 7, -1> tag = 0
      : tensor<4096x8192xbf16>
  // Backward: stage s receives gradients from s + 1 and sends to s - 1.
  %grad_in = coll.recv on @pp axes = ["stage"] from array<i64: 1, 2, 3, 4, 5, 6, 7, -1> tag = 1
      : tensor<4096x8192xbf16>
  %grad_out = coll.compute @stage_backward(%grad_in, %loss_grad)
      {flops = 1.7042430230528e14 : f64, bytes = 39057358848.0 : f64, chunk_axis = 0 : i64}
      : (tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) -> tensor<4096x8192xbf16>
  coll.send %grad_out on @pp axes = ["stage"] to array<i64: -1, 0, 1, 2, 3, 4, 5, 6> tag = 1
      : tensor<4096x8192xbf16>
  return %grad_out : tensor<4096x8192xbf16>
}

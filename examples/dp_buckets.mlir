// Data-parallel gradient synchronization over all 64 GPUs of an 8 x 8
// mesh, in buckets as PyTorch DDP issues them (25 MiB by default, the last
// bucket smaller):
//
//   bucket 0: 25 MiB of bf16 gradients  (13107200 elements), averaged
//   bucket 1: 25 MiB of f32 gradients   ( 6553600 elements), summed
//   bucket 2:  6 MiB of bf16 gradients  ( 3145728 elements), averaged
//   bucket 3: 64 KiB of f32 squared-norm partials (16384), summed, for
//             gradient clipping
//
// bf16 buckets are reduced in f32 and rounded to bf16 once (the coll
// accumulation rule), and avg divides the sum by the group size, 64.

coll.mesh @world shape = [8, 8] names = ["node", "gpu"]

func.func @gradient_buckets(%b0: tensor<13107200xbf16>, %b1: tensor<6553600xf32>,
                            %b2: tensor<3145728xbf16>, %b3: tensor<16384xf32>)
    -> (tensor<13107200xbf16>, tensor<6553600xf32>, tensor<3145728xbf16>, tensor<16384xf32>) {
  %g0 = coll.all_reduce %b0 on @world reduce = avg : tensor<13107200xbf16> -> tensor<13107200xbf16>
  %g1 = coll.all_reduce %b1 on @world reduce = sum : tensor<6553600xf32> -> tensor<6553600xf32>
  %g2 = coll.all_reduce %b2 on @world reduce = avg : tensor<3145728xbf16> -> tensor<3145728xbf16>
  %g3 = coll.all_reduce %b3 on @world reduce = sum : tensor<16384xf32> -> tensor<16384xf32>
  return %g0, %g1, %g2, %g3
      : tensor<13107200xbf16>, tensor<6553600xf32>, tensor<3145728xbf16>, tensor<16384xf32>
}

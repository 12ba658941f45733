// An all_to_all_v with a fixed, uneven send-count matrix (rows by sender,
// 1 KiB rows, 16 MiB per rank): flows are planned for these counts.
coll.mesh @ring shape = [4] names = ["gpu"]

func.func @f(%x: tensor<16384x256xf32>) -> tensor<?x256xf32> {
  %y = coll.all_to_all_v %x on @ring split_axis = 0
      send_counts = dense<[[0, 4096, 8192, 4096], [8192, 0, 4096, 4096], [4096, 8192, 0, 4096], [2048, 2048, 12288, 0]]> : tensor<4x4xi64>
      : tensor<16384x256xf32> -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}

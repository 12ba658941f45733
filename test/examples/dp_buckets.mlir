// RUN: collc-opt --coll-verify-graph %collc_src/examples/dp_buckets.mlir | collc-opt --coll-verify-graph | FileCheck %s

// CHECK-LABEL: func.func @gradient_buckets
// CHECK: coll.all_reduce %{{.*}} on @world reduce = avg : tensor<13107200xbf16> -> tensor<13107200xbf16>
// CHECK: coll.all_reduce %{{.*}} on @world reduce = sum : tensor<6553600xf32> -> tensor<6553600xf32>
// CHECK: coll.all_reduce %{{.*}} on @world reduce = avg : tensor<3145728xbf16> -> tensor<3145728xbf16>
// CHECK: coll.all_reduce %{{.*}} on @world reduce = sum : tensor<16384xf32> -> tensor<16384xf32>

// RUN: collc-opt %s | collc-opt | FileCheck %s

// CHECK: coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
coll.mesh @world shape = [8, 8] names = ["node", "gpu"]

// CHECK-LABEL: func.func @ar
func.func @ar(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // CHECK: coll.all_reduce %{{.*}} on @world axes = ["gpu"] reduce = sum
  %0 = coll.all_reduce %x on @world axes = ["gpu"] reduce = sum : tensor<1024xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// convert-coll-to-sched on its own: the documented default rule chooses
// (ring for an all_reduce on one node, hierarchical across nodes), the
// chosen schedule is copied into the module and the collective linked to it
// with k = chunks x the algorithm's unit; algo and algo-param choose and set
// as collc's --algo and --algo-param do.
// RUN: collc-opt %s --convert-coll-to-sched | FileCheck %s
// RUN: collc-opt %s --convert-coll-to-sched="algo=all_reduce=one_shot chunks=2" | FileCheck %s --check-prefix=ALGO
// RUN: collc-opt %s --convert-coll-to-sched="algo=ring algo-param=rings=2" | FileCheck %s --check-prefix=PARAM
// RUN: not collc-opt %s --convert-coll-to-sched="algo=all_reduce=nosuch" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not collc-opt %s --convert-coll-to-sched="algo-param=nothing=1" 2>&1 | FileCheck %s --check-prefix=NOPARAM

module attributes {coll.topology = {gpus_per_node = 4 : i64, name = "test"}} {
  coll.mesh @world shape = [2, 4] names = ["node", "gpu"]

  // CHECK-LABEL: func.func @f
  // CHECK: coll.all_reduce {{.*}} {sched.chunks_per_part = 4 : i64, sched.schedule = @all_reduce_ring_1}
  // CHECK: coll.all_reduce {{.*}} {sched.chunks_per_part = {{[0-9]+}} : i64, sched.schedule = @all_reduce_hierarchical_2}
  // CHECK: sched.schedule @all_reduce_ring_1 collective = all_reduce algorithm = "ring"
  // CHECK: sched.schedule @all_reduce_hierarchical_2 collective = all_reduce algorithm = "hierarchical"

  // ALGO: coll.all_reduce {{.*}} {sched.chunks_per_part = {{[0-9]+}} : i64, sched.schedule = @all_reduce_one_shot_1}
  // ALGO: coll.all_reduce {{.*}} {sched.chunks_per_part = {{[0-9]+}} : i64, sched.schedule = @all_reduce_one_shot_2}

  // PARAM: sched.schedule @all_reduce_ring_1 {{.*}} params = {rings = 2

  // UNKNOWN: error: --algo: no algorithm 'nosuch' for all_reduce; the library has:
  // NOPARAM: error: --algo-param: no chosen algorithm has a parameter 'nothing'
  func.func @f(%x: tensor<4096xf32>) -> tensor<4096xf32> {
    %y = coll.all_reduce %x on @world axes = ["gpu"] reduce = sum
        : tensor<4096xf32> -> tensor<4096xf32>
    %z = coll.all_reduce %y on @world reduce = sum
        : tensor<4096xf32> -> tensor<4096xf32>
    return %z : tensor<4096xf32>
  }
}

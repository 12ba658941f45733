// The sched-verify pass's own errors: options it cannot use and schedules
// it cannot expand. Each is an error and a failed run.

// A parametric schedule needs group sizes.
// RUN: collc-opt %s -split-input-file -verify-diagnostics --sched-verify -o /dev/null

// expected-error @+1 {{sched-verify: @ring is parametric; give the group sizes to check (--sched-verify="group-sizes=2,3,8")}}
sched.schedule @ring collective = all_gather algorithm = "ring" {
  sched.channel 0 {
    sched.copy src = input[0] dst = output["r * k"] count = k
  }
}

// -----

// A collc.* attribute that collc could not use stops the checks of that
// schedule (and the run fails), while the other schedules are checked.
// expected-error @+1 {{collc.chunk_unit names 'm', which is not a parameter}}
sched.schedule @bad_unit collective = all_reduce algorithm = "one"
    group_size = 1 attributes {collc.chunk_unit = "m"} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
  }
}
sched.schedule @good collective = all_reduce algorithm = "one" group_size = 1 {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
  }
}

// -----

// expected-error @+1 {{collc.requires: unknown requirement "gpus" (known: "nodes")}}
sched.schedule @bad_requires collective = all_reduce algorithm = "one"
    group_size = 1 attributes {collc.requires = ["gpus"]} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
  }
}

// -----

// collc.channel_param must name a declared parameter, as a string.
// expected-error @+1 {{collc.channel_param names 'rings', which is not a parameter}}
sched.schedule @bad_channels collective = all_reduce algorithm = "one"
    group_size = 1 attributes {collc.channel_param = "rings"} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
  }
}

// -----

// expected-error @+1 {{collc.channel_param must be a string: the name of the parameter that sets the channel count}}
sched.schedule @bad_channels_type collective = all_reduce algorithm = "one"
    group_size = 1 attributes {collc.channel_param = 4} params = {rings = 1} {
  sched.channel 0 {
    sched.copy src = input[0] dst = output[0] count = k
  }
}

// Options: errors at the module, naming the option.
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 params=gpus_per_node" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMS
// PARAMS: error: sched-verify: params: 'gpus_per_node' is not name=integer
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 params=gpus_per_node=eight" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAMS-VALUE
// PARAMS-VALUE: error: sched-verify: params: 'gpus_per_node=eight' is not name=integer
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 counts=uniform,diagonal" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNTS
// COUNTS: error: sched-verify: counts: unknown pattern 'diagonal' (uniform, skewed, zero-row, zero-col, random)
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3,0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: error: sched-verify: group-sizes=0: a group has at least 1 rank
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 chunks=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHUNKS
// CHUNKS: error: sched-verify: chunks=0: an algorithm unit has at least 1 chunk
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 slots=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLOTS
// SLOTS: error: sched-verify: slots=0: a connection needs at least 1 slot
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 max-channels=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANNELS
// CHANNELS: error: sched-verify: max-channels=0: a rank runs at least 1 channel

// A parameter the schedule does not have is an expansion error at the
// schedule, once per expansion.
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=3 params=gpus_per_node=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PARAM
// UNKNOWN-PARAM: ring-all-gather.mlir:3:1: error: schedule @ring_all_gather has no parameter 'gpus_per_node'
// UNKNOWN-PARAM-NOT: verified

// A group size the schedule cannot serve: the ring sends to itself at n = 1.
// RUN: not collc-opt %S/Inputs/ring-all-gather.mlir --sched-verify="group-sizes=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SELF
// SELF: ring-all-gather.mlir:6:5: error: rank 0 at step 0 sends to itself; use sched.copy for local moves
// SELF: note: expanding rank 0, channel 0 for n = 1, k = 1

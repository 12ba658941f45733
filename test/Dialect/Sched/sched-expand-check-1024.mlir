// A parametric direct all_to_all expands for 1024 ranks into 2,096,128
// instructions; the time is printed (run lit with -a to see it), not
// asserted: timings belong in benchmarks, not in tests.
// RUN: collc-opt %s --sched-expand-check="group-size=1024 ranks=2 instructions=3 timing=true" -o /dev/null > %t
// RUN: FileCheck %s < %t
// RUN: grep expanded %t

// CHECK:      schedule @direct_all_to_all: all_to_all "direct": n = 1024, k = 1, buffers input 1024 output 1024 scratch 0, 2096128 instructions
// CHECK-NEXT: rank 0: 1 channel, 2047 instructions
// CHECK-NEXT:   channel 0: 2047 instructions
// CHECK-NEXT:     0: copy src = input[0] dst = output[0]
// CHECK-NEXT:     1: send to 1 src = input[1] step = 1
// CHECK-NEXT:     2: recv from 1023 dst = output[1023] step = 1
// CHECK-NEXT: rank 1: 1 channel, 2047 instructions
// CHECK-NEXT:   channel 0: 2047 instructions
// CHECK-NEXT:     0: copy src = input[1] dst = output[1]
// CHECK-NEXT:     1: send to 2 src = input[2] step = 1
// CHECK-NEXT:     2: recv from 0 dst = output[0] step = 1
// CHECK-NEXT: expanded 2096128 instructions in {{[0-9]+\.[0-9]}} ms

sched.schedule @direct_all_to_all collective = all_to_all algorithm = "direct" {
  sched.channel 0 {
    sched.copy src = input["r * k"] dst = output["r * k"] count = k
    sched.for s = 1 to n {
      sched.send to "(r + s) mod n" src = input["((r + s) mod n) * k"]
          count = k step = s
      sched.recv from "(r - s) mod n" dst = output["((r - s) mod n) * k"]
          count = k step = s
    }
  }
}

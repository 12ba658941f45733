//===- BusBandwidth.h - nccl-tests' algbw and busbw -------------*- C++ -*-===//
//
// The figures nccl-tests prints (its doc/PERFORMANCE.md), so that simulated
// times read like measured ones: algbw = S / time, where S is the size
// nccl-tests reports, and busbw = algbw x a factor per collective that makes
// it comparable with the link bandwidth.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_BUSBANDWIDTH_H
#define COLLC_COMPILER_SIMULATE_BUSBANDWIDTH_H

#include "common/Program/Program.h"

namespace collc::sim {

struct Bandwidths {
  double algorithm = 0; ///< algbw, bytes/s
  double bus = 0;       ///< busbw, bytes/s
};

/// S, the size nccl-tests reports, for input buffers of `inputBytes` per
/// rank (M, as in the table above sched::Program): the output for
/// all_gather and gather (N x M), the input otherwise.
double ncclTestsSize(sched::Collective collective, int numRanks,
                     double inputBytes);

/// busbw / algbw: 2(N-1)/N for all_reduce; (N-1)/N for all_gather,
/// reduce_scatter, all_to_all(_v), scatter and gather; 1 for broadcast,
/// reduce and send/recv.
double busBandwidthFactor(sched::Collective collective, int numRanks);

/// algbw and busbw of a run of `seconds` (> 0).
Bandwidths ncclTestsBandwidths(sched::Collective collective, int numRanks,
                               double inputBytes, double seconds);

} // namespace collc::sim

#endif

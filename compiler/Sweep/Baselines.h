//===- Baselines.h - NCCL-style baselines on the same model ----*- C++ -*-===//
//
// What collc's choice is compared with in sweeps and plots: the schedules a
// stock NCCL would run, taken from the same algorithm library and simulated
// on the same model. all_reduce: one flat ring on one channel ("ring" with
// rings = 1) and the double binary tree ("double_binary_tree"). all_gather
// and reduce_scatter: the flat ring (NCCL has no tree for them). broadcast
// and reduce: NCCL's ring is a pipelined chain ("chain"). all_to_all(_v),
// scatter and gather: NCCL runs them as grouped send/recv to every peer
// ("direct"). Each baseline gets the best of the same chunk counts the
// selection tries.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SWEEP_BASELINES_H
#define COLLC_COMPILER_SWEEP_BASELINES_H

#include "compiler/Select/Select.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"

#include <string>
#include <vector>

namespace collc {
namespace sweep {

struct BaselineSpec {
  std::string label;     ///< "flat ring", "double binary tree", ...
  std::string algorithm; ///< the library name
  std::string column;    ///< short table header: "ring", "tree", ...
};

/// The baselines of a collective; `none` says which NCCL baseline has no
/// counterpart here (e.g. no tree for all_gather), or is empty.
std::vector<BaselineSpec> baselinesFor(sched::Collective collective,
                                       std::string &none);

struct BaselineResult {
  BaselineSpec spec;
  unsigned chunks = 0; ///< chunks per algorithm unit of the best run
  int channels = 0;    ///< channels of the best run's program
  double seconds = -1; ///< -1: not run (see error)
  double algbwGBps = -1, busbwGBps = -1;
  std::string error; ///< why there is no time
};

/// Expands and simulates `spec`'s algorithm for `lowered` with each chunk
/// count (`chunks` when nonzero, else the selection's list) and keeps the
/// fastest. A "ring" is forced to one ring (rings = 1).
BaselineResult runBaseline(const BaselineSpec &spec,
                           const lowering::LoweredCollective &lowered,
                           const lowering::AlgorithmLibrary &library,
                           const topo::Topology &topology,
                           const SelectOptions &options, unsigned chunks);

} // namespace sweep
} // namespace collc

#endif

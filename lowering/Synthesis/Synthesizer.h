//===- Synthesizer.h - schedules from the topology, for the lowering -*- C++
//-*-===//
//
// What convert-coll-to-sched's `synthesize` hook calls (the collc pipeline
// sets it unless --synthesize=off): for a broadcast or reduce, the tree
// packing of its group (the group of mesh rank 0, as every simulation)
// over the runtime's routes, written as an explicit sched.schedule
// (TreeSchedule.h) and parsed into a library of its own, one algorithm
// named "synthesized_trees" per (collective, group, root), made once per
// compile. Other collectives get nothing yet. A group above
// kMaxSynthesisRanks ranks is not synthesized, and the collective says so
// (a remark), as does a packing that fails (a warning): the library's
// candidates stay.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_SYNTHESIZER_H
#define COLLC_LOWERING_SYNTHESIS_SYNTHESIZER_H

#include "compiler/Routing/RouteMemo.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/CollToSched/LowerCollectives.h"
#include "lowering/Synthesis/TreePacking.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace collc::synth {

/// The largest group synthesized (the packing's LP grows with n^2 edges).
constexpr int32_t kMaxSynthesisRanks = 128;

class Synthesizer {
public:
  /// `routes`: the topology's routes, shared with the simulations of the
  /// compile (outlives the synthesizer). `maxChannels`: the channels a rank
  /// may run at once (sched-verify's co-residency limit); packings are cut
  /// to fewer trees until theirs fit.
  Synthesizer(mlir::MLIRContext *context, const topo::Topology &topology,
              std::shared_ptr<RouteMemo> routes, uint32_t maxChannels);

  /// The synthesized candidates for `lowered` (see above).
  std::vector<const lowering::Algorithm *>
  candidates(const lowering::LoweredCollective &lowered);

  /// The packing behind a synthesized algorithm, or null.
  const TreePacking *packingOf(const lowering::Algorithm *algorithm) const;
  /// The packing made for `lowered` (chosen or not), or null when none was
  /// (another collective, too many ranks, a failure, --synthesize=off).
  const TreePacking *
  packingFor(const lowering::LoweredCollective &lowered) const;

private:
  const topo::Topology &topology_;
  uint32_t maxChannels_;
  std::shared_ptr<RouteMemo> routes_;
  lowering::AlgorithmLibrary library_;
  /// (collective, the group's mesh ranks, root).
  using Key = std::tuple<int, std::vector<int32_t>, int32_t>;
  static Key keyOf(const lowering::LoweredCollective &lowered);
  struct Made {
    std::vector<const lowering::Algorithm *> algorithms;
    TreePacking packing;
  };
  std::map<Key, Made> made_;
};

} // namespace collc::synth

#endif

//===- Synthesizer.h - schedules from the topology, for the lowering -*- C++
//-*-===//
//
// What convert-coll-to-sched's `synthesize` hook calls (the collc pipeline
// sets it unless --synthesize=off): for a broadcast or reduce, the tree
// packing of its group (the group of mesh rank 0, as every simulation)
// over the runtime's routes, written as an explicit sched.schedule
// (TreeSchedule.h); for an all_gather, reduce_scatter or all_reduce, the
// all-roots packings (ForestPacking.h) written three ways (ForestSchedule.h:
// a channel per tree edge, a channel per tree; RoundSchedule.h: in rounds),
// and equal-rate packings (packForestEven) in rounds and a channel per
// tree. They are parsed into a
// library of its own, made once per (collective, group, root) and compile.
// Other collectives get nothing yet. A group above kMaxSynthesisRanks
// ranks (or, for the all-roots packings, above the channels a tree per
// root needs) is not synthesized, and the collective says so (a remark),
// as does a packing that fails (a warning): the library's candidates stay.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_SYNTHESIZER_H
#define COLLC_LOWERING_SYNTHESIS_SYNTHESIZER_H

#include "compiler/Routing/RouteMemo.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"
#include "lowering/CollToSched/LowerCollectives.h"
#include "lowering/Synthesis/AllToAllFlows.h"
#include "lowering/Synthesis/ForestPacking.h"
#include "lowering/Synthesis/RingPacking.h"
#include "lowering/Synthesis/RoundSchedule.h"
#include "lowering/Synthesis/TreePacking.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace collc::synth {

/// The largest group synthesized (the packing's LP grows with n^2 edges).
constexpr int32_t kMaxSynthesisRanks = 128;

/// The equal-rate packings offered beside the LP's for all_gather,
/// reduce_scatter and all_reduce (packForestEven): this many trees per
/// root, each written in rounds (synthesized_even_trees, _2) and with a
/// channel per tree where they fit (synthesized_even_tree_channels, _2).
constexpr int kEvenPerRoot[] = {1, 2};

/// The most rings packed for all_gather, reduce_scatter and all_reduce
/// (packRings), each a stream on every rank.
constexpr int kMaxRings = 16;

/// Units an all_to_all part is split into among its paths.
constexpr int kAllToAllUnits = 8;

/// (collective, the group's mesh ranks, root, all_to_all_v's send counts):
/// what a packing depends on.
using PackingKey =
    std::tuple<int, std::vector<int32_t>, int32_t, std::vector<int64_t>>;

/// Packings remembered across the compiles of one topology: a sweep's sizes
/// share them (a packing does not depend on the size), as they share the
/// routes. Not thread-safe: used on the compile's main thread.
struct PackingMemo {
  explicit PackingMemo(const topo::Topology &topology) : topology(&topology) {}
  struct Entry {
    bool ok = false;
    /// Why not, when not ok: a remark (`remark`) or a warning.
    std::string why;
    bool remark = false;
    TreePacking packing;
    /// all_gather (FromRoot) and reduce_scatter (ToRoot) keys: the trees of
    /// every root.
    ForestPacking forest;
    /// The forest cut until a channel per tree edge fits (no trees: none
    /// does).
    ForestPacking fitted;
    /// Trees of equal rate, kEvenPerRoot[i] per root (packForestEven),
    /// where found.
    std::vector<ForestPacking> even;
    /// all_to_all keys: the flows.
    AllToAllFlows flows;
  };
  const topo::Topology *topology;
  std::map<PackingKey, Entry> entries;
  /// Rings per group (its mesh ranks; packRings; no rings where none was
  /// found), for all_gather, reduce_scatter and all_reduce alike.
  std::map<std::vector<int32_t>, RingPacking> rings;
};

/// A latency tree offered for a broadcast or reduce: its algorithm name,
/// parent per rank (-1 at the root) and the description its schedule has.
struct LatencyTreeMade {
  std::string algorithm;
  std::vector<int32_t> parent;
  std::string summary;
};

class Synthesizer {
public:
  /// `routes`: the topology's routes, shared with the simulations of the
  /// compile; `packings`: packings of earlier compiles of the topology (a
  /// sweep's), or null. `maxChannels`: the channels a rank may run at once
  /// (sched-verify's co-residency limit); packings are cut to fewer trees
  /// until theirs fit. `timeLimit`: seconds each packing's column
  /// generation may run (PackingOptions::timeLimit; 0: none); a packing
  /// stopped there is offered unproven, with a remark and a note on the
  /// report's chosen line.
  Synthesizer(mlir::MLIRContext *context, const topo::Topology &topology,
              std::shared_ptr<RouteMemo> routes,
              std::shared_ptr<PackingMemo> packings, uint32_t maxChannels,
              double timeLimit);

  /// The synthesized candidates for `lowered` (see above).
  std::vector<const lowering::Algorithm *>
  candidates(const lowering::LoweredCollective &lowered);

  /// The packing behind a synthesized algorithm, or null.
  const TreePacking *packingOf(const lowering::Algorithm *algorithm) const;
  /// The packing made for `lowered` (chosen or not), or null when none was
  /// (another collective, too many ranks, a failure, --synthesize=off).
  const TreePacking *
  packingFor(const lowering::LoweredCollective &lowered) const;
  /// The all-roots packings made for an all_gather, reduce_scatter or
  /// all_reduce (`reduce` then `gather` for all_reduce; one of them null
  /// for the others); false when none was.
  bool forestsFor(const lowering::LoweredCollective &lowered,
                  const ForestPacking **reduce,
                  const ForestPacking **gather) const;
  /// The least time of `lowered` at `bytes` per rank that any schedule
  /// over the runtime's routes can take, by the proven optimum of its
  /// packing (broadcast, reduce, all_gather, reduce_scatter; every chunk's
  /// copies or partial sums travel a spanning tree of GPU-to-GPU routes),
  /// with `why` its reason; all_reduce's: allReduceRoutedSeconds, where
  /// its forests were made; 0 where there is none (no packing, an optimum
  /// not proven).
  double routedBoundSeconds(const lowering::LoweredCollective &lowered,
                            double bytes, std::string *why) const;
  /// all_reduce's bound over the runtime's routes: the aggregate form
  /// (2(P-1) M between the P GPUs) and one GPU's M each way, over the
  /// bandwidth of the links the routes from and to each GPU take.
  double allReduceRoutedSeconds(const lowering::LoweredCollective &lowered,
                                double bytes, std::string *why) const;
  /// Why nothing was synthesized for `lowered` ("... ; choosing among the
  /// library's algorithms"), or "" where something was or it was not tried.
  std::string declined(const lowering::LoweredCollective &lowered) const;
  /// The all_to_all flows made for `lowered`, or null.
  const AllToAllFlows *
  flowsFor(const lowering::LoweredCollective &lowered) const;
  /// The round schedule written for `lowered`'s packing (broadcast and
  /// reduce: synthesized_trees; all_gather, reduce_scatter, all_reduce:
  /// synthesized_tree_rounds), or null; with `moreCopies`, broadcast's and
  /// reduce's synthesized_trees_copies (one copy more, streams shared).
  const RoundSchedule *roundsFor(const lowering::LoweredCollective &lowered,
                                 bool moreCopies = false) const;
  /// The equal-rate packings made for an all_gather, reduce_scatter or
  /// all_reduce (kEvenPerRoot's order; reduce's empty for all_gather,
  /// gather's for reduce_scatter) and their round schedules.
  void evenFor(const lowering::LoweredCollective &lowered,
               std::vector<const ForestPacking *> *reduce,
               std::vector<const ForestPacking *> *gather,
               std::vector<const RoundSchedule *> *rounds,
               const RoundSchedule **overlapped = nullptr) const;
  /// The rings written for an all_gather, reduce_scatter or all_reduce
  /// (synthesized_rings), or null.
  const RingPacking *ringsFor(const lowering::LoweredCollective &lowered) const;
  /// Whether `algorithm` is one this synthesizer made.
  bool made(const lowering::Algorithm *algorithm) const;

  /// A broadcast's or reduce's latency trees offered to selection
  /// (latencyTreesText), empty where there are none.
  std::vector<LatencyTreeMade>
  latencyTreesFor(const lowering::LoweredCollective &l) const;

private:
  const topo::Topology &topology_;
  uint32_t maxChannels_;
  double timeLimit_;
  std::shared_ptr<RouteMemo> routes_;
  std::shared_ptr<PackingMemo> packings_;
  lowering::AlgorithmLibrary library_;
  static PackingKey keyOf(const lowering::LoweredCollective &lowered);
  /// Packs the trees of `lowered` into `entry`.
  void pack(const lowering::LoweredCollective &lowered, const PackingKey &key,
            PackingMemo::Entry &entry);
  /// Packs the trees of every root (`direction`) of `lowered`'s group into
  /// `entry`.
  void packForestOf(const lowering::LoweredCollective &lowered,
                    TreeDirection direction, PackingMemo::Entry &entry);
  /// The memo's entry of `key`, packed when new by `fill`.
  const PackingMemo::Entry &
  entryOf(const PackingKey &key,
          const std::function<void(PackingMemo::Entry &)> &fill);
  /// The route latency (seconds) between every two ranks of `lowered`'s
  /// group, [a * n + b] (RoundSchedule::edgeLatency); empty where the
  /// group's GPUs are not known.
  std::vector<double>
  hopLatencies(const lowering::LoweredCollective &lowered) const;
  /// The rings of `lowered`'s group, packed on first use (packings_).
  const RingPacking &ringsOf(const lowering::LoweredCollective &lowered);
  /// The GPUs of `lowered`'s group, or false with `why` set.
  bool groupGpus(const lowering::LoweredCollective &lowered,
                 std::vector<topo::DeviceId> *gpus, std::string *why) const;
  /// This compile's schedules, by key; `packing` in packings_.
  /// Broadcast and reduce: the schedules of latencyTree's trees for the
  /// sizes of kLatencyTreeBytes, leaving out stars (the library's direct)
  /// and repeats; empty where none is left. The trees go to `made`.
  std::string latencyTreesText(const lowering::LoweredCollective &l,
                               const std::string &symbol,
                               std::vector<LatencyTreeMade> *made);

  struct Made;
  /// A packing stopped at the time limit: the remark, and the note the
  /// report's chosen line takes when the library wins.
  void timedOut(const lowering::LoweredCollective &l, int rounds, Made *made);

  struct Made {
    std::vector<const lowering::Algorithm *> algorithms;
    const TreePacking *packing = nullptr;
    const ForestPacking *reduce = nullptr, *gather = nullptr;
    const ForestPacking *reduceFitted = nullptr, *gatherFitted = nullptr;
    const std::vector<ForestPacking> *reduceEven = nullptr,
                                     *gatherEven = nullptr;
    /// The round schedules of the equal-rate packings written, in their
    /// order (synthesized_even_trees, _2).
    std::vector<RoundSchedule> evenRounds;
    /// all_reduce: the one-per-root equal-rate trees in rounds with the
    /// phases overlapped (synthesized_even_trees_overlapped), if written
    /// (ranks > 0).
    RoundSchedule evenOverlapped;
    /// The rings written as synthesized_rings, if any.
    const RingPacking *rings = nullptr;
    const AllToAllFlows *flows = nullptr;
    std::vector<LatencyTreeMade> latency;
    /// The round schedule written, if any (rounds.ranks > 0).
    RoundSchedule rounds;
    /// Broadcast and reduce: the same with one copy more, streams shared
    /// (synthesized_trees_copies), if written (ranks > 0).
    RoundSchedule moreCopies;
    /// Why nothing was made, when nothing was.
    std::string declined;
  };
  std::map<PackingKey, Made> made_;
};

} // namespace collc::synth

#endif

//===- TreePacking.h - throughput-optimal broadcast and reduce trees -*- C++
//-*-===//
//
// Synthesis, first piece: the spanning trees over a group's GPUs that move
// a broadcast (data from the root) or a reduce (data to the root) at the
// highest total rate the topology allows, each tree carrying its share of
// the buffer at its own rate.
//
// A tree edge u -> v is a transfer from GPU u to GPU v along the route
// libcollrt's data takes (compiler/Routing), so a tree never counts on a
// path the runtime cannot take; a GPU of the tree that forwards does so
// explicitly (it receives, then sends). The trees and their rates solve
//
//     max sum_T x_T   s.t.  sum_T n_T(l) x_T <= c(l) for every link l,
//
// n_T(l) the edges of T whose route crosses l, by column generation: an LP
// over the trees found so far (COIN-OR CLP) and, priced by its link duals
// y, the tree of least total price (a minimum-cost arborescence, LEMON),
// added while its price is below 1. At every round sum_l c(l) y(l) / (the
// least price) bounds the optimum from above, so the result says how far
// from optimal it is. The route-free bound, Edmonds' theorem on the
// topology graph (switches and GPUs forward): the minimum over the group's
// GPUs of the max-flow from the root (broadcast) or to it (reduce).
//
// docs/synthesis.md describes the method; TreeSchedule.h writes a packing
// as a sched program.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_TREEPACKING_H
#define COLLC_LOWERING_SYNTHESIS_TREEPACKING_H

#include "common/Topology/Topology.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collc {
class RouteMemo;
namespace synth {

/// Which way data moves along the trees.
enum class TreeDirection {
  FromRoot, ///< broadcast, scatter: parent -> child
  ToRoot,   ///< reduce, gather: child -> parent
};

struct PackedTree {
  /// By group rank: its parent in the tree, -1 for the root.
  std::vector<int32_t> parent;
  /// Bytes per second this tree carries.
  double rate = 0;
};

struct TreePacking {
  int32_t root = 0;
  TreeDirection direction = TreeDirection::FromRoot;
  /// Fastest first; every rate positive.
  std::vector<PackedTree> trees;
  /// The sum of the trees' rates, bytes per second: a buffer of M bytes
  /// takes M / rate (plus latencies) when each tree carries M x its share.
  double rate = 0;
  /// No packing of trees over the runtime's routes is faster (the column
  /// generation's dual bound; 0 where no round gave a finite one: the
  /// optimum is then not proven); rate / routedBound is the packing's share of
  /// the optimum.
  double routedBound = 0;
  /// Edmonds: the minimum over the group's GPUs of the max-flow between the
  /// root and it on the topology graph, ignoring the runtime's routes; and
  /// the GPU (device name) whose max-flow it is: the tight cut's side.
  double cutBound = 0;
  std::string cutGpu;
  /// The best packing found before it was cut to PackingOptions::maxTrees
  /// trees: its rate (bytes/s) and number of trees.
  double optimalRate = 0;
  int optimalTrees = 0;
  /// LP rounds.
  int rounds = 0;
  /// Whether the column generation stopped at PackingOptions::timeLimit.
  bool timedOut = false;
};

struct PackingOptions {
  /// Stop once rate >= (1 - gap) x routedBound.
  double gap = 1e-4;
  /// Most rounds (each adds one tree).
  int maxRounds = 400;
  /// Seconds the column generation may run (checked after every round);
  /// past it the packing found so far is kept, its optimum not proven, and
  /// the packing's `timedOut` says so. 0 or less: no limit (collc passes
  /// --synthesis-time-limit).
  double timeLimit = 0;
  /// Most trees in the result (each runs on a channel of its own): the
  /// fastest of the optimum, improved by swaps: a tree the set's LP prices
  /// as improving joins and the slowest leaves.
  int maxTrees = 16;
  /// The kept trees are made shallower (PackingGraph::shallower) as long
  /// as no rank gets more tree edges than this: half of the 32 channels a
  /// rank runs, so that the schedule can still copy every tree
  /// (RoundSchedule.h).
  int mostEdges = 16;
  /// Whether a set of trees (parent vectors) can run, e.g. its channels fit
  /// (TreeSchedule.h's treeChannels): while not, fewer are kept. Null: any.
  std::function<bool(const std::vector<std::vector<int32_t>> &)> fits;
};

/// Packs trees over the GPUs `gpus` (group rank -> GPU device of
/// `topology`) rooted at group rank `root`, with the routes of `routes`
/// (of the same topology; the simulator's memo, so that a compile routes
/// each pair once). Returns false with `error` set when the
/// group is empty or has duplicates, the root is out of range, a rank
/// cannot reach the root (or be reached), or the LP fails.
bool packTrees(const topo::Topology &topology, RouteMemo &routes,
               const std::vector<topo::DeviceId> &gpus, int32_t root,
               TreeDirection direction, const PackingOptions &options,
               TreePacking *packing, std::string *error);

/// The packing as text: the rate, the bounds and their ratio, then each
/// tree's rate, share of the buffer and edges ("0->1 1->2 ..."), by group
/// rank.
std::string describePacking(const TreePacking &packing);

/// The trees in Graphviz DOT: a node per group rank (the root doubled), an
/// edge per tree edge in the direction data moves, coloured and labelled by
/// tree ("t0 41%": its share of the bytes).
std::string packingDot(const TreePacking &packing, const std::string &name);

} // namespace synth
} // namespace collc

#endif

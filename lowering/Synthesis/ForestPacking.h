//===- ForestPacking.h - all_gather and reduce_scatter tree packings -*- C++
//-*-===//
//
// Synthesis, second piece: for all_gather (every rank broadcasts its part)
// and reduce_scatter (every part is reduced to its rank), a set of spanning
// trees per root, all roots' trees sharing the links, such that every
// root's part moves at the same rate lambda and lambda is as high as the
// topology allows:
//
//     max lambda  s.t.  sum_{T of root r} x_T >= lambda   for every root r,
//                       sum_T n_T(l) x_T <= c(l)           for every link l,
//
// n_T(l) the edges of T whose route (compiler/Routing, the runtime's)
// crosses l. Solved by column generation as TreePacking.h's single-root
// packing: an LP over the trees found so far (COIN-OR CLP) and, priced by
// its duals, per root the minimum-cost arborescence (LEMON), added while
// cheaper than the root row's dual. Any link prices y give the bound
//
//     lambda <= sum_l c(l) y(l) / sum_r (root r's cheapest tree under y),
//
// so the result says how far from the optimum over the runtime's routes it
// is. all_gather of M bytes per rank then takes M / lambda; reduce_scatter
// of parts of M bytes likewise over the reversed trees; all_reduce is the
// two in sequence (ForestSchedule.h).
//
// Each tree runs on a channel of its own (ForestSchedule.h), so the packing
// keeps at most PackingOptions::maxTrees trees, at least one per root: the
// optimum's slowest trees are dropped (from roots with more than one) and
// the rates of the rest solved again.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_FORESTPACKING_H
#define COLLC_LOWERING_SYNTHESIS_FORESTPACKING_H

#include "lowering/Synthesis/TreePacking.h"

namespace collc::synth {

struct ForestTree {
  int32_t root = 0;
  /// By group rank: its parent in the tree, -1 for the root.
  std::vector<int32_t> parent;
  /// Bytes per second of the root's part this tree carries.
  double rate = 0;
};

struct ForestPacking {
  /// FromRoot: all_gather (parts broadcast from their ranks); ToRoot:
  /// reduce_scatter (parts reduced to their ranks).
  TreeDirection direction = TreeDirection::FromRoot;
  int32_t ranks = 0;
  /// Grouped by root (0, 1, ...), fastest first within a root.
  std::vector<ForestTree> trees;
  /// The rate at which every root's part moves (bytes/s): the least over
  /// the roots of its trees' rates.
  double rate = 0;
  /// No packing over the runtime's routes gives every root more (the dual
  /// bound; 0 where not proven).
  double routedBound = 0;
  /// The packing before it was cut to maxTrees: its rate and trees.
  double optimalRate = 0;
  int optimalTrees = 0;
  int rounds = 0;
  /// Whether the column generation stopped at PackingOptions::timeLimit.
  bool timedOut = false;
  /// packForestEven's: the trees per root, all of one rate (0: the LP's
  /// packing).
  int equalPerRoot = 0;

  /// The trees of `root`, as indices into `trees`.
  std::vector<size_t> treesOf(int32_t root) const;
};

/// Packs trees for every rank of `gpus` (group rank -> GPU device of
/// `topology`) as root, over the routes of `routes`. options.maxTrees is
/// the most trees in all. `fitted`, when not null, gets the packing cut
/// further (never below a tree per root) until options.fits accepts its
/// trees, or no trees where none does.
/// Returns false with `error` set when the group is smaller than 2, has
/// duplicates, needs more trees than maxTrees (one per root), a rank is
/// unreachable, or the LP fails.
bool packForest(const topo::Topology &topology, RouteMemo &routes,
                const std::vector<topo::DeviceId> &gpus,
                TreeDirection direction, const PackingOptions &options,
                ForestPacking *packing, ForestPacking *fitted,
                std::string *error);

/// A packing of `perRoot` trees per root, all of one rate: each link
/// carries whole tree edges, and every tree moves the least over its links
/// of capacity / edges. Links are shared fairly (a thread block per
/// stream, max-min in the simulator), so such trees all get at least that
/// rate, where the LP's trees of unequal rates would need shares
/// proportional to their rates that a fair link does not give: the light
/// trees run ahead, the heavy ones finish late on links left half idle.
/// Found by rip-up and reroute: every tree in turn is replaced by its
/// root's cheapest arborescence (LEMON) under the marginal growth of an
/// exponential penalty of the link loads, the best set over 30 passes kept.
/// `lp` (packForest's packing of the same group and direction) scales the
/// penalty and gives the optimum the result is measured against. `start`,
/// when not null, is an equal-rate packing of the same group and direction
/// with a divisor of perRoot trees per root: the search starts from its
/// trees repeated (so it is never worse than them), else from each root's
/// cheapest tree under the loads so far.
bool packForestEven(const topo::Topology &topology, RouteMemo &routes,
                    const std::vector<topo::DeviceId> &gpus,
                    TreeDirection direction, int perRoot,
                    const ForestPacking &lp, const ForestPacking *start,
                    ForestPacking *packing, std::string *error);

/// The packing as text: the per-root rate, the bound and their ratio, then
/// each tree's root, rate, share of its root's part and edges.
std::string describeForest(const ForestPacking &packing);

/// The trees in Graphviz DOT, one cluster per root.
std::string forestDot(const ForestPacking &packing, const std::string &name);

} // namespace collc::synth

#endif

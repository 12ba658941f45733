//===- PackingGraph.h - the candidate tree edges of a packing ---*- C++ -*-===//
//
// What the tree packings (TreePacking.h, ForestPacking.h) price: every
// ordered pair of the group's GPUs as a candidate tree edge, with the links
// (LP rows) the runtime's route for it crosses, and the cheapest spanning
// arborescence from a root under prices per row (LEMON's
// MinCostArborescence over the pairs).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_PACKINGGRAPH_H
#define COLLC_LOWERING_SYNTHESIS_PACKINGGRAPH_H

#include "lowering/Synthesis/TreePacking.h"

#include <memory>
#include <string>
#include <vector>

namespace collc::synth {

/// Capacities and rates in the LPs are in GB/s, so that their coefficients
/// stay near 1.
constexpr double kRateUnit = 1e9;

/// Whether `gpus` are distinct GPUs of `topology`; else `error` says so.
bool checkGroup(const topo::Topology &topology,
                const std::vector<topo::DeviceId> &gpus, std::string *error);

class PackingGraph {
public:
  /// Checks the group (at least 2 distinct GPUs of `topology`) and routes
  /// every pair: u -> v carries data from u to v (FromRoot) or from v to u
  /// (ToRoot, a reduce tree's edge, data child -> parent). False with
  /// `error` set when the group is bad or a pair has no route.
  bool build(const topo::Topology &topology, RouteMemo &routes,
             const std::vector<topo::DeviceId> &gpus, TreeDirection direction,
             std::string *error);
  PackingGraph();
  ~PackingGraph();

  int32_t ranks() const { return n_; }
  /// The LP rows: one per link some pair's route crosses, GB/s.
  const std::vector<double> &capacity() const { return capacity_; }

  /// The arborescence from `root` of least total price (`price` per row),
  /// with `shallow` ties broken towards shallow trees over short routes:
  /// its parent vector and price, or -1 where some rank is unreachable.
  double cheapest(const std::vector<double> &price, int32_t root,
                  std::vector<int32_t> *parent, bool shallow = true);
  /// A tree's column: the rows its edges cross and how many edges cross
  /// each.
  void column(const std::vector<int32_t> &parent, std::vector<int> *rows,
              std::vector<double> *counts) const;
  /// Makes trees shallower without moving any link past its capacity:
  /// `trees[t]` (a parent vector rooted at `roots[t]`) carries `rates[t]`
  /// (GB/s, as the capacities); shallowest first, every rank of every tree
  /// moves (with its subtree) under the shallowest rank whose route to it
  /// has the tree's rate to spare on every link it adds (among equally deep
  /// ones the shortest route). The trees' rates stay feasible: a deep tree
  /// fills its pipeline one hop at a time, so depth costs time that rates
  /// do not show. A move never gives a rank more than `mostEdges` tree
  /// edges in all (each takes a stream at both ends). Returns how many
  /// ranks moved.
  int shallower(std::vector<std::vector<int32_t>> &trees,
                const std::vector<int32_t> &roots,
                const std::vector<double> &rates, int mostEdges) const;
  /// The rows the route of tree edge from -> to crosses (each once).
  const std::vector<int> &rowsOf(int32_t from, int32_t to) const {
    return arcs_[size_t(arcOf_[size_t(from) * size_t(n_) + size_t(to)])].rows;
  }
  /// The rates (GB/s) links shared fairly give trees `parents` (-1 at
  /// their roots), a stream per tree edge (maxMinRates, RingPacking.h):
  /// every tree's rate rises until a link one of its edges crosses is
  /// full. What a schedule's shares should follow where the packing's
  /// rates differ from them.
  std::vector<double>
  fairRates(const std::vector<std::vector<int32_t>> &parents) const;
  /// A tree's price under `price`.
  double priceOf(const std::vector<int32_t> &parent,
                 const std::vector<double> &price) const;

private:
  struct Arc {
    int32_t parent = 0, child = 0;
    std::vector<int> rows;
  };
  int32_t n_ = 0;
  std::vector<double> capacity_;
  std::vector<Arc> arcs_;
  std::vector<int> arcOf_; ///< [parent * n + child]
  struct Lemon;
  std::unique_ptr<Lemon> lemon_;
};

} // namespace collc::synth

#endif

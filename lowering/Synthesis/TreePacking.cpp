//===- TreePacking.cpp - throughput-optimal broadcast and reduce trees ----===//
#include "lowering/Synthesis/TreePacking.h"

#include "compiler/Routing/RouteMemo.h"
#include "lowering/Synthesis/PackingGraph.h"

#include <ClpSimplex.hpp>
#include <lemon/list_graph.h>
#include <lemon/preflow.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace collc::synth {

namespace {

constexpr double kUnit = kRateUnit;
/// The share of the optimum's rate that fewer trees may give up.
constexpr double kFewerTreesLoss = 0.01;

/// Edmonds: the minimum over the group of the max-flow between the root and
/// each GPU on the topology graph (every device forwards).
void cutBound(const topo::Topology &topology,
              const std::vector<topo::DeviceId> &gpus, int32_t root,
              TreeDirection direction, TreePacking *packing) {
  lemon::ListDigraph g;
  std::vector<lemon::ListDigraph::Node> nodes;
  nodes.reserve(topology.devices().size());
  for (size_t d = 0; d < topology.devices().size(); ++d)
    nodes.push_back(g.addNode());
  lemon::ListDigraph::ArcMap<double> capacity(g);
  for (size_t l = 0; l < topology.links().size(); ++l) {
    const topo::Link &link = topology.link(topo::LinkId(l));
    lemon::ListDigraph::Arc a =
        g.addArc(nodes[size_t(link.src)], nodes[size_t(link.dst)]);
    capacity[a] = link.bandwidth / kUnit;
  }
  double best = std::numeric_limits<double>::infinity();
  std::string where;
  for (size_t r = 0; r < gpus.size(); ++r) {
    if (int32_t(r) == root)
      continue;
    lemon::ListDigraph::Node s = nodes[size_t(gpus[size_t(root)])],
                             t = nodes[size_t(gpus[r])];
    if (direction == TreeDirection::ToRoot)
      std::swap(s, t);
    lemon::Preflow<lemon::ListDigraph, lemon::ListDigraph::ArcMap<double>> flow(
        g, capacity, s, t);
    flow.runMinCut();
    double value = flow.flowValue();
    if (value < best) {
      best = value;
      where = topology.device(gpus[r]).name;
    }
  }
  packing->cutBound = best * kUnit;
  packing->cutGpu = where;
}

} // namespace

bool packTrees(const topo::Topology &topology, RouteMemo &routes,
               const std::vector<topo::DeviceId> &gpus, int32_t root,
               TreeDirection direction, const PackingOptions &options,
               TreePacking *packing, std::string *error) {
  *packing = TreePacking();
  packing->root = root;
  packing->direction = direction;
  const int32_t n = int32_t(gpus.size());
  if (n < 2) {
    *error = "tree packing needs a group of at least 2 GPUs, got " +
             std::to_string(n);
    return false;
  }
  if (root < 0 || root >= n) {
    *error = "root " + std::to_string(root) +
             " is not a rank of the group of " + std::to_string(n);
    return false;
  }
  // Candidate edges: every ordered pair, each with the links its route
  // crosses (PackingGraph; no tree takes an edge into the root).
  PackingGraph graph;
  if (!graph.build(topology, routes, gpus, direction, error))
    return false;
  const std::vector<double> &rowCapacity = graph.capacity();
  // The tree of least total price under `price` (per row): its parent
  // vector and price (-1: some rank unreachable). No tie-break: the first
  // optimal arborescence LEMON finds.
  auto cheapest = [&](const std::vector<double> &price,
                      std::vector<int32_t> *parent) -> double {
    return graph.cheapest(price, root, parent, /*shallow=*/false);
  };
  auto column = [&](const std::vector<int32_t> &parent, std::vector<int> *rows,
                    std::vector<double> *counts) {
    graph.column(parent, rows, counts);
  };

  // An LP of the link rows, maximizing the total rate of its columns.
  auto setUp = [&](ClpSimplex &model) {
    model.setLogLevel(0);
    model.resize(int(rowCapacity.size()), 0);
    for (size_t row = 0; row < rowCapacity.size(); ++row)
      model.setRowBounds(int(row), -COIN_DBL_MAX, rowCapacity[row]);
    model.setOptimizationDirection(-1);
  };
  auto solved = [&](ClpSimplex &model, bool warm) {
    model.primal(warm ? 1 : 0);
    if (model.isProvenOptimal())
      return true;
    *error = "the tree LP did not solve (CLP status " +
             std::to_string(model.status()) + ")";
    return false;
  };
  ClpSimplex lp;
  setUp(lp);

  std::vector<std::vector<int32_t>> trees;
  std::set<std::vector<int32_t>> known;
  std::vector<int> rows;
  std::vector<double> counts;
  auto addTree = [&](const std::vector<int32_t> &parent) -> bool {
    if (!known.insert(parent).second)
      return false;
    column(parent, &rows, &counts);
    lp.addColumn(int(rows.size()), rows.data(), counts.data(), 0.0,
                 COIN_DBL_MAX, 1.0);
    trees.push_back(parent);
    return true;
  };
  // A tree's price under `y`: the sum over its edges' links.
  auto priceOf = [&](const std::vector<int32_t> &parent,
                     const std::vector<double> &y) {
    return graph.priceOf(parent, y);
  };

  // The first tree: cheapest by 1 / bandwidth.
  std::vector<double> y(rowCapacity.size());
  for (size_t row = 0; row < y.size(); ++row)
    y[row] = 1 / rowCapacity[row];
  std::vector<int32_t> parent;
  if (cheapest(y, &parent) < 0) {
    *error = "some GPU of the group cannot be reached from the root";
    return false;
  }
  addTree(parent);

  // Column generation with dual smoothing (Wentges): the tree is priced at
  // a mix of the LP's duals and the best dual point so far (`center`,
  // scaled so that every tree costs at least 1: its sum of c y is an upper
  // bound), which damps the duals' oscillation; a tree that the LP's own
  // duals do not find improving moves the mix toward them.
  std::vector<double> center, mixed(rowCapacity.size());
  double bound = std::numeric_limits<double>::infinity();
  double value = 0;
  auto boundOf = [&](const std::vector<double> &dual) {
    double total = 0;
    for (size_t row = 0; row < dual.size(); ++row)
      total += rowCapacity[row] * dual[row];
    return total;
  };
  const auto started = std::chrono::steady_clock::now();
  auto overTime = [&] {
    return options.timeLimit <= 0
               ? false
               : std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - started)
                         .count() >= options.timeLimit;
  };
  for (int round = 1;; ++round) {
    if (!solved(lp, true))
      return false;
    value = lp.objectiveValue();
    packing->rounds = round;
    const double *dual = lp.dualRowSolution();
    for (size_t row = 0; row < y.size(); ++row)
      y[row] = std::max(0.0, std::fabs(dual[row]));
    if (round > options.maxRounds || value >= (1 - options.gap) * bound)
      break;
    if (overTime()) {
      packing->timedOut = true;
      break;
    }
    bool added = false;
    for (double alpha = center.empty() ? 0.0 : 0.8;;
         alpha = alpha > 0.1 ? alpha / 2 : 0.0) {
      for (size_t row = 0; row < y.size(); ++row)
        mixed[row] =
            alpha > 0 ? alpha * center[row] + (1 - alpha) * y[row] : y[row];
      double least = cheapest(mixed, &parent);
      if (least > 0) {
        double candidate = boundOf(mixed) / least;
        if (candidate < bound) {
          bound = candidate;
          center = mixed;
          for (double &c : center)
            c /= least;
        }
      }
      if (priceOf(parent, y) < 1 - 1e-9 && addTree(parent)) {
        added = true;
        break;
      }
      if (alpha == 0.0)
        break;
    }
    if (!added) { // no tree improves on the LP: it is optimal
      bound = std::min(bound, value);
      break;
    }
  }

  // The trees the optimum uses.
  std::vector<std::vector<int32_t>> kept;
  std::vector<double> rates;
  {
    const double *x = lp.primalColumnSolution();
    for (size_t t = 0; t < trees.size(); ++t)
      if (x[t] > 1e-9 * std::max(1.0, value)) {
        kept.push_back(trees[t]);
        rates.push_back(x[t]);
      }
  }
  packing->optimalRate = value * kUnit;
  packing->optimalTrees = int(kept.size());

  // The best rates of a set of trees (an LP over them alone); trees it
  // leaves unused are dropped.
  auto rateSet = [&](std::vector<std::vector<int32_t>> &set,
                     std::vector<double> &setRates) -> bool {
    ClpSimplex subset;
    setUp(subset);
    for (const std::vector<int32_t> &tree : set) {
      column(tree, &rows, &counts);
      subset.addColumn(int(rows.size()), rows.data(), counts.data(), 0.0,
                       COIN_DBL_MAX, 1.0);
    }
    if (!solved(subset, false))
      return false;
    const double *x = subset.primalColumnSolution();
    setRates.assign(x, x + set.size());
    for (size_t t = set.size(); t-- > 0;)
      if (setRates[t] <= 1e-9 * std::max(1.0, subset.objectiveValue())) {
        set.erase(set.begin() + long(t));
        setRates.erase(setRates.begin() + long(t));
      }
    return true;
  };
  auto total = [](const std::vector<double> &r) {
    double sum = 0;
    for (double v : r)
      sum += v;
    return sum;
  };

  // A sequence of spread-out trees (multiplicative weights as in Garg and
  // Koenemann's packing: each tree's links get longer by how much of them
  // it would fill alone), made once, when first needed: a cut to `most`
  // trees uses its first 8 x most.
  const size_t mostTrees = size_t(std::max(1, options.maxTrees));
  std::vector<std::vector<int32_t>> spreadOut;
  bool spreadMade = false;
  auto spreadOutTrees = [&]() -> const std::vector<std::vector<int32_t>> & {
    if (spreadMade)
      return spreadOut;
    spreadMade = true;
    std::vector<double> length(rowCapacity.size());
    for (size_t row = 0; row < length.size(); ++row)
      length[row] = 1 / rowCapacity[row];
    for (size_t i = 0; i < 8 * mostTrees; ++i) {
      if (cheapest(length, &parent) < 0)
        break;
      column(parent, &rows, &counts);
      double alone = std::numeric_limits<double>::infinity();
      for (size_t r = 0; r < rows.size(); ++r)
        alone = std::min(alone, rowCapacity[size_t(rows[r])] / counts[r]);
      for (size_t r = 0; r < rows.size(); ++r)
        length[size_t(rows[r])] *=
            std::exp(0.3 * counts[r] * alone / rowCapacity[size_t(rows[r])]);
      spreadOut.push_back(parent);
    }
    return spreadOut;
  };

  const std::vector<std::vector<int32_t>> optimum = kept;
  const std::vector<double> optimumRates = rates;
  // At most `most` trees: the optimum's, or fewer as below.
  auto cut = [&](size_t most) -> bool {
    kept = optimum;
    rates = optimumRates;
    if (kept.size() > most) {
      // At most `most` trees, each on a channel of its own; the faster of
      // two ways:
      // (1) the optimum's trees and the first 8 x most spread-out ones, the
      //     slowest dropped one at a time and the others' rates solved
      //     again;
      std::vector<std::vector<int32_t>> dropped = kept;
      std::set<std::vector<int32_t>> inPool(kept.begin(), kept.end());
      const std::vector<std::vector<int32_t>> &pool = spreadOutTrees();
      for (size_t i = 0; i < 8 * most && i < pool.size(); ++i)
        if (inPool.insert(pool[i]).second)
          dropped.push_back(pool[i]);
      std::vector<double> droppedRates;
      if (!rateSet(dropped, droppedRates))
        return false;
      while (dropped.size() > most) {
        size_t slowest =
            size_t(std::min_element(droppedRates.begin(), droppedRates.end()) -
                   droppedRates.begin());
        dropped.erase(dropped.begin() + long(slowest));
        if (!rateSet(dropped, droppedRates))
          return false;
      }
      // (2) `most` trees of equal weight that spread over the links: each
      //     chosen, then chosen again while the others stay, as the
      //     cheapest tree under prices that grow exponentially with how
      //     loaded a link already is (the trees over it per GB/s), then
      //     their rates solved; at several steepnesses.
      kept = dropped;
      rates = droppedRates;
      for (double steep : {3.0, 6.0, 12.0, 2.0, 4.0, 8.0, 16.0}) {
        if (total(rates) >= (1 - options.gap) * value)
          break;
        std::vector<std::vector<int32_t>> spread(most);
        std::vector<double> load(rowCapacity.size(), 0);
        auto charge = [&](const std::vector<int32_t> &tree, double sign) {
          column(tree, &rows, &counts);
          for (size_t r = 0; r < rows.size(); ++r)
            load[size_t(rows[r])] +=
                sign * counts[r] / rowCapacity[size_t(rows[r])];
        };
        std::vector<double> prices(rowCapacity.size());
        auto pick = [&](std::vector<int32_t> *tree) -> bool {
          double peak = 1e-12;
          for (double l : load)
            peak = std::max(peak, l);
          for (size_t row = 0; row < prices.size(); ++row)
            prices[row] = std::exp(steep * load[row] / peak) / rowCapacity[row];
          return cheapest(prices, tree) >= 0;
        };
        for (int pass = 0; pass < 4; ++pass)
          for (size_t t = 0; t < most; ++t) {
            if (pass > 0)
              charge(spread[t], -1);
            if (!pick(&spread[t])) {
              *error = "some GPU of the group cannot be reached from the root";
              return false;
            }
            charge(spread[t], +1);
          }
        std::sort(spread.begin(), spread.end());
        spread.erase(std::unique(spread.begin(), spread.end()), spread.end());
        std::vector<double> spreadRates;
        if (!rateSet(spread, spreadRates))
          return false;
        if (total(spreadRates) > total(rates)) {
          kept = spread;
          rates = spreadRates;
        }
      }
    }
    return true;
  };
  // The fewest trees that keep all but kFewerTreesLoss of the optimum and
  // fit (every tree takes streams on every rank, so fewer trees leave room
  // to copy them: RoundSchedule.h); else the most that fit, a quarter fewer
  // each time.
  bool chosen = false;
  for (size_t most : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
    if (most > mostTrees)
      break;
    if (!cut(most))
      return false;
    if (total(rates) >= (1 - kFewerTreesLoss) * value &&
        (!options.fits || options.fits(kept))) {
      chosen = true;
      break;
    }
  }
  for (size_t most = mostTrees; !chosen;
       most = std::max<size_t>(1, most * 3 / 4)) {
    if (!cut(most))
      return false;
    if (!options.fits || options.fits(kept) || most == 1)
      break;
  }
  // Shallower trees at the same rates (PackingGraph::shallower).
  graph.shallower(kept, std::vector<int32_t>(kept.size(), root), rates,
                  options.mostEdges);
  for (size_t t = 0; t < kept.size(); ++t)
    packing->trees.push_back({kept[t], rates[t] * kUnit});
  std::sort(
      packing->trees.begin(), packing->trees.end(),
      [](const PackedTree &a, const PackedTree &b) { return a.rate > b.rate; });
  packing->rate = 0;
  for (const PackedTree &t : packing->trees)
    packing->rate += t.rate;
  // No finite bound: every round had a tree of price 0 (degenerate
  // duals); the optimum is then not proven (routedBound 0).
  packing->routedBound = std::isfinite(bound) ? bound * kUnit : 0;
  packing->rounds = std::min(packing->rounds, options.maxRounds);
  if (packing->routedBound > 0)
    packing->routedBound = std::max(packing->routedBound, packing->optimalRate);
  cutBound(topology, gpus, root, direction, packing);
  return true;
}

std::string packingDot(const TreePacking &p, const std::string &name) {
  static const char *colors[] = {"black",  "red",       "blue",  "darkgreen",
                                 "orange", "purple",    "brown", "magenta",
                                 "cyan4",  "gray40",    "gold3", "navy",
                                 "olive",  "firebrick", "teal",  "indigo"};
  std::string out = "digraph \"" + name + "\" {\n  rankdir=TB;\n";
  size_t n = p.trees.empty() ? 0 : p.trees.front().parent.size();
  for (size_t r = 0; r < n; ++r)
    out += "  r" + std::to_string(r) + " [label=\"" + std::to_string(r) + "\"" +
           (int32_t(r) == p.root ? ", shape=doublecircle" : ", shape=circle") +
           "];\n";
  char label[64];
  for (size_t t = 0; t < p.trees.size(); ++t) {
    std::snprintf(label, sizeof label, "t%zu %.0f%%", t,
                  100 * p.trees[t].rate / p.rate);
    for (size_t r = 0; r < n; ++r) {
      int32_t parent = p.trees[t].parent[r];
      if (parent < 0)
        continue;
      std::string from = "r" + std::to_string(parent),
                  to = "r" + std::to_string(r);
      if (p.direction == TreeDirection::ToRoot)
        std::swap(from, to);
      out += "  " + from + " -> " + to + " [color=" + colors[t % 16] +
             ", label=\"" + label + "\"];\n";
    }
  }
  return out + "}\n";
}

std::string describePacking(const TreePacking &p) {
  char line[512], optimum[256];
  std::string out;
  if (p.routedBound <= 0)
    std::snprintf(optimum, sizeof optimum,
                  "optimum over the runtime's routes not proven (the %d "
                  "trees found carry %.2f GB/s)",
                  p.optimalTrees, p.optimalRate / 1e9);
  else if (p.optimalRate >= (1 - 1e-3) * p.routedBound)
    std::snprintf(optimum, sizeof optimum,
                  "%.1f%% of the optimum over the runtime's routes (%.2f "
                  "GB/s, with %d trees)",
                  100 * p.rate / p.routedBound, p.routedBound / 1e9,
                  p.optimalTrees);
  else
    std::snprintf(optimum, sizeof optimum,
                  "%.1f%% of the best bound over the runtime's routes (at "
                  "most %.2f GB/s; the %d trees found carry %.2f GB/s)",
                  100 * p.rate / p.routedBound, p.routedBound / 1e9,
                  p.optimalTrees, p.optimalRate / 1e9);
  std::snprintf(line, sizeof line,
                "%s trees from rank %d: %zu trees, %.2f GB/s, %s; cut bound "
                "%.2f GB/s (max-flow %s %s); %d LP rounds\n",
                p.direction == TreeDirection::FromRoot ? "broadcast" : "reduce",
                p.root, p.trees.size(), p.rate / 1e9, optimum, p.cutBound / 1e9,
                p.direction == TreeDirection::FromRoot ? "to" : "from",
                p.cutGpu.c_str(), p.rounds);
  out += line;
  if (p.timedOut) {
    out.pop_back();
    out += " (stopped at its time limit)\n";
  }
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const PackedTree &tree = p.trees[t];
    std::snprintf(line, sizeof line,
                  "  tree %zu: %.2f GB/s, %.1f%% of the "
                  "bytes:",
                  t, tree.rate / 1e9, 100 * tree.rate / p.rate);
    out += line;
    for (size_t r = 0; r < tree.parent.size(); ++r)
      if (tree.parent[r] >= 0)
        out +=
            " " +
            (p.direction == TreeDirection::FromRoot
                 ? std::to_string(tree.parent[r]) + "->" + std::to_string(r)
                 : std::to_string(r) + "->" + std::to_string(tree.parent[r]));
    out += "\n";
  }
  return out;
}

} // namespace collc::synth

//===- ForestPacking.cpp - all_gather and reduce_scatter tree packings ----===//
#include "lowering/Synthesis/ForestPacking.h"

#include "lowering/Synthesis/PackingGraph.h"

#include <ClpSimplex.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace collc::synth {

std::vector<size_t> ForestPacking::treesOf(int32_t root) const {
  std::vector<size_t> out;
  for (size_t t = 0; t < trees.size(); ++t)
    if (trees[t].root == root)
      out.push_back(t);
  return out;
}

namespace {

/// The LP of a set of trees: rows 0..L-1 the links (<= capacity), rows
/// L..L+n-1 the roots (lambda - sum of the root's trees <= 0); column 0 is
/// lambda, column 1 + t tree t.
class ForestLp {
public:
  ForestLp(PackingGraph &graph) : graph_(graph) {
    const std::vector<double> &capacity = graph.capacity();
    links_ = int(capacity.size());
    lp_.setLogLevel(0);
    lp_.resize(links_ + graph.ranks(), 0);
    for (int row = 0; row < links_; ++row)
      lp_.setRowBounds(row, -COIN_DBL_MAX, capacity[size_t(row)]);
    for (int32_t r = 0; r < graph.ranks(); ++r)
      lp_.setRowBounds(links_ + r, -COIN_DBL_MAX, 0);
    lp_.setOptimizationDirection(-1);
    std::vector<int> rows;
    std::vector<double> ones(size_t(graph.ranks()), 1.0);
    for (int32_t r = 0; r < graph.ranks(); ++r)
      rows.push_back(links_ + r);
    lp_.addColumn(int(rows.size()), rows.data(), ones.data(), 0.0, COIN_DBL_MAX,
                  1.0);
  }
  void add(int32_t root, const std::vector<int32_t> &parent) {
    graph_.column(parent, &rows_, &counts_);
    rows_.push_back(links_ + root);
    counts_.push_back(-1.0);
    lp_.addColumn(int(rows_.size()), rows_.data(), counts_.data(), 0.0,
                  COIN_DBL_MAX, 0.0);
  }
  bool solve(bool warm, std::string *error) {
    lp_.primal(warm ? 1 : 0);
    if (lp_.isProvenOptimal())
      return true;
    *error = "the all-roots tree LP did not solve (CLP status " +
             std::to_string(lp_.status()) + ")";
    return false;
  }
  double lambda() const { return lp_.objectiveValue(); }
  /// Tree t's rate.
  double rate(size_t t) const { return lp_.primalColumnSolution()[t + 1]; }
  double linkDual(int row) const {
    return std::max(0.0, std::fabs(lp_.dualRowSolution()[row]));
  }
  double rootDual(int32_t r) const {
    return std::max(0.0, std::fabs(lp_.dualRowSolution()[links_ + r]));
  }
  int links() const { return links_; }

private:
  PackingGraph &graph_;
  ClpSimplex lp_;
  int links_ = 0;
  std::vector<int> rows_;
  std::vector<double> counts_;
};

struct Tree {
  int32_t root;
  std::vector<int32_t> parent;
};

} // namespace

bool packForest(const topo::Topology &topology, RouteMemo &routes,
                const std::vector<topo::DeviceId> &gpus,
                TreeDirection direction, const PackingOptions &options,
                ForestPacking *packing, ForestPacking *fitted,
                std::string *error) {
  *packing = ForestPacking();
  packing->direction = direction;
  PackingGraph graph;
  if (!graph.build(topology, routes, gpus, direction, error))
    return false;
  const int32_t n = graph.ranks();
  packing->ranks = n;
  if (options.maxTrees < n) {
    *error = "a tree per root needs " + std::to_string(n) +
             " channels on every rank, more than the " +
             std::to_string(options.maxTrees) + " available";
    return false;
  }
  const std::vector<double> &capacity = graph.capacity();
  const size_t links = capacity.size();

  ForestLp lp(graph);
  std::vector<Tree> trees;
  std::set<std::pair<int32_t, std::vector<int32_t>>> known;
  auto addTree = [&](int32_t root, const std::vector<int32_t> &parent) {
    if (!known.insert({root, parent}).second)
      return false;
    lp.add(root, parent);
    trees.push_back({root, parent});
    return true;
  };
  // The first trees: each root's cheapest by 1 / bandwidth.
  std::vector<double> y(links);
  for (size_t row = 0; row < links; ++row)
    y[row] = 1 / capacity[row];
  std::vector<int32_t> parent;
  for (int32_t r = 0; r < n; ++r) {
    if (graph.cheapest(y, r, &parent) < 0) {
      *error = "some GPU of the group cannot be reached from rank " +
               std::to_string(r);
      return false;
    }
    addTree(r, parent);
  }

  // Column generation: per root the cheapest tree under the LP's link
  // duals, added while cheaper than the root's dual; every round's duals
  // bound the optimum.
  double bound = std::numeric_limits<double>::infinity();
  const auto started = std::chrono::steady_clock::now();
  for (int round = 1;; ++round) {
    if (!lp.solve(true, error))
      return false;
    const double value = lp.lambda();
    packing->rounds = round;
    for (size_t row = 0; row < links; ++row)
      y[row] = lp.linkDual(int(row));
    if (round > options.maxRounds || value >= (1 - options.gap) * bound)
      break;
    if (options.timeLimit > 0 && std::chrono::duration<double>(
                                     std::chrono::steady_clock::now() - started)
                                         .count() >= options.timeLimit) {
      packing->timedOut = true;
      break;
    }
    double cy = 0, least = 0;
    for (size_t row = 0; row < links; ++row)
      cy += capacity[row] * y[row];
    bool added = false;
    for (int32_t r = 0; r < n; ++r) {
      double price = graph.cheapest(y, r, &parent);
      least += price;
      if (price < lp.rootDual(r) * (1 - 1e-9) && addTree(r, parent))
        added = true;
    }
    if (least > 0)
      bound = std::min(bound, cy / least);
    if (!added) {
      bound = std::min(bound, value);
      break;
    }
  }
  packing->optimalRate = lp.lambda() * kRateUnit;

  // The optimum's trees; then the slowest dropped (from roots that keep
  // another) until at most maxTrees remain, the rest's rates solved again.
  std::vector<Tree> kept;
  std::vector<double> rates;
  const double tiny = 1e-9 * std::max(1.0, lp.lambda());
  for (size_t t = 0; t < trees.size(); ++t)
    if (lp.rate(t) > tiny) {
      kept.push_back(trees[t]);
      rates.push_back(lp.rate(t));
    }
  packing->optimalTrees = int(kept.size());
  auto resolve = [&]() -> bool {
    ForestLp subset(graph);
    for (const Tree &t : kept)
      subset.add(t.root, t.parent);
    if (!subset.solve(false, error))
      return false;
    for (size_t t = 0; t < kept.size(); ++t)
      rates[t] = subset.rate(t);
    return true;
  };
  // Drops the slowest trees (of roots that keep another) until at most
  // `most` remain, solving the rest's rates again.
  auto cutTo = [&](size_t most) -> bool {
    while (kept.size() > most) {
      std::vector<int> perRoot(size_t(n), 0);
      for (const Tree &t : kept)
        ++perRoot[size_t(t.root)];
      // A quarter of the excess at a time (at least one), slowest first.
      size_t drop = std::max<size_t>(1, (kept.size() - most) / 4);
      std::vector<size_t> order(kept.size());
      for (size_t t = 0; t < order.size(); ++t)
        order[t] = t;
      std::sort(order.begin(), order.end(),
                [&](size_t a, size_t b) { return rates[a] < rates[b]; });
      std::vector<bool> gone(kept.size(), false);
      for (size_t t : order) {
        if (drop == 0)
          break;
        if (perRoot[size_t(kept[t].root)] < 2)
          continue;
        --perRoot[size_t(kept[t].root)];
        gone[t] = true;
        --drop;
      }
      if (std::find(gone.begin(), gone.end(), true) == gone.end())
        return true; // one tree per root left
      std::vector<Tree> next;
      for (size_t t = 0; t < kept.size(); ++t)
        if (!gone[t])
          next.push_back(kept[t]);
      kept = std::move(next);
      rates.assign(kept.size(), 0);
      if (!resolve())
        return false;
    }
    return true;
  };
  auto finish = [&](ForestPacking *out) {
    out->trees.clear();
    for (size_t t = 0; t < kept.size(); ++t)
      if (rates[t] > tiny)
        out->trees.push_back({kept[t].root, kept[t].parent, rates[t]});
    std::stable_sort(out->trees.begin(), out->trees.end(),
                     [](const ForestTree &a, const ForestTree &b) {
                       return a.root != b.root ? a.root < b.root
                                               : a.rate > b.rate;
                     });
    // A root's rate: its trees' sum (the LP may give a root slack above
    // lambda); the packing's: the least of them.
    out->rate = std::numeric_limits<double>::infinity();
    for (int32_t r = 0; r < n; ++r) {
      double sum = 0;
      for (const ForestTree &t : out->trees)
        if (t.root == r)
          sum += t.rate;
      out->rate = std::min(out->rate, sum);
    }
    for (ForestTree &t : out->trees)
      t.rate *= kRateUnit;
    out->rate *= kRateUnit;
    out->routedBound = std::isfinite(bound)
                           ? std::max(bound * kRateUnit, out->optimalRate)
                           : 0;
    out->rounds = std::min(out->rounds, options.maxRounds);
  };
  if (!cutTo(size_t(options.maxTrees)))
    return false;
  finish(packing);
  if (packing->rate <= 0) {
    *error = "the all-roots tree LP gave some root no rate";
    return false;
  }
  // Fewer trees while options.fits refuses them.
  if (fitted) {
    *fitted = *packing;
    fitted->trees.clear();
    for (size_t most = kept.size();;) {
      // The trees in their final order (channels are given in it).
      finish(fitted);
      std::vector<std::vector<int32_t>> shapes;
      for (const ForestTree &t : fitted->trees)
        shapes.push_back(t.parent);
      if (!options.fits || options.fits(shapes))
        break;
      fitted->trees.clear();
      if (most <= size_t(n))
        break; // fitted->trees stays empty: none fits
      most = std::max(size_t(n), most * 3 / 4);
      if (!cutTo(most))
        return false;
    }
  }
  return true;
}

bool packForestEven(const topo::Topology &topology, RouteMemo &routes,
                    const std::vector<topo::DeviceId> &gpus,
                    TreeDirection direction, int perRoot,
                    const ForestPacking &lp, const ForestPacking *start,
                    ForestPacking *packing, std::string *error) {
  *packing = ForestPacking();
  packing->direction = direction;
  packing->equalPerRoot = perRoot;
  const double optimalRate = lp.optimalRate;
  PackingGraph graph;
  if (!graph.build(topology, routes, gpus, direction, error))
    return false;
  const int32_t n = graph.ranks();
  packing->ranks = n;
  const std::vector<double> &capacity = graph.capacity();
  const size_t links = capacity.size();
  // Loads in tree edges per link; every tree moves at rho = min over the
  // links of capacity / load. The penalty sum_l exp(beta x load_l / c_l)
  // (beta scaled by the LP optimum's tree rate, so that a link at that
  // optimum's load sits near exp(beta)) prices each edge by the marginal
  // growth of its links' terms.
  const double tree = optimalRate > 0 ? optimalRate / kRateUnit / perRoot : 1;
  const double beta = 12;
  std::vector<double> load(links, 0), price(links);
  auto prices = [&]() {
    for (size_t l = 0; l < links; ++l) {
      double a = beta * tree * load[l] / capacity[l];
      double b = beta * tree * (load[l] + 1) / capacity[l];
      price[l] = std::exp(std::min(b, 600.0)) - std::exp(std::min(a, 600.0));
    }
  };
  std::vector<int> rows;
  std::vector<double> counts;
  auto apply = [&](const std::vector<int32_t> &parent, double sign) {
    graph.column(parent, &rows, &counts);
    for (size_t i = 0; i < rows.size(); ++i)
      load[size_t(rows[i])] += sign * counts[i];
  };
  // The worst link's load over capacity, then the penalty: smaller is
  // better.
  auto score = [&]() {
    double worst = 0, sum = 0;
    for (size_t l = 0; l < links; ++l) {
      worst = std::max(worst, load[l] / capacity[l]);
      sum += std::exp(std::min(beta * tree * load[l] / capacity[l], 600.0));
    }
    return std::make_pair(worst, sum);
  };
  std::vector<Tree> trees;
  std::vector<int32_t> parent;
  // From `start`'s trees, each root's repeated until it has perRoot: the
  // search then keeps the best it finds, never worse than those.
  if (start && !start->trees.empty() && start->equalPerRoot > 0 &&
      perRoot % start->equalPerRoot == 0 && start->ranks == n) {
    for (int k = 0; k < perRoot / start->equalPerRoot; ++k)
      for (const ForestTree &t : start->trees) {
        apply(t.parent, 1);
        trees.push_back({t.root, t.parent});
      }
  }
  const bool started = !trees.empty();
  for (int k = 0; !started && k < perRoot; ++k)
    for (int32_t r = 0; r < n; ++r) {
      prices();
      if (graph.cheapest(price, r, &parent) < 0) {
        *error = "some GPU of the group cannot be reached from rank " +
                 std::to_string(r);
        return false;
      }
      apply(parent, 1);
      trees.push_back({r, parent});
    }
  // Rip up and reroute: each tree in turn leaves and the cheapest tree of
  // its root under the others' loads takes its place, while that helps.
  auto best = score();
  std::vector<Tree> bestTrees = trees;
  for (int pass = 0; pass < 30; ++pass) {
    bool moved = false;
    for (Tree &t : trees) {
      apply(t.parent, -1);
      prices();
      graph.cheapest(price, t.root, &parent);
      if (parent != t.parent)
        moved = true;
      t.parent = parent;
      apply(t.parent, 1);
    }
    auto now = score();
    if (now < best) {
      best = now;
      bestTrees = trees;
    }
    if (!moved)
      break;
  }
  if (best.first <= 0) {
    *error = "the equal-rate packing loads no link";
    return false;
  }
  const double rho = 1 / best.first;
  for (const Tree &t : bestTrees)
    packing->trees.push_back({t.root, t.parent, rho * kRateUnit});
  packing->rate = rho * perRoot * kRateUnit;
  packing->optimalRate = lp.optimalRate;
  packing->routedBound = lp.routedBound;
  packing->optimalTrees = lp.optimalTrees;
  packing->rounds = lp.rounds;
  packing->timedOut = lp.timedOut;
  return true;
}

std::string describeForest(const ForestPacking &p) {
  char line[512], optimum[256];
  const bool from = p.direction == TreeDirection::FromRoot;
  if (p.routedBound <= 0)
    std::snprintf(optimum, sizeof optimum,
                  "optimum over the runtime's routes not proven (the %d "
                  "trees found carry %.2f GB/s per root)",
                  p.optimalTrees, p.optimalRate / 1e9);
  else if (p.optimalRate >= (1 - 1e-3) * p.routedBound)
    std::snprintf(optimum, sizeof optimum,
                  "%.1f%% of the optimum over the runtime's routes (%.2f "
                  "GB/s per root, with %d trees)",
                  100 * p.rate / p.routedBound, p.routedBound / 1e9,
                  p.optimalTrees);
  else
    std::snprintf(optimum, sizeof optimum,
                  "%.1f%% of the best bound over the runtime's routes (at "
                  "most %.2f GB/s per root; the %d trees found carry %.2f)",
                  100 * p.rate / p.routedBound, p.routedBound / 1e9,
                  p.optimalTrees, p.optimalRate / 1e9);
  char equal[64] = "";
  if (p.equalPerRoot > 0)
    std::snprintf(equal, sizeof equal, " of equal rate, %d per root",
                  p.equalPerRoot);
  std::snprintf(line, sizeof line,
                "%s trees of every rank: %zu trees%s, %.2f GB/s per root, %s; "
                "%d LP rounds\n",
                from ? "all-gather" : "reduce-scatter", p.trees.size(), equal,
                p.rate / 1e9, optimum, p.rounds);
  std::string out = line;
  if (p.timedOut) {
    out.pop_back();
    out += " (stopped at its time limit)\n";
  }
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const ForestTree &tree = p.trees[t];
    double own = 0;
    for (const ForestTree &u : p.trees)
      if (u.root == tree.root)
        own += u.rate;
    std::snprintf(line, sizeof line,
                  "  tree %zu (root %d): %.2f GB/s, %.1f%% of its part:", t,
                  tree.root, tree.rate / 1e9, 100 * tree.rate / own);
    out += line;
    for (size_t r = 0; r < tree.parent.size(); ++r)
      if (tree.parent[r] >= 0)
        out +=
            " " +
            (from ? std::to_string(tree.parent[r]) + "->" + std::to_string(r)
                  : std::to_string(r) + "->" + std::to_string(tree.parent[r]));
    out += "\n";
  }
  return out;
}

std::string forestDot(const ForestPacking &p, const std::string &name) {
  static const char *colors[] = {"black",  "red",       "blue",  "darkgreen",
                                 "orange", "purple",    "brown", "magenta",
                                 "cyan4",  "gray40",    "gold3", "navy",
                                 "olive",  "firebrick", "teal",  "indigo"};
  std::string out = "digraph \"" + name + "\" {\n  rankdir=TB;\n";
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const ForestTree &tree = p.trees[t];
    std::string id = "t" + std::to_string(t) + "_";
    out += "  subgraph cluster_t" + std::to_string(t) +
           " {\n    label=\"tree " + std::to_string(t) + ", root " +
           std::to_string(tree.root) + "\";\n";
    for (size_t r = 0; r < tree.parent.size(); ++r)
      out += "    " + id + std::to_string(r) + " [label=\"" +
             std::to_string(r) + "\"" +
             (int32_t(r) == tree.root ? ", shape=doublecircle" : "") + "];\n";
    for (size_t r = 0; r < tree.parent.size(); ++r) {
      int32_t up = tree.parent[r];
      if (up < 0)
        continue;
      std::string a = id + std::to_string(up), b = id + std::to_string(r);
      if (p.direction == TreeDirection::ToRoot)
        std::swap(a, b);
      out += "    " + a + " -> " + b + " [color=" + colors[t % 16] + "];\n";
    }
    out += "  }\n";
  }
  return out + "}\n";
}

} // namespace collc::synth

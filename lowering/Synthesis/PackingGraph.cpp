//===- PackingGraph.cpp - the candidate tree edges of a packing -----------===//
#include "lowering/Synthesis/PackingGraph.h"
#include "lowering/Synthesis/RingPacking.h"

#include "compiler/Routing/RouteMemo.h"

#include <lemon/list_graph.h>
#include <lemon/min_cost_arborescence.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace collc::synth {

struct PackingGraph::Lemon {
  lemon::ListDigraph g;
  std::vector<lemon::ListDigraph::Node> nodes;
  std::vector<lemon::ListDigraph::Arc> arcs;
  lemon::ListDigraph::ArcMap<double> cost{g};
};

bool checkGroup(const topo::Topology &topology,
                const std::vector<topo::DeviceId> &gpus, std::string *error) {
  std::set<topo::DeviceId> seen;
  for (topo::DeviceId d : gpus)
    if (d < 0 || size_t(d) >= topology.devices().size() ||
        topology.device(d).kind != topo::DeviceKind::Gpu ||
        !seen.insert(d).second) {
      *error = "the group's devices must be distinct GPUs of topology '" +
               topology.name() + "'";
      return false;
    }
  return true;
}

PackingGraph::PackingGraph() = default;
PackingGraph::~PackingGraph() = default;

bool PackingGraph::build(const topo::Topology &topology, RouteMemo &routes,
                         const std::vector<topo::DeviceId> &gpus,
                         TreeDirection direction, std::string *error) {
  n_ = int32_t(gpus.size());
  if (n_ < 2) {
    *error = "tree packing needs a group of at least 2 GPUs, got " +
             std::to_string(n_);
    return false;
  }
  if (!checkGroup(topology, gpus, error))
    return false;
  std::unordered_map<topo::LinkId, int> rowOf;
  capacity_.clear();
  arcs_.clear();
  arcOf_.assign(size_t(n_) * size_t(n_), -1);
  for (int32_t u = 0; u < n_; ++u)
    for (int32_t v = 0; v < n_; ++v) {
      if (u == v)
        continue;
      Arc arc;
      arc.parent = u;
      arc.child = v;
      RouteMemo::Path path =
          direction == TreeDirection::FromRoot
              ? routes.path(gpus[size_t(u)], gpus[size_t(v)])
              : routes.path(gpus[size_t(v)], gpus[size_t(u)]);
      if (path.count == 0) {
        *error = "no route between " + topology.device(gpus[size_t(u)]).name +
                 " and " + topology.device(gpus[size_t(v)]).name;
        return false;
      }
      for (uint32_t i = 0; i < path.count; ++i) {
        topo::LinkId l = path.links[i];
        auto [it, fresh] = rowOf.try_emplace(l, int(capacity_.size()));
        if (fresh)
          capacity_.push_back(topology.link(l).bandwidth / kRateUnit);
        arc.rows.push_back(it->second);
      }
      arcOf_[size_t(u) * size_t(n_) + size_t(v)] = int(arcs_.size());
      arcs_.push_back(std::move(arc));
    }
  lemon_ = std::make_unique<Lemon>();
  for (int32_t r = 0; r < n_; ++r)
    lemon_->nodes.push_back(lemon_->g.addNode());
  for (const Arc &arc : arcs_)
    lemon_->arcs.push_back(lemon_->g.addArc(lemon_->nodes[size_t(arc.parent)],
                                            lemon_->nodes[size_t(arc.child)]));
  return true;
}

double PackingGraph::cheapest(const std::vector<double> &price, int32_t root,
                              std::vector<int32_t> *parent, bool shallow) {
  // Ties (equal prices, many of them zero) go to shallow trees of short
  // routes: each arc also costs a tiny amount per link from the root to its
  // parent and across itself, far below any price that differs.
  double scale = 0;
  for (size_t a = 0; a < arcs_.size(); ++a) {
    double c = 0;
    for (int row : arcs_[a].rows)
      c += price[size_t(row)];
    lemon_->cost[lemon_->arcs[a]] = c;
    scale = std::max(scale, c);
  }
  const double tiny = (scale > 0 ? scale : 1.0) * 1e-7;
  for (size_t a = 0; shallow && a < arcs_.size(); ++a) {
    const Arc &arc = arcs_[a];
    size_t depth = arc.rows.size();
    if (arc.parent != root)
      depth +=
          arcs_[size_t(arcOf_[size_t(root) * size_t(n_) + size_t(arc.parent)])]
              .rows.size();
    lemon_->cost[lemon_->arcs[a]] += tiny * double(depth);
  }
  lemon::MinCostArborescence<lemon::ListDigraph,
                             lemon::ListDigraph::ArcMap<double>>
      mca(lemon_->g, lemon_->cost);
  mca.run(lemon_->nodes[size_t(root)]);
  parent->assign(size_t(n_), -1);
  for (size_t a = 0; a < arcs_.size(); ++a)
    if (arcs_[a].child != root && mca.arborescence(lemon_->arcs[a]))
      (*parent)[size_t(arcs_[a].child)] = arcs_[a].parent;
  for (int32_t r = 0; r < n_; ++r)
    if (r != root && (*parent)[size_t(r)] < 0)
      return -1;
  return priceOf(*parent, price);
}

std::vector<double> PackingGraph::fairRates(
    const std::vector<std::vector<int32_t>> &parents) const {
  std::vector<std::vector<std::pair<int, double>>> usage;
  std::vector<int> rows;
  std::vector<double> counts;
  for (const std::vector<int32_t> &parent : parents) {
    column(parent, &rows, &counts);
    usage.emplace_back();
    for (size_t i = 0; i < rows.size(); ++i)
      usage.back().push_back({rows[i], counts[i]});
  }
  return maxMinRates(usage, capacity_);
}

void PackingGraph::column(const std::vector<int32_t> &parent,
                          std::vector<int> *rows,
                          std::vector<double> *counts) const {
  std::map<int, double> load;
  for (int32_t child = 0; child < n_; ++child)
    if (int32_t up = parent[size_t(child)]; up >= 0)
      for (int row :
           arcs_[size_t(arcOf_[size_t(up) * size_t(n_) + size_t(child)])].rows)
        load[row] += 1;
  rows->clear();
  counts->clear();
  for (auto [row, count] : load) {
    rows->push_back(row);
    counts->push_back(count);
  }
}

int PackingGraph::shallower(std::vector<std::vector<int32_t>> &trees,
                            const std::vector<int32_t> &roots,
                            const std::vector<double> &rates,
                            int mostEdges) const {
  std::vector<double> load(capacity_.size(), 0);
  std::vector<int> edges(size_t(n_), 0);
  auto rowsOf = [&](int32_t parent, int32_t child) -> const std::vector<int> & {
    return arcs_[size_t(arcOf_[size_t(parent) * size_t(n_) + size_t(child)])]
        .rows;
  };
  for (size_t t = 0; t < trees.size(); ++t)
    for (int32_t c = 0; c < n_; ++c)
      if (int32_t p = trees[t][size_t(c)]; p >= 0) {
        ++edges[size_t(p)];
        ++edges[size_t(c)];
        for (int row : rowsOf(p, c))
          load[size_t(row)] += rates[t];
      }
  int moved = 0;
  std::vector<int> level(static_cast<size_t>(n_), 0);
  std::vector<char> onOld(capacity_.size(), 0);
  for (size_t t = 0; t < trees.size(); ++t) {
    std::vector<int32_t> &parent = trees[t];
    auto levels = [&] {
      for (int32_t v = 0; v < n_; ++v) {
        int d = 0;
        for (int32_t u = v; parent[size_t(u)] >= 0 && d <= n_;
             u = parent[size_t(u)])
          ++d;
        level[size_t(v)] = d;
      }
    };
    levels();
    std::vector<int32_t> order;
    for (int32_t v = 0; v < n_; ++v)
      if (v != roots[t])
        order.push_back(v);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return level[size_t(a)] < level[size_t(b)];
    });
    const double rate = rates[t];
    for (int32_t v : order) {
      const int32_t p = parent[size_t(v)];
      const std::vector<int> &old = rowsOf(p, v);
      for (int row : old)
        onOld[size_t(row)] = 1;
      int32_t best = p;
      for (int32_t q = 0; q < n_; ++q) {
        if (q == v || level[size_t(q)] >= level[size_t(p)] ||
            level[size_t(q)] >= level[size_t(v)] ||
            edges[size_t(q)] >= mostEdges)
          continue;
        // q must not lie below v (it cannot: it is shallower than v's
        // parent), and every link its route adds must have the rate spare.
        const std::vector<int> &fresh = rowsOf(q, v);
        bool fits = true;
        for (int row : fresh)
          if (!onOld[size_t(row)] &&
              load[size_t(row)] + rate > capacity_[size_t(row)] * (1 + 1e-9)) {
            fits = false;
            break;
          }
        if (!fits)
          continue;
        if (best == p || level[size_t(q)] < level[size_t(best)] ||
            (level[size_t(q)] == level[size_t(best)] &&
             fresh.size() < rowsOf(best, v).size()))
          best = q;
      }
      for (int row : old)
        onOld[size_t(row)] = 0;
      if (best == p)
        continue;
      for (int row : old)
        load[size_t(row)] -= rate;
      for (int row : rowsOf(best, v))
        load[size_t(row)] += rate;
      parent[size_t(v)] = best;
      --edges[size_t(p)];
      ++edges[size_t(best)];
      ++moved;
      levels();
    }
  }
  return moved;
}

double PackingGraph::priceOf(const std::vector<int32_t> &parent,
                             const std::vector<double> &price) const {
  std::vector<int> rows;
  std::vector<double> counts;
  column(parent, &rows, &counts);
  double total = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    total += counts[i] * price[size_t(rows[i])];
  return total;
}

} // namespace collc::synth

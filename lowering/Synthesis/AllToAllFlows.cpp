//===- AllToAllFlows.cpp - all_to_all over several paths per pair ---------===//
#include "lowering/Synthesis/AllToAllFlows.h"

#include "compiler/Routing/RouteMemo.h"
#include "lowering/Synthesis/PackingGraph.h"

#include <ClpSimplex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace collc::synth {

namespace {
constexpr double kGB = 1e9;

/// Whether the pair (s, d) moves a part: every pair of an all_to_all, the
/// root's pairs of a scatter or gather.
bool movesData(const AllToAllFlows &f, int32_t s, int32_t d) {
  if (f.root < 0)
    return true;
  return f.collective == "gather" ? d == f.root : s == f.root;
}

/// A pair's paths with their shares (any positive scale) rounded to
/// `units` (largest remainder), those with no unit dropped, by relay.
std::vector<FlowPath> roundShares(std::vector<FlowPath> mine, int units) {
  double sum = 0;
  for (const FlowPath &p : mine)
    sum += p.share;
  int left = units;
  std::vector<double> remainder(mine.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    mine[i].share /= sum;
    double want = mine[i].share * units;
    mine[i].units = std::min(left, int(std::floor(want)));
    left -= mine[i].units;
    remainder[i] = want - mine[i].units;
  }
  std::vector<size_t> order(mine.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return remainder[a] > remainder[b];
  });
  for (size_t i = 0; left > 0 && !mine.empty();
       i = (i + 1) % mine.size(), --left)
    ++mine[order[i]].units;
  std::vector<FlowPath> kept;
  for (const FlowPath &p : mine)
    if (p.units > 0)
      kept.push_back(p);
  std::stable_sort(
      kept.begin(), kept.end(),
      [](const FlowPath &a, const FlowPath &b) { return a.relay < b.relay; });
  return kept;
}
} // namespace

bool planAllToAll(const topo::Topology &topology, RouteMemo &routes,
                  const std::vector<topo::DeviceId> &gpus, int units,
                  const std::vector<int64_t> &demand, AllToAllFlows *flows,
                  std::string *error) {
  *flows = AllToAllFlows();
  const int32_t n = int32_t(gpus.size());
  // Demand in one row or one column (a scatter or gather) shares channels
  // above 16 ranks; a full matrix needs a channel per pair.
  std::vector<bool> sends(size_t(n), false), receives(size_t(n), false);
  if (demand.size() == size_t(n) * size_t(n))
    for (int32_t s = 0; s < n; ++s)
      for (int32_t d = 0; d < n; ++d)
        if (demand[size_t(s) * size_t(n) + size_t(d)] > 0) {
          sends[size_t(s)] = true;
          receives[size_t(d)] = true;
        }
  const int senders = int(std::count(sends.begin(), sends.end(), true));
  const int receivers = int(std::count(receives.begin(), receives.end(), true));
  const bool rooted = !demand.empty() && (senders <= 1 || receivers <= 1);
  const int32_t most = rooted ? kMaxRootedFlowRanks : kMaxAllToAllRanks;
  if (n < 2 || n > most) {
    *error = "all_to_all flows are planned for groups of 2 to " +
             std::to_string(most) + " ranks, not " + std::to_string(n) +
             (rooted ? "" : " (a channel per pair of ranks)");
    return false;
  }
  if (!checkGroup(topology, gpus, error))
    return false;
  flows->ranks = n;
  flows->units = std::max(1, units);
  if (!demand.empty() && demand.size() != size_t(n) * size_t(n)) {
    *error = "all_to_all_v's send counts are " + std::to_string(demand.size()) +
             " entries, not " + std::to_string(n) + " x " + std::to_string(n);
    return false;
  }
  // Each pair's demand in parts of the largest (1 for all_to_all).
  for (int64_t c : demand)
    flows->largest = std::max(flows->largest, c);
  auto weight = [&](int32_t s, int32_t d) {
    if (demand.empty())
      return 1.0;
    return flows->largest > 0
               ? double(demand[size_t(s) * size_t(n) + size_t(d)]) /
                     double(flows->largest)
               : 0.0;
  };

  // LP rows: the links (load - c T <= 0), then a row per pair (sum = 1).
  std::unordered_map<topo::LinkId, int> rowOf;
  std::vector<double> capacity;
  std::vector<topo::LinkId> linkOf;
  auto rowFor = [&](topo::LinkId l) {
    auto [it, fresh] = rowOf.try_emplace(l, int(capacity.size()));
    if (fresh) {
      capacity.push_back(topology.link(l).bandwidth / kGB);
      linkOf.push_back(l);
    }
    return it->second;
  };
  // The links of every pair's route, as rows.
  std::vector<std::vector<int>> hop(size_t(n) * size_t(n));
  for (int32_t u = 0; u < n; ++u)
    for (int32_t v = 0; v < n; ++v) {
      if (u == v)
        continue;
      RouteMemo::Path path = routes.path(gpus[size_t(u)], gpus[size_t(v)]);
      if (path.count == 0) {
        *error = "no route between " + topology.device(gpus[size_t(u)]).name +
                 " and " + topology.device(gpus[size_t(v)]).name;
        return false;
      }
      for (uint32_t i = 0; i < path.count; ++i)
        hop[size_t(u) * size_t(n) + size_t(v)].push_back(rowFor(path.links[i]));
    }
  const int links = int(capacity.size());
  const int pairs = n * (n - 1);
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.resize(links + pairs, 0);
  for (int row = 0; row < links; ++row)
    lp.setRowBounds(row, -COIN_DBL_MAX, 0);
  for (int row = links; row < links + pairs; ++row)
    lp.setRowBounds(row, 1, 1);
  {
    std::vector<int> rows(static_cast<size_t>(links));
    std::iota(rows.begin(), rows.end(), 0);
    std::vector<double> values(capacity.size());
    for (size_t i = 0; i < capacity.size(); ++i)
      values[i] = -capacity[i];
    lp.addColumn(links, rows.data(), values.data(), 0, COIN_DBL_MAX, 1.0);
  }
  struct Column {
    int32_t s, d, relay;
  };
  std::vector<Column> columns;
  int pair = 0;
  std::vector<int> rows;
  std::vector<double> values;
  for (int32_t s = 0; s < n; ++s)
    for (int32_t d = 0; d < n; ++d) {
      if (s == d)
        continue;
      for (int32_t v = -1; v < n; ++v) {
        if (v == s || v == d)
          continue;
        if (v >= 0 && weight(s, d) <= 0)
          continue; // an empty part goes directly
        std::map<int, double> load;
        if (v < 0)
          for (int row : hop[size_t(s) * size_t(n) + size_t(d)])
            load[row] += 1;
        else {
          for (int row : hop[size_t(s) * size_t(n) + size_t(v)])
            load[row] += 1;
          for (int row : hop[size_t(v) * size_t(n) + size_t(d)])
            load[row] += 1;
        }
        rows.clear();
        values.clear();
        double length = 0;
        const double w = weight(s, d);
        for (auto [row, count] : load) {
          if (w <= 0)
            break;
          rows.push_back(row);
          values.push_back(count * w);
          length += count;
        }
        rows.push_back(links + pair);
        values.push_back(1);
        // A tiny cost per link crossed: among equally loaded optima, the
        // shortest paths (direct where it is as good).
        lp.addColumn(int(rows.size()), rows.data(), values.data(), 0,
                     COIN_DBL_MAX, 1e-7 * length);
        columns.push_back({s, d, v});
      }
      ++pair;
    }
  lp.setOptimizationDirection(1);
  lp.primal();
  if (!lp.isProvenOptimal()) {
    *error = "the all_to_all flow LP did not solve (CLP status " +
             std::to_string(lp.status()) + ")";
    return false;
  }
  const double *x = lp.primalColumnSolution();
  const double T = x[0];
  flows->partRate = T > 0 ? kGB / T : 0;
  // The bound over any relays: a multi-commodity flow per source over the
  // GPU pairs (each pair's route loading its links), minimizing the most
  // loaded link. Every all_to_all schedule over these routes is one.
  // (Sources with demand x n^2 columns: skipped above 40 thousand, e.g. a
  // gather of more than 16 ranks, whose LP took minutes at 64 ranks; the
  // report then has the cuts only.)
  if (size_t(senders) * size_t(n) * size_t(n) <= 40000) {
    ClpSimplex mcf;
    mcf.setLogLevel(0);
    const int conservation = n * n; // [source * n + node]
    mcf.resize(links + conservation, 0);
    for (int row = 0; row < links; ++row)
      mcf.setRowBounds(row, -COIN_DBL_MAX, 0);
    for (int32_t src = 0; src < n; ++src) {
      double out = 0;
      for (int32_t w = 0; w < n; ++w)
        if (w != src)
          out += weight(src, w);
      for (int32_t w = 0; w < n; ++w) {
        double net = w == src ? -out : weight(src, w); // in - out
        mcf.setRowBounds(links + src * n + w, net, net);
      }
    }
    std::vector<int> all(static_cast<size_t>(links));
    std::iota(all.begin(), all.end(), 0);
    std::vector<double> minus(capacity.size());
    for (size_t i = 0; i < capacity.size(); ++i)
      minus[i] = -capacity[i];
    mcf.addColumn(links, all.data(), minus.data(), 0, COIN_DBL_MAX, 1.0);
    for (int32_t src = 0; src < n; ++src) {
      if (!demand.empty() && !sends[size_t(src)])
        continue; // nothing to move: its rows stay empty
      for (int32_t u = 0; u < n; ++u)
        for (int32_t v = 0; v < n; ++v) {
          if (u == v || v == src)
            continue;
          std::map<int, double> load;
          for (int row : hop[size_t(u) * size_t(n) + size_t(v)])
            load[row] += 1;
          rows.clear();
          values.clear();
          for (auto [row, count] : load) {
            rows.push_back(row);
            values.push_back(count);
          }
          rows.push_back(links + src * n + u);
          values.push_back(-1);
          rows.push_back(links + src * n + v);
          values.push_back(1);
          mcf.addColumn(int(rows.size()), rows.data(), values.data(), 0,
                        COIN_DBL_MAX, 0);
        }
    }
    mcf.setOptimizationDirection(1);
    mcf.primal();
    if (mcf.isProvenOptimal() && mcf.objectiveValue() > 0)
      flows->boundPartRate = kGB / mcf.objectiveValue();
  }
  // Every part on its direct route: the most loaded link's load.
  {
    std::vector<double> load(capacity.size(), 0);
    for (int32_t s = 0; s < n; ++s)
      for (int32_t d = 0; d < n; ++d)
        if (s != d)
          for (int row : hop[size_t(s) * size_t(n) + size_t(d)])
            load[size_t(row)] += weight(s, d);
    double worst = 0;
    for (size_t row = 0; row < load.size(); ++row)
      worst = std::max(worst, load[row] / capacity[row]);
    flows->directPartRate = worst > 0 ? kGB / worst : 0;
  }
  // The links at the optimum's load.
  {
    std::vector<double> load(capacity.size(), 0);
    for (size_t c = 0; c < columns.size(); ++c) {
      const Column &col = columns[c];
      double f = x[c + 1] * weight(col.s, col.d);
      if (f <= 0)
        continue;
      auto add = [&](int32_t a, int32_t b) {
        for (int row : hop[size_t(a) * size_t(n) + size_t(b)])
          load[size_t(row)] += f;
      };
      if (col.relay < 0)
        add(col.s, col.d);
      else {
        add(col.s, col.relay);
        add(col.relay, col.d);
      }
    }
    int named = 0;
    for (size_t row = 0; row < load.size(); ++row)
      if (load[row] / capacity[row] >= (1 - 1e-6) * T && named < 3) {
        const topo::Link &link = topology.link(linkOf[row]);
        flows->busiest += std::string(named++ ? ", " : "") +
                          topology.device(link.src).name + " -> " +
                          topology.device(link.dst).name;
      }
  }
  // Shares per pair, rounded to units (largest remainder).
  flows->paths.assign(size_t(n) * size_t(n), {});
  size_t c = 0;
  for (int32_t s = 0; s < n; ++s)
    for (int32_t d = 0; d < n; ++d) {
      if (s == d)
        continue;
      std::vector<FlowPath> mine;
      for (; c < columns.size() && columns[c].s == s && columns[c].d == d;
           ++c) {
        double f = std::max(0.0, x[c + 1]);
        if (f > 1e-9)
          mine.push_back({columns[c].relay, f, 0});
      }
      flows->paths[size_t(s) * size_t(n) + size_t(d)] =
          roundShares(std::move(mine), flows->units);
    }
  return true;
}

AllToAllFlows coarser(const AllToAllFlows &flows, int units) {
  AllToAllFlows out = flows;
  out.units = std::max(1, units);
  for (std::vector<FlowPath> &paths : out.paths)
    if (!paths.empty())
      paths = roundShares(paths, out.units);
  return out;
}

bool planScatterGather(const topo::Topology &topology, RouteMemo &routes,
                       const std::vector<topo::DeviceId> &gpus, int units,
                       int32_t root, bool gather, AllToAllFlows *flows,
                       std::string *error) {
  const int32_t n = int32_t(gpus.size());
  if (root < 0 || root >= n) {
    *error = "root " + std::to_string(root) + " is outside the group of " +
             std::to_string(n);
    return false;
  }
  std::vector<int64_t> demand(size_t(n) * size_t(n), 0);
  for (int32_t r = 0; r < n; ++r)
    if (r != root)
      demand[gather ? size_t(r) * size_t(n) + size_t(root)
                    : size_t(root) * size_t(n) + size_t(r)] = 1;
  if (!planAllToAll(topology, routes, gpus, units, demand, flows, error))
    return false;
  flows->root = root;
  flows->collective = gather ? "gather" : "scatter";
  flows->largest = 0; // every part the same: M/N
  return true;
}

std::string describeFlows(const AllToAllFlows &f) {
  char line[512];
  int relayed = 0, total = 0;
  for (size_t pair = 0; pair < f.paths.size(); ++pair) {
    int32_t s = int32_t(pair / size_t(f.ranks)),
            d = int32_t(pair % size_t(f.ranks));
    if (!movesData(f, s, d))
      continue;
    for (const FlowPath &p : f.paths[pair]) {
      total += p.units;
      if (p.relay >= 0)
        relayed += p.units;
    }
  }
  char reach[160];
  if (f.boundPartRate > 0)
    std::snprintf(reach, sizeof reach,
                  "%.1f%% of the %.2f GB/s that any relays could reach",
                  100 * f.partRate / f.boundPartRate, f.boundPartRate / 1e9);
  else
    std::snprintf(reach, sizeof reach,
                  "what any relays could reach not computed (a "
                  "multi-commodity flow of %d sources over %d ranks)",
                  f.collective == "gather" ? f.ranks - 1 : f.ranks, f.ranks);
  std::snprintf(line, sizeof line,
                "%s flows%s: a part moves at %.2f GB/s on the most "
                "loaded link (%s), %.2fx its direct routes' %.2f GB/s and "
                "%s; %d of %d units relayed through a GPU\n",
                f.collective.c_str(),
                f.root < 0
                    ? ""
                    : (std::string(f.collective == "gather" ? " to" : " from") +
                       " rank " + std::to_string(f.root))
                          .c_str(),
                f.partRate / 1e9, f.busiest.c_str(),
                f.directPartRate > 0 ? f.partRate / f.directPartRate : 0,
                f.directPartRate / 1e9, reach, relayed, total);
  std::string out = line;
  for (int32_t s = 0; s < f.ranks; ++s)
    for (int32_t d = 0; d < f.ranks; ++d) {
      const std::vector<FlowPath> &paths =
          f.paths[size_t(s) * size_t(f.ranks) + size_t(d)];
      if (s == d || (paths.size() == 1 && paths[0].relay < 0) ||
          !movesData(f, s, d))
        continue;
      out += "  " + std::to_string(s) + "->" + std::to_string(d) + ":";
      for (const FlowPath &p : paths)
        out += " " + std::to_string(p.units) + "/" + std::to_string(f.units) +
               (p.relay < 0 ? " direct" : " via " + std::to_string(p.relay));
      out += "\n";
    }
  return out;
}

namespace {

/// Colours of the complete graph K_n, a proper edge colouring (the round
/// robin of a tournament; an odd n gets a dummy rank): pair {a, b}'s colour.
int pairColour(int32_t n, int32_t a, int32_t b) {
  int32_t m = n % 2 == 0 ? n : n + 1; // vertices, even
  auto colour = [&](int32_t i, int32_t j) {
    if (j == m - 1)
      return (2 * i) % (m - 1);
    if (i == m - 1)
      return (2 * j) % (m - 1);
    return (i + j) % (m - 1);
  };
  return colour(a, b);
}
int colours(int32_t n) { return n % 2 == 0 ? n - 1 : n; }

std::string expr(const std::vector<std::string> &terms) {
  std::string out;
  for (const std::string &t : terms)
    if (!t.empty() && t != "0")
      out += (out.empty() ? "" : " + ") + t;
  if (out.empty())
    return "0";
  return out.find(' ') == std::string::npos ? out : "\"" + out + "\"";
}

} // namespace

int allToAllChannels(int32_t ranks) {
  return sharedFlowChannels(ranks) ? kSharedFlowChannels + 1
                                   : 2 * colours(ranks) + 1;
}

std::string allToAllScheduleText(const AllToAllFlows &f,
                                 const std::string &collective,
                                 const std::string &symbol,
                                 const std::string &algorithm) {
  const int32_t n = f.ranks;
  const int U = f.units;
  const int m = colours(n);
  const bool shared = sharedFlowChannels(n);
  const int copyChannel = shared ? kSharedFlowChannels : 2 * m;
  // A connection's channel: its pair's colour, the other direction offset;
  // above 16 ranks (scatter and gather) shared, (a + b) mod 24.
  auto channel = [&](int32_t from, int32_t to) {
    if (shared)
      return (from + to) % kSharedFlowChannels;
    return pairColour(n, from, to) + (from < to ? 0 : m);
  };
  const std::string unit =
      U == 1 ? "k" : "(k floordiv " + std::to_string(U) + ")";
  auto unitsOf = [&](int u) -> std::string {
    if (u == 0)
      return "";
    return u == 1 ? unit : unit + " * " + std::to_string(u);
  };
  auto partOf = [&](int32_t part) -> std::string {
    return part == 0 ? "" : std::to_string(part) + " * k";
  };
  // Every transfer of a unit: one send and its recv, ordered on their
  // connection by (round, hop, s, d, relay).
  struct Transfer {
    std::tuple<int, int, int32_t, int32_t, int32_t> key;
    int32_t from, to;
    std::string src, dst;
    int dependsOn = -1; ///< the transfer whose recv this send waits for
    int sendIndex = -1, recvIndex = -1;
  };
  std::vector<Transfer> transfers;
  std::vector<int> scratch(size_t(n), 0); // units of scratch per rank
  // scatter: the root's input holds a part per rank, an output is one
  // part; gather the other way round.
  const bool scatter = f.root >= 0 && f.collective == "scatter",
             gather = f.root >= 0 && f.collective == "gather";
  for (int32_t s = 0; s < n; ++s)
    for (int32_t d = 0; d < n; ++d) {
      if (s == d || !movesData(f, s, d))
        continue;
      int before = 0;
      for (const FlowPath &p : f.paths[size_t(s) * size_t(n) + size_t(d)]) {
        for (int q = 0; q < p.units; ++q) {
          int u = before + q;
          std::string in =
              "input[" + expr({gather ? "" : partOf(d), unitsOf(u)}) + "]";
          std::string out =
              "output[" + expr({scatter ? "" : partOf(s), unitsOf(u)}) + "]";
          if (p.relay < 0) {
            transfers.push_back({{q, 0, s, d, -1}, s, d, in, out});
            continue;
          }
          std::string slot =
              "scratch[" + expr({unitsOf(scratch[size_t(p.relay)]++)}) + "]";
          transfers.push_back({{q, 0, s, d, p.relay}, s, p.relay, in, slot});
          Transfer second{{q + 1, 1, s, d, p.relay}, p.relay, d, slot, out};
          second.dependsOn = int(transfers.size()) - 1;
          transfers.push_back(second);
        }
        before += p.units;
      }
    }
  // Every stream (rank, channel) in key order: its sends and receives
  // (one connection each below 17 ranks, where the order is the
  // connection's). The smallest unfinished transfer then heads both of its
  // streams, so the schedule cannot deadlock.
  std::map<std::pair<int32_t, int>, std::vector<std::pair<int, bool>>> streams;
  for (size_t t = 0; t < transfers.size(); ++t) {
    const Transfer &x = transfers[t];
    int ch = channel(x.from, x.to);
    streams[{x.from, ch}].push_back({int(t), true});
    streams[{x.to, ch}].push_back({int(t), false});
  }
  for (auto &[where, list] : streams) {
    std::stable_sort(list.begin(), list.end(), [&](auto a, auto b) {
      return transfers[size_t(a.first)].key < transfers[size_t(b.first)].key;
    });
    for (size_t i = 0; i < list.size(); ++i)
      (list[i].second ? transfers[size_t(list[i].first)].sendIndex
                      : transfers[size_t(list[i].first)].recvIndex) = int(i);
  }
  const std::string count =
      U == 1 ? "k" : "\"k floordiv " + std::to_string(U) + "\"";
  std::vector<std::map<int, std::string>> bodies(static_cast<size_t>(n));
  for (auto &[where, list] : streams) {
    auto [rank, ch] = where;
    std::string &text = bodies[size_t(rank)][ch];
    for (auto [t, sends] : list) {
      const Transfer &x = transfers[size_t(t)];
      if (!sends) {
        text += "      sched.recv from " + std::to_string(x.from) +
                " dst = " + x.dst + " count = " + count + "\n";
        continue;
      }
      std::string after;
      if (x.dependsOn >= 0) {
        const Transfer &first = transfers[size_t(x.dependsOn)];
        int firstChannel = channel(first.from, first.to);
        if (firstChannel != ch) // (else the stream's order holds it)
          after = " after = [(channel " + std::to_string(firstChannel) +
                  ", index " + std::to_string(first.recvIndex) + ")]";
      }
      text += "      sched.send to " + std::to_string(x.to) +
              " src = " + x.src + " count = " + count + after + "\n";
    }
  }
  int most = 0;
  for (int s : scratch)
    most = std::max(most, s);
  std::string summary = describeFlows(f);
  summary = summary.substr(0, summary.find('\n'));
  std::string out = "sched.schedule @" + symbol +
                    " collective = " + collective + " algorithm = \"" +
                    algorithm + "\" group_size = " + std::to_string(n) + "\n";
  out += "    attributes {collc.chunk_unit = " + std::to_string(U) +
         " : i64, collc.volume = \"(n-1)/n M" +
         (f.root >= 0 ? std::string(gather ? " (to the root)" : " (root)")
                      : std::string()) +
         " and the relayed units again\", collc.steps = \"2\"}\n";
  if (f.root >= 0)
    out += "    root = " + std::to_string(f.root) + "\n";
  if (most > 0)
    out += "    scratch = " + expr({unitsOf(most)}) + "\n";
  out += "    description = \"synthesized: " + summary + "\" {\n";
  for (int32_t r = 0; r < n; ++r) {
    if (f.root < 0 || r == f.root)
      bodies[size_t(r)][copyChannel] +=
          "      sched.copy src = input[" + expr({gather ? "" : partOf(r)}) +
          "] dst = output[" + expr({scatter ? "" : partOf(r)}) +
          "] count = k\n";
    out += "  sched.rank " + std::to_string(r) + " {\n";
    for (const auto &[ch, text] : bodies[size_t(r)])
      out +=
          "    sched.channel " + std::to_string(ch) + " {\n" + text + "    }\n";
    out += "  }\n";
  }
  return out + "}\n";
}

} // namespace collc::synth

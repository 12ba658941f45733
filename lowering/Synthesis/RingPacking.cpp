//===- RingPacking.cpp - rings derived from the topology ------------------===//
#include "lowering/Synthesis/RingPacking.h"

#include "lowering/Synthesis/Apportion.h"
#include "lowering/Synthesis/PackingGraph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

namespace collc::synth {

std::vector<double>
maxMinRates(const std::vector<std::vector<std::pair<int, double>>> &usage,
            const std::vector<double> &capacity) {
  const size_t m = usage.size();
  std::vector<double> rate(m, 0), left = capacity;
  std::vector<bool> frozen(m, false);
  for (size_t round = 0; round < m; ++round) {
    // Edges of unfrozen rings per link; the least headroom per edge.
    std::vector<double> edges(capacity.size(), 0);
    bool any = false;
    for (size_t c = 0; c < m; ++c)
      if (!frozen[c])
        for (auto [row, count] : usage[c]) {
          edges[size_t(row)] += count;
          any = true;
        }
    if (!any)
      break;
    double step = std::numeric_limits<double>::infinity();
    for (size_t l = 0; l < capacity.size(); ++l)
      if (edges[l] > 0)
        step = std::min(step, std::max(0.0, left[l]) / edges[l]);
    for (size_t c = 0; c < m; ++c)
      if (!frozen[c])
        rate[c] += step;
    for (size_t l = 0; l < capacity.size(); ++l)
      left[l] -= step * edges[l];
    // Rings crossing a full link stop.
    bool stopped = false;
    for (size_t c = 0; c < m; ++c)
      if (!frozen[c])
        for (auto [row, count] : usage[c])
          if (left[size_t(row)] <= 1e-9 * capacity[size_t(row)]) {
            frozen[c] = true;
            stopped = true;
            break;
          }
    if (!stopped)
      break;
  }
  return rate;
}

namespace {

/// A ring's links: (row, edges of the ring crossing it).
std::vector<std::pair<int, double>> usageOf(const PackingGraph &graph,
                                            const std::vector<int32_t> &order) {
  std::map<int, double> load;
  const size_t n = order.size();
  for (size_t i = 0; i < n; ++i)
    for (int row : graph.rowsOf(order[i], order[(i + 1) % n]))
      load[row] += 1;
  return {load.begin(), load.end()};
}

/// Hamiltonian cycles over routes whose links have `slots` ring edges
/// free each (a route takes one of every link it crosses): depth first
/// from rank 0, the next rank the one with the fewest ways on (ties by
/// fewer links, then at random), at most `budget` steps.
class CycleSearch {
public:
  CycleSearch(const PackingGraph &graph, std::vector<int> &slots,
              std::mt19937 &random)
      : graph_(graph), slots_(slots), random_(random), n_(graph.ranks()) {}

  bool find(int budget, std::vector<int32_t> *order) {
    budget_ = budget;
    path_.assign(1, 0);
    used_.assign(size_t(n_), false);
    used_[0] = true;
    if (!extend())
      return false;
    *order = path_;
    return true;
  }

  /// Takes the slots of ring `order` where it has all of them.
  bool take(const std::vector<int32_t> &order) {
    const size_t n = order.size();
    for (size_t i = 0; i < n; ++i)
      take(order[i], order[(i + 1) % n], 1);
    bool fits =
        std::all_of(slots_.begin(), slots_.end(), [](int s) { return s >= 0; });
    if (!fits)
      for (size_t i = 0; i < n; ++i)
        take(order[i], order[(i + 1) % n], -1);
    return fits;
  }

private:
  bool free(int32_t a, int32_t b) const {
    for (int row : graph_.rowsOf(a, b))
      if (slots_[size_t(row)] < 1)
        return false;
    return true;
  }
  void take(int32_t a, int32_t b, int sign) {
    for (int row : graph_.rowsOf(a, b))
      slots_[size_t(row)] -= sign;
  }
  bool extend() {
    if (--budget_ < 0)
      return false;
    const int32_t last = path_.back();
    if (int32_t(path_.size()) == n_) {
      if (!free(last, 0))
        return false;
      take(last, 0, 1);
      return true;
    }
    struct Next {
      int32_t v;
      int onward;
      size_t links;
      unsigned tie;
    };
    std::vector<Next> next;
    for (int32_t v = 0; v < n_; ++v) {
      if (used_[size_t(v)] || !free(last, v))
        continue;
      take(last, v, 1);
      int onward = 0;
      for (int32_t w = 0; w < n_; ++w)
        if (w != v && (!used_[size_t(w)] || w == 0) && free(v, w))
          ++onward;
      take(last, v, -1);
      next.push_back(
          {v, onward, graph_.rowsOf(last, v).size(), unsigned(random_())});
    }
    std::sort(next.begin(), next.end(), [](const Next &a, const Next &b) {
      return std::tie(a.onward, a.links, a.tie) <
             std::tie(b.onward, b.links, b.tie);
    });
    for (const Next &x : next) {
      if (x.onward == 0 && int32_t(path_.size()) + 1 < n_)
        continue;
      take(last, x.v, 1);
      used_[size_t(x.v)] = true;
      path_.push_back(x.v);
      if (extend())
        return true;
      path_.pop_back();
      used_[size_t(x.v)] = false;
      take(last, x.v, -1);
      if (budget_ < 0)
        return false;
    }
    return false;
  }

  const PackingGraph &graph_;
  std::vector<int> &slots_;
  std::mt19937 &random_;
  int32_t n_;
  int budget_ = 0;
  std::vector<int32_t> path_;
  std::vector<bool> used_;
};

/// Rings over direct links (a route of one link) with `slots` ring edges
/// each: `most` permutations (every rank one successor, one predecessor)
/// taken one after another as perfect matchings of the ranks to the ranks
/// over the links with slots left, then merged into Hamiltonian cycles by
/// swaps between two of them: where P has x -> x', y -> y' in different
/// cycles and Q has x -> y', y -> x', exchanging the four arcs joins P's
/// two cycles (and may split Q's); a swap is kept where the cycles in all
/// do not grow (the swaps of a Hamiltonian decomposition, as on a torus,
/// whose two cycles each way the depth-first search does not find).
/// Returns the permutations that became single cycles, as orders.
std::vector<std::vector<int32_t>> factorRings(const PackingGraph &graph,
                                              const std::vector<int> &slots,
                                              int most, std::mt19937 &random) {
  const int32_t n = graph.ranks();
  std::vector<int> arcs(size_t(n) * size_t(n), 0);
  for (int32_t a = 0; a < n; ++a)
    for (int32_t b = 0; b < n; ++b)
      if (a != b && graph.rowsOf(a, b).size() == 1)
        arcs[size_t(a) * size_t(n) + size_t(b)] =
            slots[size_t(graph.rowsOf(a, b)[0])];
  auto arc = [&](int32_t a, int32_t b) -> int & {
    return arcs[size_t(a) * size_t(n) + size_t(b)];
  };
  // Perfect matchings (Kuhn's augmenting paths), each removed in turn.
  std::vector<std::vector<int32_t>> perms;
  for (int k = 0; k < most; ++k) {
    std::vector<int32_t> succ(size_t(n), -1), pred(size_t(n), -1);
    std::vector<int32_t> order = std::vector<int32_t>(size_t(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    std::vector<bool> seen;
    std::function<bool(int32_t)> augment = [&](int32_t a) {
      for (int32_t b : order) {
        if (a == b || arc(a, b) < 1 || seen[size_t(b)])
          continue;
        seen[size_t(b)] = true;
        if (pred[size_t(b)] < 0 || augment(pred[size_t(b)])) {
          pred[size_t(b)] = a;
          succ[size_t(a)] = b;
          return true;
        }
      }
      return false;
    };
    bool perfect = true;
    for (int32_t a : order) {
      seen.assign(size_t(n), false);
      if (!augment(a)) {
        perfect = false;
        break;
      }
    }
    if (!perfect)
      break;
    for (int32_t a = 0; a < n; ++a)
      --arc(a, succ[size_t(a)]);
    perms.push_back(succ);
  }
  // Cycle ids of a permutation and their count.
  auto cycles = [&](const std::vector<int32_t> &succ, std::vector<int> *id) {
    id->assign(size_t(n), -1);
    int count = 0;
    for (int32_t s = 0; s < n; ++s) {
      if ((*id)[size_t(s)] >= 0)
        continue;
      for (int32_t v = s; (*id)[size_t(v)] < 0; v = succ[size_t(v)])
        (*id)[size_t(v)] = count;
      ++count;
    }
    return count;
  };
  const int m = int(perms.size());
  std::vector<std::vector<int>> ids = std::vector<std::vector<int>>(size_t(m));
  std::vector<int> count = std::vector<int>(size_t(m));
  for (int k = 0; k < m; ++k)
    count[size_t(k)] = cycles(perms[size_t(k)], &ids[size_t(k)]);
  std::uniform_int_distribution<int32_t> rank(0, n - 1);
  for (int step = 0; step < 400 * n * std::max(1, m); ++step) {
    std::vector<int> open;
    for (int k = 0; k < m; ++k)
      if (count[size_t(k)] > 1)
        open.push_back(k);
    if (open.empty())
      break;
    const int p = open[size_t(random() % open.size())];
    std::vector<int32_t> &P = perms[size_t(p)];
    const int32_t x = rank(random), y = rank(random);
    if (ids[size_t(p)][size_t(x)] == ids[size_t(p)][size_t(y)])
      continue;
    const int32_t xs = P[size_t(x)], ys = P[size_t(y)];
    for (int q = 0; q < m; ++q) {
      std::vector<int32_t> &Q = perms[size_t(q)];
      if (q == p || Q[size_t(x)] != ys || Q[size_t(y)] != xs)
        continue;
      std::swap(P[size_t(x)], P[size_t(y)]);
      std::swap(Q[size_t(x)], Q[size_t(y)]);
      std::vector<int> pid, qid;
      int pc = cycles(P, &pid), qc = cycles(Q, &qid);
      if (pc + qc <= count[size_t(p)] + count[size_t(q)]) {
        ids[size_t(p)] = pid;
        ids[size_t(q)] = qid;
        count[size_t(p)] = pc;
        count[size_t(q)] = qc;
      } else {
        std::swap(P[size_t(x)], P[size_t(y)]);
        std::swap(Q[size_t(x)], Q[size_t(y)]);
      }
      break;
    }
  }
  std::vector<std::vector<int32_t>> rings;
  for (int k = 0; k < m; ++k)
    if (count[size_t(k)] == 1) {
      std::vector<int32_t> order{0};
      for (int32_t v = perms[size_t(k)][0]; v != 0;
           v = perms[size_t(k)][size_t(v)])
        order.push_back(v);
      rings.push_back(order);
    }
  return rings;
}

} // namespace

bool packRings(const topo::Topology &topology, RouteMemo &routes,
               const std::vector<topo::DeviceId> &gpus, int maxRings,
               RingPacking *packing, std::string *error) {
  *packing = RingPacking();
  PackingGraph graph;
  if (!graph.build(topology, routes, gpus, TreeDirection::FromRoot, error))
    return false;
  const int32_t n = graph.ranks();
  packing->ranks = n;
  const std::vector<double> &capacity = graph.capacity();
  const size_t links = capacity.size();
  // Levels: at a rate rho every link holds floor(left / rho) ring edges;
  // as many rings as a search finds there (the best of kTries, each
  // adding cycles until none is found), then the next level on what is
  // left. rho is tried at every link's capacity left / 1, 2, 3, keeping
  // the level that adds the most rate; levels while rings are left.
  constexpr int kTries = 12, kBudget = 4000;
  std::mt19937 random(1);
  std::vector<double> left = capacity;
  std::vector<std::vector<int32_t>> rings;
  double total = 0;
  // The rings' links and their max-min rates.
  std::vector<std::vector<std::pair<int, double>>> usage;
  std::vector<double> rates;
  auto fairRates = [&](const std::vector<std::vector<int32_t>> &all,
                       std::vector<std::vector<std::pair<int, double>>> *of) {
    of->clear();
    for (const std::vector<int32_t> &order : all)
      of->push_back(usageOf(graph, order));
    return maxMinRates(*of, capacity);
  };
  auto value = [&](const std::vector<std::vector<int32_t>> &all) {
    std::vector<std::vector<std::pair<int, double>>> of;
    std::vector<double> r = fairRates(all, &of);
    return std::accumulate(r.begin(), r.end(), 0.0);
  };
  const int most = std::max(1, maxRings);
  while (int(rings.size()) < most) {
    std::vector<double> rhos;
    for (double c : left)
      for (int j = 1; j <= 3; ++j)
        if (c / j > 1e-6)
          rhos.push_back(c / j);
    std::sort(rhos.begin(), rhos.end());
    rhos.erase(std::unique(rhos.begin(), rhos.end(),
                           [](double a, double b) {
                             return std::fabs(a - b) <= 1e-9 * b;
                           }),
               rhos.end());
    double bestAdded = 0;
    std::vector<std::vector<int32_t>> bestLevel;
    for (double rho : rhos) {
      // kTries depth-first searches, then the permutations merged.
      for (int attempt = 0; attempt <= kTries; ++attempt) {
        std::vector<int> slots(links);
        for (size_t l = 0; l < links; ++l)
          slots[l] = int(std::floor(left[l] / rho + 1e-9));
        CycleSearch search(graph, slots, random);
        std::vector<std::vector<int32_t>> level;
        if (attempt == kTries)
          level = factorRings(graph, slots, most - int(rings.size()), random);
        std::vector<int32_t> order;
        // Every other try takes each ring's reverse too where it fits:
        // the two directions of one undirected cycle (a torus's links
        // split into two Hamiltonian cycles, four rings).
        const bool pairs = attempt % 2 == 0;
        while (attempt < kTries && int(rings.size() + level.size()) < most &&
               search.find(kBudget, &order)) {
          level.push_back(order);
          std::vector<int32_t> back(order.rbegin(), order.rend());
          if (pairs && int(rings.size() + level.size()) < most &&
              search.take(back))
            level.push_back(back);
        }
        // Valued by the max-min rates of all the rings (a ring of this
        // level sharing a link with an earlier one splits it fairly, not
        // at rho); ties to fewer rings.
        if (level.empty())
          continue;
        std::vector<std::vector<int32_t>> all = rings;
        all.insert(all.end(), level.begin(), level.end());
        double added = value(all) - total;
        if (added > bestAdded * (1 + 1e-9) ||
            (added >= bestAdded * (1 - 1e-9) &&
             level.size() < bestLevel.size())) {
          bestAdded = added;
          bestLevel = level;
        }
      }
    }
    if (bestAdded <= 1e-3 * total)
      break;
    total += bestAdded;
    rings.insert(rings.end(), bestLevel.begin(), bestLevel.end());
    // What the rings leave of every link at their max-min rates.
    rates = fairRates(rings, &usage);
    left = capacity;
    for (size_t c = 0; c < rings.size(); ++c)
      for (auto [row, count] : usage[c])
        left[size_t(row)] -= rates[c] * count;
  }
  for (size_t c = 0; c < rings.size(); ++c)
    if (rates[c] > 0) {
      // Written from rank 0, so that rings read alike.
      std::rotate(rings[c].begin(),
                  std::find(rings[c].begin(), rings[c].end(), 0),
                  rings[c].end());
      packing->rings.push_back({rings[c], rates[c] * kRateUnit});
      packing->rate += rates[c] * kRateUnit;
    }
  if (packing->rings.empty()) {
    *error = "no ring over the group's routes has any rate";
    return false;
  }
  return true;
}

std::string describeRings(const RingPacking &packing) {
  char line[128];
  std::snprintf(line, sizeof line, "%zu rings, %.2f GB/s in all",
                packing.rings.size(), packing.rate / 1e9);
  std::string out = line;
  for (size_t c = 0; c < packing.rings.size(); ++c) {
    out += c == 0 ? ": " : ", ";
    for (size_t i = 0; i < packing.rings[c].order.size(); ++i)
      out += (i ? "-" : "") + std::to_string(packing.rings[c].order[i]);
    std::snprintf(line, sizeof line, " (%.2f)", packing.rings[c].rate / 1e9);
    out += line;
  }
  return out;
}

namespace {

/// "(k floordiv D) * F", or "0", or "k" (F == D == grid).
std::string gridBound(int units, int grid, int scale) {
  if (units == 0)
    return "0";
  if (units == grid && scale == 1)
    return "k";
  const std::string q = "(k floordiv " + std::to_string(grid * scale) + ")";
  return units == 1 ? q : q + " * " + std::to_string(units);
}

std::string quoted(const std::string &e) {
  return e.find(' ') == std::string::npos ? e : "\"" + e + "\"";
}

} // namespace

std::string ringScheduleText(const RingPacking &packing,
                             RingCollective collective,
                             const std::string &symbol,
                             const std::string &algorithm,
                             const std::string &summary) {
  const int32_t n = packing.ranks;
  const size_t m = packing.rings.size();
  // Units per part split among the rings by rate: the grid of 4 m to 32 m
  // units whose slowest ring (units over rate) is nearest the ideal, the
  // smallest of those within 1% of the best (DGX-1's six 25 GB/s rings
  // and one of 8: 28 units put 5 on some ring, 89% of the ideal rate).
  std::vector<double> rates;
  for (const PackedRing &ring : packing.rings)
    rates.push_back(ring.rate);
  auto slowest = [&](int g, const std::vector<int> &u) {
    double worst = 0;
    for (size_t c = 0; c < m; ++c)
      worst = std::max(worst, u[c] / (g * rates[c] / packing.rate));
    return worst;
  };
  int grid = int(4 * m);
  double best = std::numeric_limits<double>::infinity();
  for (int g = int(4 * m); g <= int(32 * m); ++g)
    best = std::min(best, slowest(g, apportion(rates, g)));
  for (int g = int(4 * m); g <= int(32 * m); ++g)
    if (slowest(g, apportion(rates, g)) <= best * 1.01) {
      grid = g;
      break;
    }
  std::vector<int> units = apportion(rates, grid);
  const bool allReduce = collective == RingCollective::AllReduce;
  const int scale = allReduce ? n : 1;
  const char *name = collective == RingCollective::AllGather ? "all_gather"
                     : collective == RingCollective::ReduceScatter
                         ? "reduce_scatter"
                         : "all_reduce";
  const char *volume = collective == RingCollective::AllGather ? "(n-1) M"
                       : collective == RingCollective::ReduceScatter
                           ? "(n-1)/n M"
                           : "2 (n-1)/n M";
  std::string out;
  out += "sched.schedule @" + symbol + " collective = " + name +
         " algorithm = \"" + algorithm +
         "\" group_size = " + std::to_string(n) + "\n";
  out += "    attributes {collc.chunk_unit = " + std::to_string(grid * scale) +
         " : i64, collc.volume = \"" + volume + "\", collc.steps = \"" +
         (allReduce ? "2 (n-1)" : "n - 1") + "\"}\n";
  out += "    description = \"synthesized: " + summary + "\" {\n";
  const std::string part =
      allReduce ? "(k floordiv " + std::to_string(n) + ")" : "k";
  constexpr int kWindow = 4;
  for (int32_t r = 0; r < n; ++r) {
    out += "  sched.rank " + std::to_string(r) + " {\n";
    int first = 0;
    for (size_t c = 0; c < m; ++c) {
      const std::vector<int32_t> &order = packing.rings[c].order;
      const int32_t i =
          int32_t(std::find(order.begin(), order.end(), r) - order.begin());
      auto at = [&](int32_t offset) {
        return order[size_t(((i + offset) % n + n) % n)];
      };
      const std::string prev = std::to_string(at(-1));
      const std::string next = std::to_string(at(1));
      const std::string lo = gridBound(first, grid, scale);
      const std::string hi = gridBound(first + units[c], grid, scale);
      first += units[c];
      // Rank p's part, chunk j: "p * k + j" (all_reduce: the part at
      // position p of this ring, "p * (k floordiv n) + j").
      auto chunk = [&](int32_t p) {
        return quoted(p == 0 ? std::string("j")
                             : std::to_string(p) + " * " + part + " + j");
      };
      // The ring's share of a part, units[c] x (k / G) chunks, moves in
      // k / G pieces of units[c] chunks: selection's chunk counts pick how
      // many pieces pipeline behind each other (1: the whole share in one
      // message a step, as a ring needs no more to keep every link busy).
      const std::string step =
          units[c] > 1 ? " step " + std::to_string(units[c]) : "";
      const std::string count =
          units[c] > 1 ? " count = " + std::to_string(units[c]) : "";
      out += "    sched.channel " + std::to_string(c) + " {\n";
      if (collective == RingCollective::AllGather) {
        out += "      sched.for j = " + quoted(lo) + " to " + quoted(hi) +
               step + " {\n";
        out +=
            "        sched.send to " + next + " src = input[j]" + count + "\n";
        for (int32_t s = 1; s < n - 1; ++s)
          out += "        sched.recv_copy_send from " + prev + " to " + next +
                 " dst = output[" + chunk(at(-s)) + "]" + count +
                 " step = " + std::to_string(s) + "\n";
        out += "        sched.recv from " + prev + " dst = output[" +
               chunk(at(-(n - 1))) + "]" + count +
               " step = " + std::to_string(n - 1) + "\n";
        out += "      }\n";
      } else if (collective == RingCollective::ReduceScatter) {
        out += "      sched.for j = " + quoted(lo) + " to " + quoted(hi) +
               step + " {\n";
        out += "        sched.send to " + next + " src = input[" +
               chunk(at(-1)) + "]" + count + "\n";
        for (int32_t s = 1; s < n - 1; ++s)
          out += "        sched.recv_reduce_send from " + prev + " to " + next +
                 " src = input[" + chunk(at(-1 - s)) + "]" + count +
                 " step = " + std::to_string(s) + "\n";
        out += "        sched.recv_reduce_copy from " + prev + " src = input[" +
               chunk(r) + "] dst = output[j]" + count +
               " step = " + std::to_string(n - 1) + "\n";
        out += "      }\n";
      } else {
        // Parts by position in this ring; `window` chunks at a time.
        auto pos = [&](int32_t offset) { return ((i + offset) % n + n) % n; };
        const std::string w = std::to_string(kWindow * units[c]);
        out += "      sched.for w = " + quoted(lo) + " to " + quoted(hi) +
               " step " + w + " {\n";
        auto window = [&](const std::string &body) {
          out += "        sched.for j = w to \"w + " + w + "\"" + step + " {\n";
          out += "          sched.if \"j < " + hi + "\" {\n";
          out += "            " + body + "\n";
          out += "          }\n        }\n";
        };
        window("sched.send to " + next + " src = input[" + chunk(pos(0)) + "]" +
               count);
        for (int32_t s = 1; s < n - 1; ++s)
          window("sched.recv_reduce_send from " + prev + " to " + next +
                 " src = input[" + chunk(pos(-s)) + "]" + count +
                 " step = " + std::to_string(s));
        window("sched.recv_reduce_copy_send from " + prev + " to " + next +
               " src = input[" + chunk(pos(1)) + "] dst = output[" +
               chunk(pos(1)) + "]" + count +
               " step = " + std::to_string(n - 1));
        for (int32_t t = 1; t < n - 1; ++t)
          window("sched.recv_copy_send from " + prev + " to " + next +
                 " dst = output[" + chunk(pos(1 - t)) + "]" + count +
                 " step = " + std::to_string(n - 1 + t));
        window("sched.recv from " + prev + " dst = output[" + chunk(pos(2)) +
               "]" + count + " step = " + std::to_string(2 * n - 2));
        out += "      }\n";
      }
      out += "    }\n";
    }
    if (collective == RingCollective::AllGather)
      out += "    sched.channel " + std::to_string(m) +
             " {\n      sched.copy src = input[0] dst = output[" +
             quoted(r == 0 ? std::string("0") : std::to_string(r) + " * k") +
             "] count = k\n    }\n";
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

} // namespace collc::synth

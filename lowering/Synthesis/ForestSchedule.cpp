//===- ForestSchedule.cpp - all-roots tree packings as sched schedules ----===//
#include "lowering/Synthesis/ForestSchedule.h"
#include "lowering/Synthesis/Apportion.h"
#include "lowering/Synthesis/TreeSchedule.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

namespace collc::synth {

int forestUnits(const ForestPacking &packing) {
  int most = 0;
  for (int32_t r = 0; r < packing.ranks; ++r)
    most = std::max(most, int(packing.treesOf(r).size()));
  return most <= 1 ? 1 : 4 * most;
}

std::vector<int> forestTreeUnits(const ForestPacking &packing, int units) {
  std::vector<int> out(packing.trees.size(), 1);
  for (int32_t r = 0; r < packing.ranks; ++r) {
    std::vector<size_t> mine = packing.treesOf(r);
    std::vector<double> rates;
    for (size_t t : mine)
      rates.push_back(packing.trees[t].rate);
    std::vector<int> share = apportion(rates, units);
    for (size_t i = 0; i < mine.size(); ++i)
      out[mine[i]] = share[i];
  }
  return out;
}

namespace {

/// The first chunk of unit `u` when a unit is k / `divisor` chunks.
std::string unitBound(int u, int divisor) {
  if (u == 0)
    return "0";
  std::string per =
      divisor == 1 ? "k" : "(k floordiv " + std::to_string(divisor) + ")";
  return u == 1 ? per : per + " * " + std::to_string(u);
}

/// An expression as the sched syntax writes it: a name or an integer bare,
/// anything else quoted.
std::string written(const std::string &expression) {
  return expression.find(' ') == std::string::npos ? expression
                                                   : "\"" + expression + "\"";
}

/// `base * k + j` (base a constant).
std::string partChunk(int32_t base) {
  return base == 0 ? "j" : "\"" + std::to_string(base) + " * k + j\"";
}

std::vector<int32_t> childrenOf(const std::vector<int32_t> &parent, int32_t r) {
  std::vector<int32_t> out;
  for (int32_t c = 0; c < int32_t(parent.size()); ++c)
    if (parent[size_t(c)] == r)
      out.push_back(c);
  return out;
}

/// The tree ranges: tree t takes units [first, first + count) (of k /
/// divisor chunks each).
struct Ranges {
  std::vector<int> first, count;
};
Ranges rangesOf(const ForestPacking &p, int units, bool absolute) {
  Ranges out;
  std::vector<int> share = forestTreeUnits(p, units);
  std::vector<int> before(size_t(p.ranks), 0);
  for (size_t t = 0; t < p.trees.size(); ++t) {
    int32_t root = p.trees[t].root;
    out.first.push_back((absolute ? root * units : 0) + before[size_t(root)]);
    before[size_t(root)] += share[t];
    out.count.push_back(share[t]);
  }
  return out;
}

/// The instructions of every (rank, channel), and how many each holds so
/// far (in units x instructions per iteration: k / divisor chunks a unit).
class Writer {
public:
  Writer(int32_t n, int divisor)
      : divisor_(divisor), bodies_(size_t(n)), held_(size_t(n)) {}

  /// A loop over tree t's range on channel `channel` of rank r.
  void loop(int32_t r, int channel, const Ranges &ranges, size_t t,
            const std::vector<std::string> &instructions) {
    if (instructions.empty())
      return;
    std::string lo = unitBound(ranges.first[t], divisor_),
                hi = unitBound(ranges.first[t] + ranges.count[t], divisor_);
    std::string &body = bodies_[size_t(r)][channel];
    body +=
        "      sched.for j = " + written(lo) + " to " + written(hi) + " {\n";
    for (const std::string &i : instructions)
      body += "        " + i + "\n";
    body += "      }\n";
    held_[size_t(r)][channel] += ranges.count[t] * int(instructions.size());
  }
  /// The index that instruction `pos` (of `per` an iteration) of iteration
  /// j will have in tree t's loop on `channel` of rank r, written before
  /// that loop is.
  std::string next(int32_t r, int channel, const Ranges &ranges, size_t t,
                   int per = 1, int pos = 0) const {
    std::string out;
    auto it = held_[size_t(r)].find(channel);
    if (it != held_[size_t(r)].end() && it->second > 0)
      out = unitBound(it->second, divisor_) + " + ";
    std::string lo = unitBound(ranges.first[t], divisor_);
    std::string local = lo == "0" ? "j" : "j - " + lo;
    if (per != 1)
      local = "(" + local + ") * " + std::to_string(per);
    out += local;
    if (pos)
      out += " + " + std::to_string(pos);
    return out;
  }
  /// The last instruction of `channel` of rank r so far.
  std::string last(int32_t r, int channel) const {
    return unitBound(held_[size_t(r)].at(channel), divisor_) + " - 1";
  }
  bool holds(int32_t r, int channel) const {
    auto it = held_[size_t(r)].find(channel);
    return it != held_[size_t(r)].end() && it->second > 0;
  }
  std::map<int, std::string> &body(int32_t r) { return bodies_[size_t(r)]; }

  std::string ranks() const {
    std::string out;
    for (size_t r = 0; r < bodies_.size(); ++r) {
      out += "  sched.rank " + std::to_string(r) + " {\n";
      for (const auto &[channel, text] : bodies_[r])
        out += "    sched.channel " + std::to_string(channel) + " {\n" + text +
               "    }\n";
      out += "  }\n";
    }
    return out + "}\n";
  }

private:
  int divisor_;
  std::vector<std::map<int, std::string>> bodies_;
  std::vector<std::map<int, int>> held_;
};

std::string dependency(int channel, const std::string &index) {
  return "(channel " + std::to_string(channel) + ", index " + written(index) +
         ")";
}
std::string afterList(const std::vector<std::string> &deps) {
  if (deps.empty())
    return "";
  std::string out = " after = [";
  for (size_t i = 0; i < deps.size(); ++i)
    out += (i ? ", " : "") + deps[i];
  return out + "]";
}

/// The gather trees: `part(R)` the output chunk that index j names of part
/// R; `rootSrc` what a root sends; `rootAfter(R, channel)` what a root's
/// sends on `channel` wait for.
void gatherTrees(
    const ForestPacking &p, ForestChannelMode mode, const Ranges &ranges,
    const std::function<std::string(int32_t)> &part, const std::string &rootSrc,
    const std::function<std::vector<std::string>(int32_t, int)> &rootAfter,
    Writer &w) {
  EdgeChannels edges =
      mode == ForestChannelMode::PerEdge ? edgeChannels(p) : EdgeChannels();
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const ForestTree &tree = p.trees[t];
    for (int32_t r = 0; r < p.ranks; ++r) {
      std::vector<int32_t> kids = childrenOf(tree.parent, r);
      const std::string dst = "output[" + part(tree.root) + "]";
      if (mode == ForestChannelMode::PerEdge) {
        if (r == tree.root) {
          for (int32_t c : kids) {
            int ch = edges.edge[t][size_t(c)];
            w.loop(r, ch, ranges, t,
                   {"sched.send to " + std::to_string(c) + " src = " + rootSrc +
                    afterList(rootAfter(r, ch))});
          }
          continue;
        }
        int in = edges.edge[t][size_t(r)];
        std::string arrived = dependency(in, w.next(r, in, ranges, t));
        w.loop(r, in, ranges, t,
               {"sched.recv from " + std::to_string(tree.parent[size_t(r)]) +
                " dst = " + dst});
        for (int32_t c : kids)
          w.loop(r, edges.edge[t][size_t(c)], ranges, t,
                 {"sched.send to " + std::to_string(c) + " src = " + dst +
                  afterList({arrived})});
        continue;
      }
      std::vector<std::string> ins;
      if (r == tree.root) {
        for (int32_t c : kids)
          ins.push_back("sched.send to " + std::to_string(c) +
                        " src = " + rootSrc + afterList(rootAfter(r, int(t))));
      } else {
        std::string up = std::to_string(tree.parent[size_t(r)]);
        if (kids.empty())
          ins.push_back("sched.recv from " + up + " dst = " + dst);
        else
          ins.push_back("sched.recv_copy_send from " + up + " to " +
                        std::to_string(kids[0]) + " dst = " + dst);
        for (size_t i = 1; i < kids.size(); ++i)
          ins.push_back("sched.send to " + std::to_string(kids[i]) +
                        " src = " + dst);
      }
      w.loop(r, int(t), ranges, t, ins);
    }
  }
}

/// The reduce trees: `in(R)` the rank's own contribution to part R at
/// index j, `acc(R)` where a forwarding rank sums (with two or more
/// children per tree, or any in PerEdge), `out` where the root stores it.
/// Returns per root the (channel, last index) of its reduce channels, for
/// what waits for the part to be complete.
std::vector<std::vector<std::pair<int, std::string>>>
reduceTrees(const ForestPacking &p, ForestChannelMode mode,
            const Ranges &ranges, const std::function<std::string(int32_t)> &in,
            const std::function<std::string(int32_t)> &acc,
            const std::string &out, Writer &w) {
  EdgeChannels edges =
      mode == ForestChannelMode::PerEdge ? edgeChannels(p) : EdgeChannels();
  std::vector<std::vector<std::pair<int, std::string>>> done(size_t(p.ranks));
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const ForestTree &tree = p.trees[t];
    for (int32_t r = 0; r < p.ranks; ++r) {
      std::vector<int32_t> kids = childrenOf(tree.parent, r);
      const std::string mine = in(tree.root);
      const bool root = r == tree.root;
      std::string up = root ? "" : std::to_string(tree.parent[size_t(r)]);
      if (mode == ForestChannelMode::PerEdge) {
        // Each child's arrival combined on its channel, after the previous
        // child's; then the sum sent up on the rank's own edge.
        std::string sum = root ? out : kids.empty() ? mine : acc(tree.root);
        std::vector<std::string> previous;
        int lastChannel = -1;
        for (size_t i = 0; i < kids.size(); ++i) {
          int ch = edges.edge[t][size_t(kids[i])];
          std::string self = dependency(ch, w.next(r, ch, ranges, t));
          w.loop(r, ch, ranges, t,
                 {"sched.recv_reduce_copy from " + std::to_string(kids[i]) +
                  " src = " + (i == 0 ? mine : sum) + " dst = " + sum +
                  afterList(previous)});
          previous = {self};
          lastChannel = ch;
        }
        if (root) {
          done[size_t(r)].push_back({lastChannel, w.last(r, lastChannel)});
          continue;
        }
        w.loop(r, edges.edge[t][size_t(r)], ranges, t,
               {"sched.send to " + up + " src = " + sum + afterList(previous)});
        continue;
      }
      std::vector<std::string> ins;
      if (root) {
        for (size_t i = 0; i < kids.size(); ++i)
          ins.push_back("sched.recv_reduce_copy from " +
                        std::to_string(kids[i]) +
                        " src = " + (i == 0 ? mine : out) + " dst = " + out);
      } else if (kids.empty()) {
        ins.push_back("sched.send to " + up + " src = " + mine);
      } else {
        std::string sum = kids.size() >= 2 ? acc(tree.root) : mine;
        for (size_t i = 0; i + 1 < kids.size(); ++i)
          ins.push_back("sched.recv_reduce_copy from " +
                        std::to_string(kids[i]) +
                        " src = " + (i == 0 ? mine : sum) + " dst = " + sum);
        ins.push_back("sched.recv_reduce_send from " +
                      std::to_string(kids.back()) + " to " + up +
                      " src = " + sum);
      }
      w.loop(r, int(t), ranges, t, ins);
      if (root)
        done[size_t(r)].push_back({int(t), w.last(r, int(t))});
    }
  }
  return done;
}

std::string header(const std::string &symbol, const char *collective,
                   const std::string &algorithm, int32_t n, int unit,
                   const std::string &volume, const std::string &scratch,
                   const std::string &summary) {
  std::string out = "sched.schedule @" + symbol +
                    " collective = " + collective + " algorithm = \"" +
                    algorithm + "\" group_size = " + std::to_string(n) + "\n";
  out += "    attributes {collc.chunk_unit = " + std::to_string(unit) +
         " : i64, collc.volume = \"" + volume +
         "\", collc.steps = \"tree depth + k\"}\n";
  if (!scratch.empty())
    out += "    scratch = " + written(scratch) + "\n";
  out += "    description = \"synthesized: " + summary + "\" {\n";
  return out;
}

std::string firstLine(const std::string &text) {
  return text.substr(0, text.find('\n'));
}

const char *modeName(ForestChannelMode mode) {
  return mode == ForestChannelMode::PerEdge ? "a channel per tree edge"
                                            : "a channel per tree";
}

} // namespace

EdgeChannels edgeChannels(const ForestPacking &p) {
  EdgeChannels out;
  std::vector<const std::vector<int32_t> *> parents;
  for (const ForestTree &tree : p.trees)
    parents.push_back(&tree.parent);
  std::vector<std::vector<bool>> used;
  out.edge = colourTreeEdges(parents, p.ranks, &used);
  for (const std::vector<bool> &ids : used)
    out.most = std::max(out.most, int(ids.size()));
  return out;
}

int forestChannels(const ForestPacking &packing, ForestChannelMode mode) {
  int used = mode == ForestChannelMode::PerEdge ? edgeChannels(packing).most
                                                : int(packing.trees.size());
  return used + (packing.direction == TreeDirection::FromRoot ? 1 : 0);
}

std::string forestScheduleText(const ForestPacking &p, ForestChannelMode mode,
                               const std::string &symbol,
                               const std::string &algorithm) {
  const int32_t n = p.ranks;
  const int units = forestUnits(p);
  Ranges ranges = rangesOf(p, units, false);
  Writer w(n, units);
  std::string summary = firstLine(describeForest(p)) + "; " + modeName(mode);
  if (p.direction == TreeDirection::FromRoot) {
    gatherTrees(
        p, mode, ranges, [](int32_t root) { return partChunk(root); },
        "input[j]", [](int32_t, int) { return std::vector<std::string>(); }, w);
    const int copy = forestChannels(p, mode) - 1;
    for (int32_t r = 0; r < n; ++r)
      w.body(r)[copy] += "      sched.copy src = input[0] dst = output[" +
                         written(r == 0 ? "0" : std::to_string(r) + " * k") +
                         "] count = k\n";
    return header(symbol, "all_gather", algorithm, n, units, "(n-1) M", "",
                  summary) +
           w.ranks();
  }
  bool scratch = false;
  reduceTrees(
      p, mode, ranges,
      [](int32_t root) { return "input[" + partChunk(root) + "]"; },
      [&](int32_t root) {
        scratch = true;
        return "scratch[" + partChunk(root) + "]";
      },
      "output[j]", w);
  return header(symbol, "reduce_scatter", algorithm, n, units, "(n-1)/n M",
                scratch ? "n * k" : "", summary) +
         w.ranks();
}

std::string allReduceScheduleText(const ForestPacking &reduce,
                                  const ForestPacking &gather,
                                  ForestChannelMode mode,
                                  const std::string &symbol,
                                  const std::string &algorithm) {
  const int32_t n = reduce.ranks;
  // One unit grid for both phases: parts of `units` units, a unit k / (n
  // units) chunks.
  const int units = std::max(forestUnits(reduce), forestUnits(gather));
  const int divisor = n * units;
  Ranges up = rangesOf(reduce, units, true);
  Ranges down = rangesOf(gather, units, true);
  Writer w(n, divisor);
  std::vector<std::vector<std::pair<int, std::string>>> done = reduceTrees(
      reduce, mode, up, [](int32_t) { return std::string("input[j]"); },
      [](int32_t) { return std::string("output[j]"); }, "output[j]", w);
  // A root sends its part once its reduce channels are done.
  auto rootAfter = [&](int32_t r, int channel) {
    std::vector<std::string> deps;
    for (const auto &[c, last] : done[size_t(r)])
      if (c != channel)
        deps.push_back(dependency(c, last));
    return deps;
  };
  gatherTrees(
      gather, mode, down, [](int32_t) { return std::string("j"); }, "output[j]",
      rootAfter, w);
  std::string summary = firstLine(describeForest(reduce)) + "; then " +
                        firstLine(describeForest(gather)) + "; " +
                        modeName(mode);
  return header(symbol, "all_reduce", algorithm, n, divisor, "2 (n-1)/n M", "",
                summary) +
         w.ranks();
}

} // namespace collc::synth

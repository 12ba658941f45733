//===- RoundSchedule.cpp - tree packings as round-by-round schedules ------===//
#include "lowering/Synthesis/RoundSchedule.h"
#include "lowering/Synthesis/Apportion.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>

namespace collc::synth {

std::vector<ForestTree> forestTreesOf(const TreePacking &packing) {
  std::vector<ForestTree> out;
  for (const PackedTree &tree : packing.trees)
    out.push_back({packing.root, tree.parent, tree.rate});
  return out;
}

int roundGrid(const std::vector<ForestTree> &trees, int32_t ranks, int copies) {
  int most = 0;
  for (int32_t r = 0; r < ranks; ++r) {
    int mine = 0;
    for (const ForestTree &t : trees)
      mine += t.root == r;
    most = std::max(most, mine);
  }
  const int streams = std::max(1, most) * std::max(1, copies);
  if (streams == 1)
    return 1;
  // The coarsest grid whose rounding moves no tree more than 2% above its
  // share (each tree's units over its share of the rate).
  int grid = 4 * streams;
  for (int per : {4, 8, 16, 32}) {
    grid = per * streams;
    std::vector<RoundTree> split = roundTrees(trees, ranks, grid, copies);
    std::map<int32_t, double> total;
    for (const ForestTree &t : trees)
      total[t.root] += t.rate;
    double worst = 0;
    size_t at = 0;
    for (int32_t r = 0; r < ranks; ++r)
      for (const ForestTree &t : trees)
        if (t.root == r)
          for (int c = 0; c < std::max(1, copies); ++c, ++at) {
            double share = t.rate / total[r] / std::max(1, copies);
            if (share > 0)
              worst = std::max(worst, split[at].units / double(grid) / share);
          }
    if (worst <= 1.02)
      break;
  }
  return grid;
}

std::vector<RoundTree> roundTrees(const std::vector<ForestTree> &trees,
                                  int32_t ranks, int grid, int copies) {
  copies = std::max(1, copies);
  std::vector<RoundTree> out;
  for (int32_t r = 0; r < ranks; ++r) {
    std::vector<size_t> mine;
    for (size_t t = 0; t < trees.size(); ++t)
      if (trees[t].root == r)
        mine.push_back(t);
    if (mine.empty())
      continue;
    const size_t m = mine.size() * size_t(copies);
    std::vector<double> rates;
    for (size_t i = 0; i < m; ++i)
      rates.push_back(trees[mine[i / size_t(copies)]].rate);
    std::vector<int> units = apportion(rates, grid);
    int first = 0;
    for (size_t i = 0; i < m; ++i) {
      RoundTree tree;
      tree.root = r;
      tree.parent = trees[mine[i / size_t(copies)]].parent;
      tree.first = first;
      tree.units = units[i];
      tree.source = int(mine[i / size_t(copies)]);
      tree.copy = int(i % size_t(copies));
      first += units[i];
      out.push_back(std::move(tree));
    }
  }
  return out;
}

void staggerTrees(std::vector<RoundTree> &trees) {
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (size_t i = 0; i < trees.size(); ++i) {
    double phase = std::fmod(double(i + 1) * golden, 1.0);
    trees[i].offset =
        std::min(trees[i].units - 1, int(std::floor(phase * trees[i].units)));
  }
}

void allReducePieces(std::vector<RoundTree> &reduce,
                     std::vector<RoundTree> &gather) {
  std::vector<RoundTree> r2, g2;
  std::map<int32_t, std::vector<size_t>> reduceOf, gatherOf;
  for (size_t t = 0; t < reduce.size(); ++t)
    reduceOf[reduce[t].root].push_back(t);
  for (size_t t = 0; t < gather.size(); ++t)
    gatherOf[gather[t].root].push_back(t);
  for (const auto &[root, mine] : reduceOf) {
    std::vector<int> cuts;
    for (size_t t : mine)
      cuts.push_back(reduce[t].first);
    for (size_t t : gatherOf[root])
      cuts.push_back(gather[t].first);
    int end = 0;
    for (size_t t : mine)
      end = std::max(end, reduce[t].first + reduce[t].units);
    cuts.push_back(end);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    auto holding = [](const std::vector<RoundTree> &trees,
                      const std::vector<size_t> &of, int at) {
      for (size_t t : of)
        if (trees[t].first <= at && at < trees[t].first + trees[t].units)
          return t;
      return of.front();
    };
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      RoundTree a = reduce[holding(reduce, mine, cuts[c])];
      RoundTree b = gather[holding(gather, gatherOf[root], cuts[c])];
      a.first = b.first = cuts[c];
      a.units = b.units = cuts[c + 1] - cuts[c];
      a.offset = b.offset = 0;
      r2.push_back(std::move(a));
      g2.push_back(std::move(b));
    }
  }
  reduce = std::move(r2);
  gather = std::move(g2);
}

namespace {

/// An expression as the sched syntax writes it: a name or an integer bare,
/// anything else quoted.
std::string written(const std::string &expression) {
  return expression.find(' ') == std::string::npos ? expression
                                                   : "\"" + expression + "\"";
}

/// "a + b + ..." of the non-empty terms, "0" when none.
std::string sum(const std::vector<std::string> &terms) {
  std::string out;
  for (const std::string &t : terms)
    if (!t.empty())
      out += (out.empty() ? "" : " + ") + t;
  return out.empty() ? "0" : out;
}

/// "e + c" for an integer c of any sign.
std::string plus(const std::string &e, int c) {
  if (c == 0)
    return e;
  if (e == "0" || e.empty())
    return std::to_string(c);
  return e + (c > 0 ? " + " : " - ") + std::to_string(c > 0 ? c : -c);
}

/// A buffer range of an instruction: the buffer and where its part starts
/// ("" at 0).
struct Buffer {
  const char *name = "input";
  std::string base;
};

enum class Op { Send, Recv, RecvReduceCopy, RecvCopySend, RecvReduceSend };

/// One instruction of a rank, once per round.
struct Item {
  /// The order within a round on every stream: (level, tree, rank).
  std::tuple<int, int, int> key;
  int phase = 0;
  int channel = 0;
  /// Index of its tree in its phase.
  int tree = 0;
  Op op = Op::Send;
  /// The peer it sends to or receives from; a forward's receiver.
  int32_t peer = 0, to = 0;
  Buffer src, dst;
  /// Items of the same rank (indices into its items) this one waits for:
  /// the same tree's (or for an all_reduce's gather, the same piece's
  /// reduction) in the same round.
  std::vector<int> after;
  /// Its positions on its stream: among the prologue's items (-1: none),
  /// within a loop iteration, in the epilogue.
  int pro = -1, loop = 0, epi = 0;
};

/// Where an item sits: the prologue, iteration j of the loop, the
/// epilogue.
enum class Section { Pro, Loop, Epi };

class Writer {
public:
  explicit Writer(const RoundSchedule &s) : s_(s), items_(size_t(s.ranks)) {
    build();
  }

  /// Streams (rank, channel) that carry more than one chain.
  int sharedStreams() const { return shared_; }

  int mostChannels() const {
    int most = 0;
    for (int32_t r = 0; r < s_.ranks; ++r)
      most = std::max(most, int(streams(r).size()) + (copies(r) ? 1 : 0));
    return most;
  }

  std::string text(const std::string &symbol, const std::string &algorithm,
                   const std::string &summary) const {
    const char *collective = "", *volume = "";
    switch (s_.collective) {
    case RoundCollective::Broadcast:
      collective = "broadcast";
      volume = "M per tree edge";
      break;
    case RoundCollective::Reduce:
      collective = "reduce";
      volume = "M per tree edge";
      break;
    case RoundCollective::AllGather:
      collective = "all_gather";
      volume = "(n-1) M";
      break;
    case RoundCollective::ReduceScatter:
      collective = "reduce_scatter";
      volume = "(n-1)/n M";
      break;
    case RoundCollective::AllReduce:
      collective = "all_reduce";
      volume = "2 (n-1)/n M";
      break;
    }
    const int unit = divisor() * std::max(1, s_.minRounds);
    std::string out = "sched.schedule @" + symbol +
                      " collective = " + collective + " algorithm = \"" +
                      algorithm +
                      "\" group_size = " + std::to_string(s_.ranks) + "\n";
    out += "    attributes {collc.chunk_unit = " + std::to_string(unit) +
           " : i64, collc.volume = \"" + volume +
           "\", collc.steps = \"tree depth + k\"}\n";
    if (s_.collective == RoundCollective::Broadcast ||
        s_.collective == RoundCollective::Reduce)
      out += "    root = " + std::to_string(s_.root) + "\n";
    if (scratch_)
      out += "    scratch = \"n * k\"\n";
    out += "    description = \"synthesized: " + summary + "\" {\n";
    for (int32_t r = 0; r < s_.ranks; ++r) {
      out += "  sched.rank " + std::to_string(r) + " {\n";
      const std::vector<Item> &items = items_[size_t(r)];
      for (const auto &[channel, shape] : streams(r)) {
        out += "    sched.channel " + std::to_string(channel) + " {\n";
        // A sequential all_reduce's stream runs its phases one after the
        // other, each in its own loop.
        for (int phase :
             s_.sequential ? std::vector<int>{0, 1} : std::vector<int>{-1}) {
          std::vector<const Item *> on;
          for (const Item &item : items)
            if (item.channel == channel && (phase < 0 || item.phase == phase))
              on.push_back(&item);
          if (on.empty())
            continue;
          // The stream's first phase-1 item (the prologue's, else the
          // loop's) and the rank's other streams' last phase-0 instructions.
          const Item *first = nullptr;
          std::vector<std::string> barrier;
          if (phase == 1) {
            for (const Item *item : on)
              if (!first ||
                  std::make_pair(item->pro < 0,
                                 item->pro < 0 ? item->loop : item->pro) <
                      std::make_pair(first->pro < 0,
                                     first->pro < 0 ? first->loop : first->pro))
                first = item;
            for (const auto &[other, counts] : streams(r))
              if (other != channel && counts.loop > 0)
                barrier.push_back(
                    "(channel " + std::to_string(other) + ", index " +
                    written(plus(rounds() + " * " + std::to_string(counts.loop),
                                 counts.pro - 1)) +
                    ")");
          }
          auto emit = [&](Section section, const std::string &indent) {
            std::vector<const Item *> order;
            for (const Item *item : on)
              if (section != Section::Pro || item->pro >= 0)
                order.push_back(item);
            std::sort(order.begin(), order.end(),
                      [&](const Item *a, const Item *b) {
                        return position(*a, section) < position(*b, section);
                      });
            for (const Item *item : order) {
              // A sequential all_reduce's first gather item of the stream
              // waits for the rank's whole reduction (every other stream's
              // last reduce instruction): the gather trees would otherwise
              // take link bandwidth from the reduction still under way.
              if (phase == 1 && !barrier.empty() && item == first &&
                  section == (first->pro >= 0 ? Section::Pro : Section::Loop)) {
                if (section == Section::Pro) {
                  out +=
                      indent + instruction(r, *item, section, barrier) + "\n";
                } else {
                  out += indent + "sched.if \"j == 0\" {\n" + indent + "  " +
                         instruction(r, *item, section, barrier) + "\n" +
                         indent + "} else {\n" + indent + "  " +
                         instruction(r, *item, section) + "\n" + indent + "}\n";
                }
                continue;
              }
              out += indent + instruction(r, *item, section) + "\n";
            }
          };
          emit(Section::Pro, "      ");
          out +=
              "      sched.for j = 0 to " + written(rounds() + " - 1") + " {\n";
          emit(Section::Loop, "        ");
          out += "      }\n";
          emit(Section::Epi, "      ");
        }
        out += "    }\n";
      }
      if (copies(r)) {
        std::string dst = s_.collective == RoundCollective::AllGather && r > 0
                              ? std::to_string(r) + " * k"
                              : "0";
        out += "    sched.channel " + std::to_string(copyId_) +
               " {\n      sched.copy src = input[0] dst = output[" +
               written(dst) + "] count = k\n    }\n";
      }
      out += "  }\n";
    }
    return out + "}\n";
  }

private:
  const RoundSchedule &s_;
  std::vector<std::vector<Item>> items_;
  bool scratch_ = false;
  int copyId_ = 0;
  int shared_ = 0;

  bool copies(int32_t r) const {
    return s_.collective == RoundCollective::AllGather ||
           (s_.collective == RoundCollective::Broadcast && r == s_.root);
  }
  /// Chunks a round spans over all parts: G, or n G for all_reduce, whose k
  /// chunks hold n parts.
  int divisor() const {
    return s_.grid *
           (s_.collective == RoundCollective::AllReduce ? s_.ranks : 1);
  }
  /// The number of rounds, as an expression.
  std::string rounds() const {
    return "(k floordiv " + std::to_string(divisor()) + ")";
  }

  struct Shape {
    int pro = 0, loop = 0;
    /// Sequential all_reduce: the same counts of the phase-1 items (the
    /// stream runs them after all of phase 0's).
    int pro1 = 0, loop1 = 0;
  };
  /// A rank's channel ids and their items: in the prologue, a round.
  std::map<int, Shape> streams(int32_t r) const {
    std::map<int, Shape> ids;
    for (const Item &item : items_[size_t(r)]) {
      Shape &shape = ids[item.channel];
      if (s_.sequential && item.phase == 1) {
        shape.pro1 += item.pro >= 0;
        ++shape.loop1;
        continue;
      }
      shape.pro += item.pro >= 0;
      ++shape.loop;
    }
    return ids;
  }
  static int position(const Item &item, Section section) {
    return section == Section::Pro    ? item.pro
           : section == Section::Loop ? item.loop
                                      : item.epi;
  }

  const RoundTree &treeOf(const Item &item) const {
    return s_.phases[size_t(item.phase)][size_t(item.tree)];
  }

  /// The first chunk of `item`'s range in `section`, within its buffer.
  std::string chunk(const Item &item, const Buffer &buffer,
                    Section section) const {
    const RoundTree &t = treeOf(item);
    std::vector<std::string> terms = {buffer.base};
    const std::string r = rounds();
    switch (section) {
    case Section::Pro:
      if (t.first)
        terms.push_back(r + " * " + std::to_string(t.first));
      return written(sum(terms));
    case Section::Loop:
      if (t.first)
        terms.push_back(r + " * " + std::to_string(t.first));
      terms.push_back(t.units == 1 ? "j" : "j * " + std::to_string(t.units));
      return written(plus(sum(terms), t.offset));
    case Section::Epi:
      terms.push_back(r + " * " + std::to_string(t.first + t.units));
      return written(plus(sum(terms), -(t.units - t.offset)));
    }
    return "0";
  }
  int count(const Item &item, Section section) const {
    const RoundTree &t = treeOf(item);
    return section == Section::Pro    ? t.offset
           : section == Section::Loop ? t.units
                                      : t.units - t.offset;
  }

  std::string instruction(int32_t r, const Item &item, Section section,
                          const std::vector<std::string> &extra = {}) const {
    auto range = [&](const Buffer &b) {
      return std::string(b.name) + "[" + chunk(item, b, section) + "]";
    };
    std::string out;
    switch (item.op) {
    case Op::Send:
      out = "sched.send to " + std::to_string(item.peer) +
            " src = " + range(item.src);
      break;
    case Op::Recv:
      out = "sched.recv from " + std::to_string(item.peer) +
            " dst = " + range(item.dst);
      break;
    case Op::RecvReduceCopy:
      out = "sched.recv_reduce_copy from " + std::to_string(item.peer) +
            " src = " + range(item.src) + " dst = " + range(item.dst);
      break;
    case Op::RecvCopySend:
      out = "sched.recv_copy_send from " + std::to_string(item.peer) + " to " +
            std::to_string(item.to) + " dst = " + range(item.dst);
      break;
    case Op::RecvReduceSend:
      out = "sched.recv_reduce_send from " + std::to_string(item.peer) +
            " to " + std::to_string(item.to) + " src = " + range(item.src);
      break;
    }
    out += " count = " + std::to_string(count(item, section));
    // A dependency on the item's own stream holds by program order.
    std::vector<const Item *> deps;
    for (int d : item.after)
      if (items_[size_t(r)][size_t(d)].channel != item.channel)
        deps.push_back(&items_[size_t(r)][size_t(d)]);
    if (deps.empty() && extra.empty())
      return out;
    out += " after = [";
    for (size_t d = 0; d < extra.size(); ++d)
      out += (d ? ", " : "") + extra[d];
    if (!extra.empty() && !deps.empty())
      out += ", ";
    for (size_t d = 0; d < deps.size(); ++d) {
      const Item &dep = *deps[d];
      Shape shape = streams(r).at(dep.channel);
      // A sequential all_reduce's phase-1 item comes after the stream's
      // pro + loop x rounds phase-0 instructions.
      std::string before;
      if (s_.sequential && dep.phase == 1) {
        before = plus(rounds() + " * " + std::to_string(shape.loop), shape.pro);
        shape.pro = shape.pro1;
        shape.loop = shape.loop1;
      }
      auto after = [&](const std::string &e) {
        return before.empty() ? e : e + " + " + before;
      };
      std::string index;
      switch (section) {
      case Section::Pro:
        index = after(std::to_string(dep.pro));
        break;
      case Section::Loop:
        index = after(
            plus(shape.loop == 1 ? "j" : "j * " + std::to_string(shape.loop),
                 shape.pro + dep.loop));
        break;
      case Section::Epi:
        index = after(plus(rounds() + " * " + std::to_string(shape.loop),
                           shape.pro - shape.loop + dep.epi));
        break;
      }
      out += std::string(d ? ", " : "") + "(channel " +
             std::to_string(dep.channel) + ", index " + written(index) + ")";
    }
    return out + "]";
  }

  std::string partBase(int32_t root) const {
    // A broadcast's or reduce's one part is the whole buffer.
    if (root == 0 || s_.collective == RoundCollective::Broadcast ||
        s_.collective == RoundCollective::Reduce)
      return "";
    if (s_.collective == RoundCollective::AllReduce)
      return "(k floordiv " + std::to_string(s_.ranks) + ") * " +
             std::to_string(root);
    return std::to_string(root) + " * k";
  }

  /// A path of one tree's edges along which data is forwarded without a
  /// stop: every rank inside it has exactly one child, so it receives and
  /// sends on in one instruction (recv_copy_send, or recv_reduce_send
  /// towards a root). `nodes` in the data's direction.
  struct Chain {
    size_t phase = 0, tree = 0;
    std::vector<int32_t> nodes;
    std::tuple<int, int, int> key;
    int channel = 0;
  };

  void build() {
    const bool allReduce = s_.collective == RoundCollective::AllReduce;
    const bool copy = s_.collective == RoundCollective::AllGather ||
                      s_.collective == RoundCollective::Broadcast;
    const int usable = std::max(1, s_.channels - (copy ? 1 : 0));
    const size_t phases = s_.phases.size();
    // Each phase's channel ids: [base, base + budget).
    std::vector<int> base(phases), budget(phases);
    for (size_t p = 0, at = 0; p < phases; ++p) {
      if (s_.sequential) {
        // One phase after the other: each has every id.
        budget[p] = usable;
        base[p] = 0;
        continue;
      }
      budget[p] = std::max(1, usable / int(phases) +
                                  (int(p) < usable % int(phases) ? 1 : 0));
      base[p] = int(at);
      at += size_t(budget[p]);
    }
    // Every tree cut into chains. Away from a root a chain starts at the
    // root or at a rank with two or more children and runs on while the
    // rank it reached has exactly one child; towards a root it starts at
    // a leaf or at a rank with two or more children and runs on up while
    // the rank it reached (not the root) has exactly that one child. Its
    // key is (level of its first edge, tree, rank): the depth of the rank
    // it first reaches away from a root, the height of the rank it starts
    // at towards one.
    std::vector<Chain> chains;
    for (size_t p = 0; p < phases; ++p) {
      const bool down = direction(p) == TreeDirection::FromRoot;
      for (size_t ti = 0; ti < s_.phases[p].size(); ++ti) {
        const RoundTree &t = s_.phases[p][ti];
        std::vector<int> depth = depths(t), height = heights(t);
        std::vector<std::vector<int32_t>> kids(size_t(s_.ranks));
        for (int32_t c = 0; c < s_.ranks; ++c)
          if (int32_t up = t.parent[size_t(c)]; up >= 0)
            kids[size_t(up)].push_back(c);
        auto through = [&](int32_t v) {
          return s_.chains && v != t.root && kids[size_t(v)].size() == 1;
        };
        for (int32_t c = 0; c < s_.ranks; ++c) {
          int32_t up = t.parent[size_t(c)];
          if (up < 0)
            continue;
          Chain chain;
          chain.phase = p;
          chain.tree = ti;
          if (down) {
            if (through(up))
              continue; // inside the chain through `up`
            chain.nodes = {up, c};
            for (int32_t v = c; through(v);) {
              v = kids[size_t(v)].front();
              chain.nodes.push_back(v);
            }
            chain.key = {depth[size_t(c)], int(ti), c};
          } else {
            if (through(c))
              continue; // inside the chain through `c`
            chain.nodes = {c, up};
            for (int32_t v = up; through(v);) {
              v = t.parent[size_t(v)];
              chain.nodes.push_back(v);
            }
            chain.key = {height[size_t(c)], int(ti), c};
          }
          chains.push_back(std::move(chain));
        }
      }
    }
    // Channels, per phase: heaviest chains first, each takes the id whose
    // streams at every rank it touches carry the least so far, among the
    // ids that none of those ranks uses yet or uses for chains of the same
    // level, else of the nearest level. A stream runs its items round by
    // round, so items of different levels on one stream hold each other up
    // (a deep item's round j arrives late and a shallow one's round j + 1
    // waits behind it, a delay that spreads down its tree). Chains on one
    // id with the same ends form one connection.
    // (rank, id, phase) -> chains
    std::map<std::tuple<int32_t, int, size_t>, int> chainsOn;
    for (size_t p = 0; p < phases; ++p) {
      std::vector<size_t> order;
      for (size_t c = 0; c < chains.size(); ++c)
        if (chains[c].phase == p)
          order.push_back(c);
      // A chain's slowest edge (0 without edgeLatency).
      auto slowest = [&](size_t c) {
        double most = 0;
        if (s_.edgeLatency.empty())
          return most;
        const std::vector<int32_t> &v = chains[c].nodes;
        for (size_t i = 0; i + 1 < v.size(); ++i)
          most = std::max(most, s_.edgeLatency[size_t(v[i]) * size_t(s_.ranks) +
                                               size_t(v[i + 1])]);
        return most;
      };
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const double la = slowest(a), lb = slowest(b);
        if (la != lb)
          return la > lb;
        return s_.phases[p][chains[a].tree].units >
               s_.phases[p][chains[b].tree].units;
      });
      const size_t ids = size_t(budget[p]);
      std::vector<std::vector<double>> held(size_t(s_.ranks),
                                            std::vector<double>(ids, 0));
      std::vector<std::vector<int>> tag(size_t(s_.ranks),
                                        std::vector<int>(ids, -1));
      for (size_t c : order) {
        Chain &chain = chains[c];
        const int level = std::get<0>(chain.key);
        const double load = s_.phases[p][chain.tree].units;
        size_t best = 0;
        std::pair<int, double> least{-1, 0};
        for (size_t id = 0; id < ids; ++id) {
          std::pair<int, double> cost{0, 0};
          for (int32_t r : chain.nodes) {
            if (int t = tag[size_t(r)][id]; t >= 0)
              cost.first = std::max(cost.first, std::abs(t - level));
            cost.second = std::max(cost.second, held[size_t(r)][id]);
          }
          if (least.first < 0 || cost < least) {
            least = cost;
            best = id;
          }
        }
        for (int32_t r : chain.nodes) {
          held[size_t(r)][best] += load;
          if (tag[size_t(r)][best] < 0)
            tag[size_t(r)][best] = level;
          if (++chainsOn[{r, base[p] + int(best), p}] == 2)
            ++shared_;
        }
        chain.channel = base[p] + int(best);
      }
    }
    // Dense ids: those no chain took are left out.
    {
      std::map<int, int> dense;
      for (const Chain &chain : chains)
        dense[chain.channel] = 0;
      int next = 0;
      for (auto &[id, to] : dense)
        to = next++;
      for (Chain &chain : chains)
        chain.channel = dense.at(chain.channel);
      copyId_ = next;
    }
    // The items, chain by chain in key order (so that a rank's combines of
    // its children's chains come in key order, each after the one before).
    std::vector<size_t> byKey(chains.size());
    std::iota(byKey.begin(), byKey.end(), 0);
    std::stable_sort(byKey.begin(), byKey.end(), [&](size_t a, size_t b) {
      return std::tie(chains[a].phase, chains[a].key) <
             std::tie(chains[b].phase, chains[b].key);
    });
    // Per (phase, tree, rank): the item whose completion lets the rank go
    // on: away from a root the receive that brought it the data, towards a
    // root its last combine. all_reduce's gather at a root waits for the
    // reduce's (same tree index: the same piece).
    std::map<std::tuple<size_t, size_t, int32_t>, int> ready;
    auto add = [&](const Chain &chain, int32_t r, Op op, int32_t from,
                   int32_t to, Buffer src, Buffer dst, std::vector<int> after) {
      Item item;
      item.key = chain.key;
      item.phase = int(chain.phase);
      item.tree = int(chain.tree);
      item.channel = chain.channel;
      item.op = op;
      item.peer = op == Op::Send ? to : from;
      item.to = to;
      item.src = std::move(src);
      item.dst = std::move(dst);
      item.after = std::move(after);
      std::vector<Item> &items = items_[size_t(r)];
      items.push_back(std::move(item));
      return int(items.size()) - 1;
    };
    // Sources first: a chain's first item may wait for a chain that ended
    // at its first rank, which comes before it in key order.
    for (size_t c : byKey) {
      const Chain &chain = chains[c];
      const size_t p = chain.phase;
      const RoundTree &t = s_.phases[p][chain.tree];
      const bool down = direction(p) == TreeDirection::FromRoot;
      const std::string part = partBase(t.root);
      const std::vector<int32_t> &v = chain.nodes;
      const size_t last = v.size() - 1;
      if (down) {
        const Buffer held{"output", part};
        // The first rank sends what it holds.
        int32_t head = v[0];
        Buffer from = held;
        std::vector<int> wait;
        if (head == t.root) {
          from = allReduce ? held : Buffer{"input", ""};
          if (allReduce)
            wait.push_back(ready.at({0, chain.tree, head}));
        } else {
          wait.push_back(ready.at({p, chain.tree, head}));
        }
        add(chain, head, Op::Send, head, v[1], from, {}, wait);
        for (size_t i = 1; i < last; ++i)
          add(chain, v[i], Op::RecvCopySend, v[i - 1], v[i + 1], {}, held, {});
        ready[{p, chain.tree, v[last]}] =
            add(chain, v[last], Op::Recv, v[last - 1], v[last], {}, held, {});
        continue;
      }
      // Towards the root: the rank's own contribution and where sums go.
      auto mineOf = [&](int32_t) -> Buffer {
        if (s_.collective == RoundCollective::Reduce)
          return {"input", ""};
        return {"input", part};
      };
      auto accOf = [&](int32_t r) -> Buffer {
        if (s_.collective == RoundCollective::Reduce)
          return {"output", ""};
        if (s_.collective == RoundCollective::ReduceScatter) {
          if (r == t.root)
            return {"output", ""};
          scratch_ = true;
          return {"scratch", part};
        }
        return {"output", part};
      };
      int32_t head = v[0];
      auto combined = ready.find({p, chain.tree, head});
      add(chain, head, Op::Send, head, v[1],
          combined == ready.end() ? mineOf(head) : accOf(head), {},
          combined == ready.end() ? std::vector<int>()
                                  : std::vector<int>{combined->second});
      for (size_t i = 1; i < last; ++i)
        add(chain, v[i], Op::RecvReduceSend, v[i - 1], v[i + 1], mineOf(v[i]),
            {}, {});
      // The end: combined into the sum, after the rank's earlier combine.
      int32_t end = v[last];
      auto before = ready.find({p, chain.tree, end});
      const bool first = before == ready.end();
      ready[{p, chain.tree, end}] =
          add(chain, end, Op::RecvReduceCopy, v[last - 1], end,
              first ? mineOf(end) : accOf(end), accOf(end),
              first ? std::vector<int>() : std::vector<int>{before->second});
    }
    // Positions: each stream's items by (phase, key), in every section.
    for (std::vector<Item> &items : items_) {
      std::map<int, std::vector<size_t>> on;
      for (size_t i = 0; i < items.size(); ++i)
        on[items[i].channel * (s_.sequential ? 2 : 1) +
           (s_.sequential ? items[i].phase : 0)]
            .push_back(i);
      for (auto &[channel, list] : on) {
        std::stable_sort(list.begin(), list.end(), [&](size_t a, size_t b) {
          return std::tie(items[a].phase, items[a].key) <
                 std::tie(items[b].phase, items[b].key);
        });
        int pro = 0;
        for (size_t i = 0; i < list.size(); ++i) {
          Item &item = items[list[i]];
          item.loop = item.epi = int(i);
          if (treeOf(item).offset > 0)
            item.pro = pro++;
        }
      }
    }
  }

  TreeDirection direction(size_t phase) const {
    switch (s_.collective) {
    case RoundCollective::Broadcast:
    case RoundCollective::AllGather:
      return TreeDirection::FromRoot;
    case RoundCollective::Reduce:
    case RoundCollective::ReduceScatter:
      return TreeDirection::ToRoot;
    case RoundCollective::AllReduce:
      break;
    }
    return phase == 0 ? TreeDirection::ToRoot : TreeDirection::FromRoot;
  }

  std::vector<int> depths(const RoundTree &t) const {
    std::vector<int> depth(static_cast<size_t>(s_.ranks), 0);
    for (int32_t v = 0; v < s_.ranks; ++v) {
      int d = 0;
      for (int32_t u = v; t.parent[size_t(u)] >= 0 && d <= s_.ranks;
           u = t.parent[size_t(u)])
        ++d;
      depth[size_t(v)] = d;
    }
    return depth;
  }
  std::vector<int> heights(const RoundTree &t) const {
    std::vector<int> depth = depths(t),
                     height(static_cast<size_t>(s_.ranks), 0);
    std::vector<int32_t> order(static_cast<size_t>(s_.ranks));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return depth[size_t(a)] > depth[size_t(b)];
    });
    for (int32_t v : order)
      if (int32_t up = t.parent[size_t(v)]; up >= 0)
        height[size_t(up)] =
            std::max(height[size_t(up)], height[size_t(v)] + 1);
    return height;
  }
};

} // namespace

namespace {
RoundSchedule planCopies(RoundCollective collective, int32_t ranks,
                         int32_t root,
                         const std::vector<std::vector<ForestTree>> &phases,
                         int channels, int copies, bool chains,
                         bool sequential) {
  std::vector<ForestTree> all;
  for (const std::vector<ForestTree> &trees : phases)
    all.insert(all.end(), trees.begin(), trees.end());
  RoundSchedule s;
  s.collective = collective;
  s.ranks = ranks;
  s.root = root;
  s.minRounds = kMinRounds;
  s.channels = channels;
  s.chains = chains;
  s.sequential = sequential && phases.size() == 2;
  s.grid = roundGrid(all, ranks, copies);
  s.copies = copies;
  for (const std::vector<ForestTree> &trees : phases)
    s.phases.push_back(roundTrees(trees, ranks, s.grid, copies));
  if (s.phases.size() == 2)
    allReducePieces(s.phases[0], s.phases[1]);
  for (std::vector<RoundTree> &trees : s.phases)
    staggerTrees(trees);
  return s;
}
} // namespace

RoundSchedule planRounds(RoundCollective collective, int32_t ranks,
                         int32_t root,
                         const std::vector<std::vector<ForestTree>> &phases,
                         int channels, bool sequential) {
  // The most copies whose chains (else edges) all keep a stream of their
  // own.
  for (bool chains : {true, false})
    for (int copies = kMostCopies; copies >= 1; --copies) {
      RoundSchedule s = planCopies(collective, ranks, root, phases, channels,
                                   copies, chains, sequential);
      if (sharedStreams(s) == 0)
        return s;
    }
  return planCopies(collective, ranks, root, phases, channels, 1, false,
                    sequential);
}

RoundSchedule
planRoundsOneMoreCopy(const RoundSchedule &chosen,
                      const std::vector<std::vector<ForestTree>> &phases,
                      const std::vector<double> &edgeLatency) {
  if (chosen.copies >= kMostCopies)
    return {};
  RoundSchedule s = planCopies(chosen.collective, chosen.ranks, chosen.root,
                               phases, chosen.channels, chosen.copies + 1,
                               /*chains=*/true, chosen.sequential);
  s.edgeLatency = edgeLatency;
  return s;
}

std::string describeRounds(const RoundSchedule &s, double partBytes) {
  char line[256];
  std::snprintf(line, sizeof line,
                "  in rounds of %d chunk%s of every part (k = %d x rounds, "
                "at least %d rounds), every tree %d time%s, staggered\n",
                s.grid, s.grid == 1 ? "" : "s", s.grid, s.minRounds, s.copies,
                s.copies == 1 ? "" : "s");
  std::string out = line;
  const bool allReduce = s.collective == RoundCollective::AllReduce;
  for (size_t p = 0; p < s.phases.size(); ++p)
    for (const RoundTree &t : s.phases[p]) {
      std::snprintf(line, sizeof line,
                    "  %stree %d (copy %d) of root %d: %d of the %d units",
                    allReduce ? (p == 0 ? "reduce " : "gather ") : "", t.source,
                    t.copy, t.root, t.units, s.grid);
      out += line;
      if (partBytes > 0) {
        std::snprintf(line, sizeof line, ", %.0f of the %.0f bytes",
                      partBytes * t.units / s.grid, partBytes);
        out += line;
      }
      out += "\n";
    }
  return out;
}

int roundChannels(const RoundSchedule &schedule) {
  return Writer(schedule).mostChannels();
}

int sharedStreams(const RoundSchedule &schedule) {
  return Writer(schedule).sharedStreams();
}

std::string roundScheduleText(const RoundSchedule &schedule,
                              const std::string &symbol,
                              const std::string &algorithm,
                              const std::string &summary) {
  return Writer(schedule).text(symbol, algorithm, summary);
}

} // namespace collc::synth

//===- TreeSchedule.cpp - a tree packing as a sched schedule --------------===//
#include "lowering/Synthesis/TreeSchedule.h"
#include "lowering/Synthesis/Apportion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace collc::synth {

std::vector<int> treeUnits(const TreePacking &packing, int perTree) {
  std::vector<double> rates;
  for (const PackedTree &tree : packing.trees)
    rates.push_back(tree.rate);
  return apportion(rates, std::max(1, perTree) * int(packing.trees.size()));
}

namespace {

/// The first chunk after `before` of `total` units: "(k * A) floordiv U",
/// or "0", or "k".
std::string chunkBound(int before, int total) {
  if (before == 0)
    return "0";
  if (before == total)
    return "k";
  return "(k * " + std::to_string(before) + ") floordiv " +
         std::to_string(total);
}

/// An expression as the sched syntax writes it: a name or an integer bare,
/// anything else quoted.
std::string written(const std::string &expression) {
  return expression.find(' ') == std::string::npos ? expression
                                                   : "\"" + expression + "\"";
}

} // namespace

std::vector<std::vector<int>>
colourTreeEdges(const std::vector<const std::vector<int32_t> *> &parents,
                int32_t n, std::vector<std::vector<bool>> *used) {
  used->assign(size_t(n), {});
  auto taken = [&](int32_t r, int id) {
    return size_t(id) < (*used)[size_t(r)].size() &&
           (*used)[size_t(r)][size_t(id)];
  };
  auto take = [&](int32_t r, int id) {
    if ((*used)[size_t(r)].size() <= size_t(id))
      (*used)[size_t(r)].resize(size_t(id) + 1, false);
    (*used)[size_t(r)][size_t(id)] = true;
  };
  std::vector<std::vector<int>> edge(parents.size(),
                                     std::vector<int>(size_t(n), -1));
  for (size_t t = 0; t < parents.size(); ++t)
    for (int32_t c = 0; c < n; ++c) {
      int32_t p = (*parents[t])[size_t(c)];
      if (p < 0)
        continue;
      int id = 0;
      while (taken(p, id) || taken(c, id))
        ++id;
      take(p, id);
      take(c, id);
      edge[t][size_t(c)] = id;
    }
  return edge;
}

TreeChannels treeChannels(const TreePacking &packing) {
  TreeChannels channels;
  const size_t trees = packing.trees.size();
  const int32_t n =
      trees == 0 ? 0 : int32_t(packing.trees.front().parent.size());
  std::vector<const std::vector<int32_t> *> parents;
  for (const PackedTree &tree : packing.trees)
    parents.push_back(&tree.parent);
  std::vector<std::vector<bool>> used;
  channels.edge = colourTreeEdges(parents, n, &used);
  auto taken = [&](int32_t r, int id) {
    return size_t(id) < used[size_t(r)].size() && used[size_t(r)][size_t(id)];
  };
  channels.perRank.assign(size_t(n), 0);
  for (int32_t r = 0; r < n; ++r) {
    for (bool u : used[size_t(r)])
      channels.perRank[size_t(r)] += u;
    channels.most = std::max(channels.most, channels.perRank[size_t(r)]);
  }
  // The broadcast root's copy: one more channel of its own.
  if (packing.direction == TreeDirection::FromRoot && n > 0) {
    int32_t root = packing.root;
    int id = 0;
    while (taken(root, id))
      ++id;
    channels.rootCopy = id;
    channels.most = std::max(channels.most, ++channels.perRank[size_t(root)]);
  }
  return channels;
}

std::string treeScheduleText(const TreePacking &packing,
                             const std::string &symbol,
                             const std::string &algorithm,
                             const std::string &given, bool fanin,
                             int perTree) {
  const bool broadcast = packing.direction == TreeDirection::FromRoot;
  const int32_t n =
      packing.trees.empty() ? 0 : int32_t(packing.trees.front().parent.size());
  std::vector<int> units = treeUnits(packing, perTree);
  TreeChannels channels = treeChannels(packing);
  int total = 0;
  for (int u : units)
    total += u;
  std::string summary = given.empty() ? describePacking(packing) : given;
  summary = summary.substr(0, summary.find('\n'));

  // fanin: only a single reduce tree (its chunks are [0, k)).
  fanin = fanin && !broadcast && packing.trees.size() == 1;
  int mostChildren = 0;
  if (fanin) {
    std::vector<int> count(size_t(n), 0);
    for (int32_t c = 0; c < n; ++c)
      if (int32_t p = packing.trees[0].parent[size_t(c)]; p >= 0)
        mostChildren = std::max(mostChildren, ++count[size_t(p)]);
    fanin = mostChildren >= 2;
  }
  std::string out;
  out += "sched.schedule @" + symbol +
         " collective = " + (broadcast ? "broadcast" : "reduce") +
         " algorithm = \"" + algorithm +
         "\" group_size = " + std::to_string(n) + "\n";
  out += "    attributes {collc.chunk_unit = " + std::to_string(total) +
         " : i64, collc.volume = \"M per tree edge\", collc.steps = " +
         "\"tree depth + k\"}\n";
  out += "    root = " + std::to_string(packing.root) + "\n";
  if (fanin)
    out += "    scratch = \"" + std::to_string(mostChildren) + " * k\"\n";
  out += "    description = \"synthesized: " + summary + "\" {\n";
  for (int32_t r = 0; r < n; ++r) {
    // This rank's channels, by id: their instructions.
    std::map<int, std::string> body;
    if (broadcast && r == packing.root)
      body[channels.rootCopy] =
          "      sched.copy src = input[0] dst = output[0] count = k\n";
    int before = 0;
    for (size_t t = 0; t < packing.trees.size(); ++t) {
      const std::vector<int32_t> &parent = packing.trees[t].parent;
      std::vector<int32_t> children;
      for (int32_t c = 0; c < n; ++c)
        if (parent[size_t(c)] == r)
          children.push_back(c);
      std::string first = chunkBound(before, total);
      before += units[t];
      std::string lo = written(first), hi = written(chunkBound(before, total));
      // Instruction j of a loop over [lo, hi) is number j - lo of its
      // channel (one instruction per iteration).
      std::string index = "\"j - " + first + "\"";
      auto loop = [&](int channel, const std::string &instruction) {
        body[channel] += "      sched.for j = " + lo + " to " + hi + " {\n" +
                         "        " + instruction + "\n      }\n";
      };
      auto after = [&](int channel) {
        return " after = [(channel " + std::to_string(channel) + ", index " +
               index + ")]";
      };
      int32_t up = parent[size_t(r)];
      int upChannel = up >= 0 ? channels.edge[t][size_t(r)] : -1;
      if (broadcast) {
        if (up < 0) {
          for (int32_t c : children)
            loop(channels.edge[t][size_t(c)],
                 "sched.send to " + std::to_string(c) + " src = input[j]");
          continue;
        }
        loop(upChannel,
             "sched.recv from " + std::to_string(up) + " dst = output[j]");
        for (int32_t c : children)
          loop(channels.edge[t][size_t(c)],
               "sched.send to " + std::to_string(c) + " src = output[j]" +
                   after(upChannel));
      } else if (fanin && children.size() >= 2) {
        // Each child's chunk j into scratch[j C + i] on its channel; all C
        // combined in one pass on the parent's channel (the root's: the
        // lowest id it has free), then sent up.
        const std::string count = std::to_string(children.size());
        int combine = upChannel;
        if (up < 0) {
          combine = 0;
          while (body.count(combine) ||
                 std::any_of(children.begin(), children.end(), [&](int32_t c) {
                   return channels.edge[t][size_t(c)] == combine;
                 }))
            ++combine;
        }
        std::string deps;
        for (size_t i = 0; i < children.size(); ++i) {
          int channel = channels.edge[t][size_t(children[i])];
          loop(channel, "sched.recv from " + std::to_string(children[i]) +
                            " dst = scratch[\"j * " + count + " + " +
                            std::to_string(i) + "\"]");
          deps += std::string(i ? ", " : "") + "(channel " +
                  std::to_string(channel) + ", index j)";
        }
        body[combine] +=
            "      sched.copy src = input[0] dst = output[0] count = k\n";
        std::string send = up >= 0
                               ? "        sched.send to " + std::to_string(up) +
                                     " src = output[j]\n"
                               : "";
        body[combine] += "      sched.for j = 0 to k {\n"
                         "        sched.reduce src = scratch[\"j * " +
                         count +
                         "\"] dst = output[j] count = 1 fanin = " + count +
                         " after = [" + deps + "]\n" + send + "      }\n";
      } else {
        // Each child's arrival combined into the output on the child's
        // channel, after the previous child's; then sent up.
        int previous = -1;
        for (size_t i = 0; i < children.size(); ++i) {
          int channel = channels.edge[t][size_t(children[i])];
          loop(channel,
               "sched.recv_reduce_copy from " + std::to_string(children[i]) +
                   " src = " + (i == 0 ? "input[j]" : "output[j]") +
                   " dst = output[j]" + (previous >= 0 ? after(previous) : ""));
          previous = channel;
        }
        if (up >= 0)
          loop(upChannel, "sched.send to " + std::to_string(up) + " src = " +
                              (children.empty() ? "input[j]" : "output[j]") +
                              (previous >= 0 ? after(previous) : ""));
      }
    }
    out += "  sched.rank " + std::to_string(r) + " {\n";
    for (const auto &[channel, text] : body)
      out += "    sched.channel " + std::to_string(channel) + " {\n" + text +
             "    }\n";
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

} // namespace collc::synth

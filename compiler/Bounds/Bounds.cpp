//===- Bounds.cpp - the cuts of a lower bound and their maximum -----------===//
#include "compiler/Bounds/Bounds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace collc::bounds {

using sched::Collective;

namespace {

std::string format(double value, const char *const units[], int count,
                   const char *suffix) {
  int unit = 0;
  while (unit + 1 < count && std::fabs(value) >= 1000) {
    value /= 1000;
    ++unit;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g %s%s", value, units[unit], suffix);
  return buffer;
}

/// "NAME: FORMULA = BYTES over BANDWIDTH (M = ...; WHERE)".
BoundTerm makeTerm(const std::string &name, const std::string &formula,
                   double bytes, double bandwidth, double m,
                   const std::string &where) {
  BoundTerm term;
  term.name = name;
  term.bytes = bytes;
  term.bandwidth = bandwidth;
  term.seconds = bytes > 0 ? bytes / bandwidth : 0;
  term.reason = name + ": " + formula + " = " + formatBytes(bytes) + " over " +
                formatBandwidth(bandwidth) + " (M = " + formatBytes(m) + "; " +
                where + ")";
  return term;
}

/// Bandwidth out of and into a set of devices (membership flags).
std::pair<double, double> cutBandwidth(const topo::Topology &topology,
                                       const std::vector<bool> &member) {
  double out = 0, in = 0;
  for (const topo::Link &link : topology.links()) {
    if (member[size_t(link.src)] && !member[size_t(link.dst)])
      out += link.bandwidth;
    if (!member[size_t(link.src)] && member[size_t(link.dst)])
      in += link.bandwidth;
  }
  return {out, in};
}

/// A family of cuts (one per GPU, or per node) with the largest of their
/// out- and in-terms, and, for all_reduce, the aggregate form.
struct Family {
  const char *outName;                 ///< "per-GPU injection"
  const char *inName;                  ///< "per-GPU ejection"
  const char *party;                   ///< "GPU", "node"
  std::vector<std::vector<bool>> sets; ///< device membership per cut
  std::vector<std::string> names;      ///< per cut: "node3"
};

void addFamily(const CollectiveSpec &spec, const topo::Topology &topology,
               const Family &family, std::vector<BoundTerm> &terms) {
  size_t parties = family.sets.size();
  double m = spec.bytes;
  BoundTerm out = makeTerm(family.outName, "0", 0, 1, m, "nothing crosses");
  BoundTerm in = makeTerm(family.inName, "0", 0, 1, m, "nothing crosses");
  double sumOut = 0, sumIn = 0;
  for (size_t p = 0; p < parties; ++p) {
    const std::vector<bool> &set = family.sets[p];
    std::vector<bool> inside(spec.gpus.size());
    for (size_t r = 0; r < spec.gpus.size(); ++r)
      inside[r] = set[size_t(topology.gpu(spec.gpus[r]))];
    Crossing c = crossingBytes(spec, inside);
    auto [bwOut, bwIn] = cutBandwidth(topology, set);
    sumOut += bwOut;
    sumIn += bwIn;
    if (c.out > 0 && c.out / bwOut > out.seconds)
      out = makeTerm(family.outName, c.outFormula, c.out, bwOut, m,
                     family.names[p]);
    if (c.in > 0 && c.in / bwIn > in.seconds)
      in = makeTerm(family.inName, c.inFormula, c.in, bwIn, m, family.names[p]);
  }
  // all_reduce: every element needs 2(P-1) transfers between P parties in
  // total (one-way gossip), so time >= 2(P-1) M / (sum of their bandwidth).
  if (spec.collective == Collective::AllReduce && parties >= 2) {
    double p = double(parties);
    double perParty = 2 * (p - 1) / p * spec.bytes;
    std::string formula = "2*(" + std::to_string(parties) + "-1)/" +
                          std::to_string(parties) + " * M";
    std::string where = "average over " + std::to_string(parties) + " " +
                        family.party +
                        "s; all_reduce moves 2(P-1) M between "
                        "P parties";
    if (perParty / (sumOut / p) > out.seconds)
      out = makeTerm(family.outName, formula, perParty, sumOut / p, m, where);
    if (perParty / (sumIn / p) > in.seconds)
      in = makeTerm(family.inName, formula, perParty, sumIn / p, m, where);
  }
  terms.push_back(out);
  terms.push_back(in);
}

/// Groups of nodes behind network switches, level by level: start from the
/// nodes; blocks whose links out all go to the same set of network switches
/// (the nodes under a fat tree's leaf) merge with those switches into one
/// block. Each level that merged something is a partition of the
/// topology's nodes (with some switches) into blocks, returned as device
/// membership flags with names ("leaf0 and the 4 nodes under it"). A
/// rail-optimized network, whose nodes all reach the same rail switches,
/// gives one block of everything: no level.
std::vector<Family> switchGroupLevels(const topo::Topology &topology) {
  size_t devices = topology.devices().size();
  std::vector<int> blockOf(devices, -1);
  std::vector<std::vector<topo::DeviceId>> blocks;
  std::vector<int> nodesIn;
  for (int n = 0; n < topology.numNodes(); ++n) {
    for (topo::DeviceId d : topology.node(n).devices)
      blockOf[size_t(d)] = int(blocks.size());
    blocks.push_back(topology.node(n).devices);
    nodesIn.push_back(1);
  }
  std::vector<Family> levels;
  for (int level = 0; level < 8 && blocks.size() > 1; ++level) {
    // Each block's neighbours outside it; only blocks whose neighbours are
    // all network switches (in no block) can merge.
    std::map<std::vector<topo::DeviceId>, std::vector<int>> byNeighbours;
    for (size_t b = 0; b < blocks.size(); ++b) {
      std::set<topo::DeviceId> neighbours;
      bool switchesOnly = true;
      for (topo::DeviceId d : blocks[b])
        for (topo::LinkId l : topology.linksFrom(d)) {
          topo::DeviceId to = topology.link(l).dst;
          if (blockOf[size_t(to)] == int(b))
            continue;
          switchesOnly = switchesOnly && blockOf[size_t(to)] < 0;
          neighbours.insert(to);
        }
      if (switchesOnly && !neighbours.empty())
        byNeighbours[{neighbours.begin(), neighbours.end()}].push_back(int(b));
    }
    std::vector<std::vector<topo::DeviceId>> next;
    std::vector<int> nextNodes;
    std::vector<std::string> names;
    std::vector<bool> merged(blocks.size(), false), claimed(devices, false);
    for (const auto &[switches, members] : byNeighbours) {
      bool free = std::none_of(switches.begin(), switches.end(),
                               [&](topo::DeviceId d) { return claimed[d]; });
      if (!free)
        continue;
      std::vector<topo::DeviceId> block = switches;
      int count = 0;
      for (int b : members) {
        merged[size_t(b)] = true;
        block.insert(block.end(), blocks[size_t(b)].begin(),
                     blocks[size_t(b)].end());
        count += nodesIn[size_t(b)];
      }
      for (topo::DeviceId d : switches)
        claimed[size_t(d)] = true;
      std::string name;
      for (size_t i = 0; i < switches.size() && i < 3; ++i)
        name += (i ? (i + 1 == switches.size() ? " and " : ", ") : "") +
                topology.device(switches[i]).name;
      if (switches.size() > 3)
        name += " and " + std::to_string(switches.size() - 3) + " more";
      name += " with the " + std::to_string(count) + " node" +
              (count == 1 ? "" : "s") + " under " +
              (switches.size() == 1 ? "it" : "them");
      next.push_back(std::move(block));
      nextNodes.push_back(count);
      names.push_back(name);
    }
    if (next.empty())
      break;
    for (size_t b = 0; b < blocks.size(); ++b)
      if (!merged[b]) {
        next.push_back(blocks[b]);
        nextNodes.push_back(nodesIn[b]);
        names.push_back(nodesIn[b] == 1
                            ? topology.device(blocks[b].front()).name
                            : "a group of " + std::to_string(nodesIn[b]) +
                                  " nodes");
      }
    blocks = std::move(next);
    nodesIn = std::move(nextNodes);
    std::fill(blockOf.begin(), blockOf.end(), -1);
    for (size_t b = 0; b < blocks.size(); ++b)
      for (topo::DeviceId d : blocks[b])
        blockOf[size_t(d)] = int(b);
    if (blocks.size() < 2)
      break;
    Family family{"per-switch-group egress",
                  "per-switch-group ingress",
                  "switch group",
                  {},
                  {}};
    for (size_t b = 0; b < blocks.size(); ++b) {
      family.sets.emplace_back(devices, false);
      for (topo::DeviceId d : blocks[b])
        family.sets.back()[size_t(d)] = true;
      family.names.push_back(names[b]);
    }
    levels.push_back(std::move(family));
  }
  return levels;
}

std::string checkSpec(const CollectiveSpec &spec,
                      const topo::Topology &topology) {
  size_t n = spec.gpus.size();
  if (n == 0)
    return "the group is empty";
  for (size_t r = 0; r < n; ++r)
    if (spec.gpus[r] < 0 || spec.gpus[r] >= topology.numGpus())
      return "group rank " + std::to_string(r) + " is on GPU " +
             std::to_string(spec.gpus[r]) + ", but the topology has " +
             std::to_string(topology.numGpus());
  if (!(spec.bytes >= 0) || !std::isfinite(spec.bytes))
    return "the message size must be a finite number of bytes >= 0";
  bool rooted = spec.collective == Collective::Broadcast ||
                spec.collective == Collective::Reduce ||
                spec.collective == Collective::Scatter ||
                spec.collective == Collective::Gather ||
                spec.collective == Collective::SendRecv;
  if (rooted && (spec.root < 0 || size_t(spec.root) >= n))
    return "root " + std::to_string(spec.root) + " is outside the group of " +
           std::to_string(n);
  if (spec.collective == Collective::SendRecv &&
      (spec.peer < 0 || size_t(spec.peer) >= n || spec.peer == spec.root))
    return "peer " + std::to_string(spec.peer) +
           " must be another rank of the group of " + std::to_string(n);
  if (!spec.sendBytes.empty() && spec.sendBytes.size() != n * n)
    return "sendBytes needs " + std::to_string(n * n) + " entries";
  return "";
}

} // namespace

std::string formatBytes(double bytes) {
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return format(bytes, units, 6, "");
}

std::string formatBandwidth(double bytesPerSecond) {
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  return format(bytesPerSecond, units, 6, "/s");
}

std::string formatSeconds(double seconds) {
  char buffer[64];
  if (seconds >= 1 || seconds == 0)
    std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  else if (seconds >= 1e-6)
    std::snprintf(buffer, sizeof buffer, "%.3g us", seconds * 1e6);
  else
    std::snprintf(buffer, sizeof buffer, "%.3g ns", seconds * 1e9);
  return buffer;
}

BoundTerm cutBound(const CollectiveSpec &spec, const topo::Topology &topology,
                   const std::vector<topo::DeviceId> &set,
                   const std::string &name) {
  std::vector<bool> member(topology.devices().size(), false);
  for (topo::DeviceId device : set)
    member[size_t(device)] = true;
  std::vector<bool> inside(spec.gpus.size());
  for (size_t r = 0; r < spec.gpus.size(); ++r)
    inside[r] = member[size_t(topology.gpu(spec.gpus[r]))];
  Crossing c = crossingBytes(spec, inside);
  auto [bwOut, bwIn] = cutBandwidth(topology, member);
  std::string where = std::to_string(set.size()) + " devices";
  BoundTerm out =
      makeTerm(name + " egress", c.outFormula, c.out, bwOut, spec.bytes, where);
  BoundTerm in =
      makeTerm(name + " ingress", c.inFormula, c.in, bwIn, spec.bytes, where);
  return in.seconds > out.seconds ? in : out;
}

BoundTerm maxCutBound(const CollectiveSpec &spec,
                      const topo::Topology &topology,
                      const std::vector<std::vector<topo::DeviceId>> &cuts,
                      const std::string &name) {
  BoundTerm best;
  best.name = name;
  best.reason = name + ": no cut given";
  for (size_t i = 0; i < cuts.size(); ++i) {
    BoundTerm term =
        cutBound(spec, topology, cuts[i], name + " " + std::to_string(i));
    if (i == 0 || term.seconds > best.seconds)
      best = term;
  }
  return best;
}

LowerBound lowerBound(const CollectiveSpec &spec,
                      const topo::Topology &topology,
                      const BoundOptions &options) {
  LowerBound bound;
  bound.error = checkSpec(spec, topology);
  if (!bound.error.empty())
    return bound;
  size_t devices = topology.devices().size();

  Family gpus{"per-GPU injection", "per-GPU ejection", "GPU", {}, {}};
  std::vector<bool> seenGpu(size_t(topology.numGpus()), false);
  for (int gpu : spec.gpus) {
    if (seenGpu[size_t(gpu)])
      continue;
    seenGpu[size_t(gpu)] = true;
    gpus.sets.emplace_back(devices, false);
    gpus.sets.back()[size_t(topology.gpu(gpu))] = true;
    gpus.names.push_back(topology.device(topology.gpu(gpu)).name);
  }
  addFamily(spec, topology, gpus, bound.terms);

  Family nodes{"per-node egress", "per-node ingress", "node", {}, {}};
  std::vector<int> slot(size_t(topology.numNodes()), -1);
  for (int gpu : spec.gpus) {
    int node = topology.nodeOf(gpu);
    if (slot[size_t(node)] >= 0)
      continue;
    slot[size_t(node)] = int(nodes.sets.size());
    nodes.sets.emplace_back(devices, false);
    nodes.names.push_back(topology.node(node).name);
  }
  if (nodes.sets.size() > 1) {
    for (size_t d = 0; d < devices; ++d) {
      int node = topology.devices()[d].node;
      if (node >= 0 && slot[size_t(node)] >= 0)
        nodes.sets[size_t(slot[size_t(node)])][d] = true;
    }
    addFamily(spec, topology, nodes, bound.terms);
    // Nodes behind one switch (a fat tree's leaf): its uplinks may carry
    // less than its nodes' NICs. Only the blocks holding group ranks are
    // parties (they partition the group's GPUs).
    for (Family &level : switchGroupLevels(topology)) {
      Family parties{level.outName, level.inName, level.party, {}, {}};
      for (size_t b = 0; b < level.sets.size(); ++b)
        if (std::any_of(spec.gpus.begin(), spec.gpus.end(), [&](int gpu) {
              return level.sets[b][size_t(topology.gpu(gpu))];
            })) {
          parties.sets.push_back(std::move(level.sets[b]));
          parties.names.push_back(level.names[b]);
        }
      if (parties.sets.size() > 1)
        addFamily(spec, topology, parties, bound.terms);
    }
  }
  std::stable_sort(bound.terms.begin(), bound.terms.end(),
                   [](const BoundTerm &a, const BoundTerm &b) {
                     return a.seconds > b.seconds;
                   });

  bound.bandwidth = bound.terms.front();
  bound.latency = latencyBound(spec, topology, options);
  bound.bandwidthSeconds = bound.bandwidth.seconds;
  bound.latencySeconds = bound.latency.seconds;
  bound.bandwidthDominates = bound.bandwidthSeconds >= bound.latencySeconds;
  bound.seconds = std::max(bound.bandwidthSeconds, bound.latencySeconds);
  bound.reason =
      bound.bandwidthDominates ? bound.bandwidth.reason : bound.latency.reason;
  return bound;
}

LowerBound lowerBound(sched::Collective collective, double bytes,
                      const topo::Topology &topology,
                      const std::vector<int> &gpus,
                      const BoundOptions &options) {
  CollectiveSpec spec;
  spec.collective = collective;
  spec.bytes = bytes;
  spec.gpus = gpus;
  return lowerBound(spec, topology, options);
}

} // namespace collc::bounds

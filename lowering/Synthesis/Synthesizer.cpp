//===- Synthesizer.cpp - schedules from the topology, for the lowering ----===//
#include "lowering/Synthesis/Synthesizer.h"

#include "lowering/Synthesis/ForestSchedule.h"
#include "lowering/Synthesis/LatencyTree.h"
#include "lowering/Synthesis/PackingGraph.h"
#include "lowering/Synthesis/RoundSchedule.h"
#include "lowering/Synthesis/TreeSchedule.h"

#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <set>

namespace collc::synth {

namespace {
std::string firstLine(const std::string &text) {
  return text.substr(0, text.find('\n'));
}
} // namespace

Synthesizer::Synthesizer(mlir::MLIRContext *context,
                         const topo::Topology &topology,
                         std::shared_ptr<RouteMemo> routes,
                         std::shared_ptr<PackingMemo> packings,
                         uint32_t maxChannels, double timeLimit)
    : topology_(topology), maxChannels_(maxChannels), timeLimit_(timeLimit),
      routes_(std::move(routes)), packings_(std::move(packings)),
      library_(context) {
  if (!packings_ || packings_->topology != &topology)
    packings_ = std::make_shared<PackingMemo>(topology);
}

PackingKey Synthesizer::keyOf(const lowering::LoweredCollective &l) {
  int32_t root = 0;
  if (auto attr = l.op->getAttrOfType<mlir::IntegerAttr>("root"))
    root = int32_t(attr.getInt());
  return PackingKey{int(l.collective), l.layout.meshRanks, root,
                    l.collective == sched::Collective::AllToAllV
                        ? l.expand.sendCounts
                        : std::vector<int64_t>()};
}

bool Synthesizer::groupGpus(const lowering::LoweredCollective &l,
                            std::vector<topo::DeviceId> *gpus,
                            std::string *why) const {
  for (int32_t mesh : l.layout.meshRanks) {
    if (mesh < 0 || mesh >= topology_.numGpus()) {
      *why = "the group's mesh rank " + std::to_string(mesh) +
             " is not a GPU of the topology";
      return false;
    }
    gpus->push_back(topology_.gpu(mesh));
  }
  return true;
}

void Synthesizer::packForestOf(const lowering::LoweredCollective &l,
                               TreeDirection direction,
                               PackingMemo::Entry &entry) {
  std::vector<topo::DeviceId> gpus;
  if (!groupGpus(l, &gpus, &entry.why))
    return;
  PackingOptions options;
  // A channel per tree, and all_gather's own part copied on one more.
  options.maxTrees = int(maxChannels_) - 1;
  options.gap = 1e-3;
  options.maxRounds = 200;
  options.timeLimit = timeLimit_;
  if (int32_t(gpus.size()) > options.maxTrees) {
    entry.why = "a tree per root needs " + std::to_string(gpus.size()) +
                " channels on every rank, more than the " +
                std::to_string(options.maxTrees) +
                " that can run at once (trees sharing channels, in rounds, "
                "are offered up to that many ranks only: beyond it their "
                "simulation takes too long, yet)";
    entry.remark = true;
    return;
  }
  options.fits = [&](const std::vector<std::vector<int32_t>> &trees) {
    ForestPacking shape;
    shape.direction = direction;
    shape.ranks = int32_t(gpus.size());
    for (const std::vector<int32_t> &parent : trees)
      shape.trees.push_back({0, parent, 1});
    return forestChannels(shape, ForestChannelMode::PerEdge) <=
           int(maxChannels_);
  };
  entry.ok = packForest(topology_, *routes_, gpus, direction, options,
                        &entry.forest, &entry.fitted, &entry.why);
  // Trees of equal rate, kEvenPerRoot[i] per root (packForestEven).
  for (int perRoot : kEvenPerRoot) {
    if (!entry.ok)
      break;
    // Searched from scratch and, where fewer trees per root were found
    // before, from those repeated: the faster kept (a search can stop in a
    // local optimum either way: DGX-1's two per root from scratch 10.7
    // GB/s, from one per root 16.7; the 2x4 torus's 20 from scratch).
    ForestPacking even, again;
    std::string why;
    if (!packForestEven(topology_, *routes_, gpus, direction, perRoot,
                        entry.forest, nullptr, &even, &why))
      continue;
    if (!entry.even.empty() &&
        packForestEven(topology_, *routes_, gpus, direction, perRoot,
                       entry.forest, &entry.even.back(), &again, &why) &&
        again.rate > even.rate)
      even = std::move(again);
    entry.even.push_back(std::move(even));
  }
}

const RingPacking &Synthesizer::ringsOf(const lowering::LoweredCollective &l) {
  // One packing per group for all_gather, reduce_scatter and all_reduce:
  // a ring's stream both receives and sends.
  auto [it, fresh] = packings_->rings.try_emplace(l.layout.meshRanks);
  if (fresh) {
    std::vector<topo::DeviceId> gpus;
    std::string why;
    if (!groupGpus(l, &gpus, &why) ||
        !packRings(topology_, *routes_, gpus,
                   std::min(kMaxRings, int(maxChannels_) - 1), &it->second,
                   &why))
      it->second = RingPacking();
  }
  return it->second;
}

const PackingMemo::Entry &
Synthesizer::entryOf(const PackingKey &key,
                     const std::function<void(PackingMemo::Entry &)> &fill) {
  auto [entry, fresh] = packings_->entries.try_emplace(key);
  if (fresh)
    fill(entry->second);
  return entry->second;
}

void Synthesizer::pack(const lowering::LoweredCollective &l,
                       const PackingKey &key, PackingMemo::Entry &entry) {
  const int32_t root = std::get<2>(key);
  std::vector<topo::DeviceId> gpus;
  if (!groupGpus(l, &gpus, &entry.why))
    return;
  TreeDirection direction = l.collective == sched::Collective::Broadcast
                                ? TreeDirection::FromRoot
                                : TreeDirection::ToRoot;
  PackingOptions options;
  options.timeLimit = timeLimit_;
  auto channelsOf = [&](const std::vector<std::vector<int32_t>> &trees) {
    TreePacking shape;
    shape.root = root;
    shape.direction = direction;
    for (const std::vector<int32_t> &parent : trees)
      shape.trees.push_back({parent, 1});
    return treeChannels(shape).most;
  };
  options.fits = [&](const std::vector<std::vector<int32_t>> &trees) {
    return channelsOf(trees) <= int(maxChannels_);
  };
  if (!packTrees(topology_, *routes_, gpus, root, direction, options,
                 &entry.packing, &entry.why))
    return;
  if (int used = treeChannels(entry.packing).most; used > int(maxChannels_)) {
    entry.why = "even one tree needs " + std::to_string(used) +
                " channels on a rank, more than the " +
                std::to_string(maxChannels_) + " that can run at once";
    entry.remark = true;
    return;
  }
  entry.ok = true;
}

void Synthesizer::timedOut(const lowering::LoweredCollective &l, int rounds,
                           Made *made) {
  char text[256];
  std::snprintf(text, sizeof text,
                "the tree packing stopped at its time limit of %g s "
                "(--synthesis-time-limit) after %d LP round%s: its trees are "
                "offered beside the library's algorithms, not proven optimal",
                timeLimit_, rounds, rounds == 1 ? "" : "s");
  made->declined = text;
  l.op->emitRemark("synthesis: ") << text;
}

std::string Synthesizer::latencyTreesText(const lowering::LoweredCollective &l,
                                          const std::string &symbol,
                                          std::vector<LatencyTreeMade> *made) {
  std::vector<topo::DeviceId> gpus;
  std::string why;
  if (!groupGpus(l, &gpus, &why))
    return "";
  int32_t root = std::get<2>(keyOf(l));
  TreeDirection direction = l.collective == sched::Collective::Broadcast
                                ? TreeDirection::FromRoot
                                : TreeDirection::ToRoot;
  std::string text;
  std::vector<std::vector<int32_t>> seen;
  for (size_t i = 0; i < std::size(kLatencyTreeBytes); ++i) {
    double bytes = kLatencyTreeBytes[i], arrival = 0;
    // A channel for the edge from its parent and one for the root's copy.
    std::vector<int32_t> parent =
        latencyTree(topology_, *routes_, gpus, root, direction, bytes,
                    int(maxChannels_) - 2, &why, &arrival);
    // The star is the library's `direct`.
    if (parent.empty() || isStar(parent, root) ||
        std::find(seen.begin(), seen.end(), parent) != seen.end())
      continue;
    seen.push_back(parent);
    TreePacking tree;
    tree.root = root;
    tree.direction = direction;
    tree.trees.push_back({parent, 1});
    tree.rate = 1;
    if (treeChannels(tree).most > int(maxChannels_))
      continue;
    int depth = 0;
    for (int32_t v = 0; v < int32_t(parent.size()); ++v) {
      int d = 0;
      for (int32_t u = v; parent[size_t(u)] >= 0; u = parent[size_t(u)])
        ++d;
      depth = std::max(depth, d);
    }
    char summary[200];
    std::snprintf(summary, sizeof summary,
                  "a least-latency tree for %s messages (depth %d, relaying "
                  "where a direct route is slower; estimated %.1f us)",
                  bytes == 0 ? "the smallest" : "mid-size", depth,
                  arrival * 1e6);
    std::string name =
        i == 0 ? "synthesized_latency_tree" : "synthesized_latency_tree_mid";
    text += treeScheduleText(tree, symbol + "_latency" + std::to_string(i),
                             name, summary, /*fanin=*/true, /*perTree=*/1);
    made->push_back({name, parent, summary});
  }
  return text;
}

std::vector<const lowering::Algorithm *>
Synthesizer::candidates(const lowering::LoweredCollective &l) {
  using sched::Collective;
  const bool trees = l.collective == Collective::Broadcast ||
                     l.collective == Collective::Reduce;
  const bool forests = l.collective == Collective::AllGather ||
                       l.collective == Collective::ReduceScatter ||
                       l.collective == Collective::AllReduce;
  const bool rootedFlows =
      l.collective == Collective::Scatter || l.collective == Collective::Gather;
  const bool flows = l.collective == Collective::AllToAll ||
                     l.collective == Collective::AllToAllV || rootedFlows;
  if (!trees && !forests && !flows)
    return {};
  const int32_t n = l.layout.size;
  if (n < 2)
    return {};
  PackingKey key = keyOf(l);
  if (auto it = made_.find(key); it != made_.end())
    return it->second.algorithms;
  Made &made = made_[key];
  if (n > kMaxSynthesisRanks) {
    made.declined = "not tried for a group of " + std::to_string(n) +
                    " ranks (at most " + std::to_string(kMaxSynthesisRanks) +
                    " yet); choosing among the library's algorithms";
    l.op->emitRemark("synthesis: ") << made.declined;
    return {};
  }
  auto refuse = [&](const PackingMemo::Entry &packed) {
    made.declined = packed.why + "; choosing among the library's algorithms";
    (packed.remark ? l.op->emitRemark("synthesis: ")
                   : l.op->emitWarning("synthesis: "))
        << made.declined;
    return std::vector<const lowering::Algorithm *>();
  };
  std::string symbol = std::string("synthesized_") +
                       sched::collectiveName(l.collective) + "_" +
                       std::to_string(made_.size());
  std::string text;
  if (flows) {
    const PackingMemo::Entry &planned =
        entryOf(key, [&](PackingMemo::Entry &e) {
          std::vector<topo::DeviceId> gpus;
          if (!groupGpus(l, &gpus, &e.why))
            return;
          // scatter's and gather's connections share channels; an
          // all_to_all's pairs each need one.
          const int32_t most =
              rootedFlows ? kMaxRootedFlowRanks : kMaxAllToAllRanks;
          if (int32_t(gpus.size()) > most) {
            e.why = std::string(sched::collectiveName(l.collective)) +
                    (rootedFlows ? " flows are planned for at most "
                                 : " flows give every pair of ranks a "
                                   "channel, so at most ") +
                    std::to_string(most) + " ranks, not " +
                    std::to_string(gpus.size());
            e.remark = true;
            return;
          }
          if (rootedFlows) {
            e.ok = planScatterGather(
                topology_, *routes_, gpus, kAllToAllUnits, std::get<2>(key),
                l.collective == Collective::Gather, &e.flows, &e.why);
            return;
          }
          const std::vector<int64_t> &counts = std::get<3>(key);
          if (l.collective == Collective::AllToAllV &&
              counts.size() != gpus.size() * gpus.size()) {
            e.why = "all_to_all_v's send counts are known only at run time "
                    "(flows are planned for static counts)";
            e.remark = true;
            return;
          }
          e.ok = planAllToAll(topology_, *routes_, gpus, kAllToAllUnits, counts,
                              &e.flows, &e.why);
        });
    if (!planned.ok)
      return refuse(planned);
    made.flows = &planned.flows;
    text =
        allToAllScheduleText(planned.flows, sched::collectiveName(l.collective),
                             symbol, "synthesized_flows");
    // The same shares in 2 units a part: fewer, larger messages (what a
    // message costs besides its bytes is paid 4x less often), a relay
    // forwarding half a part at once; selection simulates both.
    if (planned.flows.units > kCoarseFlowUnits)
      text +=
          allToAllScheduleText(coarser(planned.flows, kCoarseFlowUnits),
                               sched::collectiveName(l.collective),
                               symbol + "_coarse", "synthesized_flows_coarse");
  } else if (trees) {
    const PackingMemo::Entry &packed =
        entryOf(key, [&](PackingMemo::Entry &e) { pack(l, key, e); });
    std::string latency = latencyTreesText(l, symbol, &made.latency);
    if (!packed.ok) {
      if (latency.empty())
        return refuse(packed);
      made.declined = packed.why + "; only latency trees were synthesized";
      (packed.remark ? l.op->emitRemark("synthesis: ")
                     : l.op->emitWarning("synthesis: "))
          << made.declined;
      text = latency;
    } else {
      made.packing = &packed.packing;
      made.rounds = planRounds(
          l.collective == Collective::Broadcast ? RoundCollective::Broadcast
                                                : RoundCollective::Reduce,
          n, packed.packing.root, {forestTreesOf(packed.packing)},
          int(maxChannels_));
      text = roundScheduleText(made.rounds, symbol, "synthesized_trees",
                               firstLine(describePacking(packed.packing)));
      // One copy more, streams shared: selection simulates both.
      // Route latencies between the ranks: where streams must be shared,
      // those of the fast hops are.
      const std::vector<double> hopLatency = hopLatencies(l);
      made.moreCopies =
          planRoundsOneMoreCopy(made.rounds, {forestTreesOf(packed.packing)});
      if (made.moreCopies.ranks > 0) {
        text += roundScheduleText(
            made.moreCopies, symbol + "_copies", "synthesized_trees_copies",
            firstLine(describePacking(packed.packing)) + "; " +
                std::to_string(made.moreCopies.copies) +
                " copies of every tree, " +
                std::to_string(sharedStreams(made.moreCopies)) +
                " streams shared");
        // The same copies with the streams of the slowest hops kept whole
        // and those of the fast ones shared, where some are shared: a NIC
        // hop's second stream hides its latency, an NVLink hop has little
        // to hide (dgx-a100-2's reduce 81% -> 88%; dgx8x8's broadcast is
        // slower so, its reduce faster: selection simulates both).
        RoundSchedule slowFirst = planRoundsOneMoreCopy(
            made.rounds, {forestTreesOf(packed.packing)}, hopLatency);
        if (!hopLatency.empty() && sharedStreams(made.moreCopies) > 0)
          text += roundScheduleText(
              slowFirst, symbol + "_copies_slow",
              "synthesized_trees_copies_slow_first",
              firstLine(describePacking(packed.packing)) + "; " +
                  std::to_string(slowFirst.copies) + " copies of every tree, " +
                  std::to_string(sharedStreams(slowFirst)) +
                  " streams shared, the fastest hops' first");
      }
      // The same trees with shares by the rates fair links give them
      // (PackingGraph::fairRates), where those differ from the LP's.
      {
        std::vector<topo::DeviceId> gpus;
        std::string why;
        PackingGraph graph;
        if (groupGpus(l, &gpus, &why) &&
            graph.build(topology_, *routes_, gpus,
                        l.collective == Collective::Broadcast
                            ? TreeDirection::FromRoot
                            : TreeDirection::ToRoot,
                        &why)) {
          std::vector<ForestTree> trees = forestTreesOf(packed.packing);
          std::vector<std::vector<int32_t>> parents;
          for (const ForestTree &t : trees)
            parents.push_back(t.parent);
          std::vector<double> fair = graph.fairRates(parents);
          bool differ = false;
          for (size_t t = 0; t < trees.size(); ++t) {
            differ |= std::fabs(fair[t] * kRateUnit - trees[t].rate) >
                      1e-3 * trees[t].rate;
            trees[t].rate = fair[t] * kRateUnit;
          }
          if (differ) {
            RoundSchedule fairRounds =
                planRounds(l.collective == Collective::Broadcast
                               ? RoundCollective::Broadcast
                               : RoundCollective::Reduce,
                           n, packed.packing.root, {trees}, int(maxChannels_));
            text += roundScheduleText(
                fairRounds, symbol + "_fair", "synthesized_trees_fair",
                firstLine(describePacking(packed.packing)) +
                    "; shares by the links' fair rates");
          }
        }
      }
      text += latency;
      if (packed.packing.timedOut)
        timedOut(l, packed.packing.rounds, &made);
    }
  } else {
    auto forestOf = [&](Collective kind,
                        TreeDirection direction) -> const PackingMemo::Entry & {
      PackingKey k{int(kind), l.layout.meshRanks, 0, {}};
      return entryOf(
          k, [&](PackingMemo::Entry &e) { packForestOf(l, direction, e); });
    };
    if (l.collective != Collective::AllGather) {
      const PackingMemo::Entry &r =
          forestOf(Collective::ReduceScatter, TreeDirection::ToRoot);
      if (!r.ok)
        return refuse(r);
      made.reduce = &r.forest;
      made.reduceFitted = &r.fitted;
      made.reduceEven = &r.even;
    }
    if (l.collective != Collective::ReduceScatter) {
      const PackingMemo::Entry &g =
          forestOf(Collective::AllGather, TreeDirection::FromRoot);
      if (!g.ok)
        return refuse(g);
      made.gather = &g.forest;
      made.gatherFitted = &g.fitted;
      made.gatherEven = &g.even;
    }
    made.rings = &ringsOf(l);
    // Two candidates: a channel per tree edge (the packing cut until they
    // fit), a channel per tree (the whole packing); selection simulates
    // both.
    auto write = [&](const ForestPacking *reduce, const ForestPacking *gather,
                     ForestChannelMode mode, const std::string &name,
                     const std::string &suffix = "") {
      if ((reduce && reduce->trees.empty()) ||
          (gather && gather->trees.empty()))
        return;
      int channels = 0;
      if (reduce)
        channels = forestChannels(*reduce, mode);
      if (gather)
        channels = std::max(channels,
                            forestChannels(*gather, mode) - (reduce ? 1 : 0));
      if (channels > int(maxChannels_))
        return;
      std::string sym =
          symbol + (mode == ForestChannelMode::PerEdge ? "_edges" : "_trees") +
          suffix;
      text +=
          l.collective == Collective::AllReduce
              ? allReduceScheduleText(*reduce, *gather, mode, sym, name)
              : forestScheduleText(reduce ? *reduce : *gather, mode, sym, name);
    };
    for (const ForestPacking *f : {made.reduce, made.gather})
      if (f && f->timedOut) {
        timedOut(l, f->rounds, &made);
        break;
      }
    write(made.reduceFitted, made.gatherFitted, ForestChannelMode::PerEdge,
          "synthesized_trees");
    const RoundCollective roundKind =
        l.collective == Collective::AllGather ? RoundCollective::AllGather
        : l.collective == Collective::ReduceScatter
            ? RoundCollective::ReduceScatter
            : RoundCollective::AllReduce;
    // The round schedule's phases (reduce's trees, then gather's) and the
    // packings' first lines.
    auto phasesOf = [](const ForestPacking *reduce, const ForestPacking *gather,
                       std::vector<std::vector<ForestTree>> *phases,
                       std::string *summary) {
      for (const ForestPacking *f : {reduce, gather})
        if (f) {
          phases->push_back(f->trees);
          *summary += (summary->empty() ? "" : "; then ") +
                      firstLine(describeForest(*f));
        }
    };
    // And the whole packing in rounds, trees sharing channels.
    {
      std::vector<std::vector<ForestTree>> phases;
      std::string summary;
      phasesOf(made.reduce, made.gather, &phases, &summary);
      made.rounds = planRounds(roundKind, n, 0, phases, int(maxChannels_),
                               /*sequential=*/true);
      text += roundScheduleText(made.rounds, symbol + "_rounds",
                                "synthesized_tree_rounds",
                                summary + "; in rounds, channels shared");
    }
    write(made.reduce, made.gather, ForestChannelMode::PerTree,
          "synthesized_tree_channels");
    // Hops of very different latencies: the slowest at least twice the
    // fastest.
    const std::vector<double> hopLatency = hopLatencies(l);
    bool slowHops = false;
    {
      double fastest = 0, slowest = 0;
      for (double t : hopLatency)
        if (t > 0) {
          fastest = fastest > 0 ? std::min(fastest, t) : t;
          slowest = std::max(slowest, t);
        }
      slowHops = fastest > 0 && slowest >= 2 * fastest;
    }
    // Trees of equal rate, in rounds and with a channel per tree.
    for (size_t i = 0; i < std::size(kEvenPerRoot); ++i) {
      const ForestPacking *reduce =
          made.reduceEven && i < made.reduceEven->size()
              ? &(*made.reduceEven)[i]
              : nullptr;
      const ForestPacking *gather =
          made.gatherEven && i < made.gatherEven->size()
              ? &(*made.gatherEven)[i]
              : nullptr;
      if ((made.reduce && !reduce) || (made.gather && !gather))
        continue;
      std::vector<std::vector<ForestTree>> phases;
      std::string summary;
      phasesOf(reduce, gather, &phases, &summary);
      const std::string suffix =
          kEvenPerRoot[i] == 1 ? "" : "_" + std::to_string(kEvenPerRoot[i]);
      made.evenRounds.push_back(planRounds(roundKind, n, 0, phases,
                                           int(maxChannels_),
                                           /*sequential=*/true));
      text += roundScheduleText(made.evenRounds.back(),
                                symbol + "_even_rounds" + suffix,
                                "synthesized_even_trees" + suffix,
                                summary + "; in rounds, channels shared");
      // Where some hops are much slower than others (a NIC's beside
      // NVLink's): one copy more, the streams shared those of the fast
      // hops (dgx-a100-2's reduce_scatter 88% -> 92% at 256 MiB).
      if (slowHops) {
        RoundSchedule more =
            planRoundsOneMoreCopy(made.evenRounds.back(), phases, hopLatency);
        if (more.ranks > 0)
          text += roundScheduleText(
              more, symbol + "_even_copies_slow" + suffix,
              "synthesized_even_trees_copies_slow_first" + suffix,
              summary + "; in rounds, " + std::to_string(more.copies) +
                  " copies of every tree, " +
                  std::to_string(sharedStreams(more)) +
                  " streams shared, the fastest hops' first");
      }
      write(reduce, gather, ForestChannelMode::PerTree,
            "synthesized_even_tree_channels" + suffix, "_even" + suffix);
      // all_reduce, one tree per root: also with the phases overlapped
      // (half the channels each). Where a GPU's links are few, the
      // reduction sends through it while the gathers receive, both
      // directions at once (asymmetric-mesh6: 66% against 57% in
      // sequence).
      if (l.collective == Collective::AllReduce && kEvenPerRoot[i] == 1) {
        made.evenOverlapped = planRounds(RoundCollective::AllReduce, n, 0,
                                         phases, int(maxChannels_),
                                         /*sequential=*/false);
        text += roundScheduleText(
            made.evenOverlapped, symbol + "_even_overlapped",
            "synthesized_even_trees_overlapped",
            summary + "; in rounds, the phases overlapped, channels shared");
      }
    }
    // Rings: a stream per ring on every rank (all_gather's own part on one
    // more).
    if (made.rings && !made.rings->rings.empty() &&
        made.rings->rings.size() +
                (l.collective == Collective::AllGather ? 1 : 0) <=
            maxChannels_) {
      const ForestPacking *forest = made.gather ? made.gather : made.reduce;
      const double perRoot = made.rings->rate / double(n - 1);
      char share[160];
      if (forest && forest->routedBound > 0)
        std::snprintf(share, sizeof share,
                      "%.2f GB/s per root, %.1f%% of the optimum over the "
                      "runtime's routes (%.2f)",
                      perRoot / 1e9, 100 * perRoot / forest->routedBound,
                      forest->routedBound / 1e9);
      else
        std::snprintf(share, sizeof share, "%.2f GB/s per root", perRoot / 1e9);
      const RingCollective kind = l.collective == Collective::AllGather
                                      ? RingCollective::AllGather
                                  : l.collective == Collective::ReduceScatter
                                      ? RingCollective::ReduceScatter
                                      : RingCollective::AllReduce;
      text += ringScheduleText(
          *made.rings, kind, symbol + "_rings", "synthesized_rings",
          "rings: " + describeRings(*made.rings) + "; " + share);
      // And every ring twice, each copy on a stream of its own with half
      // its share: two streams on a link overlap one's fixed costs (a
      // reduction between receive and send) with the other's transfer.
      RingPacking doubled = *made.rings;
      doubled.rings.clear();
      for (const PackedRing &ring : made.rings->rings)
        for (int copy = 0; copy < 2; ++copy)
          doubled.rings.push_back({ring.order, ring.rate / 2});
      if (doubled.rings.size() +
              (l.collective == Collective::AllGather ? 1 : 0) <=
          maxChannels_)
        text += ringScheduleText(
            doubled, kind, symbol + "_rings_2", "synthesized_rings_2",
            "rings: " + describeRings(*made.rings) + ", each twice; " + share);
    } else {
      made.rings = nullptr;
    }
  }
  mlir::FailureOr<std::vector<const lowering::Algorithm *>> added =
      library_.loadSource(text, "synthesized (tree packing, " +
                                    topology_.name() + ")");
  if (mlir::failed(added)) {
    l.op->emitError("synthesis: the schedule written for this ")
        << sched::collectiveName(l.collective)
        << " does not parse (a defect of collc's synthesis)";
    return {};
  }
  made.algorithms = *added;
  return made.algorithms;
}

const RingPacking *
Synthesizer::ringsFor(const lowering::LoweredCollective &l) const {
  auto it = made_.find(keyOf(l));
  return it == made_.end() || it->second.algorithms.empty() ? nullptr
                                                            : it->second.rings;
}

std::vector<double>
Synthesizer::hopLatencies(const lowering::LoweredCollective &l) const {
  std::vector<topo::DeviceId> gpus;
  std::string why;
  if (!groupGpus(l, &gpus, &why))
    return {};
  const size_t n = gpus.size();
  std::vector<double> latency(n * n, 0);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      if (a == b)
        continue;
      RouteMemo::Path path = routes_->path(gpus[a], gpus[b]);
      double sum = 0;
      for (uint32_t i = 0; i < path.count; ++i)
        sum += topology_.link(path.links[i]).latency;
      latency[a * n + b] = sum;
    }
  return latency;
}

bool Synthesizer::forestsFor(const lowering::LoweredCollective &l,
                             const ForestPacking **reduce,
                             const ForestPacking **gather) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || it->second.algorithms.empty() ||
      (!it->second.reduce && !it->second.gather))
    return false;
  *reduce = it->second.reduce;
  *gather = it->second.gather;
  return true;
}

double Synthesizer::routedBoundSeconds(const lowering::LoweredCollective &l,
                                       double bytes, std::string *why) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || bytes <= 0)
    return 0;
  const Made &m = it->second;
  double rate = 0, payload = bytes;
  std::string what;
  char text[256];
  if (m.packing && m.packing->routedBound > 0) {
    rate = m.packing->routedBound;
    what = "trees";
  } else if (l.collective == sched::Collective::AllGather && m.gather &&
             m.gather->routedBound > 0) {
    rate = m.gather->routedBound;
    what = "trees from every rank, each rank's part M";
  } else if (l.collective == sched::Collective::ReduceScatter && m.reduce &&
             m.reduce->routedBound > 0) {
    rate = m.reduce->routedBound;
    payload = bytes / l.layout.size;
    what = "trees to every rank, each part M/N";
  }
  const bool flows = l.collective == sched::Collective::AllToAll ||
                     l.collective == sched::Collective::AllToAllV ||
                     l.collective == sched::Collective::Scatter ||
                     l.collective == sched::Collective::Gather;
  if (flows && m.flows && m.flows->boundPartRate > 0) {
    rate = m.flows->boundPartRate;
    // all_to_all_v: the rates move the largest part; gather: a rank's
    // part is its whole input M (scatter's the root's M / N).
    payload =
        m.flows->largest > 0 ? double(m.flows->largest) * double(l.elementBytes)
        : l.collective == sched::Collective::Gather ? bytes
                                                    : bytes / l.layout.size;
  }
  if (l.collective == sched::Collective::AllReduce && (m.reduce || m.gather))
    return allReduceRoutedSeconds(l, bytes, why);
  if (rate <= 0)
    return 0;
  double shown = payload >= 1e9 ? payload / 1e9 : payload / 1e6;
  const char *unit = payload >= 1e9 ? "GB" : "MB";
  if (flows)
    std::snprintf(text, sizeof text,
                  "routes: no schedule over the runtime's routes, relaying "
                  "through any GPUs, moves %s = %.3g %s faster than %.4g "
                  "GB/s (a multi-commodity flow's optimum)",
                  l.collective == sched::Collective::AllToAllV
                      ? "the largest part"
                  : l.collective == sched::Collective::Gather ? "each part M"
                                                              : "each part M/N",
                  shown, unit, rate / 1e9);
  else
    std::snprintf(text, sizeof text,
                  "routes: no packing of %s over the runtime's routes moves "
                  "%.3g %s faster than %.4g GB/s (synthesis's dual bound)",
                  what.c_str(), shown, unit, rate / 1e9);
  *why = text;
  return payload / rate;
}

double Synthesizer::allReduceRoutedSeconds(const lowering::LoweredCollective &l,
                                           double bytes,
                                           std::string *why) const {
  std::vector<topo::DeviceId> gpus;
  std::string unused;
  if (!groupGpus(l, &gpus, &unused) || gpus.size() < 2)
    return 0;
  // Every byte a GPU sends leaves through the first link of its route to
  // the receiver, every byte it receives enters through the last: over the
  // runtime's routes a GPU's bandwidth is those links' (a link no route
  // takes, such as a GPU's PCIe link to its CPU, carries none).
  double sumOut = 0, sumIn = 0, leastOut = 0, leastIn = 0;
  std::string leastOutName, leastInName;
  for (topo::DeviceId g : gpus) {
    std::set<topo::LinkId> out, in;
    for (topo::DeviceId h : gpus) {
      if (h == g)
        continue;
      RouteMemo::Path there = routes_->path(g, h), back = routes_->path(h, g);
      if (there.count == 0 || back.count == 0)
        return 0;
      out.insert(there.links[0]);
      in.insert(back.links[back.count - 1]);
    }
    double o = 0, i = 0;
    for (topo::LinkId link : out)
      o += topology_.link(link).bandwidth;
    for (topo::LinkId link : in)
      i += topology_.link(link).bandwidth;
    sumOut += o;
    sumIn += i;
    if (leastOutName.empty() || o < leastOut) {
      leastOut = o;
      leastOutName = topology_.device(g).name;
    }
    if (leastInName.empty() || i < leastIn) {
      leastIn = i;
      leastInName = topology_.device(g).name;
    }
  }
  // The aggregate form (docs/bounds.md): 2(P-1) M between P parties in
  // all, over the parties' bandwidth together; and one GPU's M each way.
  const double p = double(gpus.size());
  const double moved = 2 * (p - 1) * bytes;
  const double aggregate = std::max(moved / sumOut, moved / sumIn);
  const double single = std::max(bytes / leastOut, bytes / leastIn);
  char text[512];
  if (aggregate >= single)
    std::snprintf(text, sizeof text,
                  "routes: an all_reduce moves 2(P-1) M = %.3g GB between "
                  "its %d GPUs, and over the runtime's routes they send at "
                  "most %.4g GB/s together (each through the first links "
                  "of its routes: links no route takes, such as PCIe to a "
                  "CPU, carry none)",
                  moved / 1e9, int(gpus.size()),
                  (moved / sumOut >= moved / sumIn ? sumOut : sumIn) / 1e9);
  else
    std::snprintf(
        text, sizeof text,
        "routes: %s must send and receive M = %.3g GB, through at "
        "most %.4g GB/s of the links the runtime's routes take",
        (bytes / leastOut >= bytes / leastIn ? leastOutName : leastInName)
            .c_str(),
        bytes / 1e9,
        (bytes / leastOut >= bytes / leastIn ? leastOut : leastIn) / 1e9);
  *why = text;
  return std::max(aggregate, single);
}

std::string Synthesizer::declined(const lowering::LoweredCollective &l) const {
  auto it = made_.find(keyOf(l));
  return it == made_.end() ? std::string() : it->second.declined;
}

std::vector<LatencyTreeMade>
Synthesizer::latencyTreesFor(const lowering::LoweredCollective &l) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || it->second.algorithms.empty())
    return {};
  return it->second.latency;
}

const AllToAllFlows *
Synthesizer::flowsFor(const lowering::LoweredCollective &l) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || it->second.algorithms.empty())
    return nullptr;
  return it->second.flows;
}

const RoundSchedule *
Synthesizer::roundsFor(const lowering::LoweredCollective &l,
                       bool moreCopies) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || it->second.algorithms.empty())
    return nullptr;
  const RoundSchedule &s =
      moreCopies ? it->second.moreCopies : it->second.rounds;
  return s.ranks == 0 ? nullptr : &s;
}

void Synthesizer::evenFor(const lowering::LoweredCollective &l,
                          std::vector<const ForestPacking *> *reduce,
                          std::vector<const ForestPacking *> *gather,
                          std::vector<const RoundSchedule *> *rounds,
                          const RoundSchedule **overlapped) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || it->second.algorithms.empty())
    return;
  const Made &m = it->second;
  if (overlapped && m.evenOverlapped.ranks > 0)
    *overlapped = &m.evenOverlapped;
  for (const RoundSchedule &s : m.evenRounds)
    rounds->push_back(&s);
  if (m.reduceEven)
    for (const ForestPacking &f : *m.reduceEven)
      reduce->push_back(&f);
  if (m.gatherEven)
    for (const ForestPacking &f : *m.gatherEven)
      gather->push_back(&f);
}

bool Synthesizer::made(const lowering::Algorithm *algorithm) const {
  for (const auto &[key, m] : made_)
    for (const lowering::Algorithm *a : m.algorithms)
      if (a == algorithm)
        return true;
  return false;
}

const TreePacking *
Synthesizer::packingFor(const lowering::LoweredCollective &l) const {
  auto it = made_.find(keyOf(l));
  if (it == made_.end() || it->second.algorithms.empty())
    return nullptr;
  return it->second.packing;
}

const TreePacking *
Synthesizer::packingOf(const lowering::Algorithm *algorithm) const {
  for (const auto &[key, made] : made_)
    for (const lowering::Algorithm *a : made.algorithms)
      if (a == algorithm)
        return made.packing;
  return nullptr;
}

} // namespace collc::synth

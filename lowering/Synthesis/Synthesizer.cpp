//===- Synthesizer.cpp - schedules from the topology, for the lowering ----===//
#include "lowering/Synthesis/Synthesizer.h"

#include "lowering/Synthesis/TreeSchedule.h"

#include "mlir/IR/Diagnostics.h"

namespace collc::synth {

Synthesizer::Synthesizer(mlir::MLIRContext *context,
                         const topo::Topology &topology,
                         std::shared_ptr<RouteMemo> routes,
                         std::shared_ptr<PackingMemo> packings,
                         uint32_t maxChannels)
    : topology_(topology), maxChannels_(maxChannels),
      routes_(std::move(routes)), packings_(std::move(packings)),
      library_(context) {
  if (!packings_ || packings_->topology != &topology)
    packings_ = std::make_shared<PackingMemo>(topology);
}

PackingKey Synthesizer::keyOf(const lowering::LoweredCollective &l) {
  int32_t root = 0;
  if (auto attr = l.op->getAttrOfType<mlir::IntegerAttr>("root"))
    root = int32_t(attr.getInt());
  return PackingKey{int(l.collective), l.layout.meshRanks, root};
}

void Synthesizer::pack(const lowering::LoweredCollective &l,
                       const PackingKey &key, PackingMemo::Entry &entry) {
  const int32_t root = std::get<2>(key);
  std::vector<topo::DeviceId> gpus;
  for (int32_t mesh : l.layout.meshRanks) {
    if (mesh < 0 || mesh >= topology_.numGpus()) {
      entry.why = "the group's mesh rank " + std::to_string(mesh) +
                  " is not a GPU of the topology";
      return;
    }
    gpus.push_back(topology_.gpu(mesh));
  }
  TreeDirection direction = l.collective == sched::Collective::Broadcast
                                ? TreeDirection::FromRoot
                                : TreeDirection::ToRoot;
  PackingOptions options;
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

std::vector<const lowering::Algorithm *>
Synthesizer::candidates(const lowering::LoweredCollective &l) {
  using sched::Collective;
  if (l.collective != Collective::Broadcast &&
      l.collective != Collective::Reduce)
    return {};
  const int32_t n = l.layout.size;
  if (n < 2)
    return {};
  if (n > kMaxSynthesisRanks) {
    l.op->emitRemark("synthesis: not tried for a group of ")
        << n << " ranks (at most " << kMaxSynthesisRanks
        << " yet); choosing among the library's algorithms";
    return {};
  }
  PackingKey key = keyOf(l);
  if (auto it = made_.find(key); it != made_.end())
    return it->second.algorithms;
  Made &made = made_[key];
  auto [entry, fresh] = packings_->entries.try_emplace(key);
  if (fresh)
    pack(l, key, entry->second);
  const PackingMemo::Entry &packed = entry->second;
  if (!packed.ok) {
    (packed.remark ? l.op->emitRemark("synthesis: ")
                   : l.op->emitWarning("synthesis: "))
        << packed.why << "; choosing among the library's algorithms";
    return {};
  }
  made.packing = &packed.packing;
  std::string symbol = std::string("synthesized_") +
                       sched::collectiveName(l.collective) + "_" +
                       std::to_string(made_.size());
  std::string text =
      treeScheduleText(packed.packing, symbol, "synthesized_trees");
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

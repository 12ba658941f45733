//===- Synthesizer.cpp - schedules from the topology, for the lowering ----===//
#include "lowering/Synthesis/Synthesizer.h"

#include "lowering/Synthesis/TreeSchedule.h"

#include "mlir/IR/Diagnostics.h"

namespace collc::synth {

Synthesizer::Synthesizer(mlir::MLIRContext *context,
                         const topo::Topology &topology,
                         std::shared_ptr<RouteMemo> routes,
                         uint32_t maxChannels)
    : topology_(topology), maxChannels_(maxChannels),
      routes_(std::move(routes)), library_(context) {}

Synthesizer::Key Synthesizer::keyOf(const lowering::LoweredCollective &l) {
  int32_t root = 0;
  if (auto attr = l.op->getAttrOfType<mlir::IntegerAttr>("root"))
    root = int32_t(attr.getInt());
  return Key{int(l.collective), l.layout.meshRanks, root};
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
  Key key = keyOf(l);
  const int32_t root = std::get<2>(key);
  if (auto it = made_.find(key); it != made_.end())
    return it->second.algorithms;
  Made &made = made_[key];
  std::vector<topo::DeviceId> gpus;
  for (int32_t mesh : l.layout.meshRanks) {
    if (mesh < 0 || mesh >= topology_.numGpus())
      return {};
    gpus.push_back(topology_.gpu(mesh));
  }
  std::string error;
  TreeDirection direction = l.collective == Collective::Broadcast
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
                 &made.packing, &error)) {
    l.op->emitWarning("synthesis: ")
        << error << "; choosing among the library's algorithms";
    return {};
  }
  if (int used = treeChannels(made.packing).most; used > int(maxChannels_)) {
    l.op->emitRemark("synthesis: even one tree needs ")
        << used << " channels on a rank, more than the " << maxChannels_
        << " that can run at once; choosing among the library's algorithms";
    return {};
  }
  std::string symbol = std::string("synthesized_") +
                       sched::collectiveName(l.collective) + "_" +
                       std::to_string(made_.size());
  std::string text =
      treeScheduleText(made.packing, symbol, "synthesized_trees");
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
  return &it->second.packing;
}

const TreePacking *
Synthesizer::packingOf(const lowering::Algorithm *algorithm) const {
  for (const auto &[key, made] : made_)
    for (const lowering::Algorithm *a : made.algorithms)
      if (a == algorithm)
        return &made.packing;
  return nullptr;
}

} // namespace collc::synth

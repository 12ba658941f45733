//===- LowerCollectives.cpp - coll collectives to sched schedules ---------===//
#include "lowering/CollToSched/LowerCollectives.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace collc {
namespace lowering {

/// The collective a coll op implements, by its op name; send and recv pair
/// into send_recv.
static std::optional<sched::Collective>
collectiveOf(coll::CollectiveOpInterface op) {
  llvm::StringRef name = op.getCollectiveName();
  if (name == "send" || name == "recv")
    return sched::Collective::SendRecv;
  return collectiveFromName(name);
}

static void setSendCounts(LoweredCollective &lowered, Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto splitAxis = op->getAttrOfType<IntegerAttr>("split_axis");
  if (!input || !splitAxis)
    return;
  int64_t axis = splitAxis.getInt();
  int64_t rowElements = 1;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (d != axis)
      rowElements *= input.getDimSize(d);
  int64_t n = lowered.layout.size;
  std::vector<int64_t> &counts = lowered.expand.sendCounts;
  if (auto attr = op->getAttrOfType<DenseIntElementsAttr>("send_counts")) {
    for (const APInt &v : attr.getValues<APInt>())
      counts.push_back(v.getSExtValue() * rowElements);
    return;
  }
  // Counts known at run time: expand with uniform counts, which fixes the
  // schedule's structure.
  lowered.countsAtRunTime = true;
  int64_t rows = input.isDynamicDim(axis) ? n : input.getDimSize(axis);
  counts.assign(static_cast<size_t>(n * n), (rows / n) * rowElements);
}

/// send/recv: the receiver of every group rank under the coll.send's peer
/// function (a map or a table), -1 where a rank sends nothing.
static void setSendTo(LoweredCollective &lowered, coll::SendOp send) {
  coll::PeerFunction peers = send.getPeerFunction();
  int64_t n = lowered.layout.size;
  std::vector<int32_t> &to = lowered.expand.sendTo;
  to.assign(static_cast<size_t>(std::max<int64_t>(n, 0)), -1);
  for (int64_t r = 0; r < n; ++r) {
    std::optional<int64_t> peer = peers.peerOf(r, n);
    if (peer && *peer != coll::PeerFunction::kNoPeer)
      to[static_cast<size_t>(r)] = static_cast<int32_t>(*peer);
  }
}

std::vector<LoweredCollective> describeCollectives(ModuleOp module) {
  std::vector<LoweredCollective> result;
  int64_t gpusPerNode = gpusPerNodeOf(module);
  module.walk([&](coll::CollectiveOpInterface op) {
    LoweredCollective lowered;
    lowered.op = op;
    lowered.collective =
        collectiveOf(op).value_or(sched::Collective::AllReduce);
    lowered.layout = computeGroupLayout(op, gpusPerNode);
    Type type = op->getNumOperands() ? op->getOperand(0).getType()
                                     : op->getResult(0).getType();
    std::optional<coll::ElementKind> kind =
        coll::elementKindOf(cast<ShapedType>(type).getElementType());
    lowered.elementBytes = kind ? coll::byteWidth(*kind) : 1;
    int64_t bytes = op.getBytesPerRank();
    lowered.elementsPerRank = bytes < 0 ? -1 : bytes / lowered.elementBytes;
    if (lowered.collective == sched::Collective::AllToAllV)
      setSendCounts(lowered, op);
    if (auto send = dyn_cast<coll::SendOp>(op.getOperation()))
      setSendTo(lowered, send);
    result.push_back(std::move(lowered));
  });
  return result;
}

bool isApplicable(const Algorithm &algorithm, const LoweredCollective &lowered,
                  std::string &why) {
  if (algorithm.collective != lowered.collective) {
    why = std::string("it implements ") +
          sched::collectiveName(algorithm.collective);
    return false;
  }
  if (std::optional<int32_t> fixed =
          sched::ScheduleOp(algorithm.schedule).getGroupSize();
      fixed && *fixed != lowered.layout.size) {
    why = "it is written for a group of " + std::to_string(*fixed) +
          " ranks, not " + std::to_string(lowered.layout.size);
    return false;
  }
  if (algorithm.needsNodes &&
      (lowered.layout.nodes < 2 || lowered.layout.ranksPerNode < 2 ||
       !lowered.layout.nodeContiguous)) {
    why = "it needs a group of at least 2 nodes with at least 2 consecutive "
          "ranks on each, and this group has " +
          std::to_string(lowered.layout.nodes) + " node(s)" +
          (lowered.layout.nodeContiguous ? "" : " (not node-contiguous)");
    return false;
  }
  return true;
}

sched::ExpandOptions expandOptionsFor(const Algorithm &algorithm,
                                      const LoweredCollective &lowered,
                                      unsigned chunks,
                                      const llvm::StringMap<int64_t> &chosen) {
  sched::ExpandOptions options;
  options.groupSize = lowered.layout.size;
  options.sendCounts = lowered.expand.sendCounts;
  options.sendTo = lowered.expand.sendTo;
  DictionaryAttr params = sched::ScheduleOp(algorithm.schedule).getParamsAttr();
  auto hasParam = [&](llvm::StringRef name) {
    return params && params.get(name);
  };
  if (hasParam("gpus_per_node") && lowered.layout.ranksPerNode > 0)
    options.params["gpus_per_node"] = lowered.layout.ranksPerNode;
  for (const auto &entry : lowered.userParams)
    if (hasParam(entry.getKey()))
      options.params[entry.getKey()] = entry.getValue();
  for (const auto &entry : chosen)
    options.params[entry.getKey()] = entry.getValue();
  if (hasParam("root"))
    if (auto root = lowered.op->getAttrOfType<IntegerAttr>("root"))
      options.params["root"] = root.getInt();
  int64_t unit = chunkUnitValue(algorithm, lowered.layout.size, options.params);
  options.chunksPerPart =
      static_cast<uint32_t>((chunks ? chunks : 1) * std::max<int64_t>(1, unit));
  return options;
}

/// The documented default until algorithms are chosen by simulation: the
/// first applicable name of the collective's list, else the first
/// applicable algorithm of the library.
static llvm::ArrayRef<llvm::StringRef> defaultPreference(sched::Collective c,
                                                         bool multiNode) {
  using C = sched::Collective;
  static const llvm::StringRef hierarchicalFirst[] = {"hierarchical", "ring",
                                                      "direct"};
  static const llvm::StringRef ring[] = {"ring"};
  static const llvm::StringRef direct[] = {"direct"};
  static const llvm::StringRef binomial[] = {"binomial"};
  static const llvm::StringRef pipelined[] = {"pipelined"};
  switch (c) {
  case C::AllReduce:
  case C::AllGather:
  case C::ReduceScatter:
    return multiNode ? llvm::ArrayRef<llvm::StringRef>(hierarchicalFirst)
                     : llvm::ArrayRef<llvm::StringRef>(ring);
  case C::AllToAll:
  case C::AllToAllV:
  case C::Scatter:
  case C::Gather:
    return direct;
  case C::Broadcast:
  case C::Reduce:
    return binomial;
  case C::SendRecv:
    return pipelined;
  }
  return {};
}

/// Parses --algo into a per-collective choice ("" key: every collective).
static FailureOr<llvm::StringMap<std::string>>
parseAlgoOption(ModuleOp module, llvm::StringRef text) {
  llvm::StringMap<std::string> choice;
  if (text.empty())
    return choice;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [key, value] = item.split('=');
    if (value.empty()) {
      choice[""] = key.trim().str();
      continue;
    }
    if (!collectiveFromName(key.trim()))
      return emitError(module.getLoc())
             << "--algo: '" << key.trim()
             << "' is not a collective (all_reduce, all_gather, "
                "reduce_scatter, all_to_all, all_to_all_v, broadcast, "
                "reduce, scatter, gather, send_recv)";
    choice[key.trim()] = value.trim().str();
  }
  return choice;
}

std::optional<llvm::StringMap<int64_t>> parseAlgoParams(llvm::StringRef text,
                                                        std::string &error) {
  llvm::StringMap<int64_t> params;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, false);
  for (llvm::StringRef item : items) {
    auto [key, value] = item.split('=');
    int64_t v;
    if (key.trim().empty() || value.trim().getAsInteger(10, v)) {
      error = "'" + item.str() + "' is not NAME=INTEGER";
      return std::nullopt;
    }
    if (key.trim() == "root" || key.trim() == "gpus_per_node") {
      error = "'" + key.trim().str() +
              "' is set by collc from the program and the topology";
      return std::nullopt;
    }
    params[key.trim()] = v;
  }
  return params;
}

FailureOr<std::vector<LoweredCollective>>
lowerCollectives(ModuleOp module, const AlgorithmLibrary &library,
                 const LoweringOptions &options) {
  FailureOr<llvm::StringMap<std::string>> algoChoice =
      parseAlgoOption(module, options.algo);
  if (failed(algoChoice))
    return failure();
  std::vector<LoweredCollective> lowered = describeCollectives(module);
  std::string paramError;
  std::optional<llvm::StringMap<int64_t>> userParams =
      parseAlgoParams(options.params, paramError);
  if (!userParams)
    return emitError(module.getLoc()) << "--algo-param: " << paramError;
  for (LoweredCollective &l : lowered)
    l.userParams = *userParams;
  llvm::StringSet<> usedParams;
  SymbolTable symbols(module);
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  bool ok = true;
  bool anyNamed = false;
  int index = 0;
  for (LoweredCollective &l : lowered) {
    ++index;
    const char *name = sched::collectiveName(l.collective);
    // A recv is lowered with its send, as one send_recv.
    if (l.withItsSend())
      continue;
    std::string requested;
    if (auto it = algoChoice->find(name); it != algoChoice->end())
      requested = it->second;
    else if (auto all = algoChoice->find(""); all != algoChoice->end())
      requested = all->second;

    std::vector<const Algorithm *> all = library.forCollective(l.collective);
    std::vector<const Algorithm *> applicable;
    // A candidate joins if it can run this collective; else why not.
    auto offer = [&](const Algorithm *a) {
      std::string why;
      if (isApplicable(*a, l, why))
        applicable.push_back(a);
      else
        l.whyNot += (l.whyNot.empty() ? "" : "; ") + a->name + ": " + why;
    };
    for (const Algorithm *a : all)
      offer(a);
    // --algo synthesized_...: one of the schedules synthesis makes for
    // this collective.
    const bool wantsMade =
        llvm::StringRef(requested).starts_with("synthesized");
    std::vector<const Algorithm *> made;
    if (options.synthesize && (requested.empty() || wantsMade))
      made = options.synthesize(l);
    if (requested.empty()) {
      if (!made.empty() && options.synthesizedOnly)
        applicable.clear();
      for (const Algorithm *a : made)
        offer(a);
    }
    bool forced = false;
    if (!requested.empty()) {
      const Algorithm *a = library.find(l.collective, requested);
      for (const Algorithm *m : made)
        if (!a && m->name == requested)
          a = m;
      if (!a && algoChoice->count(name) == 0) {
        // A bare --algo NAME applies where NAME exists.
      } else if (!a) {
        std::vector<std::string> names;
        for (const Algorithm *c : all)
          names.push_back(c->name);
        std::vector<std::string> synthesized;
        for (const Algorithm *m : made)
          synthesized.push_back(m->name);
        l.op->emitError("--algo: no algorithm '")
            << requested << "' for " << name << "; the library has: "
            << (names.empty() ? std::string("none") : llvm::join(names, ", "))
            << (!wantsMade ? ""
                : !options.synthesize
                    ? "; synthesized schedules need a synthesizer (collc's "
                      "--synthesize=on or only)"
                : synthesized.empty()
                    ? "; synthesis made none for it (none with "
                      "--synthesize=off; else see its remark)"
                    : "; synthesis made: " + llvm::join(synthesized, ", "));
        ok = false;
        continue;
      } else {
        std::string why;
        if (!isApplicable(*a, l, why)) {
          l.op->emitError("--algo: ")
              << requested << " cannot run this " << name << ": " << why;
          ok = false;
          continue;
        }
        applicable = {a};
        forced = true;
        anyNamed = true;
      }
    }
    if (applicable.empty()) {
      if (l.whyNot.empty())
        l.whyNot = std::string("the library has no algorithm for ") + name;
      continue;
    }
    unsigned chunks = options.chunks;
    std::optional<Choice> choice;
    if (options.choose)
      choice = options.choose(l, applicable, options.chunks);
    if (!choice) {
      // The documented default rule: the first applicable name of the
      // collective's preference list, else the first applicable algorithm.
      choice = Choice();
      choice->chunks = chunks ? chunks : 1;
      bool multiNode = l.layout.nodes >= 2;
      if (forced) {
        choice->algorithm = applicable.front();
        choice->why = "--algo";
      }
      for (llvm::StringRef preferred :
           defaultPreference(l.collective, multiNode)) {
        if (choice->algorithm)
          break;
        for (const Algorithm *a : applicable)
          if (a->name == preferred) {
            choice->algorithm = a;
            choice->why = "default rule";
            break;
          }
      }
      if (!choice->algorithm) {
        choice->algorithm = applicable.front();
        choice->why = "default rule (first applicable)";
      }
    }
    l.algorithm = choice->algorithm;
    l.chosenParams = choice->params;
    l.choice = choice->why;
    chunks = choice->chunks;
    // Copy the schedule into the module under a unique name and link it.
    auto copy = cast<sched::ScheduleOp>(builder.clone(*l.algorithm->schedule));
    std::string symbol =
        (llvm::Twine(name) + "_" + l.algorithm->name + "_" + llvm::Twine(index))
            .str();
    for (char &c : symbol)
      if (!llvm::isAlnum(c) && c != '_')
        c = '_';
    copy.setSymName(symbol);
    symbols.insert(copy); // renames on a clash
    l.schedule = copy;
    l.expand = expandOptionsFor(*l.algorithm, l, chunks, l.chosenParams);
    // The copy's parameters say the values it is expanded with (--algo-param,
    // the chooser's channel count, gpus_per_node, root), so that the lowered
    // module (--emit=sched) expands as collc did.
    if (DictionaryAttr declared = copy.getParamsAttr()) {
      llvm::SmallVector<NamedAttribute> values;
      for (NamedAttribute param : declared) {
        auto it = l.expand.params.find(param.getName().getValue());
        values.push_back(
            it == l.expand.params.end()
                ? param
                : builder.getNamedAttr(param.getName(),
                                       builder.getI64IntegerAttr(it->second)));
      }
      copy.setParamsAttr(builder.getDictionaryAttr(values));
    }
    for (const auto &entry : *userParams)
      if (DictionaryAttr declared =
              sched::ScheduleOp(l.algorithm->schedule).getParamsAttr();
          declared && declared.get(entry.getKey()))
        usedParams.insert(entry.getKey());
    l.op->setAttr("sched.schedule",
                  FlatSymbolRefAttr::get(copy.getSymNameAttr()));
    l.op->setAttr("sched.chunks_per_part",
                  builder.getI64IntegerAttr(l.expand.chunksPerPart));
  }
  if (ok && !algoChoice->empty() && algoChoice->count("") && !anyNamed &&
      !lowered.empty()) {
    emitError(module.getLoc())
        << "--algo: no collective of the program has an algorithm named '"
        << algoChoice->lookup("") << "'";
    ok = false;
  }
  for (const auto &entry : *userParams)
    if (ok && !usedParams.contains(entry.getKey())) {
      emitError(module.getLoc())
          << "--algo-param: no chosen algorithm has a parameter '"
          << entry.getKey() << "'";
      ok = false;
    }
  if (!ok)
    return failure();
  return lowered;
}

} // namespace lowering
} // namespace collc

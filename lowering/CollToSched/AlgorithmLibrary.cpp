//===- AlgorithmLibrary.cpp - the algorithms collc can lower to -----------===//
#include "lowering/CollToSched/AlgorithmLibrary.h"

#include "dialects/Sched/Transforms/EnumConversion.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace collc {
namespace lowering {

namespace {
struct BuiltinFile {
  const char *name;
  const char *text;
};
const BuiltinFile builtinFiles[] = {
#include "BuiltinAlgorithms.inc"
};
} // namespace

std::optional<sched::Collective> collectiveFromName(llvm::StringRef name) {
  for (int i = 0; i <= static_cast<int>(sched::Collective::SendRecv); ++i) {
    auto c = static_cast<sched::Collective>(i);
    if (name == sched::collectiveName(c))
      return c;
  }
  return std::nullopt;
}

/// Diagnostics at the schedule's location rather than at the op: collc-opt
/// would append the whole schedule, in generic form, to an op's diagnostic.
static InFlightDiagnostic emitScheduleError(sched::ScheduleOp schedule,
                                            const llvm::Twine &message) {
  return emitError(schedule.getLoc(), message);
}

FailureOr<Algorithm> describeAlgorithm(sched::ScheduleOp schedule,
                                       llvm::StringRef source, bool builtin,
                                       bool requireName) {
  Algorithm algorithm;
  std::optional<llvm::StringRef> name = schedule.getAlgorithm();
  if (requireName && (!name || name->empty()))
    return emitScheduleError(schedule,
                             "an algorithm needs a name: add algorithm = "
                             "\"NAME\" to the sched.schedule");
  algorithm.name = name.value_or("").str();
  algorithm.collective = sched::toProgramCollective(schedule.getCollective());
  algorithm.source = source.str();
  algorithm.schedule = schedule;
  algorithm.builtin = builtin;
  if (std::optional<llvm::StringRef> d = schedule.getDescription())
    algorithm.description = d->str();
  if (Attribute unit = schedule->getAttr("collc.chunk_unit")) {
    if (auto s = dyn_cast<StringAttr>(unit))
      algorithm.chunkUnit = s.str();
    else if (auto i = dyn_cast<IntegerAttr>(unit); i && i.getInt() >= 1)
      algorithm.chunkUnit = std::to_string(i.getInt());
    else
      return emitScheduleError(schedule,
                               "collc.chunk_unit must be \"n\", a "
                               "parameter name or a positive integer");
    if (!llvm::all_of(algorithm.chunkUnit, ::isdigit) &&
        algorithm.chunkUnit != "n") {
      DictionaryAttr params = schedule.getParamsAttr();
      if (!params || !params.get(algorithm.chunkUnit))
        return emitScheduleError(schedule, "collc.chunk_unit names '")
               << algorithm.chunkUnit << "', which is not a parameter";
    }
  }
  if (Attribute req = schedule->getAttr("collc.requires")) {
    auto list = dyn_cast<ArrayAttr>(req);
    if (!list)
      return emitScheduleError(schedule,
                               "collc.requires must be a list of strings");
    for (Attribute a : list) {
      auto s = dyn_cast<StringAttr>(a);
      if (!s || s.getValue() != "nodes")
        return emitScheduleError(schedule,
                                 "collc.requires: unknown requirement ")
               << a << " (known: \"nodes\")";
      algorithm.needsNodes = true;
    }
    DictionaryAttr params = schedule.getParamsAttr();
    if (algorithm.needsNodes && (!params || !params.get("gpus_per_node")))
      return emitScheduleError(schedule,
                               "an algorithm that requires \"nodes\" "
                               "reads the node size from a parameter "
                               "gpus_per_node, which it does not have");
  }
  if (Attribute channels = schedule->getAttr("collc.channel_param")) {
    auto s = dyn_cast<StringAttr>(channels);
    DictionaryAttr params = schedule.getParamsAttr();
    if (!s)
      return emitScheduleError(schedule,
                               "collc.channel_param must be a string: the "
                               "name of the parameter that sets the channel "
                               "count");
    if (!params || !params.get(s.getValue()))
      return emitScheduleError(schedule, "collc.channel_param names '")
             << s.getValue() << "', which is not a parameter";
    algorithm.channelParam = s.str();
  }
  if (auto v = schedule->getAttrOfType<StringAttr>("collc.volume"))
    algorithm.volume = v.str();
  if (auto s = schedule->getAttrOfType<StringAttr>("collc.steps"))
    algorithm.steps = s.str();
  return algorithm;
}

int64_t chunkUnitValue(const Algorithm &algorithm, int64_t n,
                       const llvm::StringMap<int64_t> &params) {
  if (algorithm.chunkUnit == "n")
    return n;
  if (llvm::all_of(algorithm.chunkUnit, ::isdigit))
    return std::stoll(algorithm.chunkUnit);
  if (auto it = params.find(algorithm.chunkUnit); it != params.end())
    return it->second;
  if (DictionaryAttr defaults =
          sched::ScheduleOp(algorithm.schedule).getParamsAttr())
    if (auto v = defaults.getAs<IntegerAttr>(algorithm.chunkUnit))
      return v.getInt();
  return 1;
}

LogicalResult
AlgorithmLibrary::loadBuiltinsAndFiles(llvm::ArrayRef<std::string> files) {
  if (failed(loadBuiltins()))
    return failure();
  for (const std::string &file : files)
    if (failed(loadFile(file)))
      return failure();
  return success();
}

LogicalResult AlgorithmLibrary::loadBuiltins() {
  for (const BuiltinFile &file : builtinFiles) {
    ParserConfig config(context);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(file.text, config, file.name);
    if (!module)
      return failure();
    if (failed(addModule(std::move(module),
                         (llvm::Twine("built-in (") + file.name + ")").str(),
                         /*builtin=*/true)))
      return failure();
  }
  return success();
}

LogicalResult AlgorithmLibrary::loadFile(llvm::StringRef path) {
  // Errors in the file (syntax, names, collc.* attributes) show its line,
  // whatever handler the caller has installed, or none.
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  SourceMgrDiagnosticHandler fileDiagnostics(*sourceMgr, context);
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer)
    return emitError(FileLineColLoc::get(context, path, 0, 0))
           << "cannot read algorithm file '" << path
           << "': " << buffer.getError().message();
  sourceMgr->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
  if (!module)
    return failure();
  return addModule(std::move(module), path, /*builtin=*/false);
}

FailureOr<std::vector<const Algorithm *>>
AlgorithmLibrary::loadSource(llvm::StringRef text, llvm::StringRef source) {
  ParserConfig config(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, source);
  if (!module)
    return failure();
  size_t before = algorithms.size();
  if (failed(addModule(std::move(module), source, /*builtin=*/false)))
    return failure();
  std::vector<const Algorithm *> added;
  for (size_t i = before; i < algorithms.size(); ++i)
    added.push_back(&algorithms[i]);
  return added;
}

LogicalResult AlgorithmLibrary::addModule(OwningOpRef<ModuleOp> module,
                                          llvm::StringRef source,
                                          bool builtin) {
  bool any = false;
  for (auto schedule : module->getOps<sched::ScheduleOp>()) {
    any = true;
    FailureOr<Algorithm> described =
        describeAlgorithm(schedule, source, builtin);
    if (failed(described))
      return failure();
    Algorithm algorithm = std::move(*described);
    if (const Algorithm *existing = find(algorithm.collective, algorithm.name))
      return emitScheduleError(schedule, "algorithm '")
             << algorithm.name << "' for "
             << sched::collectiveName(algorithm.collective)
             << " is already defined by "
             << (existing->source == algorithm.source ? "this file"
                                                      : existing->source)
             << "; names must be unique per collective";
    algorithms.push_back(std::move(algorithm));
  }
  if (!any)
    return emitError(module->getLoc())
           << "'" << source << "' holds no sched.schedule";
  modules.push_back(std::move(module));
  return success();
}

std::vector<const Algorithm *>
AlgorithmLibrary::forCollective(sched::Collective c) const {
  std::vector<const Algorithm *> result;
  for (const Algorithm &a : algorithms)
    if (a.collective == c)
      result.push_back(&a);
  return result;
}

const Algorithm *AlgorithmLibrary::find(sched::Collective c,
                                        llvm::StringRef name) const {
  for (const Algorithm &a : algorithms)
    if (a.collective == c && a.name == name)
      return &a;
  return nullptr;
}

} // namespace lowering
} // namespace collc

//===- ConvertCollToSched.cpp - the lowering as a pass --------------------===//
#include "lowering/CollToSched/Passes.h"

#include "dialects/Sched/IR/SchedDialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace collc {
namespace lowering {
#define GEN_PASS_DEF_CONVERTCOLLTOSCHED
#include "lowering/CollToSched/Passes.h.inc"
} // namespace lowering
} // namespace collc

using namespace mlir;

namespace collc {
namespace lowering {
namespace {

struct ConvertCollToSchedPass
    : impl::ConvertCollToSchedBase<ConvertCollToSchedPass> {
  using ConvertCollToSchedBase::ConvertCollToSchedBase;

  ConvertCollToSchedPass(const ConvertCollToSchedOptions &options,
                         ConvertCollToSchedHooks hooks)
      : ConvertCollToSchedBase(options), hooks(std::move(hooks)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const AlgorithmLibrary *library = hooks.library ? hooks.library() : nullptr;
    if (library && !algoFiles.empty()) {
      emitError(module.getLoc(), "convert-coll-to-sched: algo-file is for "
                                 "the pass's own library; the pipeline "
                                 "loads its algorithm files itself");
      return signalPassFailure();
    }
    if (!library) {
      // The pass's own library: the built-ins, then the user's files.
      if (!ownLibrary) {
        auto loaded = std::make_unique<AlgorithmLibrary>(module.getContext());
        if (failed(loaded->loadBuiltinsAndFiles(
                std::vector<std::string>(algoFiles.begin(), algoFiles.end()))))
          return signalPassFailure();
        ownLibrary = std::move(loaded);
      }
      library = ownLibrary.get();
    }
    LoweringOptions options;
    options.algo = algo;
    options.chunks = chunks;
    options.params = algoParam;
    options.choose = hooks.choose;
    options.synthesize = hooks.synthesize;
    options.synthesizedOnly = hooks.synthesizedOnly;
    FailureOr<std::vector<LoweredCollective>> lowered =
        lowerCollectives(module, *library, options);
    if (failed(lowered))
      return signalPassFailure();
    if (hooks.lowered && failed(hooks.lowered(std::move(*lowered))))
      return signalPassFailure();
  }

  ConvertCollToSchedHooks hooks;
  /// The library of a pass without a library hook (its schedules are
  /// copied from, so it lives as long as the pass).
  std::shared_ptr<AlgorithmLibrary> ownLibrary;
};

} // namespace

std::unique_ptr<Pass>
createConvertCollToSchedPass(const ConvertCollToSchedOptions &options,
                             ConvertCollToSchedHooks hooks) {
  return std::make_unique<ConvertCollToSchedPass>(options, std::move(hooks));
}

} // namespace lowering
} // namespace collc

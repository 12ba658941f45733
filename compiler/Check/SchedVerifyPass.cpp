//===- SchedVerifyPass.cpp - prove sched.schedule ops correct -------------===//
#include "compiler/Check/Passes.h"

#include "compiler/Verify/Verifier.h"
#include "lowering/CollToSched/AlgorithmLibrary.h"

#include "dialects/Sched/Transforms/Expand.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {
#define GEN_PASS_DECL_SCHEDVERIFY
#define GEN_PASS_DEF_SCHEDVERIFY
#include "compiler/Check/Passes.h.inc"
} // namespace collc

using namespace mlir;

namespace collc {

std::vector<int64_t> sendCountPattern(llvm::StringRef pattern, int32_t n) {
  std::vector<int64_t> counts(static_cast<size_t>(n) * n, 3);
  auto at = [&](int32_t s, int32_t d) -> int64_t & {
    return counts[static_cast<size_t>(s) * n + d];
  };
  if (pattern == "uniform")
    return counts;
  if (pattern == "skewed") {
    for (int32_t s = 0; s < n; ++s)
      at(s, 0) = 15;
    return counts;
  }
  if (pattern == "zero-row" || pattern == "zero-col") {
    for (int32_t i = 0; i < n; ++i)
      (pattern == "zero-row" ? at(1 % n, i) : at(i, 1 % n)) = 0;
    return counts;
  }
  if (pattern == "random") {
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (int64_t &c : counts) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      c = static_cast<int64_t>((state >> 33) % 8);
    }
    return counts;
  }
  return {};
}

std::optional<std::vector<int32_t>> sendToPattern(llvm::StringRef pattern,
                                                  int32_t n) {
  std::vector<int32_t> to(static_cast<size_t>(n), -1);
  if (pattern == "schedule")
    return std::vector<int32_t>();
  if (pattern == "shift" || pattern == "chain" || pattern == "reverse" ||
      pattern == "pairs") {
    for (int32_t r = 0; r < n; ++r) {
      int32_t peer = pattern == "shift"     ? (r + 1) % n
                     : pattern == "chain"   ? r + 1
                     : pattern == "reverse" ? r - 1
                                            : r ^ 1;
      if (peer >= 0 && peer < n && peer != r)
        to[static_cast<size_t>(r)] = peer;
    }
    return to;
  }
  llvm::SmallVector<llvm::StringRef> items;
  pattern.split(items, ':');
  to.clear();
  for (llvm::StringRef item : items) {
    int32_t value;
    if (item.trim().getAsInteger(10, value))
      return std::nullopt;
    to.push_back(value);
  }
  return to;
}

namespace {
// Diagnostics are emitted at locations, not at ops: an op's diagnostic
// would append the whole schedule (or module) in generic form, which buries
// the verifier's notes.
struct SchedVerifyPass : impl::SchedVerifyBase<SchedVerifyPass> {
  using SchedVerifyBase::SchedVerifyBase;

  void runOnOperation() override {
    llvm::StringMap<int64_t> paramValues;
    llvm::SmallVector<llvm::StringRef> items;
    llvm::StringRef(params).split(items, ',', -1, false);
    for (llvm::StringRef item : items) {
      auto [name, value] = item.split('=');
      int64_t v;
      if (value.trim().getAsInteger(10, v)) {
        emitError(getOperation().getLoc(), "sched-verify: params: '")
            << item << "' is not name=integer";
        return signalPassFailure();
      }
      paramValues[name.trim()] = v;
    }
    std::vector<std::string> patterns(counts.begin(), counts.end());
    if (patterns.empty())
      patterns = {"uniform", "skewed", "zero-row", "zero-col"};
    for (const std::string &p : patterns)
      if (sendCountPattern(p, 2).empty()) {
        emitError(getOperation().getLoc(),
                  "sched-verify: counts: unknown pattern '")
            << p << "' (uniform, skewed, zero-row, zero-col, random)";
        return signalPassFailure();
      }

    auto optionError = [&](const char *option, int64_t value,
                           const char *rule) {
      emitError(getOperation().getLoc(), "sched-verify: ")
          << option << "=" << value << ": " << rule;
      signalPassFailure();
    };
    for (int32_t n : groupSizes)
      if (n < 1)
        return optionError("group-sizes", n, "a group has at least 1 rank");
    for (unsigned c : chunks)
      if (c < 1)
        return optionError("chunks", c,
                           "an algorithm unit has at least 1 chunk");
    if (slots < 1)
      return optionError("slots", slots, "a connection needs at least 1 slot");
    if (maxChannels < 1)
      return optionError("max-channels", maxChannels,
                         "a rank runs at least 1 channel");

    std::vector<std::string> permutations(sendTo.begin(), sendTo.end());
    if (permutations.empty())
      permutations = {"schedule"};
    for (const std::string &p : permutations)
      if (!sendToPattern(p, 2)) {
        emitError(getOperation().getLoc(),
                  "sched-verify: send-to: unknown permutation '")
            << p
            << "' (schedule, shift, chain, reverse, pairs, or a table such "
               "as 1:2:0)";
        return signalPassFailure();
      }

    bool ok = true;
    for (auto schedule : getOperation().getOps<sched::ScheduleOp>())
      ok &= succeeded(
          verifySchedule(schedule, paramValues, patterns, permutations));
    if (!ok)
      signalPassFailure();
  }

  LogicalResult verifySchedule(sched::ScheduleOp schedule,
                               const llvm::StringMap<int64_t> &paramValues,
                               const std::vector<std::string> &patterns,
                               const std::vector<std::string> &permutations) {
    // The collc.* attributes say how to expand (chunk unit); a schedule
    // needs no algorithm name to be checked.
    FailureOr<lowering::Algorithm> described = lowering::describeAlgorithm(
        schedule, "", /*builtin=*/false, /*requireName=*/false);
    if (failed(described))
      return failure();
    const lowering::Algorithm &algorithm = *described;
    std::vector<int32_t> sizes(groupSizes.begin(), groupSizes.end());
    if (std::optional<int32_t> fixed = schedule.getGroupSize())
      sizes = {*fixed};
    if (sizes.empty())
      return emitError(schedule.getLoc(), "sched-verify: @")
             << schedule.getSymName()
             << " is parametric; give the group sizes to check "
                "(--sched-verify=\"group-sizes=2,3,8\")";
    // An explicit schedule is written for one k, as for one n: check that.
    std::optional<int32_t> fixedChunks = schedule.getChunksPerPart();
    std::vector<unsigned> chunkList(chunks.begin(), chunks.end());
    if (fixedChunks)
      chunkList = {static_cast<unsigned>(*fixedChunks)};
    if (chunkList.empty())
      chunkList = {1};
    bool isV = algorithm.collective == sched::Collective::AllToAllV &&
               !schedule.getSendCounts();
    std::vector<std::string> countList =
        isV ? patterns : std::vector<std::string>{""};
    // send_recv: one expansion per permutation; the schedule's own is named
    // only when others are asked for too.
    bool isSendRecv = algorithm.collective == sched::Collective::SendRecv;
    if (isSendRecv)
      countList = permutations;
    bool namePattern =
        isV || (isSendRecv && !(permutations.size() == 1 &&
                                permutations.front() == "schedule"));

    bool ok = true;
    for (int32_t n : sizes) {
      for (unsigned c : chunkList) {
        for (const std::string &pattern : countList) {
          sched::ExpandOptions options;
          options.groupSize = n;
          for (const auto &entry : paramValues)
            options.params[entry.getKey()] = entry.getValue();
          int64_t unit = lowering::chunkUnitValue(algorithm, n, options.params);
          options.chunksPerPart =
              static_cast<uint32_t>(fixedChunks ? c : c * unit);
          if (isV)
            options.sendCounts = sendCountPattern(pattern, n);
          if (isSendRecv)
            options.sendTo = *sendToPattern(pattern, n);
          std::string what;
          llvm::raw_string_ostream(what)
              << "@" << schedule.getSymName() << ": n = " << n
              << ", k = " << options.chunksPerPart
              << (namePattern ? (isV ? ", counts " : ", send-to ") + pattern
                              : std::string());
          FailureOr<sched::Program> program =
              sched::expandSchedule(schedule, options);
          if (failed(program)) {
            ok = false;
            continue;
          }
          sched::VerifyOptions verifyOptions;
          verifyOptions.connectionSlots = slots;
          verifyOptions.maxChannelsPerRank = maxChannels;
          verifyOptions.maxRaceStreams = maxRaceStreams;
          sched::VerifyResult result =
              sched::verifyProgram(*program, verifyOptions);
          if (!result.ok()) {
            InFlightDiagnostic diag =
                emitError(schedule.getLoc(), "sched-verify: ")
                << what << ": " << result.errors.size() << " error(s)";
            for (const sched::VerifyError &error : result.errors)
              diag.attachNote() << error.message;
            ok = false;
            continue;
          }
          // A race check that did not run is said, never left out.
          llvm::errs() << "sched-verify: " << what << ": verified ("
                       << result.instructions << " instructions, "
                       << result.transfers << " transfers)";
          if (!result.raceCheckSkipped.empty())
            llvm::errs() << "; race check " << result.raceCheckSkipped;
          llvm::errs() << "\n";
        }
      }
    }
    return success(ok);
  }
};
} // namespace

std::unique_ptr<Pass> createSchedVerifyPass() {
  return std::make_unique<SchedVerifyPass>();
}

void registerCheckPasses() { PassRegistration<SchedVerifyPass>(); }

} // namespace collc

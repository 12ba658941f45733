//===- RunPlan.cpp - collc --run: compile, then run on the CPU ------------===//
#include "compiler/Run/RunPlan.h"

#include "collrt/collrt.h"
#include "runtime/check/Reference.h"
#include "runtime/check/SendCounts.h"
#include "runtime/check/TestData.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace collc {

namespace {

using collc::sched::Collective;

/// "1.50 MiB"
std::string bytesText(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
  return text;
}

/// What one world rank did.
struct RankOutcome {
  collrt::Status status;
  int64_t checked = 0;
  int64_t wrong = 0;
  std::vector<std::string> examples;
  double seconds = 0;
  int64_t inputBytes = 0;
};

/// One rank's input and output buffers, kept across the plan's
/// collectives (the largest asked so far) and never zeroed: TestData fills
/// every input element and the poison covers every output element before a
/// run. Fresh buffers for each collective would cost a page fault per 4 KiB
/// each time (64 ranks x 64 MiB for moe_layer's all_to_all_v); large ones
/// are asked for in transparent huge pages (a hint: where the kernel has
/// none, they are ordinary pages).
struct RankBuffers {
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  using Buffer = std::unique_ptr<uint8_t[], Free>;
  Buffer input, output;
  size_t inputBytes = 0, outputBytes = 0;

  void reserve(size_t in, size_t out) {
    grow(input, inputBytes, in);
    grow(output, outputBytes, out);
  }

private:
  static void grow(Buffer &buffer, size_t &bytes, size_t want) {
    if (want <= bytes && buffer)
      return;
    buffer.reset(); // the old one first: never both at once
    bytes = 0;
    constexpr size_t kHugePage = size_t(2) << 20;
    size_t alignment = want >= kHugePage ? kHugePage : 64;
    size_t rounded =
        (std::max<size_t>(want, 1) + alignment - 1) / alignment * alignment;
    buffer.reset(
        static_cast<uint8_t *>(std::aligned_alloc(alignment, rounded)));
    if (!buffer)
      throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (alignment == kHugePage)
      (void)::madvise(buffer.get(), rounded, MADV_HUGEPAGE);
#endif
    bytes = want;
  }
};

/// Where every rank's thread waits until all of them prepared their
/// buffers, so that a collective's time is the collective's, not the
/// others' filling (64 ranks share the machine's cores).
class StartLine {
public:
  explicit StartLine(size_t ranks) : waiting_(ranks) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0)
      ready_.notify_all();
    else
      ready_.wait(lock, [&] { return waiting_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t waiting_;
};

/// `sendCounts`: the N x N counts of an all_to_all_v whose plan leaves them
/// to run time, else nullptr.
RankOutcome runRank(collrt::Communicator &comm, const collrt::Plan &plan,
                    size_t index, const int64_t *sendCounts,
                    RankBuffers &buffers, StartLine &start) {
  RankOutcome outcome;
  const collrt::PlanCollective &collective = plan.collectives[index];
  const sched::Program &program = collective.program;
  int32_t rank = collrt::groupRankOf(collective, comm.rank());
  size_t elementSize = collrt::dataTypeSize(collective.dtype);
  int64_t count = collective.elementsPerRank, inputElements = 0,
          outputElements = 0;
  collrt::check::TestData data(program, collective.dtype, collective.reduction,
                               0, sendCounts);
  if (rank >= 0) {
    if (program.collective == Collective::AllToAllV)
      count = collrt::check::referenceInputElements(program, rank, 0,
                                                    data.sendCounts());
    inputElements = collrt::check::referenceInputElements(program, rank, count,
                                                          data.sendCounts());
    outputElements =
        collrt::outputElements(collective, rank, count, sendCounts);
  }
  uint8_t *input = nullptr, *output = nullptr;
  try {
    buffers.reserve(size_t(inputElements) * elementSize,
                    size_t(outputElements) * elementSize);
    input = buffers.input.get();
    output = buffers.output.get();
    if (rank >= 0) {
      data.fillInput(rank, input, inputElements);
      collrt::check::TestData::poison(collective.dtype, output, outputElements);
    }
  } catch (const std::bad_alloc &) {
    outcome.status = collrt::Status(
        collrt::ErrorCode::SystemError,
        "rank " + std::to_string(comm.rank()) + ": out of memory for " +
            std::to_string(inputElements) + " input and " +
            std::to_string(outputElements) + " output elements");
    // The others wait for this rank at the start and then in the
    // collective: stop them.
    comm.abort(outcome.status.message());
    start.arriveAndWait();
    return outcome;
  }
  start.arriveAndWait();
  auto begin = std::chrono::steady_clock::now();
  outcome.status = comm.run(plan, index, input, output, count, collective.dtype,
                            collective.reduction, sendCounts);
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  outcome.inputBytes = inputElements * int64_t(elementSize);
  if (!outcome.status.ok() || rank < 0)
    return outcome;
  collrt::check::CheckResult result = collrt::check::checkRank(
      data, rank, count, input, inputElements, output, outputElements);
  outcome.checked = result.checked;
  outcome.wrong = result.wrong;
  for (const collrt::check::ElementError &e : result.examples)
    outcome.examples.push_back(e.describe());
  return outcome;
}

} // namespace

bool runPlanInProcess(const collrt::Plan &plan, const RunPlanOptions &options,
                      std::string &out) {
  collrt::CommOptions commOptions;
  commOptions.timeoutSeconds = options.timeoutSeconds;
  commOptions.slotBytes = options.slotBytes;
  std::vector<std::unique_ptr<collrt::Communicator>> comms;
  collrt::Status s = collrt::Communicator::createInProcessGroup(
      plan.worldSize, commOptions, &comms);
  if (!s.ok()) {
    out += "run: error: " + s.toString() + "\n";
    return false;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "run: %d ranks as threads on the CPU executor (in-process "
                "transport, slot bytes %s, channel threads %d per rank, "
                "watchdog %.0f s); every output element checked\n",
                plan.worldSize, bytesText(double(options.slotBytes)).c_str(),
                comms.empty() ? 0 : comms[0]->channelThreads(),
                options.timeoutSeconds);
  out += line;
  bool ok = true;
  std::vector<RankBuffers> buffers(comms.size());
  // The counts drawn for each all_to_all_v with counts at run time.
  std::vector<std::vector<int64_t>> drawn(plan.collectives.size());
  for (size_t index = 0; index < plan.collectives.size(); ++index) {
    const collrt::PlanCollective &collective = plan.collectives[index];
    std::string countsText;
    if (collrt::sendCountsAtRunTime(collective)) {
      RunCounts how =
          index < options.counts.size() ? options.counts[index] : RunCounts();
      int64_t row = std::max<int64_t>(how.rowElements, 1);
      int32_t n = collective.program.numRanks;
      if (how.transposeOf >= 0 && size_t(how.transposeOf) < index &&
          drawn[size_t(how.transposeOf)].size() == size_t(n) * size_t(n)) {
        drawn[index] =
            collrt::check::transposeCounts(drawn[size_t(how.transposeOf)], n);
        countsText = "send counts the transpose of collective " +
                     std::to_string(how.transposeOf) + "'s (" +
                     plan.collectives[size_t(how.transposeOf)].location + ")";
      } else {
        int64_t rows = collective.elementsPerRank >= 0
                           ? collective.elementsPerRank / row
                           : RunPlanOptions::kDynamicRowsPerRank;
        drawn[index] =
            collrt::check::randomSendCounts(n, rows, row, options.countsSeed);
        countsText = "random send counts, seed " +
                     std::to_string(options.countsSeed) + ", " +
                     std::to_string(rows) + " rows per rank";
      }
      int64_t least = 0, most = 0;
      collrt::check::countRange(drawn[index], row, &least, &most);
      countsText += ", rows per peer " + std::to_string(least) + ".." +
                    std::to_string(most);
    }
    const int64_t *sendCounts =
        drawn[index].empty() ? nullptr : drawn[index].data();
    std::vector<RankOutcome> outcomes(comms.size());
    std::vector<std::thread> threads;
    threads.reserve(comms.size());
    StartLine start(comms.size());
    for (size_t r = 0; r < comms.size(); ++r)
      threads.emplace_back([&, r] {
        outcomes[r] =
            runRank(*comms[r], plan, index, sendCounts, buffers[r], start);
      });
    for (std::thread &t : threads)
      t.join();
    int64_t checked = 0, wrong = 0, maxInput = 0;
    double seconds = 0;
    const collrt::Status *failure = nullptr;
    for (const RankOutcome &o : outcomes) {
      checked += o.checked;
      wrong += o.wrong;
      seconds = std::max(seconds, o.seconds);
      maxInput = std::max(maxInput, o.inputBytes);
      if (!o.status.ok() && !failure)
        failure = &o.status;
    }
    std::string what =
        std::string(sched::collectiveName(collective.program.collective)) +
        " (" + collective.program.algorithm + ") at " + collective.location;
    if (failure) {
      out += "run: " + what + ": FAILED: " + failure->toString() + "\n";
      ok = false;
      continue;
    }
    std::snprintf(
        line, sizeof line,
        ", %s per rank, %s, %d group%s of %d: %lld of %lld "
        "elements wrong, %.3f s\n",
        bytesText(double(maxInput)).c_str(),
        collrt::dataTypeName(collective.dtype), int(collective.groups.size()),
        collective.groups.size() == 1 ? "" : "s", collective.program.numRanks,
        (long long)wrong, (long long)checked, seconds);
    if (!countsText.empty()) {
      // "..., 0 of N elements wrong, T s" gains "; <which counts>".
      std::string text = line;
      if (!text.empty() && text.back() == '\n')
        text.pop_back();
      out += "run: " + what + text + "; " + countsText + "\n";
    } else {
      out += "run: " + what + line;
    }
    if (wrong) {
      ok = false;
      for (const RankOutcome &o : outcomes)
        for (const std::string &e : o.examples)
          out += "run:   " + e + "\n";
    }
  }
  return ok;
}

} // namespace collc

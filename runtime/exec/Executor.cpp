//===- Executor.cpp - the CPU executor: one collective on one rank --------===//
#include "runtime/exec/Executor.h"

#include "runtime/exec/ChannelRunner.h"
#include "runtime/exec/ElementKernels.h"
#include "runtime/exec/Fibers.h"
#include "runtime/exec/RunLayout.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <new>

namespace collrt {
namespace exec {

using collc::sched::Buffer;
using collc::sched::Collective;

namespace {

/// Whether this rank's output is reduced data that avg divides (the
/// postcondition defines it as a reduction over the group).
bool holdsReduction(const collc::sched::Program &program, int32_t groupRank) {
  switch (program.collective) {
  case Collective::AllReduce:
  case Collective::ReduceScatter:
    return true;
  case Collective::Reduce:
    return groupRank == program.root;
  default:
    return false;
  }
}

Status checkArguments(const RunLayout &layout, const PlanCollective &collective,
                      const RunRequest &request) {
  std::string rank = "rank " + std::to_string(layout.worldRank);
  int64_t inputElements = layout.bufferElements(Buffer::Input);
  int64_t outputElements = layout.bufferElements(Buffer::Output);
  if (collective.program.collective == Collective::AllToAllV &&
      request.count != inputElements)
    return Status(
        ErrorCode::PlanMismatch,
        rank + ": count = " + std::to_string(request.count) +
            " does not match " + layout.collectiveName + ": its send counts " +
            (sendCountsAtRunTime(collective) ? "(given at run time) " : "") +
            "give group rank " + std::to_string(layout.groupRank) + " " +
            std::to_string(inputElements) + " input elements");
  if (!request.sendbuf && inputElements > 0)
    return Status(ErrorCode::InvalidArgument,
                  rank + ": sendbuf is null but " + layout.collectiveName +
                      " reads " + std::to_string(inputElements) +
                      " input elements");
  if (!request.recvbuf && outputElements > 0)
    return Status(ErrorCode::InvalidArgument,
                  rank + ": recvbuf is null but " + layout.collectiveName +
                      " writes " + std::to_string(outputElements) +
                      " output elements");
  return Status::success();
}

/// Points the run's buffers at sendbuf (or a private copy), recvbuf and the
/// reused scratch; sizes the staging buffers.
void prepareBuffers(const RunLayout &layout, const RunRequest &request,
                    size_t channels, ExecutorState &state, RunState &run) {
  size_t es = layout.elementSize;
  size_t inBytes = size_t(layout.bufferElements(Buffer::Input)) * es;
  size_t outBytes = size_t(layout.bufferElements(Buffer::Output)) * es;
  const char *in = static_cast<const char *>(request.sendbuf);
  char *out = static_cast<char *>(request.recvbuf);
  // sendbuf is read-only: a schedule that writes its input, or an output
  // that overlaps the input (in place), works on a private copy.
  bool overlap = in && out && inBytes && outBytes && in < out + outBytes &&
                 out < in + inBytes;
  if (layout.writesInput || overlap) {
    state.input.resize(inBytes / 8 + 1);
    if (inBytes)
      std::memcpy(state.input.data(), in, inBytes);
    run.buffers[int(Buffer::Input)] =
        reinterpret_cast<char *>(state.input.data());
  } else {
    // Never written through (writesInput is false).
    run.buffers[int(Buffer::Input)] = const_cast<char *>(in);
  }
  run.buffers[int(Buffer::Output)] = out;
  size_t scratchBytes = size_t(layout.bufferElements(Buffer::Scratch)) * es;
  if (state.scratch.size() < scratchBytes / 8 + 1)
    state.scratch.resize(scratchBytes / 8 + 1);
  run.buffers[int(Buffer::Scratch)] =
      reinterpret_cast<char *>(state.scratch.data());
  if (state.staging.size() < channels)
    state.staging.resize(channels);
  for (size_t c = 0; c < channels; ++c)
    if (state.staging[c].size() < layout.spec.slotBytes / 8 + 1)
      state.staging[c].resize(layout.spec.slotBytes / 8 + 1);
}

} // namespace

Status runCollective(Transport &transport, ExecutorState &state,
                     const RunRequest &request) {
  const PlanCollective &collective = *request.collective;
  ExecutorState::LayoutCache &cache = state.layoutCache;
  int32_t n = collective.program.numRanks;
  size_t countEntries = request.sendCounts && n > 0 ? size_t(n) * size_t(n) : 0;
  bool same = cache.valid && cache.collective == request.collective &&
              cache.index == request.index && cache.count == request.count &&
              cache.slotBytes == request.slotBytes &&
              cache.hasCounts == (request.sendCounts != nullptr) &&
              cache.sendCounts.size() == countEntries &&
              std::equal(cache.sendCounts.begin(), cache.sendCounts.end(),
                         request.sendCounts);
  if (!same) {
    cache.valid = false;
    cache.sendCounts.assign(request.sendCounts,
                            request.sendCounts + countEntries);
    if (Status s = buildRunLayout(
            collective, request.index, transport.rank(), transport.worldSize(),
            request.count, request.slotBytes, &cache.layout,
            request.sendCounts ? cache.sendCounts.data() : nullptr);
        !s.ok())
      return s;
    cache.collective = request.collective;
    cache.index = request.index;
    cache.count = request.count;
    cache.slotBytes = request.slotBytes;
    cache.hasCounts = request.sendCounts != nullptr;
    cache.valid = true;
  }
  const RunLayout &layout = cache.layout;
  bool member = layout.groupRank >= 0;
  if (member)
    if (Status s = checkArguments(layout, collective, request); !s.ok())
      return s;

  std::string rank = "rank " + std::to_string(layout.worldRank);
  if (!state.connected || state.fingerprint != layout.fingerprint) {
    state.connected = false;
    if (Status s = transport.connect(layout.spec, request.deadline); !s.ok())
      return withContext(s, rank + ": connecting the transport for " +
                                layout.collectiveName);
    state.connected = true;
    state.fingerprint = layout.fingerprint;
  }
  if (!member)
    return Status::success();

  const collc::sched::Program &program = collective.program;
  const auto &channels = program.ranks[size_t(layout.groupRank)].channels;
  RunState run(collective, layout, transport, request.deadline,
               request.timeoutSeconds);
  if (request.trace) {
    state.trace.assign(channels.size(), {});
    for (size_t c = 0; c < channels.size(); ++c)
      state.trace[c].reserve(channels[c].instructions.size() *
                             size_t(layout.tiles));
    run.trace = &state.trace;
  } else {
    state.trace.clear();
  }
  try {
    prepareBuffers(layout, request, channels.size(), state, run);
  } catch (const std::bad_alloc &) {
    Status s(ErrorCode::SystemError,
             rank + ": out of memory for the scratch (" +
                 std::to_string(layout.bufferElements(Buffer::Scratch)) +
                 " elements) or staging buffers of " + layout.collectiveName);
    run.fail(s);
    return run.failure();
  }

  // The channels that have instructions, dealt round-robin to
  // request.channelThreads threads: thread 0 is the caller's, the others
  // come from the rank's pool (started once, kept across runs). A thread
  // with several channels runs them as fibers (Fibers.h).
  std::vector<uint32_t> active;
  for (uint32_t c = 0; c < channels.size(); ++c)
    if (!channels[c].instructions.empty())
      active.push_back(c);
  size_t threads = std::max<size_t>(
      1, std::min<size_t>(active.size(), size_t(request.channelThreads)));
  std::vector<std::vector<std::function<void()>>> work(threads);
  for (size_t i = 0; i < active.size(); ++i) {
    uint32_t c = active[i];
    work[i % threads].push_back(
        [&run, &state, c] { ChannelRunner(run, c, state.staging[c]).run(); });
  }
  while (state.stacks.size() < threads)
    state.stacks.emplace_back();
  auto runThread = [&run, &state, &work, &rank](size_t t) {
    if (Status s = runFibers(work[t], state.stacks[t]); !s.ok())
      run.fail(withContext(s, rank));
  };
  if (Status s = state.pool.reserve(threads - 1); !s.ok()) {
    run.fail(withContext(s, rank));
  } else {
    state.pool.run(
        threads - 1, [&runThread](size_t i) { runThread(i + 1); },
        [&runThread] { runThread(0); });
  }
  // Messages left in this rank's buffers for single copy (Transport.h's
  // trySendParts) must be read before the buffers go back to the caller.
  if (!run.failed())
    if (Status s = transport.flushSends(request.deadline); !s.ok())
      run.fail(withContext(
          s, rank + ": " + layout.collectiveName +
                 ": waiting for the receivers to read this rank's buffers"));
  if (run.failed()) {
    // A failed communicator does not run again: let its threads go now.
    state.pool.shutdown();
    return run.failure();
  }

  if (collective.reduction == ReduceOp::Avg &&
      holdsReduction(program, layout.groupRank))
    divideElements(collective.dtype, request.recvbuf,
                   size_t(layout.bufferElements(Buffer::Output)),
                   program.numRanks);
  return Status::success();
}

} // namespace exec
} // namespace collrt

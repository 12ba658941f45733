//===- Emulator.cpp - run a kernel's blocks as host threads ---------------===//
#include "runtime/device/Emulator.h"

#include "runtime/device/WaitReport.h"
#include "runtime/exec/ElementKernels.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace collrt {
namespace dev {

namespace {

/// What the block threads use; shared with them, so that a thread that
/// ignored the abort (a kernel looping outside Channel calls) and was
/// detached never touches freed memory.
struct EmulatedLaunch {
  ~EmulatedLaunch() { std::free(arena); }
  char *arena = nullptr;
  int32_t abortFlag = 0;
  std::vector<std::vector<uint8_t>> privateInputs;
  std::vector<std::unique_ptr<detail::BlockBarrier>> barriers;
  std::mutex mutex;
  std::condition_variable finished;
  size_t running = 0;
};

uint64_t address(const void *p) { return uint64_t(uintptr_t(p)); }

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

} // namespace

Status emulate(const PlanCollective &collective, size_t index,
               KernelFunction kernel, int64_t count,
               const std::vector<const void *> &inputs,
               const std::vector<void *> &outputs,
               const DeviceOptions &options) {
  LaunchLayout layout;
  if (Status s =
          LaunchLayout::create(collective, index, count, options, &layout);
      !s.ok())
    return s;
  int32_t n = layout.nranks();
  std::string what = layout.name() + " (emulated)";
  if (!kernel)
    return Status(ErrorCode::InvalidArgument, what + ": the kernel is null");
  if (options.emulatedThreads < 1 || options.emulatedThreads > 1024)
    return Status(ErrorCode::InvalidArgument,
                  what + ": emulatedThreads = " +
                      std::to_string(options.emulatedThreads) +
                      " must be in [1, 1024]");
  if (inputs.size() != size_t(n) || outputs.size() != size_t(n))
    return Status(ErrorCode::InvalidArgument,
                  what + ": " + std::to_string(inputs.size()) + " inputs and " +
                      std::to_string(outputs.size()) +
                      " outputs given for a program of " + std::to_string(n) +
                      " ranks");
  size_t e = layout.elementSize();
  for (int32_t r = 0; r < n; ++r) {
    if (!inputs[size_t(r)] && layout.inputElements(r) > 0)
      return Status(ErrorCode::InvalidArgument,
                    what + ": rank " + std::to_string(r) +
                        "'s input is null but it reads " +
                        std::to_string(layout.inputElements(r)) + " elements");
    if (!outputs[size_t(r)] && layout.outputElements(r) > 0)
      return Status(ErrorCode::InvalidArgument,
                    what + ": rank " + std::to_string(r) +
                        "'s output is null but it writes " +
                        std::to_string(layout.outputElements(r)) + " elements");
  }

  auto launch = std::make_shared<EmulatedLaunch>();
  uint64_t bytes = (layout.arenaBytes() + 255) / 256 * 256;
  launch->arena = static_cast<char *>(std::aligned_alloc(256, bytes));
  if (!launch->arena)
    return Status(ErrorCode::SystemError,
                  what + ": out of memory for the emulated device arena (" +
                      std::to_string(bytes) + " bytes)");
  std::memset(launch->arena, 0, bytes);
  char *arena = launch->arena;

  // Inputs: read in place unless the rank writes its input (its copy in the
  // arena) or the output overlaps it (a private copy).
  std::vector<uint64_t> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  launch->privateInputs.resize(size_t(n));
  for (int32_t r = 0; r < n; ++r) {
    size_t inBytes = size_t(layout.inputElements(r)) * e;
    size_t outBytes = size_t(layout.outputElements(r)) * e;
    const char *src = static_cast<const char *>(inputs[size_t(r)]);
    char *dst = static_cast<char *>(outputs[size_t(r)]);
    out[size_t(r)] = address(dst);
    if (layout.copiesInput(r)) {
      if (inBytes)
        std::memcpy(arena + layout.arena(r).inputCopy, src, inBytes);
    } else if (src && dst && inBytes && outBytes && src < dst + outBytes &&
               dst < src + inBytes) {
      launch->privateInputs[size_t(r)].assign(src, src + inBytes);
      in[size_t(r)] = address(launch->privateInputs[size_t(r)].data());
    } else {
      in[size_t(r)] = address(src);
    }
  }
  std::vector<uint8_t> image =
      layout.controlImage(address(arena), in, out, address(&launch->abortFlag));
  std::memcpy(arena, image.data(), image.size());

  LaunchArgs args;
  args.ranks =
      reinterpret_cast<const RankContext *>(arena + layout.contextsOffset());
  args.blockRank =
      reinterpret_cast<const int32_t *>(arena + layout.blockRankOffset());
  args.blockChannel =
      reinterpret_cast<const int32_t *>(arena + layout.blockChannelOffset());

  // emulatedThreads host threads per block.
  size_t blocks = layout.blockRank().size();
  int64_t perBlock = options.emulatedThreads;
  std::vector<std::thread> threads;
  Status startFailure;
  launch->barriers.reserve(blocks);
  for (size_t b = 0; b < blocks && startFailure.ok(); ++b) {
    launch->barriers.emplace_back(new detail::BlockBarrier(perBlock));
    detail::BlockBarrier *barrier = launch->barriers.back().get();
    for (int64_t t = 0; t < perBlock; ++t) {
      {
        std::lock_guard<std::mutex> lock(launch->mutex);
        ++launch->running;
      }
      try {
        threads.emplace_back([launch, args, kernel, b, t, perBlock, barrier] {
          detail::currentHostThread = {t, perBlock, barrier};
          LaunchArgs mine = args;
          mine.emulatedBlock = int32_t(b);
          kernel(mine);
          std::lock_guard<std::mutex> lock(launch->mutex);
          if (--launch->running == 0)
            launch->finished.notify_all();
        });
      } catch (const std::system_error &error) {
        {
          std::lock_guard<std::mutex> lock(launch->mutex);
          --launch->running;
        }
        startFailure = Status(
            ErrorCode::SystemError,
            what + ": could not start thread " + std::to_string(t) +
                " of block " + std::to_string(b) + ": " + error.what() +
                (t > 0 ? " (the block's other threads wait for it at their "
                         "first barrier: the launch cannot end)"
                       : ""));
        __atomic_store_n(&launch->abortFlag, int32_t(wait::HostAbort),
                         __ATOMIC_RELEASE);
        break;
      }
    }
  }

  // The watchdog.
  bool timedOut = false, stuck = false;
  {
    std::unique_lock<std::mutex> lock(launch->mutex);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::duration<double>(options.timeoutSeconds));
    if (!launch->finished.wait_until(lock, deadline,
                                     [&] { return launch->running == 0; })) {
      timedOut = true;
      __atomic_store_n(&launch->abortFlag, int32_t(wait::HostAbort),
                       __ATOMIC_RELEASE);
      // Every wait polls abortFlag: the blocks end within a poll or two.
      stuck = !launch->finished.wait_for(lock, std::chrono::seconds(10),
                                         [&] { return launch->running == 0; });
    }
  }
  for (std::thread &thread : threads) {
    if (stuck)
      thread.detach();
    else
      thread.join();
  }
  if (!startFailure.ok())
    return startFailure;

  LaunchSnapshot s = readSnapshot(layout, arena);
  std::string report =
      "\nwhat each block was doing:\n" + blockReport(layout, s);
  if (Status error = blockError(layout, s); !error.ok())
    return Status(error.code(), error.message() + report);
  if (timedOut)
    return Status(ErrorCode::Timeout,
                  what + " on " + std::to_string(n) + " ranks (" +
                      std::to_string(blocks) +
                      " blocks) did not finish within " +
                      seconds(options.timeoutSeconds) +
                      " s (DeviceOptions::timeoutSeconds); the watchdog set "
                      "abortFlag" +
                      (stuck ? " and some blocks never ended (their threads "
                               "were left running)"
                             : "") +
                      report);
  if (Status counts = checkMessageCounts(layout, s); !counts.ok())
    return Status(counts.code(), counts.message() + report);

  if (collective.reduction == ReduceOp::Avg)
    for (int32_t r = 0; r < n; ++r)
      if (layout.holdsReduction(r))
        exec::divideElements(collective.dtype, outputs[size_t(r)],
                             size_t(layout.outputElements(r)), layout.nranks());
  return Status::success();
}

} // namespace dev
} // namespace collrt

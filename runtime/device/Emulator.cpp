//===- Emulator.cpp - run a kernel's blocks as host threads ---------------===//
#include "runtime/device/Emulator.h"

#include "collrt/collrt.h"
#include "runtime/device/DeviceProxy.h"
#include "runtime/device/WaitReport.h"
#include "runtime/exec/ElementKernels.h"
#include "runtime/transport/HostBuffers.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

namespace collrt {
namespace dev {

namespace {

/// One launch (what one process runs): its layout, its allocation, its
/// abort flag.
struct RankLaunch {
  ~RankLaunch() {
    proxy.reset(); // before the memory it moves messages in
    peerHostArenas.clear();
    for (char *h : hostArenas)
      (void)freeHostBuffer(h); // a destructor: nothing to report to
    (void)freeHostBuffer(memory);
  }
  LaunchLayout layout;
  /// The emulated device memory: a host buffer (a memfd, as the fake CUDA
  /// driver's device allocations are), so that it can be exported as a
  /// stand-in dma-buf (GPUDirect).
  char *memory = nullptr;
  int32_t abortFlag = 0;
  LaunchArgs args;
  /// By rank: the host arenas of this launch's ranks with network
  /// connections, and the proxy that serves them (DeviceOptions::hosts).
  std::vector<char *> hostArenas;
  std::unique_ptr<DeviceProxy> proxy;
  /// The host arenas of peers in other (emulated) processes with
  /// host-memory connections, mapped as another process maps them.
  std::vector<std::shared_ptr<const transport::PeerHostBuffer>> peerHostArenas;
};

/// What the block threads use; shared with them, so that a thread that
/// ignored the abort (a kernel looping outside Channel calls) and was
/// detached never touches freed memory.
struct EmulatedLaunch {
  std::vector<std::unique_ptr<RankLaunch>> launches;
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

void raise(int32_t *flag, int32_t value) {
  int32_t expected = wait::NoAbort;
  __atomic_compare_exchange_n(flag, &expected, value, false, __ATOMIC_ACQ_REL,
                              __ATOMIC_ACQUIRE);
}

/// The cause among the proxies' failures: the first that is not a peer's
/// hang-up (which a failing proxy causes by closing its connections, after
/// it recorded its own error), else the first; success when none failed.
Status firstProxyFailure(const EmulatedLaunch &launch) {
  Status first;
  for (const auto &one : launch.launches) {
    if (!one->proxy || !one->proxy->failed())
      continue;
    Status s = one->proxy->error();
    if (s.code() != ErrorCode::PeerFailure)
      return s;
    if (first.ok())
      first = s;
  }
  return first;
}

/// The emulator's dma-buf exporter: a new descriptor of the memfd behind
/// the emulated device memory (a host buffer), standing for a dma-buf of
/// the whole buffer from its start, and data's offset in it (as the CUDA
/// executor exports its whole allocation): what SocketNet's regMrDmaBuf
/// takes for a dma-buf when device memory is host memory
/// (createSocketNet's deviceIsHost).
Status exportEmulatedDmaBuf(void *data, size_t bytes, int *fd,
                            uint64_t *offset) {
  uint64_t key = 0, at = 0;
  if (!transport::findHostBuffer(data, bytes, &key, &at))
    return Status(ErrorCode::SystemError,
                  "the emulated device memory at " + hexAddress(data) + " (" +
                      std::to_string(bytes) + " bytes) is not a host buffer");
  std::string path =
      "/proc/self/fd/" + std::to_string(transport::hostBufferFd(key));
  int f = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (f < 0)
    return Status(ErrorCode::SystemError,
                  "opening " + path + ": " + std::strerror(errno));
  *fd = f;
  *offset = at;
  return Status::success();
}

/// Runs `groups.size()` launches (launch g runs the ranks groups[g]; one
/// empty group: every rank) at once, each in its own allocation, connected
/// through the table of arena entries.
Status emulateLaunches(
    const PlanCollective &collective, size_t index, KernelFunction kernel,
    int64_t count, const std::vector<const void *> &inputs,
    const std::vector<void *> &outputs, const DeviceOptions &options,
    const std::vector<std::vector<int32_t>> &groups,
    const std::function<void(std::vector<std::string> *)> &editTable,
    const std::vector<int32_t> &launchDevices = {},
    const EmulatedNetwork &network = {}) {
  auto launch = std::make_shared<EmulatedLaunch>();
  for (const std::vector<int32_t> &ranks : groups) {
    auto one = std::make_unique<RankLaunch>();
    DeviceOptions o = options;
    o.ranks = ranks;
    if (Status s =
            LaunchLayout::create(collective, index, count, o, &one->layout);
        !s.ok())
      return s;
    launch->launches.push_back(std::move(one));
  }
  const LaunchLayout &first = launch->launches[0]->layout;
  int32_t n = first.nranks();
  std::string what = first.name() + " (emulated)";
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
  size_t e = first.elementSize();
  for (int32_t r = 0; r < n; ++r) {
    if (!inputs[size_t(r)] && first.inputElements(r) > 0)
      return Status(ErrorCode::InvalidArgument,
                    what + ": rank " + std::to_string(r) +
                        "'s input is null but it reads " +
                        std::to_string(first.inputElements(r)) + " elements");
    if (!outputs[size_t(r)] && first.outputElements(r) > 0)
      return Status(ErrorCode::InvalidArgument,
                    what + ": rank " + std::to_string(r) +
                        "'s output is null but it writes " +
                        std::to_string(first.outputElements(r)) + " elements");
  }

  // Each launch's allocation, zeroed, and the entries of its ranks.
  std::vector<std::string> table(static_cast<size_t>(n));
  for (size_t g = 0; g < launch->launches.size(); ++g) {
    RankLaunch &one = *launch->launches[g];
    uint64_t bytes = (one.layout.launchBytes() + 255) / 256 * 256;
    void *memory = nullptr;
    if (Status s = allocateHostBuffer(bytes, &memory); !s.ok())
      return withContext(s, what + ": the emulated device arena");
    one.memory = static_cast<char *>(memory);
    std::memset(one.memory, 0, bytes);
    // Network and host-memory connections: host arenas; for the network
    // ones a proxy over TCP on loopback (docs/gpu-runtime.md, "Across
    // hosts").
    one.hostArenas.assign(size_t(n), nullptr);
    if (one.layout.usesHostArenas())
      for (int32_t r : one.layout.launched()) {
        uint64_t hostBytes = one.layout.arena(r).hostBytes;
        if (!hostBytes)
          continue;
        // A host buffer (memfd): what the processes of a host map.
        void *h = nullptr;
        if (Status s = allocateHostBuffer(hostBytes, &h); !s.ok())
          return withContext(s, what + ": rank " + std::to_string(r) +
                                    "'s host arena");
        std::memset(h, 0, hostBytes);
        one.hostArenas[size_t(r)] = static_cast<char *>(h);
      }
    if (one.layout.usesNet()) {
      std::string who = what + ", launch " + std::to_string(g);
      std::unique_ptr<net::Net> socketNet;
      // The emulator's device memory is host memory: with GPUDirect the
      // socket net registers it as such.
      if (Status s = net::createSocketNet("127.0.0.1", "tcp", &socketNet,
                                          options.gpuDirect);
          !s.ok())
        return s;
      GpuDirectMemory gpuDirect;
      gpuDirect.deviceArenas.assign(static_cast<size_t>(n), nullptr);
      for (int32_t r : one.layout.launched())
        gpuDirect.deviceArenas[size_t(r)] =
            one.memory + one.layout.arenaOffset(r);
      gpuDirect.registration = options.gpuMemoryRegistration;
      gpuDirect.exportDmaBuf = exportEmulatedDmaBuf;
      if (network.exportDmaBuf)
        gpuDirect.exportDmaBuf =
            [wrap = network.exportDmaBuf](void *data, size_t bytes, int *fd,
                                          uint64_t *offset) {
              return wrap(exportEmulatedDmaBuf, data, bytes, fd, offset);
            };
      if (Status s =
              DeviceProxy::create(std::move(socketNet), 0, one.layout,
                                  one.hostArenas, who, &one.proxy, gpuDirect);
          !s.ok())
        return s;
      one.proxy->setPolling(options.proxyPolling);
    }
    if (network.registrations)
      network.registrations->push_back(
          one.proxy ? one.proxy->gpuMemoryRegistration() : std::string());
    for (int32_t r : one.layout.launched()) {
      ArenaEntry entry;
      entry.rank = r;
      entry.layoutKey = one.layout.key();
      entry.arenaBytes = one.layout.arena(r).bytes;
      // One process per launch, or (launchDevices) one process whose
      // launches are on those devices.
      entry.process = launchDevices.empty() ? int64_t(g) : 0;
      entry.device = launchDevices.empty() ? -1 : launchDevices[g];
      entry.host =
          options.hosts.empty()
              ? std::string("emulated")
              : "emulated host " + std::to_string(options.hosts[size_t(r)]);
      entry.address = address(one.memory) + one.layout.arenaOffset(r);
      entry.offset = one.layout.arenaOffset(r);
      if (one.proxy)
        entry.netHandle = one.proxy->handle();
      entry.hostAddress = address(one.hostArenas[size_t(r)]);
      uint64_t offset = 0;
      if (one.hostArenas[size_t(r)] &&
          !transport::findHostBuffer(one.hostArenas[size_t(r)], 1,
                                     &entry.hostKey, &offset))
        return Status(ErrorCode::SystemError,
                      what + ": rank " + std::to_string(r) +
                          "'s host arena is not a host buffer");
      table[size_t(r)] = encodeArenaEntry(entry);
    }
  }
  // The exchange.
  if (editTable)
    editTable(&table);
  std::vector<ArenaEntry> entries(static_cast<size_t>(n));
  if (table.size() != size_t(n))
    return Status(ErrorCode::InvalidArgument,
                  what + ": the table of arenas has " +
                      std::to_string(table.size()) + " entries for " +
                      std::to_string(n) + " ranks");
  for (int32_t r = 0; r < n; ++r)
    if (Status s = decodeArenaEntry(table[size_t(r)], r, &entries[size_t(r)]);
        !s.ok())
      return withContext(s, what);

  // Inputs: read in place unless the rank writes its input (its copy in the
  // arena) or the output overlaps it (a private copy).
  std::vector<uint64_t> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  launch->privateInputs.resize(size_t(n));
  for (auto &one : launch->launches) {
    const LaunchLayout &layout = one->layout;
    if (Status s = layout.checkPeerTable(entries); !s.ok())
      return s;
    // Ranks of this launch use their own arenas; peers' from the table.
    std::vector<uint64_t> arenas = layout.localArenas(address(one->memory));
    std::vector<uint64_t> hostArenas(static_cast<size_t>(n), 0);
    for (int32_t r = 0; r < n; ++r) {
      if (!arenas[size_t(r)] && entries[size_t(r)].rank == r)
        arenas[size_t(r)] = entries[size_t(r)].address;
      hostArenas[size_t(r)] = one->hostArenas[size_t(r)]
                                  ? address(one->hostArenas[size_t(r)])
                                  : entries[size_t(r)].hostAddress;
    }
    // One process per launch: a peer's host arena is mapped as another
    // process maps it (its memfd through /proc, writable), not used at the
    // exporter's address.
    if (launchDevices.empty() && launch->launches.size() > 1)
      for (int32_t r : layout.launched())
        for (int32_t p : layout.peersOf(r)) {
          if (!layout.viaHost(r, p) || one->hostArenas[size_t(p)] ||
              entries[size_t(p)].rank != p)
            continue;
          std::shared_ptr<const transport::PeerHostBuffer> mapped;
          if (Status s = transport::mapPeerHostBuffer(
                  int64_t(getpid()), entries[size_t(p)].hostKey, &mapped,
                  /*writable=*/true);
              !s.ok())
            return withContext(s, what + ": rank " + std::to_string(r) +
                                      "'s peer " + std::to_string(p) +
                                      "'s host arena");
          hostArenas[size_t(p)] = address(mapped->data());
          one->peerHostArenas.push_back(std::move(mapped));
        }
    for (int32_t r : layout.launched()) {
      size_t inBytes = size_t(layout.inputElements(r)) * e;
      size_t outBytes = size_t(layout.outputElements(r)) * e;
      const char *src = static_cast<const char *>(inputs[size_t(r)]);
      char *dst = static_cast<char *>(outputs[size_t(r)]);
      out[size_t(r)] = address(dst);
      if (layout.copiesInput(r)) {
        if (inBytes)
          std::memcpy(one->memory + layout.arenaOffset(r) +
                          layout.arena(r).inputCopy,
                      src, inBytes);
      } else if (src && dst && inBytes && outBytes && src < dst + outBytes &&
                 dst < src + inBytes) {
        launch->privateInputs[size_t(r)].assign(src, src + inBytes);
        in[size_t(r)] = address(launch->privateInputs[size_t(r)].data());
      } else {
        in[size_t(r)] = address(src);
      }
      std::vector<uint8_t> control;
      if (Status s = layout.rankControlImage(r, arenas, &control, hostArenas);
          !s.ok())
        return s;
      std::memcpy(one->memory + layout.arenaOffset(r), control.data(),
                  control.size());
    }
    std::vector<uint8_t> header =
        layout.headerImage(arenas, in, out, address(&one->abortFlag));
    std::memcpy(one->memory, header.data(), header.size());
    char *base = one->memory;
    one->args.ranks =
        reinterpret_cast<const RankContext *>(base + layout.contextsOffset());
    one->args.blockRank =
        reinterpret_cast<const int32_t *>(base + layout.blockRankOffset());
    one->args.blockChannel =
        reinterpret_cast<const int32_t *>(base + layout.blockChannelOffset());
  }

  // The proxies connect while the blocks start (a send waits for its
  // slots, not for the network).
  std::vector<std::string> handles(static_cast<size_t>(n));
  for (int32_t r = 0; r < n; ++r)
    handles[size_t(r)] = entries[size_t(r)].netHandle;
  for (auto &one : launch->launches)
    if (one->proxy)
      if (Status s = one->proxy->start(handles, &one->abortFlag,
                                       options.connectSeconds);
          !s.ok())
        return s;
  for (auto &one : launch->launches)
    if (one->proxy)
      one->proxy->launched(); // as the CUDA executor's enqueue does

  // emulatedThreads host threads per block.
  int64_t perBlock = options.emulatedThreads;
  std::vector<std::thread> threads;
  Status startFailure;
  size_t blocks = 0;
  auto abortAll = [&](int32_t value) {
    for (auto &one : launch->launches)
      raise(&one->abortFlag, value);
  };
  for (auto &one : launch->launches) {
    LaunchArgs args = one->args;
    size_t count = one->layout.blockRank().size();
    blocks += count;
    for (size_t b = 0; b < count && startFailure.ok(); ++b) {
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
          abortAll(wait::HostAbort);
          break;
        }
      }
    }
  }

  // The watchdog, and the peer check between launches: a launch whose
  // block raised its abortFlag stops the others (processes learn it from
  // the bootstrap's peer check).
  bool timedOut = false, stuck = false;
  Status proxyFailure;
  {
    std::unique_lock<std::mutex> lock(launch->mutex);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::duration<double>(options.timeoutSeconds));
    bool proxies = false;
    for (auto &one : launch->launches)
      proxies = proxies || one->proxy;
    bool propagated = launch->launches.size() == 1 && !proxies;
    for (;;) {
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        timedOut = true;
        break;
      }
      auto until = propagated
                       ? deadline
                       : std::min(deadline, now + std::chrono::milliseconds(2));
      if (launch->finished.wait_until(lock, until,
                                      [&] { return launch->running == 0; }))
        break;
      if (!propagated) {
        proxyFailure = firstProxyFailure(*launch);
        bool stop = !proxyFailure.ok();
        for (auto &one : launch->launches)
          stop = stop || __atomic_load_n(&one->abortFlag, __ATOMIC_ACQUIRE) ==
                             wait::BlockError;
        if (stop) {
          abortAll(wait::HostAbort);
          propagated = true;
        }
      }
    }
    if (timedOut) {
      abortAll(wait::HostAbort);
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
  // After a run where every block finished, every message was received:
  // the proxies finish their last completions and say goodbye (all of them
  // told first, so that none takes another's hang-up for a failure). After
  // an abort they are dropped; a proxy failure seen while the blocks ran is
  // the cause of whatever the blocks report.
  if (proxyFailure.ok())
    proxyFailure = firstProxyFailure(*launch); // it stopped the blocks
  bool aborted = timedOut || !proxyFailure.ok();
  for (auto &one : launch->launches)
    aborted =
        aborted || __atomic_load_n(&one->abortFlag, __ATOMIC_ACQUIRE) != 0;
  for (auto &one : launch->launches)
    if (one->proxy && !aborted)
      one->proxy->requestStop(5);
  for (auto &one : launch->launches) {
    if (!one->proxy)
      continue;
    if (aborted) {
      if (!stuck)
        one->proxy.reset();
    } else if (Status s = one->proxy->stop(5); !s.ok() && proxyFailure.ok()) {
      proxyFailure = s;
    }
  }

  std::vector<LaunchSnapshot> snapshots;
  std::string report = "\nwhat each block was doing:\n";
  for (auto &one : launch->launches) {
    const LaunchLayout &layout = one->layout;
    std::vector<const char *> controls(size_t(n), nullptr);
    for (int32_t r : layout.launched())
      controls[size_t(r)] = one->memory + layout.arenaOffset(r);
    std::vector<const char *> hostArenas(one->hostArenas.begin(),
                                         one->hostArenas.end());
    snapshots.push_back(readSnapshot(layout, controls, hostArenas));
    report += blockReport(layout, snapshots.back());
  }
  if (!proxyFailure.ok())
    return Status(proxyFailure.code(), proxyFailure.message() + report);
  for (size_t g = 0; g < snapshots.size(); ++g)
    if (Status error = blockError(launch->launches[g]->layout, snapshots[g]);
        !error.ok())
      return Status(error.code(), error.message() + report);
  if (timedOut)
    return Status(ErrorCode::Timeout,
                  what + " on " + std::to_string(n) + " ranks (" +
                      std::to_string(blocks) + " blocks" +
                      (launch->launches.size() > 1
                           ? " in " + std::to_string(launch->launches.size()) +
                                 " launches with arenas of their own"
                           : std::string()) +
                      ") did not finish within " +
                      seconds(options.timeoutSeconds) +
                      " s (DeviceOptions::timeoutSeconds); the watchdog set "
                      "abortFlag" +
                      (stuck ? " and some blocks never ended (their threads "
                               "were left running)"
                             : "") +
                      report);
  for (size_t g = 0; g < snapshots.size(); ++g)
    if (Status counts =
            checkMessageCounts(launch->launches[g]->layout, snapshots[g]);
        !counts.ok())
      return Status(counts.code(), counts.message() + report);

  if (collective.reduction == ReduceOp::Avg)
    for (int32_t r = 0; r < n; ++r)
      if (first.holdsReduction(r))
        exec::divideElements(collective.dtype, outputs[size_t(r)],
                             size_t(first.outputElements(r)), n);
  return Status::success();
}

} // namespace

Status emulate(const PlanCollective &collective, size_t index,
               KernelFunction kernel, int64_t count,
               const std::vector<const void *> &inputs,
               const std::vector<void *> &outputs,
               const DeviceOptions &options) {
  return emulateLaunches(collective, index, kernel, count, inputs, outputs,
                         options, {options.ranks}, {});
}

Status emulatePerRank(
    const PlanCollective &collective, size_t index, KernelFunction kernel,
    int64_t count, const std::vector<const void *> &inputs,
    const std::vector<void *> &outputs, const DeviceOptions &options,
    const std::function<void(std::vector<std::string> *)> &editTable) {
  int32_t n = collective.program.numRanks;
  if (n < 1 || n > 4096)
    return Status(ErrorCode::InvalidPlan,
                  "collective " + std::to_string(index) + ": the program has " +
                      std::to_string(n) + " ranks");
  std::vector<std::vector<int32_t>> groups;
  for (int32_t r = 0; r < n; ++r)
    groups.push_back({r});
  return emulateLaunches(collective, index, kernel, count, inputs, outputs,
                         options, groups, editTable);
}

Status emulateAcrossHosts(
    const PlanCollective &collective, size_t index, KernelFunction kernel,
    int64_t count, const std::vector<const void *> &inputs,
    const std::vector<void *> &outputs, const std::vector<int32_t> &hosts,
    const DeviceOptions &options,
    const std::function<void(std::vector<std::string> *)> &editTable,
    bool launchPerHost, const EmulatedNetwork &network) {
  DeviceOptions o = options;
  o.hosts = hosts;
  int32_t n = collective.program.numRanks;
  if (!launchPerHost) {
    if (n < 1 || n > 4096)
      return Status(ErrorCode::InvalidPlan,
                    "collective " + std::to_string(index) +
                        ": the program has " + std::to_string(n) + " ranks");
    std::vector<std::vector<int32_t>> groups;
    for (int32_t r = 0; r < n; ++r)
      groups.push_back({r});
    return emulateLaunches(collective, index, kernel, count, inputs, outputs, o,
                           groups, editTable, {}, network);
  }
  // One launch (process) per host with all of its ranks: their proxy
  // serves several ranks.
  if (hosts.size() != size_t(n))
    return Status(ErrorCode::InvalidArgument,
                  "collective " + std::to_string(index) + ": " +
                      std::to_string(hosts.size()) + " hosts for " +
                      std::to_string(n) + " ranks");
  std::vector<int32_t> order;
  std::vector<std::vector<int32_t>> groups;
  for (int32_t r = 0; r < n; ++r) {
    size_t g = size_t(std::find(order.begin(), order.end(), hosts[size_t(r)]) -
                      order.begin());
    if (g == order.size()) {
      order.push_back(hosts[size_t(r)]);
      groups.emplace_back();
    }
    groups[g].push_back(r);
  }
  return emulateLaunches(collective, index, kernel, count, inputs, outputs, o,
                         groups, editTable, {}, network);
}

Status emulateOnDevices(const PlanCollective &collective, size_t index,
                        KernelFunction kernel, int64_t count,
                        const std::vector<const void *> &inputs,
                        const std::vector<void *> &outputs,
                        const std::vector<int32_t> &devices,
                        const DeviceOptions &options) {
  int32_t n = collective.program.numRanks;
  if (n < 1 || n > 4096)
    return Status(ErrorCode::InvalidPlan,
                  "collective " + std::to_string(index) + ": the program has " +
                      std::to_string(n) + " ranks");
  if (devices.empty() || devices.size() > size_t(n))
    return Status(ErrorCode::InvalidArgument,
                  "collective " + std::to_string(index) + ": " +
                      std::to_string(devices.size()) + " devices for " +
                      std::to_string(n) +
                      " ranks (want 1 to N: every device runs a rank)");
  for (size_t g = 0; g < devices.size(); ++g)
    if (devices[g] < 0)
      return Status(ErrorCode::InvalidArgument,
                    "collective " + std::to_string(index) + ": device " +
                        std::to_string(devices[g]) + " is negative");
  return emulateLaunches(collective, index, kernel, count, inputs, outputs,
                         options, dealRanks(n, int32_t(devices.size())), {},
                         devices);
}

} // namespace dev
} // namespace collrt

//===- CudaExecutor.h - collectives as kernels on one GPU -------*- C++ -*-===//
//
// The CUDA executor: loads a module (fatbin, cubin or PTX: what `collc
// --emit=fatbin` or nvcc wrote) through the driver API, lays out a
// collective for N ranks of one GPU (LaunchLayout: every rank's RankContext,
// connections, slots, scratch and staging in one device arena), launches
// every rank's blocks in ONE kernel on the caller's stream (grid = the sum
// of the ranks' channels, after checking with the occupancy API that all of
// them can be resident at once, since producers and consumers spin on each
// other), optionally as a captured CUDA graph, and waits for it with a host
// watchdog that sets abortFlag after the timeout and reports what every
// block was waiting for (WaitReport.h).
//
// One process per rank (CudaOptions::ranks = {r}): the launch holds only
// rank r's arena and blocks; the processes export their arenas with CUDA
// IPC (exportArenas), exchange the entries (GpuCommunicator::createForRank:
// the bootstrap's all-gather), and each opens its peers' (connect) before
// setBuffers. Ranks of one launch use their arenas directly.
//
// Programs use it through collrt/GpuCommunicator.h (GpuCommunicator.cpp);
// the harness that checks and times runs is collc-run's (GpuRun.h).
//
// Several GPUs in one process (createInProcess, GpuOptions::devices):
// one launch per device, each a CudaCollective of that device's ranks on
// its own primary context and stream; linkLaunches builds their table from
// the arenas' device pointers, enables peer access between the devices of
// every pair of ranks that exchange messages, and links their aborts (any
// failure aborts them all). One GPU is the case of one launch.
//
// The driver is dlopen()ed (CudaDriver.h): without a GPU every entry point
// returns Unsupported with the reason ("no CUDA device: cuDeviceGetCount
// returned 0", "no CUDA driver: dlopen(\"libcuda.so.1\") failed: ...").
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_DEVICE_CUDAEXECUTOR_H
#define COLLRT_DEVICE_CUDAEXECUTOR_H

#include "collrt/Bootstrap.h"
#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/Transport.h"
#include "runtime/device/CudaDriver.h"
#include "runtime/device/DeviceProxy.h"
#include "runtime/device/LaunchLayout.h"
#include "runtime/device/WaitReport.h"
#include "runtime/transport/HostBuffers.h"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace collrt {
namespace dev {

struct CudaOptions : DeviceOptions {
  CudaOptions() { alignTiles = true; }
  int device = 0;
  /// Threads per block; 0: the kernel's maximum (its __launch_bounds__,
  /// COLLRT_BLOCK_THREADS = 512 for Channel.h kernels).
  uint32_t blockThreads = 0;
};

/// A module loaded on a device.
class CudaModule {
public:
  ~CudaModule();
  static Status loadFile(const std::string &path, int device,
                         std::unique_ptr<CudaModule> *module);
  static Status loadImage(const std::string &image, const std::string &name,
                          int device, std::unique_ptr<CudaModule> *module);

  Status function(const std::string &name, cu::Function *function) const;
  /// Names of the module's kernels (empty where the driver cannot list
  /// them, before CUDA 12.4, or a call to list them failed: `why`, when
  /// given, says which).
  std::vector<std::string> functionNames(std::string *why = nullptr) const;
  /// The kernel collc generated for plan collective `index`: the one whose
  /// name starts with "<prefix>_k<index>_" (CudaEmitter.h's naming).
  Status findPlanKernel(size_t index, const std::string &prefix,
                        std::string *name) const;
  const std::string &name() const { return name_; }
  const CudaDriver &driver() const { return *driver_; }

private:
  const CudaDriver *driver_ = nullptr;
  cu::Context context_ = nullptr;
  cu::Module module_ = nullptr;
  std::string name_;
};

/// One collective on the ranks of one launch: every rank of the program on
/// one GPU, or (options.ranks) this process's ranks, whose peers' arenas
/// are reached through CUDA IPC.
class CudaCollective {
public:
  ~CudaCollective();
  /// Lays out collective `index` for `count` elements per rank and checks
  /// that the kernel `kernel` of `module` can run it: every block of the
  /// launch resident at once.
  static Status create(const PlanCollective &collective, size_t index,
                       int64_t count, const CudaModule &module,
                       const std::string &kernel, const CudaOptions &options,
                       std::unique_ptr<CudaCollective> *out);

  const LaunchLayout &layout() const { return layout_; }
  int device() const { return options_.device; }
  /// "ranks 0, 2 of 4 on CUDA device 1", "8 ranks on CUDA device 0".
  std::string launchName() const;
  /// Makes this launch's device context current on the calling thread
  /// (every member does so itself; for the caller's own allocations).
  Status makeCurrent() const;
  /// The blocks this kernel can keep resident at once on the device.
  uint64_t residentBlocks() const { return resident_; }
  unsigned gridBlocks() const { return unsigned(layout_.blockRank().size()); }
  unsigned blockThreads() const { return threads_; }
  int registers() const { return registers_; }
  /// "132 SMs x 1 block of 512 threads (128 registers)".
  const std::string &residency() const { return residency_; }

  /// Network connections (DeviceOptions::hosts: ranks on other hosts):
  /// creates the proxy that moves them over `net` device `dev`
  /// (DeviceProxy.h), before exportArenas so that the entries carry its
  /// handle. connect() starts it; a layout with network connections
  /// refuses to connect without it.
  Status startNetwork(std::unique_ptr<net::Net> net, int dev);
  /// After the last wait of every rank: lets the proxy send what is left
  /// and say goodbye (at most `seconds`), then closes its connections.
  Status stopNetwork(double seconds);
  /// "tcp 10.0.0.5 ..." where a proxy runs, "" otherwise.
  std::string networkDescription() const;
  /// With GPUDirect: how the device arenas were registered with the NIC
  /// (DeviceProxy::gpuMemoryRegistration: "GPU memory registered through
  /// dma-buf", "... through nvidia-peermem (dma-buf: why)"); "" otherwise.
  std::string gpuMemoryRegistration() const;

  /// The entries of this launch's arenas for the peers' processes: the
  /// allocation's IPC handle (cuIpcGetMemHandle), each arena's offset,
  /// this process and device. A launch of every rank needs none.
  Status exportArenas(std::vector<ArenaEntry> *entries) const;
  /// The same without an IPC handle: for launches of this process
  /// (linkLaunches), which use the addresses directly.
  std::vector<ArenaEntry> localEntries() const;
  /// Opens the arenas of the peers of this launch's ranks from `table` (by
  /// rank; rank -1: no entry): ranks of this process directly, others with
  /// cuIpcOpenMemHandle (also those on this very GPU). A peer of this
  /// process on another device: its address, after enabling peer access
  /// (enablePeerAccess). Errors name the rank, the peer and the rule broken
  /// (missing entry, another layout, another host, a handle that does not
  /// open here, devices without peer access).
  Status connect(const std::vector<ArenaEntry> &table);
  /// Polled by wait() about every 100 ms: a failure (a peer process that
  /// died or announced a failure) aborts the launch and is returned with
  /// every block's state.
  void setPeerCheck(std::function<Status()> check) {
    peerCheck_ = std::move(check);
  }

  /// Rank r reads inputs[r] (count elements, never written) and writes
  /// outputs[r] (layout().outputElements(r)); device pointers, by rank
  /// (ranks this launch does not run: ignored). A launch of some ranks
  /// must be connected first.
  Status setBuffers(const std::vector<cu::DevicePtr> &inputs,
                    const std::vector<cu::DevicePtr> &outputs);
  /// Enqueues one run on `stream`: private input copies (ranks that write
  /// their input), the kernel, avg's division.
  Status enqueue(cu::Stream stream);
  /// The same captured once into a CUDA graph (again after setBuffers),
  /// then launched as the graph.
  Status enqueueGraph(cu::Stream stream);
  /// Captures and instantiates that graph without launching it (several
  /// launches: every graph before any kernel runs).
  Status prepareGraph(cu::Stream stream);
  /// Waits until everything enqueued on `stream` has finished, at most
  /// options.timeoutSeconds; then aborts the launch (abortFlag) and
  /// returns Timeout with every block's state. A block's error gives
  /// PlanMismatch. After a failure the collective cannot run again.
  Status wait(cu::Stream stream);
  /// wait(), then checks every connection's message count against the
  /// program (whether the kernel runs the plan's schedule).
  Status waitAndCheck(cu::Stream stream);
  /// Bounds the launches enqueued and not finished (call after each
  /// enqueue of a long series): every kMarkEvery launches it records an
  /// event, and with more than kMarksInFlight events outstanding it waits
  /// for the oldest as wait() does (the watchdog, the peer check). So at
  /// most (kMarksInFlight + 1) * kMarkEvery launches are in flight: enough
  /// to keep the GPU busy, and never a launch queue so full that enqueuing
  /// blocks in the driver while a kernel waits for a dead peer.
  Status throttle(cu::Stream stream);
  static constexpr uint64_t kMarkEvery = 16;
  static constexpr size_t kMarksInFlight = 4;

  /// Whether this launch's abortFlag is raised (a block's error, the
  /// watchdog, a linked launch's failure).
  bool aborted() const;
  /// Raises this launch's abortFlag: its blocks give up at their next
  /// poll (a linked launch that could not be enqueued).
  void abort();

private:
  /// enqueue's work without counting a launch (prepareGraph captures it).
  Status launchKernels(cu::Stream stream);
  Status snapshot(LaunchSnapshot *s) const;
  /// Polls `event` with the watchdog and the peer check (wait()'s body).
  Status waitFor(cu::Event event);
  Status failWith(const Status &status, const LaunchSnapshot *s);
  /// Whether the destructor must leave the arenas and the abort flag
  /// allocated (a deliberate leak): a kernel may still write them, since a
  /// launch never ended after its abort (launchNeverEnded_) or, this launch
  /// of some ranks having failed, a peer process's kernel may.
  bool keepsMemoryInUse() const;
  /// The deliberate leak of a peer's host arena whose unpinning failed:
  /// the driver may still use the pages, and a later buffer mapped at the
  /// same address could not be pinned, so the mapping is never unmapped.
  static void
  leakPinnedMapping(std::shared_ptr<const transport::PeerHostBuffer> mapping);

  const CudaDriver *d_ = nullptr;
  cu::Context context_ = nullptr;
  uint64_t resident_ = 0;
  CudaOptions options_;
  LaunchLayout layout_;
  cu::Function kernel_ = nullptr;
  std::string kernelName_;
  unsigned threads_ = 0;
  int registers_ = 0;
  std::string residency_;
  cu::DevicePtr arena_ = 0;
  /// The bytes allocated at arena_: the layout's launchBytes rounded up to
  /// whole host pages (with GPUDirect to 2 MiB, the GPU's large page), as
  /// a dma-buf export of the allocation needs.
  uint64_t arenaBytes_ = 0;
  /// Arena addresses by rank (0: not reachable); the peers' IPC mappings.
  std::vector<uint64_t> arenas_;
  std::vector<cu::DevicePtr> opened_;
  bool connected_ = false;
  std::function<Status()> peerCheck_;
  volatile int32_t *abortHost_ = nullptr;
  cu::DevicePtr abortDevice_ = 0;
  std::vector<cu::DevicePtr> inputs_, outputs_;
  bool haveBuffers_ = false;
  cu::Function divide_ = nullptr;
  std::unique_ptr<CudaModule> runtimeKernels_;
  cu::Graph graph_ = nullptr;
  cu::GraphExec graphExec_ = nullptr;
  cu::Event done_ = nullptr;
  /// throttle()'s events, each with the launches enqueued before it.
  struct Mark {
    cu::Event event;
    uint64_t launches;
  };
  std::deque<Mark> marks_;
  std::vector<cu::Event> spareMarks_;
  /// Launches finished and checked, and enqueued since.
  uint64_t launchesDone_ = 0, launchesPending_ = 0;
  bool failed_ = false;
  Status failure_;
  /// A launch did not end 10 s after its abortFlag was raised (the GPU
  /// ignored it): its kernel may still use this launch's memory.
  bool launchNeverEnded_ = false;
  /// By rank: this launch's host arenas (host buffers, pinned), and the
  /// host arena addresses as the devices see them (this launch's and the
  /// peers' with host-memory connections: of this process directly, of
  /// another process mapped from its memfd and pinned here).
  std::vector<char *> hostArenaHost_;
  std::vector<uint64_t> hostArenas_;
  std::vector<std::shared_ptr<const transport::PeerHostBuffer>> peerHostArenas_;
  std::unique_ptr<DeviceProxy> proxy_;
};

/// GPUDirect RDMA through dma-buf (the CUDA executor's DmaBufExporter,
/// DeviceProxy.h): exports device `ordinal`'s allocation [base, base +
/// allocated), which holds [data, data + bytes), as a dma-buf with
/// cuMemGetHandleForAddressRange (the whole allocation from its base, as
/// NCCL exports a registered buffer's), *offset = data - base. Unsupported,
/// saying why, where the driver lacks the entry point (before CUDA 11.7 /
/// driver 515), the device says CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is
/// 0, the allocation is not whole host pages, or the driver answers
/// CUDA_ERROR_NOT_SUPPORTED; other failures are errors.
Status exportDmaBuf(int ordinal, cu::DevicePtr base, uint64_t allocated,
                    void *data, size_t bytes, int *fd, uint64_t *offset);

/// Launches of one collective in this process (createInProcess: one per
/// device, each created with CudaOptions::ranks = its ranks and ::device):
/// builds the table of their arenas (addresses used directly), connects
/// each launch (peer access between the devices of every pair of ranks
/// that exchange messages; a pair that cannot is an error naming both
/// ranks and devices), and links their aborts: each launch's wait() polls
/// the others' abortFlags (its peer check), so that a block error or a
/// watchdog timeout in one stops every other launch instead of leaving it
/// spinning until its own watchdog. A single launch of every rank needs
/// nothing and gets nothing.
Status linkLaunches(const std::vector<CudaCollective *> &launches);

/// The bytes a run of `layout` reads and writes in memory, over the ranks
/// it launches (every rank of a one-GPU launch):
/// per instruction its local operands, the slots it writes and reads (a
/// message is written once and read once), every chunk's slices.
double memoryTraffic(const LaunchLayout &layout);

} // namespace dev
} // namespace collrt

#endif

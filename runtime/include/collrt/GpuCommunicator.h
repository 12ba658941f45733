//===- GpuCommunicator.h - libcollrt's public GPU interface -----*- C++ -*-===//
//
// The CUDA counterpart of collrt.h's Communicator: a program that holds the
// plan collc wrote and the kernels of `collc --emit=fatbin` runs the plan's
// collectives on its own device buffers, on its own streams:
//
//   collrt::GpuOptions options;
//   options.kernelFile = "allreduce.fatbin";
//   std::unique_ptr<collrt::GpuCommunicator> comm;
//   // The plan's N ranks on GPU 0 of this process (or options.devices):
//   if (auto s = collrt::GpuCommunicator::createInProcess(plan, options,
//                                                         &comm); !s.ok())
//     die(s.toString());
//   // send[r], recv[r]: rank r's device buffers; one stream per launch.
//   s = comm->run(0, send, recv, count, collrt::DataType::F32,
//                 collrt::ReduceOp::Sum, {stream});
//   s = comm->wait();  // the watchdog: Timeout naming what every block waits
//   for
//
// One rank per process (createForRank) takes the launcher's Bootstrap
// (Bootstrap.h): the processes exchange their arenas (CUDA IPC on a host,
// a device proxy over tcp or ib between hosts) when a collective is first
// prepared. The layout of a collective depends on its element count: each
// (collective, count) is prepared once (prepare(), or the first run() with
// it) and stays until another one is prepared or release() is called.
//
// The driver is dlopen()ed: without a GPU every call returns Unsupported
// with the reason. Every failure is a Status whose message names the
// launch, rank and call concerned; after a failed run the communicator
// cannot run again.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_GPUCOMMUNICATOR_H
#define COLLRT_GPUCOMMUNICATOR_H

#include "collrt/Bootstrap.h"
#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "collrt/Transport.h"
#include "collrt/Types.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace collrt {

/// A CUDA stream (CUstream) of the caller's.
using GpuStream = void *;

struct GpuOptions {
  /// The kernels: what `collc --emit=fatbin` (or nvcc) wrote (fatbin,
  /// cubin or PTX), loaded once per device.
  std::string kernelFile;
  /// The kernel's name; empty: collective i's kernel by collc's naming,
  /// the one named "<kernelPrefix>_k<i>_...".
  std::string kernel;
  std::string kernelPrefix = "collc";
  /// createInProcess: the CUDA device of each launch (repeats allowed);
  /// rank r runs in launch r % devices.size(). Empty: one launch of every
  /// rank on `device`.
  std::vector<int32_t> devices;
  /// createForRank: this process's CUDA device (createInProcess: the
  /// device when `devices` is empty).
  int32_t device = 0;
  /// The watchdog: a launch that takes longer is aborted and reported
  /// with what every block was waiting for.
  double timeoutSeconds = 60;
  /// The largest message (CommOptions::slotBytes).
  size_t slotBytes = 1 << 20;
  /// Threads per block; 0: the kernel's maximum.
  uint32_t blockThreads = 0;
  /// The LL protocol for messages of at most this many bytes; 0 never.
  uint32_t llBytes = 16384;
  /// Launch as a captured CUDA graph: 1 yes, 0 no, -1 when a rank's input
  /// is at most graphBelowBytes (captured again when the buffers change).
  int graph = -1;
  size_t graphBelowBytes = 1 << 20;
  /// false: every pair of ranks of one host that exchange messages does so
  /// through pinned host memory, never peer access or CUDA IPC.
  bool peerToPeer = true;
  /// A topology file whose GPU-to-GPU paths decide which pairs of devices
  /// exchange messages through host memory; "": the driver's peer access
  /// decides. `hostLinks`, when given, wins.
  std::string topologyFile;
  /// Pairs of group ranks whose connections go through pinned host memory.
  std::vector<std::pair<int32_t, int32_t>> hostLinks;
  /// createForRank with ranks on several hosts (the bootstrap's host
  /// names): the network, "tcp" or "ib" ("" refuses, naming the ranks);
  /// tcp's interface, ib's port choice (as the CPU transports take them).
  std::string network;
  std::string netInterface;
  IbTransportOptions ib;
  /// GPUDirect RDMA over ib: the network slots in device memory, and how
  /// the GPU memory is registered with the NIC ("auto", "dma-buf",
  /// "peermem").
  bool gpuDirect = false;
  std::string gpuMemoryRegistration = "auto";
  /// How the device proxies of network connections wait: "sleep" or
  /// "launch".
  std::string proxyPolling = "sleep";
};

/// What a prepared collective runs as (GpuCommunicator::launchInfo).
struct GpuLaunchInfo {
  /// The kernel's name.
  std::string kernel;
  /// Ranks this communicator runs (createForRank: 1, or 0 for a process
  /// outside the collective); launches (one per device entry).
  int32_t ranks = 0;
  int32_t launches = 0;
  /// Blocks over every launch, threads per block.
  unsigned blocks = 0, threads = 0;
  int64_t tiles = 0, tileElements = 0;
  /// Whether any message uses the LL protocol; whether runs are graphs.
  bool ll = false;
  bool graph = false;
  /// The bytes a run reads and writes in memory over this communicator's
  /// ranks (docs/gpu-runtime.md, the traffic model).
  double memoryBytes = 0;
  /// How each pair of devices is linked, a line each; empty with one.
  std::vector<std::string> links;
  /// createForRank across hosts: the network and its device; "" else.
  std::string network;
};

class GpuCommunicator {
public:
  virtual ~GpuCommunicator() = default;

  /// The plan's ranks as blocks of this process: every rank of a group on
  /// the devices of options.devices (rank r on devices[r % G], one launch
  /// per entry, each on its own primary context), linked so that a failure
  /// of one launch stops the others. InvalidArgument for more devices than
  /// ranks (at the first prepare), Unsupported without a GPU.
  static Status createInProcess(const Plan &plan, const GpuOptions &options,
                                std::unique_ptr<GpuCommunicator> *comm);

  /// One rank per process: this process is world rank bootstrap.rank()
  /// and runs its group rank's blocks on options.device. Every process of
  /// the world creates one with the same plan and options; prepare, run
  /// and release are collective. A failure is announced through
  /// `bootstrap` (which must outlive the communicator), so that the peers
  /// stop instead of waiting for their watchdogs.
  static Status createForRank(const Plan &plan, const GpuOptions &options,
                              Bootstrap &bootstrap,
                              std::unique_ptr<GpuCommunicator> *comm);

  /// Lays out collective `index` for `count` input elements per rank,
  /// loads its kernel, checks that every block can be resident at once,
  /// and connects the launches (createForRank: exchanges the arenas with
  /// the peers' processes). Releases the collective prepared before when
  /// it differs. run() prepares by itself; call it to allocate buffers
  /// after the communicator's own memory or to see launchInfo() first.
  virtual Status prepare(size_t index, int64_t count) = 0;

  /// The prepared collective (prepare first): the launches, and for each
  /// rank this communicator runs its launch, CUDA device and buffer sizes.
  virtual const GpuLaunchInfo &launchInfo() const = 0;
  virtual size_t launchCount() const = 0;
  /// CUDA device of launch `launch`.
  virtual int32_t launchDevice(size_t launch) const = 0;
  /// "8 ranks on CUDA device 0", "rank 1 of 2 on CUDA device 1".
  virtual std::string launchName(size_t launch) const = 0;
  /// The layout's name ("ring all_reduce, collective 0, ...").
  virtual std::string collectiveName() const = 0;
  /// The group ranks this communicator runs.
  virtual std::vector<int32_t> ranks() const = 0;
  /// The launch that runs group rank `rank` (-1: none here).
  virtual int32_t launchOf(int32_t rank) const = 0;
  /// Elements of rank `rank`'s send and receive buffers.
  virtual int64_t inputElements(int32_t rank) const = 0;
  virtual int64_t outputElements(int32_t rank) const = 0;
  /// Makes the CUDA context of launch `launch` current on this thread (for
  /// the caller's allocations and copies on its device).
  virtual Status makeCurrent(size_t launch) const = 0;

  /// Enqueues collective `index` on the caller's device buffers: by group
  /// rank, `sendbufs[r]` holds `count` elements (never written) and
  /// `recvbufs[r]` outputElements(r), on launch r's device (entries of
  /// ranks that run elsewhere are ignored); `streams` one per launch.
  /// `dtype` and `op` must be the plan's (PlanMismatch). `sendCounts`: an
  /// all_to_all_v whose plan leaves its counts to run time is Unsupported
  /// on the GPU, other collectives take nullptr. Every launch is enqueued
  /// before any is waited for; at most a bounded number of runs are in
  /// flight (a long series waits for the oldest). Buffers may change from
  /// run to run.
  virtual Status run(size_t index, const std::vector<const void *> &sendbufs,
                     const std::vector<void *> &recvbufs, int64_t count,
                     DataType dtype, ReduceOp op,
                     const std::vector<GpuStream> &streams,
                     const int64_t *sendCounts = nullptr) = 0;

  /// Waits until every run enqueued has finished, at most
  /// options.timeoutSeconds; then aborts and returns Timeout with every
  /// block's state (a block's error: PlanMismatch), and checks every
  /// connection's message count against the program.
  virtual Status wait() = 0;

  /// Stops the runs in flight (their blocks give up at the next poll) and,
  /// for createForRank, tells the peers `reason`. The communicator cannot
  /// run again.
  virtual void abort(const std::string &reason) = 0;

  /// Releases the prepared collective (createForRank: collective, after a
  /// barrier, so that no peer's kernel still writes into this process's
  /// arena, and with the network's goodbyes). The destructor releases too,
  /// without the barrier.
  virtual Status release() = 0;
};

} // namespace collrt

#endif

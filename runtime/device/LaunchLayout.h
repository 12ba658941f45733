//===- LaunchLayout.h - one launch of a collective's blocks -----*- C++ -*-===//
//
// What the emulator (Emulator.h) and the CUDA executor (CudaExecutor.h)
// compute alike before a kernel runs ranks of a collective: every rank's
// chunks and tiles (the CPU executor's RunLayout, docs/runtime.md), the
// connections (one per (sender, receiver, channel) the program uses), and
// one ARENA PER RANK: a control part built on the host as an image
// (offsets, the rank's DeviceConnection tables, progress, the watchdog's
// words, the connection words it owns) and a data part (the slots and LL
// areas of the connections it receives on, scratch, staging, a private
// input copy) that starts zeroed. A connection's slots, sizes, head and
// receive counter live in the receiver's arena, its tail and send counter
// in the sender's: each side polls its own memory and writes the other's.
//
// A launch runs the blocks of some ranks (DeviceOptions::ranks; all of
// them by default): its allocation holds a header (the RankContexts indexed
// by rank, the grid's block arrays) and the arenas of its ranks. N ranks on
// one GPU are one launch of every rank; one process per rank is N launches
// of one rank each, whose arenas reach each other through a table of arena
// addresses (by rank) that the processes exchange (CUDA IPC, ArenaEntry).
// The layout is the same either way: only where the arenas are differs.
//
#ifndef COLLRT_DEVICE_LAUNCHLAYOUT_H
#define COLLRT_DEVICE_LAUNCHLAYOUT_H

#include "collrt/Plan.h"
#include "collrt/Status.h"
#include "runtime/exec/RunLayout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {
namespace dev {

/// How GPUDirect RDMA registers the GPU memory that holds network slots
/// with the NIC (DeviceOptions::gpuMemoryRegistration; DeviceProxy.h):
/// - DmaBuf: the driver exports the memory as a dma-buf
///   (cuMemGetHandleForAddressRange) and the NIC registers that
///   (ibv_reg_dmabuf_mr), as NCCL does where it can; needs CUDA 11.7
///   (driver 515) or newer, a device that supports it, rdma-core 34 and a
///   kernel whose NIC driver imports dma-bufs.
/// - PeerMem: the NIC registers the GPU address directly (ibv_reg_mr),
///   which works only with the nvidia-peermem kernel module loaded.
/// - Auto: dma-buf where the driver, the device and the NIC library
///   support it, else nvidia-peermem; the proxy says which and why.
enum class GpuMemoryRegistration { Auto, DmaBuf, PeerMem };

/// "auto", "dma-buf", "peermem" (collc-run's --gpu-memory-registration).
const char *gpuMemoryRegistrationName(GpuMemoryRegistration registration);
/// The same names back; false for anything else.
bool parseGpuMemoryRegistration(const std::string &name,
                                GpuMemoryRegistration *registration);

/// How a device proxy waits for the kernels' messages
/// (DeviceOptions::proxyPolling; DeviceProxy::launched()):
/// - Sleep: spin, yield, then sleep 1, 2, 4, ... up to 100 us between polls
///   while nothing moves (exec::Backoff), whether or not a launch is due:
///   the first message after an idle spell waits up to 100 us on each
///   side.
/// - Launch: the same while no launch is due; each launch (the executor's
///   enqueue) wakes the proxy at once, and while the messages of the
///   launches so far have not all moved it polls every 10 us (for at most
///   1 s without progress), as NCCL's proxy polls while it has work.
///   Measured so far only on a 2-core VM, where it was no faster and
///   often slower (bench/proxy/RESULTS.md), so Sleep
///   stays the default until a GPU host has been measured (bench/gpu/run.sh
///   runs collc-bench-proxy).
enum class ProxyPolling { Sleep, Launch };

/// "sleep", "launch" (collc-run's --proxy-polling).
const char *proxyPollingName(ProxyPolling polling);
/// The same names back; false for anything else.
bool parseProxyPolling(const std::string &name, ProxyPolling *polling);

struct DeviceOptions {
  /// The largest message (CommOptions::slotBytes): chunks are cut into
  /// tiles that fit, with the CPU executor's formula.
  size_t slotBytes = 1 << 20;
  /// Slots per connection; 0: the plan's connectionSlots. Fewer than the
  /// plan's is an error (the schedule was verified with that many).
  uint32_t slots = 0;
  /// The LL protocol for messages of c chunks when c * min(T, largest
  /// chunk) * element size <= llBytes; 0 never uses it.
  uint32_t llBytes = 16384;
  /// Round the tile T down to a multiple of 16 bytes (when T holds 16
  /// bytes or more), so that tiles of aligned chunks stay aligned for
  /// 16-byte vector loads. Off: exactly the CPU executor's T.
  bool alignTiles = false;
  /// The watchdog: a launch that takes longer is aborted and reported.
  double timeoutSeconds = 60;
  /// Network connections (`hosts`): the proxies must have connected to
  /// their peers' within this many seconds, else the launch stops with an
  /// error naming the connections that are not up.
  double connectSeconds = 30;
  /// The emulator only: host threads per block (a GPU block's threads
  /// cooperate the same way: strided loops, barriers, one thread waiting).
  uint32_t emulatedThreads = 1;
  /// The ranks whose blocks this launch runs (a process's share of the
  /// collective, docs/gpu-runtime.md "One process per rank"); empty: every
  /// rank.
  std::vector<int32_t> ranks;
  /// The host of each rank, by rank (any numbers, equal for ranks on one
  /// host); empty: every rank on one host. A connection between ranks on
  /// different hosts is a NETWORK connection (docs/gpu-runtime.md, "Across
  /// hosts"): each side's half lives in its rank's host arena, a proxy
  /// thread moves its messages over a Net (DeviceProxy.h), and it uses the
  /// simple protocol only.
  std::vector<int32_t> hosts;
  /// Pairs of ranks (either order) of one host whose connections go
  /// through pinned host memory both GPUs map (docs/gpu-runtime.md,
  /// "Links"): the slots, sizes and head in the receiver's host arena, the
  /// tail in the sender's; for GPUs without a peer-to-peer path (the
  /// topology's path between them crosses a CPU, or the driver denies peer
  /// access). Every other pair of one host: load/store through mapped GPU
  /// memory.
  std::vector<std::pair<int32_t, int32_t>> hostLinks;
  /// GPUDirect RDMA: the slots of network connections in device memory
  /// (the NIC reads and writes the GPU's memory), their words still in
  /// the host arenas. Needs a Net that registers GPU memory (ib).
  bool gpuDirect = false;
  /// With gpuDirect: how the GPU memory is registered with the NIC.
  GpuMemoryRegistration gpuMemoryRegistration = GpuMemoryRegistration::Auto;
  /// How the device proxies of network connections wait (ProxyPolling).
  ProxyPolling proxyPolling = ProxyPolling::Sleep;
};

/// What a process publishes about one rank's arena so that the processes
/// of its peers can reach it (docs/gpu-runtime.md, "One process per rank").
struct ArenaEntry {
  int32_t rank = -1; ///< group rank
  /// LaunchLayout::key() of the exporter: peers must have computed the
  /// same layout (plan, count, options) to agree on every offset.
  uint64_t layoutKey = 0;
  uint64_t arenaBytes = 0;
  /// The exporter: process id, host name, CUDA device ordinal (as that
  /// process numbers its devices; -1 in the emulator).
  int64_t process = 0;
  std::string host;
  int32_t device = -1;
  /// The arena in the exporter's address space (used directly by ranks of
  /// the same process), and its offset in the exported allocation.
  uint64_t address = 0, offset = 0;
  /// The allocation's CUDA IPC handle (cuIpcGetMemHandle; zero in the
  /// emulator).
  uint8_t handle[64] = {};
  /// The rank's host arena as the devices address it (pinned host memory
  /// mapped for every device of the process), 0 when it has none: peers of
  /// the same process reach host-memory connections through it.
  uint64_t hostAddress = 0;
  /// The host arena as a host buffer of the exporting process
  /// (collrt::allocateHostBuffer's key: HostBuffers.h), which peers of
  /// other processes map; 0 when it has none.
  uint64_t hostKey = 0;
  /// Where the exporter's proxy listens for network connections (a Net
  /// listen handle, DeviceProxy.h); empty when the rank has none.
  std::string netHandle;
};

/// A string for the bootstrap's all-gather, and back (`from`: the rank
/// whose string it is, for the error).
std::string encodeArenaEntry(const ArenaEntry &entry);
Status decodeArenaEntry(const std::string &text, int32_t from,
                        ArenaEntry *entry);

/// Ranks of one process on several devices (docs/gpu-runtime.md, "Several
/// GPUs in one process"), dealt round-robin to `launches` launches (one per
/// device): launch g runs ranks g, g + launches, g + 2 launches, ... (so that
/// a ring's neighbours are on different devices). Empty when launches < 1.
std::vector<std::vector<int32_t>> dealRanks(int32_t nranks, int32_t launches);

class LaunchLayout {
public:
  /// Lays out collective `index` (`collective` is entry `index` of its
  /// plan) on its N = program.numRanks group ranks, `count` input elements
  /// per rank (all_to_all_v: ignored, the send counts fix the sizes); the
  /// launch runs options.ranks (every rank when empty).
  static Status create(const PlanCollective &collective, size_t index,
                       int64_t count, const DeviceOptions &options,
                       LaunchLayout *layout);

  struct Connection {
    int32_t from = 0, to = 0;
    uint32_t channel = 0;
    uint64_t messagesPerTile = 0; ///< sends of `from` on it per tile
    // Offsets in the receiver's (`to`) arena.
    uint64_t head = 0, recvCounter = 0, sizes = 0, buffers = 0, llBuffers = 0;
    // Offsets in the sender's (`from`) arena.
    uint64_t tail = 0, sendCounter = 0;
    /// A network connection (DeviceOptions::hosts): head, sizes and
    /// buffers are then offsets in the receiver's HOST arena and tail in
    /// the sender's, and each side has the other half of a connection in
    /// its own host arena: the sender's head, sizes and slots (sendHead,
    /// sendSizes, sendBuffers), the receiver's tail (recvTail). No LL.
    bool net = false;
    uint64_t sendHead = 0, sendSizes = 0, sendBuffers = 0, recvTail = 0;
    /// A network connection's slots (buffers, sendBuffers) are offsets in
    /// the device arenas (DeviceOptions::gpuDirect), not the host arenas.
    bool slotsOnDevice = false;
    /// A host-memory connection (DeviceOptions::hostLinks): head, sizes,
    /// buffers and llBuffers are offsets in the receiver's host arena, tail
    /// in the sender's; one connection, as in device memory.
    bool viaHost = false;
  };
  /// Offsets in the rank's own arena.
  struct RankArena {
    uint64_t offsets[3] = {0, 0, 0}, sendTo = 0, recvFrom = 0;
    uint64_t progress = 0, tileEpoch = 0, waitState = 0, scratchSlices = 0;
    uint64_t scratch = 0, staging = 0, inputCopy = 0;
    /// Control bytes [0, controlBytes) (the image), data bytes up to
    /// `bytes` (zeroed once).
    uint64_t controlBytes = 0, bytes = 0;
    /// The host arena (memory the proxy thread and the device both reach:
    /// pinned host memory mapped for the GPU; zeroed once): the halves of
    /// the rank's network connections. 0: the rank has none.
    uint64_t hostBytes = 0;
  };

  const std::string &name() const { return name_; }
  const PlanCollective &collective() const { return collective_; }
  const collc::sched::Program &program() const { return collective_.program; }
  int32_t nranks() const { return nranks_; }
  int32_t maxChannels() const { return maxChannels_; }
  size_t elementSize() const { return elementSize_; }
  int64_t tileElements() const { return tileElements_; }
  int64_t tiles() const { return tiles_; }
  int64_t largestSlice() const { return largestSlice_; }
  uint32_t slots() const { return slots_; }
  uint32_t slotCapacity() const { return slotCapacity_; }
  uint32_t llSlotBytes() const { return llSlotBytes_; }
  uint32_t llBytes() const { return llBytes_; }
  const exec::RunLayout &rank(int32_t r) const { return ranks_[size_t(r)]; }
  /// Whether rank r works on a private copy of its input (it writes it).
  bool copiesInput(int32_t r) const { return ranks_[size_t(r)].writesInput; }
  int64_t inputElements(int32_t r) const;
  int64_t outputElements(int32_t r) const;
  /// Whether rank r's output holds a reduction avg divides (Executor.cpp's
  /// rule).
  bool holdsReduction(int32_t r) const;

  /// The ranks this launch runs, in order, and whether it runs r.
  const std::vector<int32_t> &launched() const { return launched_; }
  bool launches(int32_t r) const { return arenaOffset_[size_t(r)] != 0; }
  bool launchesEveryRank() const {
    return int32_t(launched_.size()) == nranks_;
  }
  /// The ranks r sends to or receives from (whose entries it needs).
  const std::vector<int32_t> &peersOf(int32_t r) const {
    return peers_[size_t(r)];
  }
  /// Whether r and p are on different hosts (their connections are
  /// network connections; r needs p's proxy, not its arena).
  bool acrossHosts(int32_t r, int32_t p) const {
    return !hosts_.empty() && hosts_[size_t(r)] != hosts_[size_t(p)];
  }
  /// Whether any connection of a launched rank is a network connection.
  bool usesNet() const;
  /// Whether r and p's connections go through pinned host memory.
  bool viaHost(int32_t r, int32_t p) const;
  /// Whether a launched rank has a host arena (network or host-memory
  /// connections).
  bool usesHostArenas() const;

  /// The grid: block b runs rank blockRank[b], channel blockChannel[b]
  /// (the launched ranks' channels with instructions).
  const std::vector<int32_t> &blockRank() const { return blockRank_; }
  const std::vector<int32_t> &blockChannel() const { return blockChannel_; }
  const std::vector<Connection> &connections() const { return connections_; }
  /// Every rank's arena (whether launched here or not: peers agree on
  /// every offset).
  const RankArena &arena(int32_t r) const { return arenas_[size_t(r)]; }

  /// The launch's allocation: the header (contexts at 0, the block arrays)
  /// and each launched rank's arena at arenaOffset(r).
  uint64_t headerBytes() const { return headerBytes_; }
  uint64_t launchBytes() const { return launchBytes_; }
  uint64_t arenaOffset(int32_t r) const { return arenaOffset_[size_t(r)]; }
  uint64_t contextsOffset() const { return 0; }
  uint64_t blockRankOffset() const { return blockRankOffset_; }
  uint64_t blockChannelOffset() const { return blockChannelOffset_; }
  /// A hash of everything peers must agree on (sizes, tiles, slots, every
  /// offset of every arena).
  uint64_t key() const { return key_; }

  /// Arena addresses by rank for a launch allocation at `base`: the
  /// launched ranks' (base + arenaOffset), 0 for the others.
  std::vector<uint64_t> localArenas(uint64_t base) const;
  /// Checks a table of entries (by rank; rank -1: no entry) against this
  /// layout: every peer of a launched rank has an entry for its own rank,
  /// of this layout and its size. Errors name the rank, the peer and the
  /// rule broken.
  Status checkPeerTable(const std::vector<ArenaEntry> &table) const;

  /// The header: every launched rank's RankContext (arenas[r] its arena,
  /// rank r's input at inputs[r] (the caller's, or its private copy in its
  /// arena when copiesInput(r)) and output at outputs[r], abortFlag at
  /// `abortFlag`), the others zero, then the block arrays.
  std::vector<uint8_t> headerImage(const std::vector<uint64_t> &arenas,
                                   const std::vector<uint64_t> &inputs,
                                   const std::vector<uint64_t> &outputs,
                                   uint64_t abortFlag) const;
  /// Only the RankContexts (to point them at other buffers between
  /// launches): N * sizeof(RankContext) bytes at contextsOffset().
  std::vector<uint8_t> contextImage(const std::vector<uint64_t> &arenas,
                                    const std::vector<uint64_t> &inputs,
                                    const std::vector<uint64_t> &outputs,
                                    uint64_t abortFlag) const;
  /// Rank r's control part (arena(r).controlBytes bytes at its arena's
  /// start): its connections point into the arenas of its peers
  /// (arenas[peer]), its network and host-memory connections into the host
  /// arenas (hostArenas[rank], as the devices address them; empty: none);
  /// an error naming both ranks when one is missing. Counters, progress
  /// and the watchdog's words are zero.
  Status rankControlImage(int32_t r, const std::vector<uint64_t> &arenas,
                          std::vector<uint8_t> *image,
                          const std::vector<uint64_t> &hostArenas = {}) const;

private:
  // create()'s steps, in order.
  /// The collective as one group of N ranks, the slots, every rank's
  /// RunLayout (buffers, chunks, tiles as the CPU executor has them).
  Status layOutRanks(const PlanCollective &collective, size_t index,
                     int64_t count, const DeviceOptions &options);
  /// The tile (aligned for vector loads), the tile count, the slot and LL
  /// area sizes.
  Status sizeTilesAndSlots(int64_t count, const DeviceOptions &options);
  /// Which ranks this launch runs, their hosts, the host-memory links.
  Status placeRanks(const DeviceOptions &options);
  /// Every rank's connections (network, host-memory or device), its peers,
  /// the grid of the launched ranks' channels.
  void findConnections(const DeviceOptions &options);
  /// Rank r's arena: control words, then the slots it receives on,
  /// scratch, staging and the private input copy; its host arena.
  void layOutArena(size_t r);
  /// Rank r's host arena (network and host-memory connections): its bytes.
  uint64_t layOutHostArena(size_t r);
  /// The launch's allocation: the header, then the launched ranks' arenas.
  void layOutLaunch();
  /// The hash of everything peers must agree on (key()).
  uint64_t computeKey() const;

  std::string name_;
  PlanCollective collective_;
  int32_t nranks_ = 0, maxChannels_ = 0;
  size_t elementSize_ = 0;
  int64_t tileElements_ = 0, tiles_ = 1, largestSlice_ = 0;
  uint32_t slots_ = 0, slotCapacity_ = 0, llSlotBytes_ = 0, llBytes_ = 0;
  uint64_t stagingBytes_ = 0;
  std::vector<exec::RunLayout> ranks_;
  std::vector<int32_t> launched_;
  std::vector<std::vector<int32_t>> peers_;
  std::vector<int32_t> blockRank_, blockChannel_;
  std::vector<Connection> connections_;
  std::vector<RankArena> arenas_;
  std::vector<int32_t> hosts_;
  /// By rank pair (r * N + p): connections through host memory.
  std::vector<uint8_t> viaHost_;
  std::vector<uint64_t> arenaOffset_;
  uint64_t headerBytes_ = 0, launchBytes_ = 0;
  uint64_t blockRankOffset_ = 0, blockChannelOffset_ = 0;
  uint64_t key_ = 0;
};

} // namespace dev
} // namespace collrt

#endif

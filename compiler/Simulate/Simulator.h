//===- Simulator.h - contention-aware timing of a schedule ------*- C++ -*-===//
//
// Runs an expanded schedule (common/Program/Program.h) on a topology
// in simulated time: every transfer is a flow over the links of its route,
// concurrent flows share each link max-min fairly, every instruction pays a
// fixed cost, reductions and copies pay GPU memory time. Gives the predicted
// time, per-rank finish times, per-link load and a per-instruction timeline.
// Plain C++17, no MLIR; the model is documented in docs/simulator.md.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_SIMULATOR_H
#define COLLC_COMPILER_SIMULATE_SIMULATOR_H

#include "common/Program/Program.h"
#include "common/Topology/Topology.h"
#include "compiler/Routing/RouteMemo.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collc::sim {

/// Replaces the figures of every link of one link type (a key of the
/// topology's "link_types").
struct LinkTypeOverride {
  std::string linkType;
  /// Bytes per second per direction of one lane; links of the type are
  /// scaled by override / file figure, so bundled lanes and oversubscribed
  /// uplinks keep their proportions.
  std::optional<double> bandwidth;
  /// Seconds per link.
  std::optional<double> latency;
};

/// The knobs of the timing model.
struct SimOptions {
  /// Seconds every instruction pays before its data moves: one
  /// synchronization round of a channel's thread block (wait for a flag,
  /// fence, post a flag). Default 1 us. NCCL's tuning constants
  /// (src/graph/tuning.cc, hwLat) charge a ring step over NVLink 0.6 us with
  /// the LL protocol, 1.9 us with LL128 and 3.4 us with Simple; the bundled
  /// topologies already charge the LL figure as link latency, so 1 us puts a
  /// step between LL128 and Simple.
  double fixedCost = 1e-6;
  /// Sends a connection (sender, receiver, channel) holds before a further
  /// send blocks until the receiver has consumed one. Default 8, NCCL's
  /// NCCL_STEPS; must be at least 1 (as in sched-verify).
  uint32_t connectionSlots = 8;
  /// Fraction of a link's bandwidth a transfer can use, for the protocol's
  /// overhead: 1.0 (default) for NCCL's Simple protocol, about 0.5 for LL
  /// (8-byte flag per 8-byte payload) and 120/128 for LL128. In (0, 1].
  double protocolEfficiency = 1.0;
  /// Bytes per second one channel (a thread block) reads and writes: its
  /// sends' network transfers and its instructions' memory work share it
  /// (a copy of B bytes is 2B of it; a send, B read and B sent). Unset
  /// (default): each rank's GPU model's channel_bandwidth_GBps, and no cap
  /// where the topology gives none; 0: no cap, one channel fills any link
  /// alone; > 0: this cap on every channel. A plain vectorized copy kernel
  /// moves 0.6 TB/s with 16 thread blocks on an H200 (issue 6), 37.5 GB/s
  /// per block; the design's runtime target is 28 GB/s of payload (56 of
  /// traffic) per block, so that 16 fill an H100's 450 GB/s of NVLink.
  std::optional<double> channelBandwidth;
  /// Whether copies and reductions (and the reads of a send, the writes of a
  /// recv) cost GPU memory time: bytes read plus bytes written over the
  /// GPU's memory bandwidth, shared by all channels of the GPU. Default yes.
  bool chargeMemory = true;
  /// Per link type replacements of bandwidth and latency.
  std::vector<LinkTypeOverride> linkOverrides;
  /// Routes remembered across simulations on the same topology (see
  /// compiler/Routing/RouteMemo.h): selection, the report and the
  /// baselines share one, so each source's routes are computed once. Null
  /// (default): every simulation routes afresh. A memo of another topology
  /// is ignored.
  std::shared_ptr<RouteMemo> routes;
  /// Whether to keep one TimelineRecord per instruction. Turn off for big
  /// runs that need only the totals.
  bool recordTimeline = true;
  /// Whether to keep the load of every link over time (LinkLoadSample),
  /// which the Chrome trace shows as counters.
  bool recordLinkLoad = true;
};

/// What one instruction did, in simulated seconds. 48 bytes.
struct TimelineRecord {
  double start = 0;  ///< when its dependencies, data and slot were ready
  double end = 0;    ///< when it completed (a send: its data delivered)
  int64_t bytes = 0; ///< payload: its src range (dst for recv), in bytes
  int32_t rank = 0;
  uint32_t instruction = 0; ///< index in the channel stream
  int32_t step = 0;
  int32_t sendPeer = -1;
  int32_t recvPeer = -1;
  uint16_t channel = 0;
  sched::Opcode opcode = sched::Opcode::Send;
};

/// A change of the load of a link: from `time` on, the flows on `link`
/// together move `bytesPerSecond`, until the next sample of that link.
struct LinkLoadSample {
  double time = 0;
  topo::LinkId link = 0;
  double bytesPerSecond = 0;
};

/// The outcome of simulate.
struct SimResult {
  /// Empty on success; otherwise why nothing (or not everything) ran: an
  /// invalid argument, a malformed program, or a program that got stuck.
  std::string error;
  bool ok() const { return error.empty(); }

  /// Seconds from the start to the end of the last instruction.
  double totalTime = 0;
  /// Per group rank: when its last instruction ended.
  std::vector<double> rankFinish;
  /// Per topology link (LinkId): bytes carried.
  std::vector<double> linkBytes;
  /// Per topology link: linkBytes / (bandwidth * totalTime), with the
  /// bandwidth the simulation used (after overrides and protocolEfficiency),
  /// so a link saturated throughout reads 1.
  std::vector<double> linkUtilization;
  /// Per topology link: the bandwidth the simulation used, bytes/s.
  std::vector<double> linkBandwidth;
  /// Per topology link: "node0/gpu0->node0/nvswitch". Filled with the link
  /// load (SimOptions::recordLinkLoad).
  std::vector<std::string> linkNames;
  /// Per group rank: bytes its GPU memory read and wrote.
  std::vector<double> memoryBytes;

  /// One record per instruction, in instruction order (rank, then channel,
  /// then index); empty without SimOptions::recordTimeline. Instructions
  /// that never ran (the program got stuck) have start = end = -1.
  std::vector<TimelineRecord> timeline;
  /// Link loads over time, by time; empty without
  /// SimOptions::recordLinkLoad.
  std::vector<LinkLoadSample> linkLoad;

  /// Work done: instructions run, sends delivered (the flows of sends to
  /// another GPU count, those within one GPU too), batches of simultaneous
  /// events, and max-min rate computations (flows whose rates were set).
  uint64_t instructions = 0;
  uint64_t transfers = 0;
  uint64_t batches = 0;
  uint64_t rateComputations = 0;
};

/// What one channel of topology rank `gpu` may move per second under
/// `options` (SimOptions::channelBandwidth, else the GPU model's
/// channel_bandwidth_GBps); 0: not capped.
double channelCap(const topo::Topology &topology, int gpu,
                  const SimOptions &options);

/// Whether a channel of one of the topology ranks `gpus` is capped.
bool anyChannelCapped(const topo::Topology &topology,
                      const std::vector<int> &gpus, const SimOptions &options);

/// A lower bound on `simulate`'s total time from the channel caps alone:
/// the most bytes one capped channel reads, writes and sends, over its cap
/// (every such byte passes its channel's resource). 0 when no channel is
/// capped, or when `simulate` would reject the arguments.
double channelTimeBound(const sched::Program &program, int64_t inputElements,
                        unsigned elementBytes, const topo::Topology &topology,
                        const std::vector<int> &gpuOfRank,
                        const SimOptions &options);

/// Simulates `program` for a message of `inputElements` elements of
/// `elementBytes` bytes per rank (the size of each rank's input buffer).
/// Group rank r runs on the GPU of topology rank `gpuOfRank[r]`; several
/// group ranks may share a GPU. The program should have passed
/// sched-verify: the simulator checks only what it needs not to crash
/// (ranges, peers, dependencies) and reports a program that gets stuck, but
/// not wrong data.
SimResult simulate(const sched::Program &program, int64_t inputElements,
                   unsigned elementBytes, const topo::Topology &topology,
                   const std::vector<int> &gpuOfRank,
                   const SimOptions &options = SimOptions());

} // namespace collc::sim

#endif // COLLC_COMPILER_SIMULATE_SIMULATOR_H

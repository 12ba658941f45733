//===- AllToAllFlows.h - all_to_all over several paths per pair -*- C++ -*-===//
//
// Synthesis for all_to_all (and a static all_to_all_v, its parts sized by
// the send counts): every rank s sends part d of its input to every rank d, and
// a pair's part may go directly (the runtime's route from s to d) or through
// one relay GPU v (s -> v, v -> d, each the runtime's route; v receives the
// piece and forwards it, explicitly, as NCCL's PXN does). The share of each
// path minimizes the most loaded link (a multi-commodity flow over these paths,
// an LP solved by COIN-OR CLP):
//
//     min T  s.t.  sum_p f(s,d,p) = 1                 for every pair (s, d)
//                  sum f(s,d,p) n_p(l) <= T c(l)       for every link l
//
// so that parts of P bytes take at least P T on the most loaded link. The
// shares are rounded to units of the part (AllToAllFlows::units), and the
// schedule (allToAllScheduleText) sends every unit as one message: first
// hops in unit order, a relay forwarding unit i after it received it, in
// the order (unit, hop) on every connection (deadlock-free: the smallest
// unfinished key can always run).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_ALLTOALLFLOWS_H
#define COLLC_LOWERING_SYNTHESIS_ALLTOALLFLOWS_H

#include "common/Topology/Topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collc {
class RouteMemo;
namespace synth {

struct FlowPath {
  int32_t relay = -1; ///< -1: the direct route
  double share = 0;   ///< of the pair's part
  int units = 0;      ///< of AllToAllFlows::units
};

struct AllToAllFlows {
  int32_t ranks = 0;
  /// Units a part is split into (the schedule's chunk unit).
  int units = 0;
  /// [s * ranks + d]: the paths with a share, direct first.
  std::vector<std::vector<FlowPath>> paths;
  /// The LP's optimum: a part of P bytes needs P / partRate seconds on the
  /// most loaded link; and the same with every part on its direct route.
  double partRate = 0, directPartRate = 0;
  /// No schedule over the runtime's routes, with any relays, moves a part
  /// faster (a multi-commodity flow's optimum; 0 where it did not solve).
  double boundPartRate = 0;
  /// all_to_all_v: the largest send count, the part whose bytes the rates
  /// move (0 for all_to_all: every part).
  int64_t largest = 0;
  /// The links the optimum fills, by device names ("a -> b").
  std::string busiest;
  /// scatter and gather (planScatterGather): the root, whose pairs with
  /// the others are the only ones that move data; -1 for all_to_all(_v).
  int32_t root = -1;
  /// What moves: "all_to_all", "scatter" or "gather".
  std::string collective = "all_to_all";
};

/// The most ranks an all_to_all is synthesized for: its schedule gives
/// every ordered pair a channel of its own at both ends, 2 (n - 1) of them
/// for an even n (2 n for an odd one), plus the own part's copy, within 32.
constexpr int32_t kMaxAllToAllRanks = 16;
/// scatter and gather move only the root's parts: above 16 ranks their
/// connections share kSharedFlowChannels channels (connection (a, b) on
/// channel (a + b) mod kSharedFlowChannels, every stream in the global
/// order of its transfers), up to this many ranks.
constexpr int32_t kMaxRootedFlowRanks = 128;
constexpr int kSharedFlowChannels = 24;
/// Units a part of `synthesized_flows_coarse` is split into.
constexpr int kCoarseFlowUnits = 2;

/// Plans the flows over `gpus` (group rank -> GPU of `topology`) with the
/// routes of `routes`, shares rounded to `units` per part. False with
/// `error` set when the group is too small, too large, has duplicates, a
/// pair has no route, or the LP fails.
/// `demand`: all_to_all_v's n*n send counts, row-major by sender (empty:
/// all_to_all, every part the same); rates are then those of the largest
/// part (AllToAllFlows::largest).
bool planAllToAll(const topo::Topology &topology, RouteMemo &routes,
                  const std::vector<topo::DeviceId> &gpus, int units,
                  const std::vector<int64_t> &demand, AllToAllFlows *flows,
                  std::string *error);

/// scatter (`gather` false) or gather from / to `root` as flows: the
/// pairs (root, d) for scatter, (s, root) for gather, each a part of the
/// root's buffer, direct or through one relay GPU, planned as an
/// all_to_all_v whose only non-empty parts are those.
bool planScatterGather(const topo::Topology &topology, RouteMemo &routes,
                       const std::vector<topo::DeviceId> &gpus, int units,
                       int32_t root, bool gather, AllToAllFlows *flows,
                       std::string *error);

/// The same flows with every pair's shares rounded to `units` instead
/// (fewer, larger messages; a relay forwards a larger piece at once).
AllToAllFlows coarser(const AllToAllFlows &flows, int units);

/// The plan as text: the optimum against the direct routes', then every
/// pair's relayed shares.
std::string describeFlows(const AllToAllFlows &flows);

/// The channels a rank of the schedule uses.
int allToAllChannels(int32_t ranks);
/// Whether a schedule of `ranks` shares channels between connections.
inline bool sharedFlowChannels(int32_t ranks) {
  return ranks > kMaxAllToAllRanks;
}

/// The explicit sched.schedule of `flows`.
/// `collective`: "all_to_all" or "all_to_all_v" (the same program; the
/// parts' sizes follow the op's send counts), or "scatter" / "gather" for
/// planScatterGather's flows (only the root's pairs; the root's input,
/// resp. output, holds a part per rank, the others' one part).
std::string allToAllScheduleText(const AllToAllFlows &flows,
                                 const std::string &collective,
                                 const std::string &symbol,
                                 const std::string &algorithm);

} // namespace synth
} // namespace collc

#endif

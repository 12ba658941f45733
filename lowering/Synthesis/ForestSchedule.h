//===- ForestSchedule.h - all-roots tree packings as sched schedules -*- C++
//-*-===//
//
// Writes ForestPackings (ForestPacking.h) as explicit sched.schedules for
// their group size and any chunk count that is a multiple of the unit:
//
//   all_gather: (PerTree, below) tree t of root R runs on channel t of every
//   rank. Root R sends each chunk j of its share of R's part (input[j]) to its
//   children; a rank with a parent receives it into output[R k + j] and
//   forwards it to its children (recv_copy_send to the first, then send).
//   The own part is copied on channel T (the number of trees).
//   reduce_scatter: tree t of root R on channel t, data towards R. A leaf
//   sends its input[R k + j]; a rank with children combines their
//   arrivals with its own input (into scratch[R k + j] when it has two or
//   more) and sends the sum up (recv_reduce_send from the last child);
//   R combines them into output[j].
//   all_reduce: the reduce_scatter trees, then the all_gather trees, over
//   parts of q = k / n chunks, both phases in the output: the second
//   starts at root R when R's part is complete (`after` the last
//   instruction of R's reduce channels), and every channel runs its
//   reduce instructions before its gather ones (so no cycle).
//
// Each root's part is split among its trees by their rates in units:
// collc.chunk_unit is U (n U for all_reduce), tree t of root R takes the
// units [a_t, a_{t+1}) of R's part.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_FORESTSCHEDULE_H
#define COLLC_LOWERING_SYNTHESIS_FORESTSCHEDULE_H

#include "lowering/Synthesis/ForestPacking.h"

#include <string>
#include <vector>

namespace collc::synth {

/// Units per part: 1 where every root has one tree, else 4 x the most
/// trees of a root.
int forestUnits(const ForestPacking &packing);
/// Each tree's units of its root's part (largest remainder, at least one),
/// summing to forestUnits per root.
std::vector<int> forestTreeUnits(const ForestPacking &packing, int units);

/// How a packing's trees get channels: PerTree, tree t on channel t of
/// every rank (a rank's instructions of the tree in sequence: few
/// channels, but a rank's sends to its children one after the other);
/// PerEdge, every tree edge on a channel of its own at both ends (greedy
/// edge colouring, as TreeSchedule.h), a rank forwarding each arrival on
/// its children's channels (`after` the receive) so that they all run at
/// once.
enum class ForestChannelMode { PerTree, PerEdge };

/// PerEdge's channels: [tree][child] the channel of the edge into `child`
/// (-1 at the root); the most any rank uses.
struct EdgeChannels {
  std::vector<std::vector<int>> edge;
  int most = 0;
};
EdgeChannels edgeChannels(const ForestPacking &packing);

/// Channels a rank uses (all_gather's copy of its own part included). An
/// all_reduce's two phases use the same ids, so it needs the larger of its
/// packings'.
int forestChannels(const ForestPacking &packing, ForestChannelMode mode);

/// all_gather (FromRoot) or reduce_scatter (ToRoot) from one packing.
std::string forestScheduleText(const ForestPacking &packing,
                               ForestChannelMode mode,
                               const std::string &symbol,
                               const std::string &algorithm);
/// all_reduce: `reduce` (ToRoot) then `gather` (FromRoot), same ranks.
std::string allReduceScheduleText(const ForestPacking &reduce,
                                  const ForestPacking &gather,
                                  ForestChannelMode mode,
                                  const std::string &symbol,
                                  const std::string &algorithm);

} // namespace collc::synth

#endif

//===- TreeSchedule.h - a tree packing as a sched schedule ------*- C++ -*-===//
//
// Writes a TreePacking (TreePacking.h) as an explicit sched.schedule for its
// group size, any chunk count: every edge of every tree runs on a channel
// of its own (treeChannels) and each tree carries a contiguous share of the
// chunks proportional to its rate, chunk by chunk, so that a rank forwards
// chunk j to each child while its parent already sends chunk j + 1
// (pipelining down a broadcast tree, up a reduce tree). The
// shares are in units: collc.chunk_unit is the number of units U, k a
// multiple of it, and tree t's chunks are [k a_t / U, k a_{t+1} / U) with
// a_t the units before it (every tree at least one).
//
//   broadcast: the root copies its input to its output and sends each of
//   its chunks to its children; a rank with a parent receives the chunk
//   into its output, and sends it to each child on the child's channel
//   once received (`after` the receive).
//   reduce: a leaf sends its input chunk to its parent; a rank with
//   children combines each child's arrival into its output on that child's
//   channel (recv_reduce_copy, after the previous child's), then sends the
//   sum up; the root keeps it in its output.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_TREESCHEDULE_H
#define COLLC_LOWERING_SYNTHESIS_TREESCHEDULE_H

#include "lowering/Synthesis/TreePacking.h"

#include <string>
#include <vector>

namespace collc::synth {

/// Units per tree on average: shares are rounded to 1 / (this x trees).
constexpr int kUnitsPerTree = 8;

/// The units of each tree (largest remainder, at least one each), summing
/// to `perTree` x trees (one tree: `perTree` units, so that the chunk
/// counts selection tries are multiples of it and a deep tree pipelines).
std::vector<int> treeUnits(const TreePacking &packing,
                           int perTree = kUnitsPerTree);

/// The channels of a packing's schedule: every tree edge p -> c has a
/// channel id of its own at both ends (a connection is (sender, receiver,
/// channel)), the lowest free at both (greedy edge colouring), so that a
/// rank sends to each child and receives from its parent in parallel
/// streams; the broadcast root copies on one more.
struct TreeChannels {
  /// [tree][child]: the channel of the edge into `child`; -1 at the root.
  std::vector<std::vector<int>> edge;
  int rootCopy = -1;
  /// Channels each rank uses, and the most of any rank.
  std::vector<int> perRank;
  int most = 0;
};
TreeChannels treeChannels(const TreePacking &packing);

/// The greedy colouring behind it: edge p -> c of tree t (parents[t][c] =
/// p, -1 at a root) gets the lowest id free at both p and c. Returns
/// [tree][child] the ids (-1 at roots); `used`, per rank, the ids it took.
std::vector<std::vector<int>>
colourTreeEdges(const std::vector<const std::vector<int32_t> *> &parents,
                int32_t ranks, std::vector<std::vector<bool>> *used);

/// The schedule's text: `sched.schedule @SYMBOL collective = broadcast |
/// reduce algorithm = "ALGORITHM" group_size = N root = ROOT` with
/// attributes collc.chunk_unit, collc.volume, collc.steps and collc.synthesis
/// (describePacking's first line, or `summary` where given).
///
/// `fanin` (a reduce of one tree only): a rank with two or more children
/// receives each child's chunk into scratch on the child's channel and
/// combines them all in one `sched.reduce ... fanin = C` per chunk (after
/// copying its input to its output once), on its parent's channel (the
/// root: on one more), so that it pays one fixed cost per chunk for its
/// children instead of one per child; scratch is C x k for the most
/// children C. `perTree`: treeUnits's (a latency tree takes 1, so that one
/// chunk is possible).
std::string treeScheduleText(const TreePacking &packing,
                             const std::string &symbol,
                             const std::string &algorithm,
                             const std::string &summary = "",
                             bool fanin = false, int perTree = kUnitsPerTree);

} // namespace collc::synth

#endif

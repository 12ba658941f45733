//===- RoundSchedule.h - tree packings as round-by-round schedules -*- C++
//-*-===//
//
// Writes tree packings (TreePacking.h's broadcast and reduce trees,
// ForestPacking.h's trees of every root) as explicit sched.schedules for
// their group size and any chunk count that is a multiple of the unit, in
// rounds, with channels shared between trees where the budget runs out:
//
// - Rounds. Every root's part is cut into a grid of G units, and tree t of
//   root R owns the units [first_t, first_t + units_t) of R's part, its
//   share of the G by its rate: the chunks [first_t x R, (first_t +
//   units_t) x R) with R = k / G the rounds. In every round every tree edge
//   moves the tree's next units_t chunks as one instruction, so an item's
//   size follows its tree's rate and all trees advance together.
// - Staggered. Tree t's first item moves only offset_t of its chunks (and
//   its last the rest), offsets spread by the golden ratio: streams that
//   share a link then pay their fixed costs at different moments instead of
//   all at once, and one stream's transfer fills the link while another
//   pays.
// - Copies. Every tree is copied as often as its edges still get a stream
//   of their own (planRounds): one stream per link cannot overlap its
//   items' fixed costs, two or more can.
// - Chains. A rank with exactly one child in a tree forwards each item in
//   one instruction (recv_copy_send; towards a root recv_reduce_send,
//   adding its own part): a tree is cut into chains, maximal paths through
//   such ranks, each on one channel id at every rank it passes.
// - Channels. Every chain gets a channel id at every rank it touches:
//   heaviest first, the id whose streams there carry the least so far among
//   those none of them uses yet or uses for chains of the same level
//   (below), else of the nearest level. So any number of trees and ranks fit
//   the budget (32 per rank); chains on one id with the same ends form one
//   connection.
// - Order. Every stream runs its items' first (partial) items, then a loop
//   of R - 1 rounds, then their last items, each in the order of the key
//   (level, tree, rank): level is the depth of the receiving rank for data
//   moving away from a root, the height of the sending rank's subtree for
//   data moving to a root. Both ends of a connection order its items alike
//   and every dependency (a rank forwards what it received, adds what its
//   children sent, sends the sum up) points to a smaller key, so the
//   schedule cannot deadlock: the least unfinished item can always run.
//
//   broadcast: the root copies its input to its output (a channel of its
//   own) and sends each item of every tree to its children; a rank
//   receives it into its output and forwards it (inside a chain in the same
//   instruction, else after the receive).
//   reduce: a leaf sends its input range, a rank with children adds each
//   child's arrival into its output (recv_reduce_copy, children in key
//   order, each after the previous), then sends the sum up; the root keeps
//   it.
//   all_gather / reduce_scatter: the same per root, part R at R x k of the
//   output (all_gather) or input (reduce_scatter, partial sums in scratch).
//   all_reduce: parts of k / n chunks; the reduce trees and the gather trees
//   cut into common pieces of every root's grid (allReducePieces), on
//   separate channels (half the budget each): root R sends a piece's item
//   down once its reduction of that item is done, so the phases overlap.
//   Or sequential: each phase has every channel id, a stream runs its
//   reduce items (prologue, loop, epilogue) then its gather items (a loop
//   of their own), and its first gather item also waits for the last
//   reduce instruction of every other stream of its rank, so that the
//   gather trees do not take link bandwidth from a reduction still under
//   way (a fair link would slow the reduction's critical trees). The
//   order (phase, round, key) keeps it free of deadlock.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_ROUNDSCHEDULE_H
#define COLLC_LOWERING_SYNTHESIS_ROUNDSCHEDULE_H

#include "lowering/Synthesis/ForestPacking.h"
#include "lowering/Synthesis/TreePacking.h"

#include <string>
#include <vector>

namespace collc::synth {

/// A tree of a round schedule: its root, parent per rank (-1 at the root),
/// its share of its root's part (units [first, first + units) of the grid
/// G: the chunks [first R, (first + units) R) of the part, R = k / G the
/// rounds) and the chunks its first item moves (`offset`, below `units`;
/// 0: every item moves `units` chunks).
struct RoundTree {
  int32_t root = 0;
  std::vector<int32_t> parent;
  int first = 0, units = 1;
  int offset = 0;
  /// The packing's tree it copies (an index into the trees given), and
  /// which copy it is.
  int source = 0, copy = 0;
};

/// The collectives a round schedule writes.
enum class RoundCollective {
  Broadcast,
  Reduce,
  AllGather,
  ReduceScatter,
  AllReduce
};

struct RoundSchedule {
  RoundCollective collective = RoundCollective::Broadcast;
  int32_t ranks = 0;
  /// Broadcast and reduce: the root.
  int32_t root = 0;
  /// Chunks of a part per round (G).
  int grid = 1;
  /// The fewest rounds: collc.chunk_unit is grid x minRounds (x ranks for
  /// all_reduce), so selection's chunk counts give minRounds x 1, 2, 4, ...
  /// rounds.
  int minRounds = 1;
  /// How many times every tree of the packings is copied.
  int copies = 1;
  /// Whether ranks with one child forward in one instruction (chains);
  /// else every tree edge is a chain of its own.
  bool chains = true;
  /// all_reduce: whether every stream runs all its reduce items before its
  /// gather items (each phase has every channel id) rather than the two
  /// phases on separate ids, overlapping.
  bool sequential = false;
  /// Channel ids a rank may use in all (the broadcast root's and the
  /// all_gather's copy take one of them).
  int channels = 32;
  /// Broadcast, reduce, all_gather, reduce_scatter: one phase. all_reduce:
  /// the reduce trees (phase 0) and the gather trees (phase 1).
  std::vector<std::vector<RoundTree>> phases;
  /// Where not empty: the route latency (seconds) from rank a to rank b at
  /// [a * ranks + b]. Chains then take their channel ids in order of their
  /// slowest edge, slowest first, so that where streams must be shared
  /// those of the low-latency edges are (a stream is busy until its data
  /// has arrived: on a NIC hop a second stream hides the latency, on an
  /// NVLink hop there is little to hide).
  std::vector<double> edgeLatency;
};

/// The trees of a packing as RoundTrees: each tree `copies` times, the
/// grid of every root shared among its copies by rate (largest remainder,
/// at least one unit each). `grid` must be at least the most copies of any
/// root.
std::vector<RoundTree> roundTrees(const std::vector<ForestTree> &trees,
                                  int32_t ranks, int grid, int copies);
/// Staggers the trees: tree i's first item moves floor(frac((i + 1) g) x
/// units) chunks (g the golden ratio), its last the rest of a round's
/// units, so that the streams sharing a link pay their fixed costs at
/// different moments instead of all at once.
void staggerTrees(std::vector<RoundTree> &trees);
/// all_reduce's phases over common pieces: every root's grid cut where
/// either phase's trees meet, each piece a tree of both phases (piece i of
/// `reduce` and of `gather` cover the same chunks), so that a root's gather
/// of a piece waits for that piece's reduction alone.
void allReducePieces(std::vector<RoundTree> &reduce,
                     std::vector<RoundTree> &gather);
/// A broadcast or reduce packing's trees as ForestTrees of its root.
std::vector<ForestTree> forestTreesOf(const TreePacking &packing);

/// The grid for `trees` (of any roots), each `copies` times: 1 for a single
/// stream, else 4, 8, 16 or 32 units per tree of the root with the most,
/// the coarsest whose rounding gives no tree more than 2% above its share
/// of its root's rate.
int roundGrid(const std::vector<ForestTree> &trees, int32_t ranks, int copies);
/// The most copies of a tree planRounds makes.
constexpr int kMostCopies = 4;

/// The fewest rounds a round schedule is written for (collc.chunk_unit is
/// kMinRounds grids, so selection tries 8, 16, ..., 128 rounds).
constexpr int kMinRounds = 8;

/// A round schedule of `collective` over packed trees: `phases` holds one
/// list of trees (broadcast and reduce: of `root`), or for all_reduce the
/// reduce trees then the gather trees, cut into common pieces. Every tree
/// is copied as often as every chain of every copy still gets a stream of
/// its own within `channels` per rank (at most kMostCopies), the grid is
/// roundGrid's, and the trees are staggered. Where even one copy's chains
/// must share streams, chains are given up (a chain needs its id free at
/// every rank it passes, single edges are easier to place), and the trees
/// are copied as often as their edges keep a stream of their own (once
/// where even that fails).
/// `sequential` (all_reduce): every stream runs its reduce items, then its
/// gather items, each phase over every channel id (RoundSchedule).
RoundSchedule planRounds(RoundCollective collective, int32_t ranks,
                         int32_t root,
                         const std::vector<std::vector<ForestTree>> &phases,
                         int channels, bool sequential = false);

/// planRounds's schedule with one copy more than `chosen` has, as chains,
/// the streams this makes share being its price: a chain's stream is busy
/// until its data has arrived, so a link only one stream drives idles for
/// every round's fixed cost and latency, and a second copy fills those
/// gaps. Selection simulates both. ranks == 0 where `chosen` has
/// kMostCopies already (channel ids stay within `chosen.channels`: beyond
/// them chains share streams).
/// `edgeLatency` (RoundSchedule::edgeLatency), when not empty, orders the
/// chains' channels.
RoundSchedule
planRoundsOneMoreCopy(const RoundSchedule &chosen,
                      const std::vector<std::vector<ForestTree>> &phases,
                      const std::vector<double> &edgeLatency = {});

/// Streams (rank, channel) that carry more than one chain.
int sharedStreams(const RoundSchedule &schedule);

/// The most channel ids any rank's streams take (the copy channel
/// included).
int roundChannels(const RoundSchedule &schedule);

/// What the schedule moves: the grid, the copies, and per tree (copy) its
/// units of every round and, where `bytes` (per rank) is positive, its
/// bytes of its root's part (`partBytes`: bytes per part).
std::string describeRounds(const RoundSchedule &schedule, double partBytes);

/// The schedule's text (`sched.schedule @SYMBOL collective = ...
/// algorithm = "ALGORITHM" group_size = N`, collc.chunk_unit, collc.volume,
/// collc.steps, the description "synthesized: SUMMARY").
std::string roundScheduleText(const RoundSchedule &schedule,
                              const std::string &symbol,
                              const std::string &algorithm,
                              const std::string &summary);

} // namespace collc::synth

#endif

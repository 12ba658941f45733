//===- LatencyTree.h - a least-latency tree for small messages --*- C++ -*-===//
//
// Issue 21, point 3: for small and mid-size broadcasts and reduces, one
// tree of least completion time rather than a packing of high rate. Built
// greedily by earliest arrival (Prim's order): from the root, repeatedly
// attach the rank whose data can arrive first, over the runtime's route
// from a rank already in the tree, where an edge u -> v costs
//
//   fixedCost + latency(route u -> v)
//             + bytes x max over the route's links l of (edges on l + 1) / B_l
//
// (the send's fixed cost, the route's latency, and the message's time on
// its busiest link shared with the tree's edges already on it, all sent at
// once), and a rank takes at most `maxChildren` children (its channels).
// Where every pair's route is one hop of the same cost the tree is the
// root's star, which the library's `direct` already is; where a relay over
// a fast link beats a slow direct route (DGX-1's GPUs without an NVLink to
// the root, reached over PCIe and QPI) it relays. Not optimal (minimum
// broadcast time problems of this kind are NP-hard); selection simulates
// it against everything else.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_LATENCYTREE_H
#define COLLC_LOWERING_SYNTHESIS_LATENCYTREE_H

#include "lowering/Synthesis/TreePacking.h"

#include <string>
#include <vector>

namespace collc::synth {

/// The simulator's default fixed cost per instruction (docs/simulator.md),
/// which the tree's edge costs use.
constexpr double kLatencyTreeFixedCost = 1e-6;

/// Message sizes the latency trees are built for: the latency alone, and a
/// mid-size message whose time on a link counts.
constexpr double kLatencyTreeBytes[] = {0, 64 * 1024};

/// The tree (parent per group rank, -1 at the root) for `bytes`, over the
/// runtime's routes (reversed for a reduce: data flows child -> parent), or
/// an empty vector with `error` set when a pair has no route. `arrival`, if
/// given, gets the estimated seconds until the last rank has the data.
std::vector<int32_t> latencyTree(const topo::Topology &topology,
                                 RouteMemo &routes,
                                 const std::vector<topo::DeviceId> &gpus,
                                 int32_t root, TreeDirection direction,
                                 double bytes, int maxChildren,
                                 std::string *error, double *arrival = nullptr);

/// Whether `parent` is the root's star (every other rank its child).
bool isStar(const std::vector<int32_t> &parent, int32_t root);

} // namespace collc::synth

#endif

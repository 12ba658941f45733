//===- RingPacking.h - rings derived from the topology ----------*- C++ -*-===//
//
// all_gather, reduce_scatter and all_reduce over several rings, each a
// Hamiltonian cycle of the group's GPUs over the runtime's routes, found
// on the topology (as NCCL searches its rings, but on any machine): DGX-1's
// NVLink mesh holds six directed rings that use every NVLink lane once, and
// its PCIe tree a seventh; a 4x4 torus eight, two on every link.
//
// A ring is one stream per rank, forwarding every chunk as it arrives, so
// it executes with none of the trees' costs (no fan-out at a rank, one
// fixed cost per chunk and hop). Rings sharing a link share it fairly, a
// stream each (the simulator's max-min, docs/simulator.md), so a packing
// is valued by its max-min rates: every ring's rate rises until a link it
// crosses is full, and each ring carries a share of every part in
// proportion to its rate, so that all finish together. An all_gather then
// takes (n - 1) M / (sum of the rates).
//
// The search, by levels: at a rate rho every link holds floor(capacity
// left / rho) ring edges, and rings are found two ways, the better kept:
// one after another by a depth-first search for Hamiltonian cycles over
// the routes with edges to spare (the next rank the one with the fewest
// ways on, ties at random; a budget of steps each; the best of several
// tries, every other one taking each ring's reverse too), and as
// permutations over the direct links (perfect matchings taken one after
// another) merged into single cycles by swapping arcs between two of them
// (a torus's Hamiltonian decomposition, which the first way misses). rho
// is tried at every link's capacity left / 1, 2 and 3, the level adding
// the most max-min rate kept, then the next level on what is left, up to
// `maxRings`. DGX-1: six rings at 25 GB/s on the NVLink lanes, then one at
// 8 over PCIe, 158 GB/s in all, the optimum over the runtime's routes; the
// 4x4 torus: eight at 25 GB/s, every link's 50 GB/s.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_LOWERING_SYNTHESIS_RINGPACKING_H
#define COLLC_LOWERING_SYNTHESIS_RINGPACKING_H

#include "lowering/Synthesis/TreePacking.h"

#include <string>
#include <vector>

namespace collc::synth {

struct PackedRing {
  /// The group ranks in ring order: order[i] sends to order[i + 1 mod n].
  std::vector<int32_t> order;
  /// Its max-min rate, bytes/s.
  double rate = 0;
};

struct RingPacking {
  int32_t ranks = 0;
  std::vector<PackedRing> rings;
  /// The rings' rates summed, bytes/s.
  double rate = 0;
};

/// Packs at most `maxRings` rings over `gpus` (group rank -> GPU device of
/// `topology`) on the routes of `routes`. False with `error` set where the
/// group has fewer than 2 ranks, duplicates or an unroutable pair.
bool packRings(const topo::Topology &topology, RouteMemo &routes,
               const std::vector<topo::DeviceId> &gpus, int maxRings,
               RingPacking *packing, std::string *error);

/// Max-min fair rates (bytes/s) of rings that cross links `usage[ring]`
/// (row, edges of the ring on it) of capacities `capacity` (bytes/s): all
/// rise together, a ring stops when a link it crosses is full.
std::vector<double>
maxMinRates(const std::vector<std::vector<std::pair<int, double>>> &usage,
            const std::vector<double> &capacity);

/// The packing in one line: "R rings, X GB/s in all: order (rate), ...".
std::string describeRings(const RingPacking &packing);

/// The collectives rings are written for.
enum class RingCollective { AllGather, ReduceScatter, AllReduce };

/// The rings as a sched.schedule of `symbol` (algorithm `algorithm`, the
/// description `summary`): ring c on channel c at every rank, carrying
/// units of a grid of G per part in proportion to its rate (chunk_unit G,
/// n G for all_reduce, whose buffer is n parts); each ring runs the
/// library's ring algorithm (lowering/CollToSched/algorithms/ring_*.mlir)
/// over its order, chunk-major (deadlock-free with 2 slots a connection),
/// all_reduce `window` chunks at a time. all_gather copies the rank's own
/// part on one more channel.
std::string ringScheduleText(const RingPacking &packing,
                             RingCollective collective,
                             const std::string &symbol,
                             const std::string &algorithm,
                             const std::string &summary);

} // namespace collc::synth

#endif

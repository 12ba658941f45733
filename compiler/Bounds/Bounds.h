//===- Bounds.h - lower bounds on the time of a collective ------*- C++ -*-===//
//
// How fast any schedule of a collective could possibly run on a topology:
// max(bandwidth bound, latency bound). The bandwidth bound is the largest,
// over cuts of the topology, of the bytes that must cross the cut over the
// cut's bandwidth; the latency bound counts the hops information must take.
// Derivations and assumptions: docs/bounds.md. Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_BOUNDS_BOUNDS_H
#define COLLC_COMPILER_BOUNDS_BOUNDS_H

#include "common/Program/Program.h"
#include "common/Topology/Topology.h"

#include <string>
#include <vector>

namespace collc::bounds {

/// One collective call on a group of GPUs.
struct CollectiveSpec {
  sched::Collective collective = sched::Collective::AllReduce;
  /// The topology rank (GPU) of every group rank; the group size N is
  /// gpus.size(). Several group ranks may share a GPU.
  std::vector<int> gpus;
  /// M: bytes of every rank's input buffer (for reduce_scatter, all_to_all
  /// and scatter, N parts of M/N; see the table above sched::Program).
  double bytes = 0;
  /// Group rank of the root of broadcast, reduce, scatter and gather; the
  /// sender of send/recv.
  int root = 0;
  /// Group rank of the receiver of send/recv.
  int peer = 1;
  /// all_to_all_v only: N*N bytes, row-major by sender (sendBytes[s*N+r]
  /// goes from s to r). Empty: the uniform M/N of all_to_all.
  std::vector<double> sendBytes;
};

/// Bytes that must leave and enter a set of devices for a collective, and
/// how they were counted ("(64-8) * M").
struct Crossing {
  double out = 0;
  double in = 0;
  std::string outFormula;
  std::string inFormula;
};

/// The bytes that must cross the boundary of a set that holds the group
/// ranks with inside[r] true (docs/bounds.md derives each collective).
Crossing crossingBytes(const CollectiveSpec &spec,
                       const std::vector<bool> &inside);

/// One term of a bound.
struct BoundTerm {
  /// What was cut: "per-GPU injection", "per-node egress", "latency", ...
  std::string name;
  double seconds = 0;
  double bytes = 0;     ///< bandwidth terms: the bytes that must cross
  double bandwidth = 0; ///< bandwidth terms: the cut's bytes/s
  /// Why, in one line: "per-node egress: 2*(8-1)/8 * M = 1.88 GB over
  /// 400 GB/s (node0)".
  std::string reason;
};

struct BoundOptions {
  /// false (default): the latency bound of any schedule, one hop of the
  /// cheapest path between the farthest pair of ranks that must
  /// communicate. true: the single-port model (a rank sends one message at
  /// a time, as one channel does), ceil(log2 N) hops of the closest pair's
  /// latency; it holds only for single-port schedules (one that sends to
  /// every peer at once on several channels can beat it).
  bool singlePort = false;
  /// The simulator's fixed cost per instruction (the report passes
  /// SimOptions::fixedCost): the latency bound adds it to every hop (a send
  /// pays it before its first byte moves) and once more for the
  /// instruction that receives at the end (it pays it after the data
  /// arrived). Default 0: the topology's latency only.
  double perHopOverhead = 0;
};

/// A lower bound on the time of a collective.
struct LowerBound {
  /// Empty unless the spec was invalid (a GPU or root out of range).
  std::string error;
  /// max(bandwidthSeconds, latencySeconds).
  double seconds = 0;
  double bandwidthSeconds = 0;
  double latencySeconds = 0;
  bool bandwidthDominates = false;
  /// The reason of the dominating term.
  std::string reason;
  /// The largest bandwidth term and the latency term.
  BoundTerm bandwidth;
  BoundTerm latency;
  /// Every bandwidth term computed (per-GPU injection and ejection, per-node
  /// egress and ingress when the group spans nodes), largest first.
  std::vector<BoundTerm> terms;
};

/// The bound of one cut: the set of devices `set` (duplicates ignored)
/// against the rest of the topology; max(out / bandwidth out of the set,
/// in / bandwidth into it). `name` names the cut in the reason.
BoundTerm cutBound(const CollectiveSpec &spec, const topo::Topology &topology,
                   const std::vector<topo::DeviceId> &set,
                   const std::string &name);

/// The largest cutBound over `cuts`, named "NAME i" after their position;
/// a zero term when `cuts` is empty.
BoundTerm maxCutBound(const CollectiveSpec &spec,
                      const topo::Topology &topology,
                      const std::vector<std::vector<topo::DeviceId>> &cuts,
                      const std::string &name = "cut");

/// One hop of the farthest needed pair's cheapest path latency (or, with
/// singlePort, ceil(log2 N) hops of the closest pair's), plus
/// perHopOverhead per hop and once for the final receive; for send/recv
/// one hop from root to peer.
BoundTerm latencyBound(const CollectiveSpec &spec,
                       const topo::Topology &topology,
                       const BoundOptions &options = BoundOptions());

/// The lower bound: per-GPU injection/ejection cuts, per-node
/// egress/ingress cuts of the nodes the group spans (for all_reduce also
/// their aggregate forms), and the latency bound.
LowerBound lowerBound(const CollectiveSpec &spec,
                      const topo::Topology &topology,
                      const BoundOptions &options = BoundOptions());

/// Shorthand for a root-0 (send/recv: 0 to 1) collective of `bytes` per
/// rank on the group `gpus`.
LowerBound lowerBound(sched::Collective collective, double bytes,
                      const topo::Topology &topology,
                      const std::vector<int> &gpus,
                      const BoundOptions &options = BoundOptions());

/// "1.07 GB", "450 GB/s", "4.70 ms": three significant digits.
std::string formatBytes(double bytes);
std::string formatBandwidth(double bytesPerSecond);
std::string formatSeconds(double seconds);

} // namespace collc::bounds

#endif

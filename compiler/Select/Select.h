//===- Select.h - choose algorithms by simulated time ----------*- C++ -*-===//
//
// The cost model behind collc's choices: for every collective, each
// applicable algorithm of the library is expanded with a range of chunk
// counts and simulated on the topology; the fastest is kept, and the best
// of the other algorithms is kept as the runner-up so that the report can
// explain the choice. Plugs into the lowering as a lowering::Chooser.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SELECT_SELECT_H
#define COLLC_COMPILER_SELECT_SELECT_H

#include "collrt/Tuning.h"
#include "compiler/Simulate/Simulator.h"
#include "lowering/CollToSched/LowerCollectives.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace collc {

/// One simulated candidate.
struct Candidate {
  const lowering::Algorithm *algorithm = nullptr;
  unsigned chunks = 1; ///< chunks per algorithm unit
  uint32_t k = 1;      ///< chunks per part it expands with
  /// The value selection gave the algorithm's channel parameter
  /// (Algorithm::channelParam, e.g. rings), or 0 when it did not choose one
  /// (no channel cap, no such parameter, or --algo-param set it).
  int64_t channels = 0;
  double seconds = -1; ///< predicted time; -1 when it could not run
  std::string error;   ///< why it could not be expanded or simulated
  /// For a user's algorithm that could not be simulated: what sched-verify
  /// says of it (the wait-for cycle of a deadlock, a wrong result).
  std::vector<std::string> verifierMessages;
};

/// The parameters selection set for a candidate ({rings: 8}), or none.
llvm::StringMap<int64_t> chosenParams(const Candidate &candidate);

/// "ring x4", or "ring x4 rings=8" when selection chose the channel count.
std::string candidateLabel(const Candidate &candidate);

/// The most channels a rank of `program` gives an instruction to (the thread
/// blocks it launches).
uint32_t channelsInUse(const sched::Program &program);

/// The chunk counts per unit tried with `channels` channels (an algorithm's
/// collc.channel_param) where the chunk count is free: `counts`, and C, 2C
/// and 4C for C = channels > 0, so that every channel gets chunks and a
/// channel whose work waits on another's (a node ring on its rail ring)
/// gets them in a deeper pipeline. Selection and collc --emit=candidates use
/// it alike.
std::vector<unsigned> chunkCountsWithChannels(std::vector<unsigned> counts,
                                              int64_t channels);

/// Which of an algorithm's channel counts are worth trying, fed its
/// programs in increasing count order (any chunk counts per count): a
/// program is worth it when it puts more channels to work (channelsInUse)
/// than every smaller count's did. A count whose extra channels get no chunk
/// (ring's `rings` above the chunks per part) or no unit
/// (hierarchical_direct's `folders` above the nodes) runs as a smaller count
/// would. Selection and collc --emit=candidates use it alike.
class MoreChannelsAtWork {
public:
  /// Whether the program of `channels` with `inUse` channels in use is
  /// worth trying; if so it counts for the larger counts.
  bool admit(int64_t channels, uint32_t inUse) {
    if (channels != current_) {
      busiestSmaller_ = std::max(busiestSmaller_, busiest_);
      current_ = channels;
    }
    if (channels > 1 && inUse <= busiestSmaller_)
      return false;
    busiest_ = std::max(busiest_, inUse);
    return true;
  }

private:
  int64_t current_ = -1;
  uint32_t busiestSmaller_ = 0, busiest_ = 0;
};

/// What selection did for one collective.
struct SelectionRecord {
  std::vector<Candidate> tried;
  std::optional<Candidate> best;
  /// The fastest candidate of another algorithm than the best's.
  std::optional<Candidate> runnerUp;
  /// Why nothing was simulated (sizes known only at run time), if so.
  std::string note;
  /// Candidates not simulated because a cheap lower bound on their time
  /// (quickLowerBound) was already no better than the best simulated one.
  unsigned pruned = 0;
  /// --tuning: why the measured fastest schedule was chosen instead of the
  /// model's (then `best` is the measured one and `modelBest` the model's
  /// choice), or empty.
  std::string measured;
  std::optional<Candidate> modelBest;
  /// The same as numbers (report JSON's `measured`).
  struct Measurement {
    std::string file;
    size_t entry = 0;         ///< index in the file's entries
    int64_t bytesPerRank = 0; ///< the entry's size
    double seconds = 0;       ///< the chosen schedule's measured time
    size_t candidates = 0;    ///< how many were measured
    double modelSeconds = -1; ///< the model's choice's measured time, or -1
  };
  std::optional<Measurement> measurement;
  /// --tuning: why no measurement applied (none of this collective, size
  /// out of range, --algo or --chunks given), or empty.
  std::string tuningNote;
};

/// Where one collective's selection stands (SelectOptions::progress).
struct SelectProgress {
  mlir::Operation *op = nullptr; ///< the collective
  size_t decided = 0;            ///< candidates simulated or ruled out
  size_t simulated = 0;          ///< of which simulated
  size_t pruned = 0;             ///< of which ruled out by the quick bound
  /// The fastest so far ("hierarchical x16", candidateLabel) and its
  /// predicted seconds; empty and -1 before the first.
  std::string best;
  double bestSeconds = -1;
  double elapsedSeconds = 0; ///< since this collective's selection began
};

struct SelectOptions {
  /// Chunks per algorithm unit to try when --chunks does not fix them.
  std::vector<unsigned> chunkCounts = {1, 2, 4, 8, 16};
  /// Values tried for an algorithm's channel parameter (collc.channel_param)
  /// where the topology caps what one channel of the group's GPUs moves
  /// (sim::channelCap) and --algo-param does not set it, each also with the
  /// chunk counts of chunkCountsWithChannels when --chunks is free. Up to 32,
  /// the channels that can be resident at once (sched-verify) and NCCL's
  /// MAXCHANNELS; 3, 6, 12 and 24 too, so that an algorithm whose other
  /// channels leave room for 3 is not held to 2 (hierarchical_direct
  /// all_reduce on 8 nodes of 8 runs 29 + `folders` channels). Without a
  /// cap the model gives more channels nothing to gain but connection
  /// slots, so the algorithm's default is used.
  std::vector<int64_t> channelCounts = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  sim::SimOptions simulation;
  /// Whether candidates whose quickLowerBound shows they can be neither the
  /// fastest nor the runner-up are skipped (collc --select-prune), and a
  /// built-in's channel and chunk counts beyond one whose channels cannot
  /// all be resident are not expanded. The choice, the runner-up and every
  /// predicted time are the same either way; only SelectionRecord::pruned
  /// and the counts of simulated and failed candidates differ.
  bool prune = true;
  /// Threads that simulate candidates (collc --select-threads): 0, the
  /// host's cores (at most 8); 1, none besides the caller. Candidates are
  /// still decided in order, exactly as with one thread: other threads only
  /// simulate ahead the candidates that come next, and a result is used
  /// only when the candidate is not pruned by then. The answer never
  /// depends on the thread count or timing.
  unsigned threads = 0;
  /// collc --tuning FILE: measured times of candidate schedules
  /// (collrt/Tuning.h, written by collc-run --tuning). For a collective it
  /// has a measurement of (same kind, group size, element type, reduction;
  /// the nearest measured size within a factor of 2), the measured fastest
  /// schedule is chosen, provided collc expands exactly that program (its
  /// fingerprint); else the choice is an error. Null: none.
  std::shared_ptr<const collrt::TuningTable> tuning;
  std::string tuningPath; ///< the file's name, for messages
  /// Called after each candidate is decided, on the thread that called
  /// choose() (collc's progress line, --progress-after); null: none. It
  /// sees the selection only: the answer never depends on it.
  std::function<void(const SelectProgress &)> progress;
};

class Selector {
public:
  Selector(const topo::Topology &topology, SelectOptions options)
      : topology(topology), options(std::move(options)) {}

  /// The lowering::Chooser: simulates every candidate and chunk count.
  std::optional<lowering::Choice>
  choose(const lowering::LoweredCollective &lowered,
         llvm::ArrayRef<const lowering::Algorithm *> candidates,
         unsigned chunks);

  lowering::Chooser asChooser() {
    return [this](const lowering::LoweredCollective &l,
                  llvm::ArrayRef<const lowering::Algorithm *> c,
                  unsigned k) { return choose(l, c, k); };
  }

  /// Whether a user's algorithm (--algo-file) could not be expanded or
  /// simulated for some collective; each such failure was reported as an
  /// error at the collective.
  bool userAlgorithmFailed() const { return userFailure; }

  /// The record of a collective op, or null.
  const SelectionRecord *record(mlir::Operation *op) const;

private:
  struct SimJob;
  class InOrderSimulation;

  /// Replaces the model's choice in `record` by the measured fastest
  /// schedule of options.tuning when one applies (or says in
  /// record.tuningNote why none does). False, with an error at the op, when
  /// the measurement names a schedule collc cannot expand as measured.
  bool applyTuning(const lowering::LoweredCollective &lowered,
                   llvm::ArrayRef<const lowering::Algorithm *> candidates,
                   unsigned chunks, SelectionRecord &record);

  const topo::Topology &topology;
  SelectOptions options;
  std::map<mlir::Operation *, SelectionRecord> records;
  /// Collectives with the same kind, group, sizes, candidates and chunk
  /// choice get the same answer: simulated once.
  std::map<std::string, SelectionRecord> memo;
  /// The routes of each simulating thread but the caller's (which uses
  /// options.simulation.routes): a RouteMemo is not shared across threads.
  std::vector<std::shared_ptr<RouteMemo>> workerRoutes;
  bool userFailure = false;
};

/// A lower bound on what `simulate` would predict for `program`, cheap next
/// to a simulation (one pass over the instructions): the instructions of a
/// channel pay the fixed cost one after another, the bytes a rank sends
/// leave its GPU through the GPU's links (their bandwidths summed; this term
/// is left out when link bandwidths are overridden or two ranks share a
/// GPU), and a capped channel moves its traffic at most at its cap
/// (sim::channelTimeBound). Selection skips a candidate whose bound is no
/// better than the best time simulated so far.
double quickLowerBound(const sched::Program &program,
                       const lowering::LoweredCollective &lowered,
                       const topo::Topology &topology,
                       const sim::SimOptions &options);

/// Expands `algorithm` with `expand`, keeping its diagnostics (at the
/// library's schedule) out of the user's way: on failure `*error` holds the
/// last one. Selection, tuning and the baselines expand candidates so.
mlir::FailureOr<sched::Program>
expandQuietly(const lowering::Algorithm &algorithm,
              const sched::ExpandOptions &expand, std::string *error);

/// Simulates one expanded program for a lowered collective on the topology
/// (its group's GPUs, its message size).
sim::SimResult simulateLowered(const sched::Program &program,
                               const lowering::LoweredCollective &lowered,
                               const topo::Topology &topology,
                               const sim::SimOptions &options);

} // namespace collc

#endif

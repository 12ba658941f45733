//===- RaceCheck.h - unordered accesses of a rank's channels ----*- C++ -*-===//
//
// Internal: the race check that rides along execution (Execution.cpp). Only
// streams that share a chunk with another channel of their rank, one of the
// two writing it, can race; they are found first (RaceCandidates.cpp) and
// each gets a component of the vector clocks that every stream carries
// along program order, `after` dependencies and messages (RaceCheck.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_VERIFY_RACECHECK_H
#define COLLC_COMPILER_VERIFY_RACECHECK_H

#include "compiler/Verify/Connections.h"
#include "compiler/Verify/ErrorSink.h"
#include "compiler/Verify/VectorClocks.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace collc {
namespace sched {

/// The streams that can race.
struct RaceCandidates {
  static constexpr uint32_t kNone = UINT32_MAX;
  /// Per stream: its clock component, or kNone when every chunk it touches
  /// is touched by no other channel of its rank, or only read by all.
  std::vector<uint32_t> component;
  uint32_t streams = 0; ///< components handed out
  uint32_t ranks = 0;   ///< ranks with at least one such stream
};

/// Scans the chunk ranges of every rank with two or more non-empty
/// channels: linear in the chunks those ranges name.
RaceCandidates findRaceCandidates(const Program &program,
                                  const StreamIndex &streams);

class RaceCheck {
public:
  /// Decides whether the check runs (options.checkRaces, maxRaceStreams)
  /// and, when it does, sets up the clocks and the per-chunk history.
  RaceCheck(const Program &program, const VerifyOptions &options,
            const StreamIndex &streams, const ConnectionTable &table);

  /// Whether execute() must be called: the check runs and some stream can
  /// race.
  bool active() const { return clocks != nullptr; }
  /// Why the check did not run, or stopped part-way; empty when it ran.
  const std::string &skipReason() const { return skipped; }
  /// Streams followed (0 when none can race or the check was skipped).
  uint32_t followedStreams() const { return followed; }

  /// Called by the executor as instruction `index` of `stream` runs, after
  /// its dependencies completed and its recv's send was posted.
  /// `recvEntry` / `sendEntry`: the entries of ConnectionTable::sends its
  /// recv part takes and its send part posts, or ConnectionTable::kNone.
  void execute(uint32_t stream, uint32_t index, uint32_t recvEntry,
               uint32_t sendEntry, ErrorSink &errors);

private:
  static constexpr uint32_t kNone = UINT32_MAX;

  /// Instruction `index` of `stream`; stream kNone: nobody.
  struct Access {
    uint32_t stream = kNone;
    uint32_t index = 0;
  };
  /// A chunk's history: its last write and the reads since (one inline, or
  /// a list in sharedReads when unordered reads of several streams are
  /// live).
  struct ChunkHistory {
    Access write;
    Access read;
    uint32_t shared = kNone;
  };
  /// A clock as some stream had it when one of its instructions completed.
  struct Snapshot {
    ClockPool::Block block = ClockPool::kZero;
    uint32_t component = kNone; ///< of that stream
    uint32_t own = 0;           ///< its instructions completed
  };
  struct DependencyTarget {
    Snapshot snapshot;
    uint32_t waiting = 0; ///< dependencies on it not yet joined
  };
  /// An unordered pair found while `stream` runs an instruction.
  struct Conflict {
    Access other;
    bool otherWrites, selfWrites;
    Buffer buffer;
    uint32_t chunk;
  };

  void join(uint32_t stream, const Snapshot &snapshot);
  Snapshot snapshot(uint32_t stream, uint32_t completed);
  /// Whether `earlier` happens before what `stream` does now.
  bool ordered(const Access &earlier, uint32_t stream) const;
  void read(uint32_t stream, uint32_t index, ChunkHistory &history,
            Buffer buffer, uint32_t chunk);
  void write(uint32_t stream, uint32_t index, ChunkHistory &history,
             Buffer buffer, uint32_t chunk);
  void releaseShared(ChunkHistory &history);
  /// Stops the check for good once the clocks outgrow their budget.
  void stopIfTooLarge();
  /// Reports the conflicts of instruction `index` of `stream`, one error
  /// per other instruction and run of adjacent chunks.
  void report(uint32_t stream, uint32_t index, ErrorSink &errors);
  std::string describe(uint32_t stream, uint32_t index) const;

  const Program &program;
  const StreamIndex &streams;
  std::string skipped;
  uint32_t followed = 0;
  uint64_t maxClockBytes = 0;

  std::unique_ptr<ClockPool> clocks;
  std::vector<uint32_t> component;           ///< per stream (RaceCandidates)
  std::vector<ClockPool::Block> streamClock; ///< per stream
  std::vector<Snapshot> messages;            ///< per ConnectionTable::sends
  /// The instructions that others depend on; targetOf: per instruction id,
  /// its entry, or kNone.
  std::vector<DependencyTarget> targets;
  std::vector<uint32_t> targetOf;

  size_t perRank = 0;
  size_t bufferOffset[3] = {0, 0, 0};
  std::vector<uint32_t> rankHistory; ///< per rank: into history, or kNone
  std::vector<ChunkHistory> history;
  std::vector<std::vector<Access>> sharedReads;
  std::vector<uint32_t> freeShared;
  std::vector<Conflict> conflicts; ///< of the running instruction
};

} // namespace sched
} // namespace collc

#endif

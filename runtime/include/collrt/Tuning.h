//===- Tuning.h - measured choices: the tuning file ------------*- C++ -*-===//
//
// What `collc-run --tuning` measures and `collc --tuning` applies: for a
// collective (kind, group size, element type, reduction) at a size per rank,
// the time of every candidate schedule that was run, fastest first. Each
// candidate names its algorithm, its chunks per part and the fingerprint of
// its program (collc::sched::fingerprint), so that collc applies a
// measurement only to the very schedule that was measured. The JSON form is
// documented in docs/tuning.md.
//
// Plain C++17 with no MLIR, like the plan: collc-run writes it where it
// runs, collc reads it where it compiles.
//
//===----------------------------------------------------------------------===//
#ifndef COLLRT_TUNING_H
#define COLLRT_TUNING_H

#include "collrt/Status.h"
#include "collrt/Types.h"
#include "common/Program/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace collrt {

constexpr int kTuningVersion = 1;

/// One schedule that was run, and its time.
struct TuningCandidate {
  std::string algorithm;      ///< the plan's program.algorithm
  uint32_t chunksPerPart = 1; ///< the plan's program.chunksPerPart
  uint64_t fingerprint = 0;   ///< collc::sched::fingerprint of its program
  /// The best (over rounds) of the slowest rank's mean time per call.
  double seconds = 0;
};

/// One collective at one size, measured.
struct TuningEntry {
  collc::sched::Collective collective = collc::sched::Collective::AllReduce;
  int32_t ranks = 0; ///< the group size
  DataType dtype = DataType::F32;
  /// The reduction; matters only for collectives that reduce.
  ReduceOp reduction = ReduceOp::Sum;
  int64_t bytesPerRank = 0; ///< bytes of each rank's input
  /// Where and how it was measured (for the reader and collc's report):
  /// the host name, the transport ("shm", "in-process", ...), whether the
  /// ranks were processes or threads, the UTC time, rounds and iterations.
  std::string host;
  std::string transport;
  bool processes = false;
  /// Where the ranks' buffers came from: "malloc" (the heap) or "host"
  /// (collrt::allocateHostBuffer, `collc-run --buffers host`), which the
  /// shm transport copies faster, or "device" (GPU memory: `collc-run
  /// --backend cuda --tuning`); a file without the key was written before
  /// collc-run had host buffers, so its entries read as "malloc".
  std::string buffers = "malloc";
  std::string measured;
  int rounds = 1;
  int iters = 1;
  /// Fastest first (the file's order is checked).
  std::vector<TuningCandidate> candidates;
};

struct TuningTable {
  std::vector<TuningEntry> entries;
};

/// Parses a tuning file's text; `sourceName` names it in errors, which say
/// the JSON path and the rule broken ("t.json: entries[2].candidates[0]
/// .seconds: must be a number > 0").
Status tuningFromJson(const std::string &text, const std::string &sourceName,
                      TuningTable *table);
std::string tuningToJson(const TuningTable &table);

/// Reads a tuning file (SystemError when it cannot be read).
Status loadTuningFile(const std::string &path, TuningTable *table);

/// Writes atomically (writeFileAtomically).
Status saveTuningFile(const std::string &path, const TuningTable &table);

/// Adds `entry` to `table`, replacing an entry of the same collective, group
/// size, element type, reduction (for reducing collectives) and size.
/// Entries stay sorted by collective, size of group, type, reduction, size.
void addTuningEntry(TuningTable &table, TuningEntry entry);

/// The entries measured for a collective of `ranks` ranks, type and
/// reduction (ignored when the collective does not reduce), in order of
/// size.
std::vector<const TuningEntry *>
tuningEntriesFor(const TuningTable &table, collc::sched::Collective collective,
                 int32_t ranks, DataType dtype, ReduceOp reduction);

/// Of `entries` (in order of size), the one measured nearest to
/// `bytesPerRank` (on a log scale, the smaller on a tie), or null when
/// `bytesPerRank` lies more than a factor of 2 outside the measured range:
/// a measurement is applied to sizes between half its smallest size and
/// twice its largest.
const TuningEntry *
nearestTuningEntry(const std::vector<const TuningEntry *> &entries,
                   int64_t bytesPerRank);

/// "0x0123456789abcdef", the form of fingerprints in the file.
std::string fingerprintText(uint64_t fingerprint);

} // namespace collrt

#endif

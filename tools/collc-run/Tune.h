//===- Tune.h - collc-run --tuning: measure candidate plans ----*- C++ -*-===//
//
// `collc-run A.plan.json B.plan.json ... --tuning FILE`: every plan holds one
// candidate schedule of the same collective (collc --emit=plan with
// different --algo and --chunks). The candidates run in turn at every size,
// through the same path as a plain run (RankRun.h's tuneRank), and rank 0
// adds what it measured to FILE (collrt/Tuning.h), which
// `collc --tuning FILE` applies. docs/tuning.md describes it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_RUN_TUNE_H
#define COLLC_TOOLS_COLLC_RUN_TUNE_H

#include "collrt/Tuning.h"
#include "collrt/collrt.h"
#include "tools/collc-run/Options.h"
#include "tools/collc-run/RankRun.h"

#include <string>
#include <vector>

namespace collcrun {

struct TuneSetup {
  /// The tuning file as it was before this run (empty when it did not
  /// exist): rank 0 adds the new entries to it.
  collrt::TuningTable table;
  bool processes = false; ///< ranks as processes (else threads)
  /// collc::sched::fingerprint of each candidate's program, in plan order.
  std::vector<uint64_t> fingerprints;
};

/// Reads the candidate plans of `o` (planPath, then morePlans), takes
/// collective o.collective of each, and makes one plan of them in that
/// order. Every candidate must run the same collective on the same world,
/// groups, element type, reduction and (send/recv) pairs; two candidates
/// with the same program are refused. Errors name the plan file.
/// `fingerprints` gets each candidate's program fingerprint, in order.
collrt::Status combineCandidatePlans(const Options &o, collrt::Plan *combined,
                                     std::vector<uint64_t> *fingerprints);

/// The tuning file's current entries: none when it does not exist yet; an
/// error when it exists but cannot be read or breaks a rule (before
/// anything is measured).
collrt::Status loadTuningTarget(const std::string &path,
                                collrt::TuningTable *table);

/// What a rank runs: runRank, or with `tune` tuneRank and then, on rank 0,
/// the new entries added to the file.
collrt::Status runOrTune(const RunSetup &setup, const TuneSetup *tune,
                         collrt::Communicator &comm, ReportExchange &exchange,
                         std::vector<collrt::TraceEvent> *trace);

/// Rank 0 after measuring: one entry per size of setup.sizes, its
/// candidates (setup.plan's collectives) fastest first with
/// best[size][candidate] seconds per call, added to the tuning file (which
/// is written atomically), and a line saying so.
collrt::Status saveTuning(const RunSetup &setup, const TuneSetup &tune,
                          const std::vector<std::vector<double>> &best,
                          const std::string &transport,
                          const std::string &buffers);

} // namespace collcrun

#endif

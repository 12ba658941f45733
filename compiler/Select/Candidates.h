//===- Candidates.h - the candidate schedules of a collective --*- C++ -*-===//
//
// What `collc --emit=candidates` writes a plan of, for collc-run --tuning to
// measure (docs/tuning.md): every applicable algorithm of the library, each
// with the chunk counts asked for and, where the topology caps what one
// channel moves, each channel count selection would try.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SELECT_CANDIDATES_H
#define COLLC_COMPILER_SELECT_CANDIDATES_H

#include "lowering/CollToSched/AlgorithmLibrary.h"

#include <string>
#include <utility>
#include <vector>

namespace collc {

/// The (channel count, chunks per unit) pairs tried for `algorithm`: every
/// chunk count of `counts` with the algorithm's own channels (0); where
/// channels are capped (`capped`) and `params` (--algo-param) leaves the
/// algorithm's channel parameter free, with each of `channelCounts`
/// instead, C channels also with C chunks per unit (so that each has work)
/// unless `chunks` (--chunks) is given.
std::vector<std::pair<int64_t, unsigned>>
candidateGrid(const lowering::Algorithm &algorithm, llvm::StringRef params,
              unsigned chunks, const std::vector<int64_t> &channelCounts,
              const std::vector<unsigned> &counts, bool capped);

/// One candidate schedule of a collective.
struct CandidateSchedule {
  const lowering::Algorithm *algorithm = nullptr;
  /// The value of the algorithm's channel parameter, or 0: its own.
  int64_t channels = 0;
  unsigned chunks = 1; ///< per algorithm unit
  /// "ring x4", "ring x4 rings=2".
  std::string label;
  /// The --algo and --algo-param that compile exactly this candidate.
  std::string algo, params;
  /// The file name without ".plan.json": "ring-x4", "ring-x4-rings2".
  std::string fileStem;
};

/// Every candidate of `collective`, in library order, then channel counts,
/// then chunk counts: with --chunks `chunks` or else 1, 2 and 4 chunks per
/// unit (candidateGrid over those). `params` is --algo-param.
std::vector<CandidateSchedule>
candidateSchedules(const lowering::AlgorithmLibrary &library,
                   sched::Collective collective, llvm::StringRef params,
                   unsigned chunks, const std::vector<int64_t> &channelCounts,
                   bool capped);

} // namespace collc

#endif

//===- RunPlan.h - collc --run: compile, then run on the CPU ----*- C++ -*-===//
//
// `collc PROGRAM --topo T --run` runs the plan it compiled at once: every
// collective on as many ranks as the plan's world, as threads of the collc
// process (libcollrt's CPU executor over the in-process transport), on
// position-dependent inputs at the compiled size, and compares every
// element with the collective's definition (runtime/check), as
// `collc-run PLAN --ranks N --check --iters 1 --warmup 0` would. Plain C++
// over libcollrt: no MLIR here.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_RUN_RUNPLAN_H
#define COLLC_COMPILER_RUN_RUNPLAN_H

#include "collrt/Plan.h"

#include <cstddef>
#include <string>
#include <vector>

namespace collc {

/// How --run draws the send counts of an all_to_all_v whose plan leaves them
/// to run time (collrt::sendCountsAtRunTime), by plan index.
struct RunCounts {
  /// Elements of one row of the split axis: counts are whole rows.
  int64_t rowElements = 1;
  /// >= 0: the transpose of the counts drawn for that earlier plan
  /// collective (a MoE combine returns what the dispatch delivered, as its
  /// `send_counts = linalg.transpose(...)` says).
  int64_t transposeOf = -1;
};

struct RunPlanOptions {
  /// all_to_all_v with counts at run time: each sender's row is a random
  /// split of its input rows (collrt::check::randomSendCounts with this
  /// seed) when its input size is static; the transpose of
  /// an earlier one's when RunCounts::transposeOf says so; otherwise every
  /// sender splits kDynamicRowsPerRank rows.
  uint64_t countsSeed = 1;
  std::vector<RunCounts> counts;
  static constexpr int64_t kDynamicRowsPerRank = 64;
  /// The watchdog of every collective (CommOptions::timeoutSeconds).
  double timeoutSeconds = 60;
  /// The largest message of a connection slot (CommOptions::slotBytes);
  /// every connection of every rank holds its slots at once, so a plan of
  /// 64 ranks with 1 MiB slots needs gigabytes of rings.
  size_t slotBytes = 256 << 10;
};

/// Runs every collective of `plan` once and checks it. Appends to `out` a
/// header line and one line per collective (wrong elements, time, and for
/// counts drawn at run time which: seed and rows per peer); false
/// when a collective failed to run or computed a wrong element (its first
/// wrong elements are listed).
bool runPlanInProcess(const collrt::Plan &plan, const RunPlanOptions &options,
                      std::string &out);

} // namespace collc

#endif

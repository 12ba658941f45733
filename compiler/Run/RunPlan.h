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

namespace collc {

struct RunPlanOptions {
  /// The watchdog of every collective (CommOptions::timeoutSeconds).
  double timeoutSeconds = 60;
  /// The largest message of a connection slot (CommOptions::slotBytes);
  /// every connection of every rank holds its slots at once, so a plan of
  /// 64 ranks with 1 MiB slots needs gigabytes of rings.
  size_t slotBytes = 256 << 10;
};

/// Runs every collective of `plan` once and checks it. Appends to `out` a
/// header line and one line per collective (wrong elements, time); false
/// when a collective failed to run or computed a wrong element (its first
/// wrong elements are listed).
bool runPlanInProcess(const collrt::Plan &plan, const RunPlanOptions &options,
                      std::string &out);

} // namespace collc

#endif

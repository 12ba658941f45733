//===- RunTrace.h - a run of the CPU executor as a Chrome trace -*- C++ -*-===//
//
// collc-run --trace FILE: the TraceEvents of the last run (CommOptions::trace,
// Communicator::lastTrace) as a Chrome trace that Perfetto opens, laid out
// as collc --trace lays out a simulation (docs/simulator.md): a process per
// rank, a thread per channel, an event per instruction and tile, so the
// prediction and the run can be put side by side.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_RUN_RUNTRACE_H
#define COLLC_TOOLS_COLLC_RUN_RUNTRACE_H

#include "collrt/collrt.h"

#include <string>
#include <vector>

namespace collcrun {

/// Writes `events` (any ranks) to `path` as Chrome trace JSON, `title` in
/// its metadata; the file is written whole or not at all (a temporary file
/// renamed into place). An empty string, or why it could not be written.
std::string writeRunTrace(const std::vector<collrt::TraceEvent> &events,
                          const std::string &title, const std::string &path);

/// The file a rank of a multi-process world writes for --trace PATH: PATH
/// with ".rankR" before a ".json" ending (else appended).
std::string rankTracePath(const std::string &path, int32_t rank);

} // namespace collcrun

#endif

//===- Trace.h - a simulation as a Chrome trace -----------------*- C++ -*-===//
//
// Writes a SimResult as Chrome trace-event JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process per rank, one
// thread per channel, one complete event per instruction, and the load of
// the busiest links as counters.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SIMULATE_TRACE_H
#define COLLC_COMPILER_SIMULATE_TRACE_H

#include "compiler/Simulate/Simulator.h"

#include <cstddef>
#include <ostream>

namespace collc::sim {

struct TraceOptions {
  /// How many links (those that carried the most bytes) get a utilization
  /// counter.
  size_t counterLinks = 8;
};

/// Writes `result` (of simulating `program`) to `os` as
/// {"traceEvents": [...], ...}. Times are microseconds. Per rank r, process
/// r ("rank r") holds thread c ("channel c") per channel, with an "X" event
/// per instruction named by its opcode (args: peer, bytes, step,
/// instruction; "recv_peer" too for fused forms). Process numRanks
/// ("links") holds a "C" counter per busy link, named by the link, whose
/// "utilization" is its load over its bandwidth. Needs the timeline and
/// link load (SimOptions::recordTimeline, recordLinkLoad); what is missing
/// is left out.
void writeChromeTrace(const SimResult &result, const sched::Program &program,
                      std::ostream &os,
                      const TraceOptions &options = TraceOptions());

} // namespace collc::sim

#endif

//===- Dot.h - a schedule's dependency graph in Graphviz DOT ---*- C++ -*-===//
//
// `collc --emit=dot`: every instruction of an expanded schedule is a node,
// grouped by rank and channel; edges are program order within a channel,
// cross-channel dependencies and matched send -> recv messages (the k-th
// send on a connection to the k-th recv). Meant for small schedules: above
// a limit the graph is refused, since nobody can read it.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_REPORT_DOT_H
#define COLLC_COMPILER_REPORT_DOT_H

#include "common/Program/Program.h"
#include "compiler/Check/CheckLowered.h"

#include <string>
#include <vector>

namespace collc {

/// The default limit of --emit=dot, in instructions over all schedules.
constexpr size_t kDotInstructionLimit = 2000;

struct DotGraph {
  std::string title; ///< "all_reduce at x.mlir:3:8: ring, k = 8"
  const sched::Program *program = nullptr;
};

/// Writes one digraph into `out`: the schedule's graph, or with several
/// schedules a cluster for each (so that `dot -Tsvg` renders them all). Fails,
/// with `error` saying why and what to do, when the schedules hold more than
/// `limit` instructions together.
bool writeDot(const std::vector<DotGraph> &graphs, size_t limit,
              std::string &out, std::string &error);

/// --emit=dot: writeDot of every expanded schedule of `checked`, each titled
/// "all_reduce at x.mlir:3:8: ring, n = 8, k = 8".
bool writeCheckedDot(const std::vector<CheckedCollective> &checked,
                     size_t limit, std::string &out, std::string &error);

} // namespace collc

#endif

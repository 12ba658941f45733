//===- CollectiveSummary.h - what a coll program communicates ---*- C++ -*-===//
//
// Lists the collectives of a verified module against a topology: where each
// is, its group, the bytes of each rank's buffer, the mesh axes it spans and
// how its group lies on the machine's nodes. collc prints this table.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SUMMARY_COLLECTIVESUMMARY_H
#define COLLC_COMPILER_SUMMARY_COLLECTIVESUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace collc {
namespace topo {
class Topology;
} // namespace topo

/// One collective of the program, as collc reports it.
struct CollectiveInfo {
  mlir::Operation *operation = nullptr;
  std::string function;          ///< the enclosing func.func
  std::string location;          ///< file:line:col of the op
  std::string op;                ///< e.g. "all_reduce"
  std::string mesh;              ///< the mesh symbol
  std::vector<std::string> axes; ///< the mesh axes of the group
  int64_t groupSize = 0;
  int64_t bytesPerRank = 0; ///< negative: known only at run time
  int64_t nodesSpanned = 0; ///< nodes holding the group of rank 0
  int64_t ranksPerNode = 0; ///< group members on each of those nodes
  /// Filled once lowered: the algorithm, chunks per part, whether
  /// sched-verify proved the schedule, the most bytes any rank sends.
  std::string algorithm;
  int64_t chunks = 0;
  std::string verified;
  int64_t sentPerRank = -1;
};

/// One compute op of the program.
struct ComputeInfo {
  std::string function;
  std::string location;
  std::string name;  ///< kernel name, or the op name for other dialects
  double flops = -1; ///< -1 where the op carries no cost
  double bytes = -1;
};

struct ProgramSummary {
  std::vector<CollectiveInfo> collectives;
  std::vector<ComputeInfo> compute;
};

/// Collects the summary of a verified module whose meshes fit the topology.
ProgramSummary summarizeProgram(mlir::ModuleOp module,
                                const topo::Topology &topology);

/// "file.mlir:12:5" for a file location (the file's name without its
/// directories), looking through name and fused locations; "?" otherwise.
std::string formatLocation(mlir::Location loc);

/// Prints the summary as aligned tables.
void printProgramSummary(const ProgramSummary &summary, llvm::raw_ostream &os);

/// "32 MiB", "1.5 KiB", "96 B": binary units, at most 3 significant digits
/// after trimming, exact when the value is a whole number of the unit.
std::string formatBytes(int64_t bytes);

} // namespace collc

#endif

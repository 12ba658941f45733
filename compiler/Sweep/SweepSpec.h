//===- SweepSpec.h - one-op programs for sweeps ----------------*- C++ -*-===//
//
// What `collc --collective C --bytes SIZES --topo T` compiles: the byte
// sizes (B, K/KiB, M/MiB, G/GiB suffixes; MIN:MAX[:FACTOR] ranges as in
// nccl-tests' -b/-e/-f), the element type, the group, and the coll program of
// one collective that each size becomes. The rules are in docs/report.md
// ("Sweeps").
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COMPILER_SWEEP_SWEEPSPEC_H
#define COLLC_COMPILER_SWEEP_SWEEPSPEC_H

#include "common/Program/Program.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {
namespace topo {
class Topology;
} // namespace topo

namespace sweep {

/// The largest --bytes accepted per rank (1 TiB).
constexpr int64_t kMaxBytesPerRank = int64_t(1) << 40;

/// Parses "8", "8B", "64K", "64KiB", "1M", "1MiB", "1G", "1GiB" (powers of
/// 1024, unit letters in any case) into bytes; on failure `error` says why.
std::optional<int64_t> parseByteSize(llvm::StringRef text, std::string &error);

/// --bytes: one size, or MIN:MAX[:FACTOR] (FACTOR an integer >= 2,
/// default 2).
struct ByteSizes {
  int64_t min = 0;
  int64_t max = 0;
  int64_t factor = 2;
  bool range = false; ///< written as MIN:MAX[:FACTOR]

  /// MIN, MIN*FACTOR, ... up to MAX.
  std::vector<int64_t> sizes() const;
};
std::optional<ByteSizes> parseByteSizes(llvm::StringRef text,
                                        std::string &error);

/// An element type of the coll dialect, by its MLIR name.
struct ElementType {
  std::string mlirName; ///< "f32", "bf16", "f8E4M3FN", ...
  unsigned bytes = 4;
};
/// f32 (default), bf16, f16, f64, f8E4M3FN, f8E5M2, i64, i32, i8, and
/// nccl-tests' names (float, bfloat16, half, double, int64, int32, int8).
std::optional<ElementType> parseElementType(llvm::StringRef text,
                                            std::string &error);

/// --group: all ranks, the ranks of one node ("gpu" axis), or one rank per
/// node ("node" axis: a rail).
enum class GroupKind { All, Node, Gpu };
std::optional<GroupKind> parseGroup(llvm::StringRef text, std::string &error);
const char *groupName(GroupKind kind);

/// Everything that defines the generated program but its size.
struct ProgramSpec {
  sched::Collective collective = sched::Collective::AllReduce;
  ElementType element{"f32", 4};
  std::string reduction = "sum"; ///< sum, prod, min, max, avg
  GroupKind group = GroupKind::All;
  int64_t nodes = 1;       ///< of the topology
  int64_t gpusPerNode = 1; ///< of the topology
  int64_t groupSize() const;
};

/// Builds the spec for a topology; errors on a collective collc cannot
/// generate (send_recv), a group that does not exist on the topology (no
/// second node for --group node) or a group of one rank.
std::optional<ProgramSpec>
makeProgramSpec(llvm::StringRef collective, const ElementType &element,
                llvm::StringRef reduction, GroupKind group,
                const topo::Topology &topology, std::string &error);

/// The size granule of a collective: the input must be a whole number of
/// elements, and of N equal parts for reduce_scatter, all_to_all(_v) and
/// scatter.
int64_t sizeGranule(const ProgramSpec &spec);

/// Checks that `bytes` per rank can be generated exactly; on failure
/// `error` says why and which sizes near it would do.
bool checkExactSize(const ProgramSpec &spec, int64_t bytes, std::string &error);

/// `bytes` rounded down to the granule, as nccl-tests rounds its counts
/// (0 when below one granule).
int64_t roundDownSize(const ProgramSpec &spec, int64_t bytes);

/// The coll program of one collective of `bytes` per rank (a multiple of the
/// granule): a mesh of the topology's shape, one function @<collective>.
std::string generateProgram(const ProgramSpec &spec, int64_t bytes);

/// "all_reduce (sum, f32) over all 64 ranks", "all_gather (bf16) over the 8
/// GPUs of a node", ...
std::string describeSpec(const ProgramSpec &spec);

} // namespace sweep
} // namespace collc

#endif

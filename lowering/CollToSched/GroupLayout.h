//===- GroupLayout.h - how a collective's group lies on a mesh --*- C++ -*-===//
#ifndef COLLC_LOWERING_COLLTOSCHED_GROUPLAYOUT_H
#define COLLC_LOWERING_COLLTOSCHED_GROUPLAYOUT_H

#include "dialects/Coll/IR/CollOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <vector>

namespace collc {
namespace lowering {

/// The group that holds mesh rank 0, and how it lies on the machine's nodes.
/// Every group of a collective has the same shape, so this one stands for
/// all of them.
struct GroupLayout {
  int32_t size = 0;
  /// Group index -> mesh rank (= topology GPU rank).
  std::vector<int32_t> meshRanks;
  /// Nodes holding the group, and group ranks on each; 0 without a topology.
  int32_t nodes = 0;
  int32_t ranksPerNode = 0;
  /// Whether group rank i lies on the (i / ranksPerNode)-th of those nodes,
  /// with the same number on each: what hierarchical algorithms assume.
  bool nodeContiguous = false;
};

/// The mesh ranks of the group of mesh rank 0, in group-index order: the
/// group axes' coordinates row-major in the order the axes are listed, the
/// other axes at 0.
std::vector<int32_t> groupOfRankZero(llvm::ArrayRef<int64_t> meshShape,
                                     llvm::ArrayRef<int64_t> groupAxes);

/// The layout of an op's group on nodes of `gpusPerNode` GPUs (0: unknown,
/// then only `size` and `meshRanks` are set).
GroupLayout computeGroupLayout(coll::CollectiveOpInterface op,
                               int64_t gpusPerNode);

/// The `gpus_per_node` of the module's `coll.topology` attribute, or 0.
int64_t gpusPerNodeOf(mlir::ModuleOp module);

} // namespace lowering
} // namespace collc

#endif

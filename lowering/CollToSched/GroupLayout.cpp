//===- GroupLayout.cpp - how a collective's group lies on the mesh --------===//
#include "lowering/CollToSched/GroupLayout.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>

using namespace mlir;

namespace collc {
namespace lowering {

std::vector<int32_t> groupOfRankZero(ArrayRef<int64_t> meshShape,
                                     ArrayRef<int64_t> groupAxes) {
  std::vector<int64_t> strides(meshShape.size(), 1);
  for (int64_t i = static_cast<int64_t>(meshShape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * meshShape[i + 1];
  // Row-major over the listed axes: the last listed axis varies fastest.
  std::vector<int32_t> ranks = {0};
  for (int64_t axis : groupAxes) {
    std::vector<int32_t> next;
    next.reserve(ranks.size() * meshShape[axis]);
    for (int32_t base : ranks)
      for (int64_t c = 0; c < meshShape[axis]; ++c)
        next.push_back(static_cast<int32_t>(base + c * strides[axis]));
    ranks = std::move(next);
  }
  return ranks;
}

GroupLayout computeGroupLayout(coll::CollectiveOpInterface op,
                               int64_t gpusPerNode) {
  GroupLayout layout;
  layout.size = static_cast<int32_t>(op.getGroupSize());
  coll::MeshOp mesh = op.getMeshOp();
  if (!mesh)
    return layout;
  layout.meshRanks = groupOfRankZero(mesh.getShape(), op.getGroupAxisIndices());
  if (gpusPerNode <= 0)
    return layout;
  std::map<int64_t, int32_t> perNode;
  for (int32_t rank : layout.meshRanks)
    ++perNode[rank / gpusPerNode];
  layout.nodes = static_cast<int32_t>(perNode.size());
  layout.ranksPerNode = layout.size / layout.nodes;
  bool even = true;
  for (auto &entry : perNode)
    even &= entry.second == layout.ranksPerNode;
  bool contiguous = even;
  for (int32_t i = 1; contiguous && i < layout.size; ++i) {
    bool sameNode = layout.meshRanks[i] / gpusPerNode ==
                    layout.meshRanks[i - 1] / gpusPerNode;
    contiguous = sameNode == (i % layout.ranksPerNode != 0);
  }
  layout.nodeContiguous = contiguous;
  return layout;
}

int64_t gpusPerNodeOf(ModuleOp module) {
  auto topology = module->getAttrOfType<DictionaryAttr>("coll.topology");
  if (!topology)
    return 0;
  if (auto g = topology.getAs<IntegerAttr>("gpus_per_node"))
    return g.getInt();
  return 0;
}

} // namespace lowering
} // namespace collc

//===- CollInterfaces.td - interfaces of the coll dialect -*- tablegen -*-===//
#ifndef COLL_INTERFACES_TD
#define COLL_INTERFACES_TD

include "mlir/IR/OpBase.td"

def CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::collc::coll";
  let description = [{
    A collective over a group of ranks of a coll.mesh: every coll op except
    coll.mesh and coll.compute. The driver and the lowering read a
    collective's mesh, group and size through this interface only.

    Its verifier checks what every collective shares: the mesh symbol names a
    coll.mesh, the group axes exist and are not repeated, the tensors have a
    supported element type and a size that fits in 64 bits.
  }];

  let methods = [
    InterfaceMethod<"The symbol of the mesh the collective runs on.",
      "::mlir::FlatSymbolRefAttr", "getMeshRef", (ins), [{}], [{
        return $_op.getMeshAttr();
      }]>,
    InterfaceMethod<[{
        The names of the group axes; null when omitted (the whole mesh).
      }],
      "::mlir::ArrayAttr", "getAxesAttr">,
    InterfaceMethod<[{
        The coll.mesh named by getMeshRef(), looked up from the nearest
        symbol table; null when there is no such symbol or it is not a
        coll.mesh.
      }],
      "::collc::coll::MeshOp", "getMeshOp", (ins), [{}], [{
        return ::mlir::SymbolTable::lookupNearestSymbolFrom<
            ::collc::coll::MeshOp>($_op.getOperation(), $_op.getMeshAttr());
      }]>,
    InterfaceMethod<[{
        The group axes as indices into the mesh's axes, in the order they are
        listed (all axes, in mesh order, when `axes` is omitted). Names that
        are not mesh axes are skipped; empty when the mesh is missing.
      }],
      "::llvm::SmallVector<int64_t>", "getGroupAxisIndices", (ins), [{}], [{
        return ::collc::coll::groupAxisIndices($_op.getMeshOp(),
                                               $_op.getAxesAttr());
      }]>,
    InterfaceMethod<[{
        The number of ranks in the group: the product of the group axes'
        sizes. 0 when the mesh is missing (never after verification).
      }],
      "int64_t", "getGroupSize", (ins), [{}], [{
        return ::collc::coll::groupSize($_op.getMeshOp(),
                                        $_op.getGroupAxisIndices());
      }]>,
    InterfaceMethod<[{
        The bytes of each rank's input buffer (for coll.recv, of its
        result). ShapedType::kDynamic (negative) when the buffer has a
        dynamic dimension, as the output of a dynamic all_to_all_v.
      }],
      "int64_t", "getBytesPerRank", (ins), [{}], [{
        return ::collc::coll::bufferBytes(
            $_op->getNumOperands() ? $_op->getOperand(0).getType()
                                   : $_op->getResult(0).getType());
      }]>,
    InterfaceMethod<"The op's name without the dialect, e.g. \"all_reduce\".",
      "::llvm::StringRef", "getCollectiveName", (ins), [{}], [{
        return $_op->getName().stripDialect();
      }]>,
  ];

  let verify = [{
    return ::collc::coll::verifyCollectiveGroup($_op);
  }];
}

#endif // COLL_INTERFACES_TD

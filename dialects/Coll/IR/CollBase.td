//===- CollBase.td - the coll dialect and its attributes --*- tablegen -*-===//
#ifndef COLL_BASE_TD
#define COLL_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Coll_Dialect : Dialect {
  let name = "coll";
  let cppNamespace = "::collc::coll";
  let summary = "SPMD collective communication over a device mesh";
  let description = [{
    The coll dialect describes what a parallel program communicates: one
    function run by every rank of a device mesh, whose values are rank-local
    tensors, with collectives over groups of ranks (a subset of the mesh axes)
    and compute between them.
  }];
  let useDefaultAttributePrinterParser = 1;
}

def Coll_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a reduction combines the contributions of the ranks", [
  I32EnumAttrCase<"sum", 0>,
  I32EnumAttrCase<"prod", 1>,
  I32EnumAttrCase<"min", 2>,
  I32EnumAttrCase<"max", 3>,
  I32EnumAttrCase<"avg", 4>
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::collc::coll";
}

def Coll_ReductionKindAttr : EnumAttr<Coll_Dialect, Coll_ReductionKind, "reduce"> {
  let assemblyFormat = "$value";
}

#endif // COLL_BASE_TD

//===- CollBase.td - the coll dialect and its attributes --*- tablegen -*-===//
#ifndef COLL_BASE_TD
#define COLL_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Coll_Dialect : Dialect {
  let name = "coll";
  let cppNamespace = "::collc::coll";
  let description = [{
    SPMD collective communication over a device mesh.

    The coll dialect describes what a parallel program communicates: one
    function run by every rank of a device mesh, whose values are rank-local
    tensors, with collectives over groups of ranks (a subset of the mesh axes)
    and compute between them.

    **Meshes and groups.** `coll.mesh` declares a named mesh; its ranks are
    numbered row-major over its shape. A collective names a mesh and,
    optionally, some of its axes (`axes = ["gpu"]`): the group of a rank is
    the set of ranks that differ from it only along those axes (all axes when
    omitted). The group size is the product of those axes' sizes, and a
    rank's index in its group is its row-major index over the listed axes,
    in the order they are listed.

    **Element types.** A collective moves tensors whose element type is one
    of the `ElementKind`s: f64, f32, f16, bf16, f8E4M3FN, f8E5M2, i64, i32
    and i8 (integers are signless; min and max compare them as signed).

    **Reductions and the accumulation rule.** A reduction combines the
    contributions of the group's ranks elementwise with a `ReductionKind`
    (sum, prod, min, max, avg):

    - f64 and f32 combine in their own type.
    - f16, bf16, f8E4M3FN and f8E5M2 are converted to f32, combined in f32,
      and rounded to the storage type once, when the value is stored (round
      to nearest, ties to even). f8 results saturate to the largest finite
      value of the type instead of becoming inf or NaN.
    - Integers wrap on overflow (two's complement).
    - avg is sum followed by a division by the group size; it is defined
      for floating-point types only.
    - prod is not allowed on the f8 types: with 3 or 2 mantissa bits and a
      maximum of 448 (E4M3FN) or 57344 (E5M2), a product of a few dozen
      contributions overflows to the saturation value or loses all precision,
      so the result would be meaningless.

    The order in which contributions are combined is not specified, so float
    results may differ from a sequential reduction in the last bits.
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
  let summary = "a reduction kind: sum, prod, min, max or avg";
  let description = [{
    Printed bare inside a coll op (`reduce = sum`) and as `#coll<reduce sum>`
    elsewhere. avg is floating-point only; prod is not allowed on f8 types.
  }];
  let assemblyFormat = "$value";
}

def Coll_ElementKind : I32EnumAttr<"ElementKind",
    "an element type that collectives and reductions may be applied to", [
  I32EnumAttrCase<"f64", 0>,
  I32EnumAttrCase<"f32", 1>,
  I32EnumAttrCase<"f16", 2>,
  I32EnumAttrCase<"bf16", 3>,
  I32EnumAttrCase<"f8E4M3FN", 4>,
  I32EnumAttrCase<"f8E5M2", 5>,
  I32EnumAttrCase<"i64", 6>,
  I32EnumAttrCase<"i32", 7>,
  I32EnumAttrCase<"i8", 8>
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::collc::coll";
}

def Coll_ElementKindAttr : EnumAttr<Coll_Dialect, Coll_ElementKind, "element"> {
  let summary = "an element kind that collectives may move and reduce";
  let description = [{
    Printed as `#coll<element bf16>`. The kinds are exactly the tensor
    element types a collective accepts; see the dialect's accumulation rule
    for how each kind is reduced.
  }];
  let assemblyFormat = "$value";
}

#endif // COLL_BASE_TD

//===- CollOps.td - the coll dialect's operations ---------*- tablegen -*-===//
#ifndef COLL_OPS_TD
#define COLL_OPS_TD

include "dialects/Coll/IR/CollBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Coll_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coll_Dialect, mnemonic, traits>;

def Coll_MeshOp : Coll_Op<"mesh", [Symbol]> {
  let summary = "a named device mesh";
  let description = [{
    Declares a mesh of ranks with a shape and one name per axis. Ranks are
    numbered row-major over the shape.

    ```mlir
    coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$shape,
                       StrArrayAttr:$names);
  let assemblyFormat = "$sym_name `shape` `=` $shape `names` `=` $names attr-dict";
  let hasVerifier = 1;
}

def Coll_AllReduceOp : Coll_Op<"all_reduce", [Pure]> {
  let summary = "every rank of the group gets the reduction of all inputs";
  let description = [{
    ```mlir
    %g = coll.all_reduce %x on @world axes = ["gpu"] reduce = sum
        : tensor<1024xf32> -> tensor<1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes,
                       Coll_ReductionKindAttr:$reduce);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `reduce` `=` $reduce attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // COLL_OPS_TD

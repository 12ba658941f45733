//===- CollOps.td - the coll dialect's operations ---------*- tablegen -*-===//
#ifndef COLL_OPS_TD
#define COLL_OPS_TD

include "dialects/Coll/IR/CollBase.td"
include "dialects/Coll/IR/CollInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Coll_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coll_Dialect, mnemonic, traits>;

// A collective: implements CollectiveOpInterface, whose verifier checks the
// mesh, the group axes and the element types before the op's own verifier.
class Coll_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Coll_Op<mnemonic, !listconcat([CollectiveOpInterface], traits)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Mesh and compute
//===----------------------------------------------------------------------===//

def Coll_MeshOp : Coll_Op<"mesh", [Symbol]> {
  let summary = "a named device mesh";
  let description = [{
    Declares a mesh of ranks with a shape and one name per axis. Ranks are
    numbered row-major over the shape: on a `[8, 8]` mesh, rank
    `8 * node + gpu`. Every extent is positive, the names are unique and
    non-empty, and the mesh has at most 2^20 ranks.

    ```mlir
    coll.mesh @world shape = [8, 8] names = ["node", "gpu"]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$shape,
                       StrArrayAttr:$names);
  let assemblyFormat = "$sym_name `shape` `=` $shape `names` `=` $names attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of ranks: the product of the shape's extents.
    int64_t getNumRanks();
  }];
}

def Coll_ComputeOp : Coll_Op<"compute", [Pure]> {
  let summary = "a named kernel applied to rank-local tensors, with its cost";
  let description = [{
    Applies the kernel `@kernel` to its operands on every rank. The kernel
    is a name, not a symbol that must exist in the module: collc only needs
    its cost, given as the floating-point operations (`flops`) and the
    memory traffic in bytes (`bytes`) of one rank's call, both finite and
    non-negative. The optional `chunk_axis` says along which axis of its
    tensors the kernel can be split into independent chunks, so that it can
    overlap with the communication around it.

    Ops of other dialects (arith, linalg, tensor, func) are compute too.

    ```mlir
    %y = coll.compute @expert_ffn(%x) {flops = 2.0e12 : f64, bytes = 1.0e9 : f64}
        : (tensor<2048x8192xbf16>) -> tensor<2048x8192xbf16>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Variadic<AnyType>:$inputs,
                       F64Attr:$flops, F64Attr:$bytes,
                       OptionalAttr<I64Attr>:$chunk_axis);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Coll_AllReduceOp : Coll_CollectiveOp<"all_reduce", [Pure]> {
  let summary = "every rank of the group gets the reduction of all inputs";
  let description = [{
    Every rank of the group contributes its input and receives the
    elementwise reduction of all contributions. The result has the input's
    type. The reduction kind must be valid for the element type (avg is
    float-only, prod is not allowed on f8).

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
    $input `on` $mesh (`axes` `=` $axes^)? `reduce` `=` `` $reduce attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Coll_AllGatherOp : Coll_CollectiveOp<"all_gather", [Pure]> {
  let summary = "every rank gets the inputs of the group concatenated";
  let description = [{
    Every rank receives the inputs of all ranks of the group concatenated
    along `gather_axis`, in group-rank order: the result's dimension along
    the axis is the input's times the group size; the other dimensions are
    the input's.

    ```mlir
    %y = coll.all_gather %x on @world axes = ["gpu"] gather_axis = 0
        : tensor<512x8192xbf16> -> tensor<4096x8192xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$gather_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `gather_axis` `=` $gather_axis
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Coll_ReduceScatterOp : Coll_CollectiveOp<"reduce_scatter", [Pure]> {
  let summary = "the reduction of all inputs, split among the group";
  let description = [{
    The inputs of the group are reduced elementwise and the result is split
    along `scatter_axis` into group-size equal blocks; the rank with group
    index i gets block i. The input's dimension along the axis must be
    divisible by the group size, and the result's is the quotient.

    ```mlir
    %y = coll.reduce_scatter %x on @world axes = ["gpu"] scatter_axis = 0
        reduce = sum : tensor<4096x8192xbf16> -> tensor<512x8192xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$scatter_axis,
                       Coll_ReductionKindAttr:$reduce);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `scatter_axis` `=` $scatter_axis
    `reduce` `=` `` $reduce attr-dict `:` type($input) `->` type($result)
  }];
}

def Coll_AllToAllOp : Coll_CollectiveOp<"all_to_all", [Pure]> {
  let summary = "every rank sends an equal block to every rank of the group";
  let description = [{
    Each rank splits its input along `split_axis` into group-size equal
    blocks and sends block j to the rank with group index j; the blocks it
    receives are concatenated along `concat_axis` in group-rank order. The
    input's dimension along `split_axis` must be divisible by the group size;
    the result's is the quotient, and its dimension along `concat_axis` is
    multiplied by the group size (both apply when the axes are equal).

    ```mlir
    %y = coll.all_to_all %x on @world split_axis = 0 concat_axis = 1
        : tensor<64x128xf32> -> tensor<1x8192xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$split_axis,
                       I64Attr:$concat_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `split_axis` `=` $split_axis
    `concat_axis` `=` $concat_axis attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Coll_AllToAllVOp : Coll_CollectiveOp<"all_to_all_v", [Pure]> {
  let summary = "all-to-all with per-pair row counts";
  let description = [{
    Each rank sends a run of rows (slices along `split_axis`) to every rank
    of the group; the runs it receives are concatenated along the same axis
    in group-rank order. The routing is an NxN send-count matrix (N = group
    size): entry [r][j] is the number of rows rank r sends to rank j, so row
    r sums to rank r's input rows and column j to rank j's result rows.

    The matrix is either a static attribute (`send_counts = dense<...> :
    tensor<NxNxi64>`, splats allowed) or, when the routing is only known at
    run time, an SSA operand (`send_counts = %counts : tensor<NxNxi64>`).
    Static counts are non-negative and every row sums to the input's
    dimension along `split_axis` (when static). The optional static
    `recv_counts` must be the transpose of a static `send_counts`.

    The result's dimension along `split_axis` is dynamic (`?`) unless the
    counts are static and all columns have the same sum; then it may be
    static and must equal that sum. The other dimensions are the input's.

    ```mlir
    %d = coll.all_to_all_v %x on @world split_axis = 0
        send_counts = dense<32> : tensor<64x64xi64>
        : tensor<2048x8192xbf16> -> tensor<2048x8192xbf16>
    %e = coll.all_to_all_v %x on @world split_axis = 0
        send_counts = %counts : tensor<64x64xi64>
        : tensor<2048x8192xbf16> -> tensor<?x8192xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Optional<TensorOf<[I64]>>:$dynamic_send_counts,
                       FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$split_axis,
                       OptionalAttr<I64ElementsAttr>:$send_counts,
                       OptionalAttr<I64ElementsAttr>:$recv_counts);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `split_axis` `=` $split_axis
    `send_counts` `=` custom<SendCounts>($dynamic_send_counts,
                                         type($dynamic_send_counts),
                                         $send_counts)
    (`recv_counts` `=` $recv_counts^)? attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Coll_BroadcastOp : Coll_CollectiveOp<"broadcast", [Pure]> {
  let summary = "every rank of the group gets the root's input";
  let description = [{
    The rank with group index `root` sends its input to every rank of the
    group; the result has the input's type (the other ranks' inputs are
    ignored). The root is in [0, group size).

    ```mlir
    %w = coll.broadcast %x on @world axes = ["node"] root = 0
        : tensor<4096xf32> -> tensor<4096xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$root);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `root` `=` $root attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Coll_ReduceOp : Coll_CollectiveOp<"reduce", [Pure]> {
  let summary = "the root gets the reduction of all inputs";
  let description = [{
    The inputs of the group are reduced elementwise into the result of the
    rank with group index `root`; the result has the input's type and is
    undefined on the other ranks. The reduction kind must be valid for the
    element type.

    ```mlir
    %s = coll.reduce %x on @world axes = ["gpu"] root = 3 reduce = max
        : tensor<256xf32> -> tensor<256xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$root,
                       Coll_ReductionKindAttr:$reduce);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `root` `=` $root
    `reduce` `=` `` $reduce attr-dict `:` type($input) `->` type($result)
  }];
}

def Coll_ScatterOp : Coll_CollectiveOp<"scatter", [Pure]> {
  let summary = "the root's input, split among the group";
  let description = [{
    The input of the rank with group index `root` is split along
    `scatter_axis` into group-size equal blocks; the rank with group index i
    gets block i. Every rank's input has the same type (only the root's is
    read); its dimension along the axis must be divisible by the group size,
    and the result's is the quotient.

    ```mlir
    %y = coll.scatter %x on @world axes = ["gpu"] root = 0 scatter_axis = 0
        : tensor<64x16xi32> -> tensor<8x16xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$root,
                       I64Attr:$scatter_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `root` `=` $root
    `scatter_axis` `=` $scatter_axis attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Coll_GatherOp : Coll_CollectiveOp<"gather", [Pure]> {
  let summary = "the root gets the inputs of the group concatenated";
  let description = [{
    The inputs of the group are concatenated along `gather_axis` in
    group-rank order into the result of the rank with group index `root`
    (undefined on the other ranks): the result's dimension along the axis is
    the input's times the group size.

    ```mlir
    %y = coll.gather %x on @world axes = ["gpu"] root = 0 gather_axis = 1
        : tensor<16x8xi8> -> tensor<16x64xi8>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes, I64Attr:$root,
                       I64Attr:$gather_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `root` `=` $root
    `gather_axis` `=` $gather_axis attr-dict
    `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

def Coll_SendOp : Coll_CollectiveOp<"send"> {
  let summary = "every rank of the group sends its input to a peer";
  let description = [{
    Rank r (its index in the group) sends its input to the rank with group
    index peer(r). The peer function is either an affine map
    `(r)[n] -> (p)` of the rank and the group size, which must give a rank in
    [0, n) for every r, or a table `array<i64: ...>` with one entry per rank
    of the group, where -1 means the rank does not send. Each send must be
    matched by a coll.recv with the same mesh, axes, tag and tensor type and
    the inverse peer function (checked by `coll-verify-graph`).

    ```mlir
    // A ring shift: r sends to r + 1.
    coll.send %x on @world axes = ["gpu"] to affine_map<(r)[n] -> ((r + 1) mod n)>
        tag = 0 : tensor<1024xf32>
    // A pipeline hand-off: the last of 4 stages does not send.
    coll.send %h on @pp axes = ["stage"] to array<i64: 1, 2, 3, -1>
        tag = 1 : tensor<16x4096xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes,
                       OptionalAttr<AffineMapAttr>:$peer,
                       OptionalAttr<DenseI64ArrayAttr>:$peers, I64Attr:$tag);
  let assemblyFormat = [{
    $input `on` $mesh (`axes` `=` $axes^)? `to` custom<Peer>($peer, $peers)
    `tag` `=` $tag attr-dict `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// The peer of each rank of the group, from `peer` or `peers`.
    ::collc::coll::PeerFunction getPeerFunction() {
      return ::collc::coll::PeerFunction(getPeerAttr(), getPeersAttr());
    }
  }];
}

def Coll_RecvOp : Coll_CollectiveOp<"recv"> {
  let summary = "every rank of the group receives a tensor from a peer";
  let description = [{
    Rank r (its index in the group) receives its result from the rank with
    group index peer(r). The peer function is an affine map `(r)[n] -> (p)`
    giving a rank in [0, n), or a table with one entry per rank of the group,
    where -1 means the rank does not receive (its result is undefined).

    ```mlir
    // The other side of the ring shift: r receives from r - 1.
    %y = coll.recv on @world axes = ["gpu"]
        from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0 : tensor<1024xf32>
    // The first stage does not receive.
    %h = coll.recv on @pp axes = ["stage"] from array<i64: -1, 0, 1, 2>
        tag = 1 : tensor<16x4096xbf16>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh,
                       OptionalAttr<StrArrayAttr>:$axes,
                       OptionalAttr<AffineMapAttr>:$peer,
                       OptionalAttr<DenseI64ArrayAttr>:$peers, I64Attr:$tag);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `on` $mesh (`axes` `=` $axes^)? `from` custom<Peer>($peer, $peers)
    `tag` `=` $tag attr-dict `:` type($result)
  }];
  let extraClassDeclaration = [{
    /// The peer of each rank of the group, from `peer` or `peers`.
    ::collc::coll::PeerFunction getPeerFunction() {
      return ::collc::coll::PeerFunction(getPeerAttr(), getPeersAttr());
    }
  }];
}

#endif // COLL_OPS_TD

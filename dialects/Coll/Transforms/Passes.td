//===- Passes.td - passes over the coll dialect -----------*- tablegen -*-===//
#ifndef COLL_TRANSFORMS_PASSES_TD
#define COLL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CollVerifyGraph : Pass<"coll-verify-graph", "::mlir::ModuleOp"> {
  let summary = "check the rules that span several coll ops";
  let description = [{
    Checks what no single op's verifier can: in each function, every
    coll.send is matched by a coll.recv with the same mesh, group axes and
    tag (the i-th send of a (mesh, axes, tag) with the i-th recv of it, in
    program order), the same tensor type and the inverse peer function: if
    rank r sends to p then p receives from r, and if p receives from r then r
    sends to p, for every rank of the group. An unmatched or mismatched send
    or recv gets a located error that names the first rank that breaks the
    rule, with a note at the other op.

    ```mlir
    coll.send %x on @world axes = ["gpu"]
        to affine_map<(r)[n] -> ((r + 1) mod n)> tag = 0 : tensor<1024xf32>
    %y = coll.recv on @world axes = ["gpu"]
        from affine_map<(r)[n] -> ((r + n - 1) mod n)> tag = 0
        : tensor<1024xf32>
    ```
  }];
  let constructor = "::collc::coll::createCollVerifyGraphPass()";
}

#endif // COLL_TRANSFORMS_PASSES_TD

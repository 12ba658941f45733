//===- SchedBase.td - the sched dialect and its attributes -*- tablegen -*-===//
#ifndef SCHED_BASE_TD
#define SCHED_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let cppNamespace = "::collc::sched";
  let summary = "chunked point-to-point schedules, per rank and channel";
  let description = [{
    The sched dialect says how a collective is carried out: for every rank,
    one or more channels (parallel instruction streams), each a sequence of
    sends, receives, copies and reductions over chunks of three buffers
    (`input`, `output`, `scratch`). A `sched.schedule` expands, for a group
    size n and a number of chunks per part k, into the explicit C++ form
    `collc::sched::Program` (common/Program/Program.h), which
    verification, simulation and plan emission read. docs/sched-guide.md
    explains the model with complete examples.

    **Two forms.** A *rank-parametric* schedule is written once for any
    group size: its body holds `sched.channel` ops whose peers, chunk
    indices, counts, loop bounds and guards are expressions of the rank.
    An *explicit* schedule (for irregular or hand-written algorithms) fixes
    `group_size` and holds one `sched.rank` op per rank, each with its
    channels.

    **Expressions.** Every peer, chunk index, count, step, loop bound and
    dependency index is an integer or an expression over

    - dims `(r, v0, v1, ...)`: the rank, then the variable of an enclosing
      channel range, those of the enclosing `sched.for` loops and the names
      of the enclosing `sched.let` ops, outermost first;
    - symbols `[n, k, p0, p1, ...]`: the group size, the chunks per part,
      then the schedule's named integer parameters in alphabetical order.

    In the custom syntax an expression is an integer (`3`), a name (`r`,
    `k`, `s`, `gpus_per_node`) or a quoted expression over the names in
    scope with `+`, `-`, `*`, `mod`, `floordiv` and `ceildiv`
    (`"(r + s) mod n"`); `mod` is the non-negative remainder. Guards are
    quoted conjunctions of comparisons (`"r mod 2 == 0, r + 1 < n"`). A map
    written positionally (`affine_map<(d0)[s0, s1] -> (d0 + 1)>`,
    `#sched.map<...>`, an alias) or an `affine_set<...>` is accepted too;
    expressions always print with names.
    Expressions are stored as `i64` integer attributes when constant and
    otherwise as single-result affine maps with exactly those dims and
    symbols (guards as integer sets). Products of two non-symbolic operands
    and divisions by a dim are allowed (recursive doubling needs
    `r mod (2 * d)` for a loop variable d); as `affine_map` syntax cannot
    write them, such expressions are held in `#sched.map` and `#sched.set`.

    ```mlir
    sched.schedule @ring_all_gather collective = all_gather algorithm = "ring" {
      sched.channel 0 {
        sched.copy src = input[0] dst = output["r * k"] count = k
        sched.send to "(r + 1) mod n" src = output["r * k"] count = k
        sched.for s = 1 to "n - 1" {
          sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
              dst = output["((r - s) mod n) * k"] count = k step = s
        }
        sched.recv from "(r - 1) mod n" dst = output["((r + 1) mod n) * k"]
            count = k step = "n - 1"
      }
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Sched_CollectiveKind : I32EnumAttr<"CollectiveKind",
    "the collective a schedule implements (its postcondition)", [
  I32EnumAttrCase<"all_reduce", 0>,
  I32EnumAttrCase<"all_gather", 1>,
  I32EnumAttrCase<"reduce_scatter", 2>,
  I32EnumAttrCase<"all_to_all", 3>,
  I32EnumAttrCase<"all_to_all_v", 4>,
  I32EnumAttrCase<"broadcast", 5>,
  I32EnumAttrCase<"reduce", 6>,
  I32EnumAttrCase<"scatter", 7>,
  I32EnumAttrCase<"gather", 8>,
  I32EnumAttrCase<"send_recv", 9>
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::collc::sched";
}

def Sched_CollectiveKindAttr
    : EnumAttr<Sched_Dialect, Sched_CollectiveKind, "collective"> {
  let summary = "a collective: all_reduce, all_gather, ..., send_recv";
  let description = [{
    Printed bare inside sched ops (`collective = all_gather`) and as
    `#sched<collective all_gather>` elsewhere. The values mirror
    `collc::sched::Collective`; each fixes the buffer sizes and the
    postcondition listed in Program.h.
  }];
  let assemblyFormat = "$value";
}

def Sched_BufferKind : I32EnumAttr<"BufferKind",
    "one of the three buffers of a rank", [
  I32EnumAttrCase<"input", 0>,
  I32EnumAttrCase<"output", 1>,
  I32EnumAttrCase<"scratch", 2>
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::collc::sched";
}

def Sched_BufferKindAttr : EnumAttr<Sched_Dialect, Sched_BufferKind, "buffer"> {
  let summary = "a buffer: input, output or scratch";
  let description = [{
    Printed bare before a chunk index inside sched ops (`src = input[3]`)
    and as `#sched<buffer input>` elsewhere.
  }];
  let assemblyFormat = "$value";
}

//===----------------------------------------------------------------------===//
// Expressions and dependencies
//===----------------------------------------------------------------------===//

def Sched_MapAttr : AttrDef<Sched_Dialect, "Map"> {
  let mnemonic = "map";
  let summary = "an expression that affine_map syntax cannot express";
  let description = [{
    A one-result affine map whose expression multiplies two non-symbolic
    operands or divides by a non-symbolic one (`r floordiv d` for a loop
    variable d), which MLIR's `affine_map<...>` parser, and so the generic
    form and bytecode, would reject. The expression is quoted and read by
    the sched expression parser:

    ```mlir
    #sched.map<(d0, d1)[s0, s1] -> "d0 + d1 - (((d0 mod (d1 * 2)) floordiv d1) * 2) * d1">
    ```

    Expressions are built with `getExprAttr`, which picks an integer, an
    `AffineMapAttr` or this attribute; all three mean the same thing.
  }];
  let parameters = (ins "::mlir::AffineMap":$value);
  let hasCustomAssemblyFormat = 1;
}

def Sched_SetAttr : AttrDef<Sched_Dialect, "Set"> {
  let mnemonic = "set";
  let summary = "a condition that affine_set syntax cannot express";
  let description = [{
    The integer set of a `sched.if` whose constraints are not
    (semi-)affine, quoted as the custom syntax writes conditions:

    ```mlir
    #sched.set<(d0, d1)[s0, s1] : "d0 mod (d1 * 2) >= d1">
    ```
  }];
  let parameters = (ins "::mlir::IntegerSet":$value);
  let hasCustomAssemblyFormat = 1;
}

def Sched_ExprAttr : AnyAttrOf<[I64Attr, AffineMapAttr, Sched_MapAttr],
    "an integer or a one-result map over the dims and symbols in scope">;

def Sched_IntegerSetAttr
    : Attr<CPred<"::llvm::isa<::mlir::IntegerSetAttr>($_self)">,
           "integer set attribute">;

def Sched_ConditionAttr : AnyAttrOf<[Sched_IntegerSetAttr, Sched_SetAttr],
    "an integer set over the dims and symbols in scope">;

def Sched_DependencyAttr : AttrDef<Sched_Dialect, "Dependency"> {
  let mnemonic = "dep";
  let summary = "an instruction of another channel of the same rank";
  let description = [{
    `#sched.dep<channel = 1, index = 5>`: the instruction carrying it starts
    only after instruction number `index` (counted from 0 in the expanded
    stream) of channel `channel` of the same rank has completed. `index` is
    an expression in the scope of the instruction. Inside an instruction the
    custom syntax is `after = [(channel 1, index "s - 1")]`.

    Inside a channel range (`sched.channel c = 0 to "rings"`) the channel
    may be an expression too, `after = [(channel "c - 2", index j)]`: it is
    then held in `channel_expr` (an expression in the scope of the
    instruction, evaluated at expansion) and `channel` is 0.

    `(channel 1 to "g", index 1)` names instruction `index` of every channel
    in [1, g) (`channel_end`, an expression evaluated at expansion; an empty
    range names none): one instruction that joins a number of channels that
    depends on the group size, such as a reduce that combines what several
    channels received.
  }];
  let parameters = (ins "uint32_t":$channel, "::mlir::Attribute":$index,
                        OptionalParameter<"::mlir::Attribute">:$channel_expr,
                        OptionalParameter<"::mlir::Attribute">:$channel_end);
  let builders = [
    AttrBuilder<(ins "uint32_t":$channel, "::mlir::Attribute":$index), [{
      return $_get($_ctxt, channel, index, ::mlir::Attribute(),
                   ::mlir::Attribute());
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
}

def Sched_DependencyArrayAttr
    : TypedArrayAttrBase<Sched_DependencyAttr, "cross-channel dependencies">;

#endif // SCHED_BASE_TD

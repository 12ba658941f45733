//===- SchedOps.td - the sched dialect's operations -------*- tablegen -*-===//
#ifndef SCHED_OPS_TD
#define SCHED_OPS_TD

include "dialects/Sched/IR/SchedBase.td"
include "dialects/Sched/IR/SchedInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

// The containers of instructions: a channel, a loop, a guard, a let.
defvar Sched_InStream = ParentOneOf<["ChannelOp", "ForOp", "IfOp", "LetOp"]>;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Sched_ScheduleOp : Sched_Op<"schedule", [Symbol, IsolatedFromAbove,
    NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a schedule for one collective, parametric or explicit";
  let description = [{
    ```
    sched.schedule @name collective = C
        (algorithm = "...")? (group_size = N)? (chunks_per_part = K)?
        (attributes {...})? (params = {name = int, ...})?
        (root = EXPR)? (peer = EXPR)? (scratch = EXPR)?
        (send_counts = array<i64: ...>)? (send_to = array<i64: ...>)?
        (description = "...")?
        { body }
    ```

    A named schedule implementing `collective`. Its body holds either
    `sched.channel` ops (the rank-parametric form: every rank runs them,
    with `r` bound to its rank) or `sched.rank` ops (the explicit form: one
    per rank that has instructions; requires `group_size`), not both.

    - `algorithm`: the algorithm's name (the symbol name when absent).
    - `group_size`: the schedule is only valid for this many ranks; absent,
      it is valid for any group size n.
    - `chunks_per_part`: likewise for k, the chunks per part.
    - `params`: named integer parameters (e.g. `gpus_per_node`), symbols
      after n and k in alphabetical order; the values given are defaults
      that expansion may override.
    - `root`: required by broadcast, reduce, scatter and gather (the root),
      an expression of the symbols only, as is `scratch`, the number of
      scratch chunks (0 when absent).
    - send_recv moves every rank's input along a partial permutation: `peer`
      is the receiver of rank r's input, an expression of the symbols and
      `r` (a ring shift: `peer = "(r + 1) mod n"`); with a `root`, only the
      root sends (to peer(root)). `send_to` gives the permutation as a
      table instead, for a fixed group size: the receiver of each rank, -1
      for a rank that sends nothing. A send_recv schedule has `peer` or
      `send_to`. Its parameters named `send_peer` and `recv_peer`, when
      declared, are set per rank by expansion: the rank r sends to and the
      rank it receives from, -1 for none.
    - `send_counts`: all_to_all_v's n*n matrix, row-major by sender, for a
      fixed group size.
    - `description`: free text.

    Buffers follow the collective (Program.h): with N ranks and K chunks
    per part, all_gather has K input and N*K output chunks, and so on.

    ```mlir
    sched.schedule @pairwise collective = all_to_all group_size = 2
        chunks_per_part = 1 {
      sched.rank 0 {
        sched.channel 0 {
          sched.copy src = input[0] dst = output[0]
          sched.send to 1 src = input[1]
          sched.recv from 1 dst = output[1]
        }
      }
      sched.rank 1 {
        sched.channel 0 {
          sched.copy src = input[1] dst = output[1]
          sched.send to 0 src = input[0]
          sched.recv from 0 dst = output[0]
        }
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Sched_CollectiveKindAttr:$collective,
                       OptionalAttr<StrAttr>:$algorithm,
                       OptionalAttr<SI32Attr>:$group_size,
                       OptionalAttr<SI32Attr>:$chunks_per_part,
                       OptionalAttr<DictionaryAttr>:$params,
                       OptionalAttr<Sched_ExprAttr>:$root,
                       OptionalAttr<Sched_ExprAttr>:$peer,
                       OptionalAttr<Sched_ExprAttr>:$scratch,
                       OptionalAttr<DenseI64ArrayAttr>:$send_counts,
                       OptionalAttr<DenseI64ArrayAttr>:$send_to,
                       OptionalAttr<StrAttr>:$description);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `collective` `=` custom<Collective>($collective)
    (`algorithm` `=` $algorithm^)?
    (`group_size` `=` $group_size^)?
    (`chunks_per_part` `=` $chunks_per_part^)?
    attr-dict-with-keyword
    custom<ScheduleBody>($params, $root, $peer, $scratch, $send_counts,
                         $send_to, $description, $body)
  }];
  let extraClassDeclaration = [{
    /// Whether the body holds sched.rank ops (the explicit form).
    bool isExplicit();
    /// The number of symbols of expressions: n, k and the parameters.
    unsigned getNumSymbols();
    /// The names of the symbols: "n", "k", then the parameters.
    ::llvm::SmallVector<::llvm::StringRef> getSymbolNames();
  }];
}

def Sched_RankOp : Sched_Op<"rank", [HasParent<"ScheduleOp">, NoTerminator,
    SingleBlock, NoRegionArguments]> {
  let summary = "the channels of one rank, in an explicit schedule";
  let description = [{
    Holds the `sched.channel` ops of rank `rank` of an explicit schedule;
    expressions inside see `r` as this constant. Ranks are unique and in
    [0, group_size); a rank without a `sched.rank` op has no instructions.

    ```mlir
    sched.rank 1 {
      sched.channel 0 {
        sched.recv from 0 dst = output[0]
      }
    }
    ```
  }];
  let arguments = (ins SI32Attr:$rank);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$rank attr-dict-with-keyword custom<Body>($body)";
}

def Sched_ChannelOp : Sched_Op<"channel", [ParentOneOf<["ScheduleOp",
    "RankOp"]>, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "one instruction stream of a rank, or a range of them";
  let description = [{
    The instructions of channel `id` (in [0, 256)), executed in order.
    Channels of a rank run in parallel; connections are per channel, and
    dependencies between channels are explicit (`after`). Ids are unique
    in a schedule (parametric form) or rank (explicit form); they need not
    be dense.

    ```mlir
    sched.channel 1 {
      sched.send to "(r + 1) mod n" src = input[1]
    }
    ```

    **Channel ranges.** `sched.channel c = LB to UB { ... }` stands for
    the channels `c = LB, LB + 1, ...` below `UB`, each running the body
    with `c` bound to its id: the number of channels can be a parameter
    (`rings` parallel rings). `LB` is an integer; `UB` is an expression of
    the symbols only (n, k and the parameters), evaluated when the schedule
    is expanded. The body sees `c` as a dim after `r` and before the
    variables of its loops. Ids of all channels of a schedule (or rank)
    must stay distinct and below 256 once expanded; a range may be empty.

    ```mlir
    sched.channel c = 0 to "rings" {
      sched.for j = c to k step "rings" {
        sched.send to "(r + 1) mod n" src = input[j]
      }
    }
    ```
  }];
  let arguments = (ins SI32Attr:$id, OptionalAttr<StrAttr>:$var,
                       OptionalAttr<Sched_ExprAttr>:$upper);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<ChannelRange>($id, $var, $upper) attr-dict-with-keyword
    custom<ChannelBody>(ref($var), $body)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::IntegerAttr":$id), [{
      build($_builder, $_state, id, ::mlir::StringAttr(), ::mlir::Attribute());
    }]>
  ];
  let extraClassDeclaration = [{
    /// Whether this op stands for a range of channels (`c = LB to UB`).
    bool isRange() { return static_cast<bool>(getVarAttr()); }
  }];
}

def Sched_ForOp : Sched_Op<"for", [Sched_InStream, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "a loop over an integer variable";
  let description = [{
    Runs its body for `var` = `lower`, `lower + step`, ... while below
    `upper` (exclusive), or, with `step * c`, for `var` = `lower`,
    `lower * c`, `lower * c^2`, ... while below `upper` (a geometric loop;
    `lower` must then be at least 1 and `c` at least 2). The bounds and the
    step are expressions of the enclosing scope; the body sees `var` as a
    new dim after those of the enclosing loops. The name is a plain
    identifier, distinct from r, n, k, the parameters and the enclosing
    loops' variables. The step defaults to 1 and must be positive.

    ```mlir
    sched.for s = 1 to "n - 1" {
      sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
          dst = output["(r - s) mod n"] step = s
    }
    sched.for d = 1 to n step * 2 {
      sched.send to "r + d - 2 * (r mod (2 * d) floordiv d) * d"
          src = output[0]
    }
    ```
  }];
  let arguments = (ins StrAttr:$var, Sched_ExprAttr:$lower,
                       Sched_ExprAttr:$upper,
                       OptionalAttr<Sched_ExprAttr>:$step,
                       UnitAttr:$geometric);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<LoopVar>($var) `=` custom<Expr>($lower) `to` custom<Expr>($upper)
    (`step` custom<Step>($step, $geometric)^)?
    attr-dict-with-keyword custom<LoopBody>(ref($var), $body)
  }];
}

def Sched_IfOp : Sched_Op<"if", [Sched_InStream, NoTerminator,
    NoRegionArguments]> {
  let summary = "a guard: instructions for the ranks and steps it holds for";
  let description = [{
    Runs the `then` region where every constraint of `condition` holds,
    and the optional `else` region elsewhere. The condition is an integer
    set over the scope's dims and symbols, written as a quoted,
    comma-separated conjunction of comparisons (`==`, `>=`, `<=`, `>`,
    `<`) of expressions.

    ```mlir
    sched.if "2 * r + 1 < n" {
      sched.recv from "2 * r + 1" dst = output[0]
    } else {
      sched.copy src = input[0] dst = output[0]
    }
    ```
  }];
  let arguments = (ins Sched_ConditionAttr:$condition);
  let extraClassDeclaration = [{
    /// The condition's integer set, whichever attribute holds it.
    ::mlir::IntegerSet getConditionSet();
  }];
  let regions = (region SizedRegion<1>:$then_region,
                        MaxSizedRegion<1>:$else_region);
  let assemblyFormat = [{
    custom<Condition>($condition) attr-dict-with-keyword
    custom<Body>($then_region) (`else` $else_region^)?
  }];
}

def Sched_LetOp : Sched_Op<"let", [Sched_InStream, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "names for expressions, in scope in its body";
  let description = [{
    `sched.let a = EXPR, b = EXPR { body }` binds each name to the value of
    its expression, evaluated once where the let is reached, and runs the
    body once with the names in scope: an expression used many times (a
    slice's first block, a peer) is written once and read by its name. Each
    expression sees the enclosing scope and the names bound before it in
    the same let; the body sees all of them. The names are plain
    identifiers, distinct from r, n, k, the parameters, the enclosing loop
    and channel-range variables, the names of enclosing lets and each
    other. The body sees each name as a new dim after those of the
    enclosing scope, in order, as if bound by a loop with one iteration.

    ```mlir
    sched.schedule @shift_all_to_all collective = all_to_all algorithm = "shift" {
      sched.channel 0 {
        sched.copy src = input["r * k"] dst = output["r * k"] count = k
      }
      // Channel c sends part next to rank next, receives part prev.
      sched.channel c = 1 to n {
        sched.let next = "(r + c) mod n", prev = "(r - c) mod n" {
          sched.send to next src = input["next * k"] count = k step = c
          sched.recv from prev dst = output["prev * k"] count = k step = c
        }
      }
    }
    ```
  }];
  let arguments = (ins StrArrayAttr:$names,
                       TypedArrayAttrBase<Sched_ExprAttr,
                                          "the names' expressions">:$values);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<LetBindings>($names, $values) attr-dict-with-keyword
    custom<LetBody>(ref($names), $body)
  }];
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

// An instruction with its opcode (a collc::sched::Opcode enumerator, whose
// name, collrt/Opcodes.h's, is the mnemonic: SchedOps.cpp checks it) and the
// operands it takes: a sender, a receiver, a source and a destination range.
class Sched_InstructionOp<string mnemonic, string opcode, bit hasFrom,
                          bit hasTo, bit hasSrc, bit hasDst>
    : Sched_Op<mnemonic, [Sched_InStream, Sched_InstructionOpInterface]> {
  let arguments = !con(
    !if(hasFrom, (ins Sched_ExprAttr:$from), (ins)),
    !if(hasTo, (ins Sched_ExprAttr:$to), (ins)),
    !if(hasSrc, (ins Sched_BufferKindAttr:$src, Sched_ExprAttr:$src_index),
        (ins)),
    !if(hasDst, (ins Sched_BufferKindAttr:$dst, Sched_ExprAttr:$dst_index),
        (ins)),
    (ins OptionalAttr<Sched_ExprAttr>:$count,
         OptionalAttr<Sched_ExprAttr>:$step,
         OptionalAttr<Sched_DependencyArrayAttr>:$after));
  let assemblyFormat = !strconcat(
    !if(hasFrom, "`from` custom<Expr>($from) ", ""),
    !if(hasTo, "`to` custom<Expr>($to) ", ""),
    !if(hasSrc, "`src` `=` custom<Chunk>($src, $src_index) ", ""),
    !if(hasDst, "`dst` `=` custom<Chunk>($dst, $dst_index) ", ""),
    "(`count` `=` custom<Expr>($count)^)? ",
    "(`step` `=` custom<Expr>($step)^)? ",
    "(`after` `=` custom<Dependencies>($after)^)? attr-dict");
  let extraClassDeclaration = [{
    static constexpr ::collc::sched::Opcode getOpcode() {
      return ::collc::sched::Opcode::}] # opcode # [{;
    }
  }];
}

// The operands common to every instruction, for the descriptions.
defvar Sched_CommonOperands = [{

    `count` (default 1) is the number of consecutive chunks, the same for
    every range of the instruction; `step` (default 0) is the algorithm's
    step, for messages and traces; `after` lists instructions of other
    channels of the rank that must complete first.
}];

def Sched_SendOp : Sched_InstructionOp<"send", "Send", 0, 1, 1, 0> {
  let summary = "send a chunk range to a peer";
  let description = [{
    Posts `count` chunks of `src`, starting at the index, to the connection
    to rank `to` on this channel; the peer's matching `recv` (its k-th from
    this rank on this channel for this rank's k-th send) receives them.
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.send to "(r + 1) mod n" src = input["r * k"] count = k step = 0
    ```
  }];
}

def Sched_RecvOp : Sched_InstructionOp<"recv", "Recv", 1, 0, 0, 1> {
  let summary = "receive a chunk range from a peer";
  let description = [{
    Waits for the next arrival on the connection from rank `from` on this
    channel and stores it in `count` chunks of `dst`.
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.recv from "(r - 1) mod n" dst = output["(r - 1) mod n"] step = 1
    ```
  }];
}

def Sched_CopyOp : Sched_InstructionOp<"copy", "Copy", 0, 0, 1, 1> {
  let summary = "copy a chunk range locally";
  let description = [{
    `dst = src` over `count` chunks of the executing rank's buffers.
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.copy src = input[0] dst = output["r * k"] count = k
    ```
  }];
}

def Sched_ReduceOp : Sched_InstructionOp<"reduce", "Reduce", 0, 0, 1, 1> {
  let summary = "reduce one or several chunk ranges into another, locally";
  let description = [{
    `dst = dst (op) src` over `count` chunks, with the collective's
    reduction. With `fanin = w` (default 1) the source is `w` consecutive
    ranges of `count` chunks each, `src[i * count + j]` for `i < w`, and
    `dst[j] = dst[j] (op) src[j] (op) src[count + j] ... (op)
    src[(w-1) count + j]`: one pass that combines `w + 1` values, as a
    one-shot all-reduce kernel reads all its peers' data at once. The
    source ranges must not overlap `dst`.
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.reduce src = scratch[0] dst = output[0]
    // output[0..2) += scratch[0..2) + scratch[2..4) + scratch[4..6)
    sched.reduce src = scratch[0] dst = output[0] count = 2 fanin = 3
    ```
  }];
  let arguments = (ins Sched_BufferKindAttr:$src, Sched_ExprAttr:$src_index,
                       Sched_BufferKindAttr:$dst, Sched_ExprAttr:$dst_index,
                       OptionalAttr<Sched_ExprAttr>:$count,
                       OptionalAttr<Sched_ExprAttr>:$fanin,
                       OptionalAttr<Sched_ExprAttr>:$step,
                       OptionalAttr<Sched_DependencyArrayAttr>:$after);
  let assemblyFormat = [{
    `src` `=` custom<Chunk>($src, $src_index)
    `dst` `=` custom<Chunk>($dst, $dst_index)
    (`count` `=` custom<Expr>($count)^)?
    (`fanin` `=` custom<Expr>($fanin)^)?
    (`step` `=` custom<Expr>($step)^)?
    (`after` `=` custom<Dependencies>($after)^)? attr-dict
  }];
}

def Sched_RecvReduceSendOp
    : Sched_InstructionOp<"recv_reduce_send", "RecvReduceSend", 1, 1, 1, 0> {
  let summary = "receive, reduce with a local range and forward";
  let description = [{
    Receives from `from`, reduces the arrival with `src` and sends the
    result to `to`; nothing is stored (the middle of a ring reduce).
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.recv_reduce_send from "(r - 1) mod n" to "(r + 1) mod n"
        src = input["(r - s - 1) mod n"] step = s
    ```
  }];
}

def Sched_RecvCopySendOp
    : Sched_InstructionOp<"recv_copy_send", "RecvCopySend", 1, 1, 0, 1> {
  let summary = "receive, store and forward";
  let description = [{
    Receives from `from`, stores the arrival in `dst` and sends it on to
    `to` (the middle of a ring all-gather or a pipelined broadcast).
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.recv_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
        dst = output["(r - s) mod n"] step = s
    ```
  }];
}

def Sched_RecvReduceCopyOp
    : Sched_InstructionOp<"recv_reduce_copy", "RecvReduceCopy", 1, 0, 1, 1> {
  let summary = "receive and store the reduction with a local range";
  let description = [{
    Receives from `from` and stores `arrival (op) src` in `dst`.
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.recv_reduce_copy from "(r - 1) mod n" src = input[r] dst = output[r]
    ```
  }];
}

def Sched_RecvReduceCopySendOp
    : Sched_InstructionOp<"recv_reduce_copy_send", "RecvReduceCopySend",
                          1, 1, 1, 1> {
  let summary = "receive, reduce with a local range, store and forward";
  let description = [{
    Receives from `from`, stores `arrival (op) src` in `dst` and sends
    `dst` to `to` (the last reduce step of a ring all-reduce).
  }] # Sched_CommonOperands # [{

    ```mlir
    sched.recv_reduce_copy_send from "(r - 1) mod n" to "(r + 1) mod n"
        src = input["(r + 1) mod n"] dst = output["(r + 1) mod n"]
        step = "n - 1"
    ```
  }];
}

#endif // SCHED_OPS_TD

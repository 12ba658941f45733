//===- Passes.td - passes of the sched dialect ------------*- tablegen -*-===//
#ifndef SCHED_PASSES_TD
#define SCHED_PASSES_TD

include "mlir/Pass/PassBase.td"

// The options that say what to expand for, shared by the expansion passes.
defvar Sched_ExpandOptions = [
  Option<"groupSize", "group-size", "int32_t", "0",
         "the group size n (0: each schedule's group_size)">,
  Option<"chunks", "chunks", "uint32_t", "0",
         "the chunks per part k (0: each schedule's chunks_per_part, or 1)">,
  ListOption<"params", "params", "std::string",
             "parameter values, name=value, replacing the schedule's">,
  Option<"schedule", "schedule", "std::string", "\"\"",
         "only the schedule with this symbol name (default: all)">,
  Option<"maxInstructions", "max-instructions", "uint64_t", "uint64_t(1) << 26",
         "fail beyond this many instructions">,
  Option<"maxLoopIterations", "max-loop-iterations", "uint64_t",
         "uint64_t(1) << 28", "fail beyond this many loop iterations">,
];

def SchedExpandCheck : Pass<"sched-expand-check", "mlir::ModuleOp"> {
  let summary = "Expand every schedule and print a summary of its Program";
  let description = [{
    Expands every `sched.schedule` (or the one named by `schedule`) for the
    given group size and chunk count, as `expandSchedule` does, and prints
    to standard output, per schedule, a header line (collective, algorithm,
    n, k, root, buffers, instruction count) and for each rank its channels
    and instructions in the explicit form's syntax. `ranks` and
    `instructions` bound what is listed; `timing` adds the expansion time.
    The IR is left unchanged; an expansion error fails the pass.

    ```
    sched-test-opt --sched-expand-check="group-size=3" ring.mlir -o /dev/null
    ```
  }];
  let options = !listconcat(Sched_ExpandOptions, [
    Option<"ranks", "ranks", "int64_t", "-1",
           "ranks listed in detail (-1: all)">,
    Option<"instructions", "instructions", "int64_t", "-1",
           "instructions listed per channel (-1: all)">,
    Option<"timing", "timing", "bool", "false",
           "print how long each expansion took">,
  ]);
}

def SchedExpand : Pass<"sched-expand", "mlir::ModuleOp"> {
  let summary = "Replace every schedule by its explicit form for one group size";
  let description = [{
    Expands every `sched.schedule` (or the one named by `schedule`) for the
    given group size and chunk count and replaces it with the explicit
    form of the resulting Program (`buildExplicitSchedule`): same symbol
    name, `group_size` and `chunks_per_part` fixed, one `sched.rank` per
    rank, every operand a constant. Expanding the result again gives the
    same Program.
  }];
  let options = Sched_ExpandOptions;
}

#endif // SCHED_PASSES_TD

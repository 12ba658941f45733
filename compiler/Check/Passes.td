//===- Passes.td - checks of lowered schedules ------------*- tablegen -*-===//
#ifndef COLLC_COMPILER_CHECK_PASSES_TD
#define COLLC_COMPILER_CHECK_PASSES_TD

include "mlir/Pass/PassBase.td"

def SchedVerify : Pass<"sched-verify", "::mlir::ModuleOp"> {
  let summary = "prove sched.schedule ops correct and deadlock-free";
  let description = [{
    Expands every sched.schedule of the module for each group size and chunk
    count asked for and runs the verifier of compiler/Verify on the result:
    well-formedness, send/recv matching per connection, deadlock freedom with
    bounded connection slots (printing the wait-for cycle), the collective's
    postcondition by symbolic execution, and co-residency. A failure is an
    error at the schedule naming the expansion, with the verifier's messages
    as notes; a success prints one line per expansion on stderr.

    `chunks` counts chunks per algorithm unit: a schedule with
    `collc.chunk_unit = "n"` is expanded with k = chunks * n, as collc does.
    A schedule written for a fixed `group_size` (or `chunks_per_part`) is
    checked for that n (or k) only, whatever `group-sizes` (or `chunks`)
    says.
    all_to_all_v schedules are expanded with each send-count pattern of
    `counts`: uniform, skewed (destination 0 receives 5x the others),
    zero-row (rank 1 sends nothing), zero-col (rank 1 receives nothing),
    random (fixed seed).

    send_recv schedules are expanded with each permutation of `send-to`:
    schedule (the schedule's own `peer`, `root` or `send_to`), shift
    (r -> (r + 1) mod n), chain (r -> r + 1, the last rank sends nothing: a
    pipeline hand-off), reverse (r -> r - 1, rank 0 sends nothing), pairs
    (r <-> r xor 1, the last rank alone when n is odd), or a table of
    colon-separated receivers, -1 for none (`send-to=1:2:3:-1`), for the
    group size of its length.

    ```
    collc-opt my_algo.mlir --sched-verify="group-sizes=2,3,8 chunks=1,2"
    ```
  }];
  let options = [
    ListOption<"groupSizes", "group-sizes", "int32_t",
               "group sizes to expand parametric schedules for">,
    ListOption<"chunks", "chunks", "unsigned",
               "chunks per algorithm unit (default: 1; an explicit "
               "schedule's chunks_per_part wins)">,
    Option<"params", "params", "std::string", "\"\"",
           "parameter values, name=value,... (default: the schedule's)">,
    ListOption<"sendTo", "send-to", "std::string",
               "send_recv permutations: schedule (its own peer), shift, "
               "chain, reverse, pairs, or a table 1:2:0 (default: schedule)">,
    ListOption<"counts", "counts", "std::string",
               "all_to_all_v send-count patterns (default: uniform,skewed,"
               "zero-row,zero-col)">,
    Option<"slots", "slots", "unsigned", "8",
           "in-flight sends per connection">,
    Option<"maxChannels", "max-channels", "unsigned", "32",
           "channels a rank can run at once">,
    Option<"maxRaceStreams", "max-race-streams", "unsigned", "2048",
           "channel streams the race check follows before it is skipped "
           "(VerifyOptions::maxRaceStreams)">
  ];
  let constructor = "::collc::createSchedVerifyPass()";
}

#endif // COLLC_COMPILER_CHECK_PASSES_TD

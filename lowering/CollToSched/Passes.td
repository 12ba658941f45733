//===- Passes.td - coll collectives to sched schedules ----*- tablegen -*-===//
#ifndef COLLC_LOWERING_COLLTOSCHED_PASSES_TD
#define COLLC_LOWERING_COLLTOSCHED_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertCollToSched : Pass<"convert-coll-to-sched", "::mlir::ModuleOp"> {
  let summary = "lower every collective to a schedule of the algorithm library";
  let description = [{
    Chooses an algorithm and a chunk count for every collective of the
    module (lowerCollectives), copies the chosen sched.schedule into the
    module and links the collective to it: `sched.schedule = @name` and
    `sched.chunks_per_part = k`; the copy's `params` say the values it is
    expanded with. A coll.recv is lowered with its coll.send, as one
    send_recv. A collective that no algorithm can run is left as it is (the
    report says why); an unknown `algo`, an algorithm that cannot run the
    collective named for it, or an `algo-param` no chosen algorithm declares
    is an error.

    Run on its own (collc-opt), the pass chooses by the documented default
    rule among the built-in algorithms and those of `algo-file`; the group
    layout on nodes comes from the module's `coll.topology` attribute.
    collc's pipeline (`--collc-pipeline`, compiler/Pipeline) runs it with
    hooks instead: its library, selection by simulation as the chooser, and
    a receiver of what was chosen (the lowered collectives with their
    expansion options) for the stages after it. Synthesis of schedules from
    the topology will plug in there too.

    ```
    collc-opt prog.mlir --convert-coll-to-sched="algo=all_reduce=ring chunks=2"
    ```
  }];
  let options = [
    Option<"algo", "algo", "std::string", "\"\"",
           "NAME for every collective that has an algorithm of that name, "
           "or COLLECTIVE=NAME,... (collc --algo)">,
    Option<"chunks", "chunks", "unsigned", "0",
           "chunks per algorithm unit (0: chosen, else 1; collc --chunks)">,
    Option<"algoParam", "algo-param", "std::string", "\"\"",
           "parameters of the chosen algorithms, NAME=VALUE,... "
           "(collc --algo-param)">,
    ListOption<"algoFiles", "algo-file", "std::string",
               "also the sched.schedule algorithms of these files "
               "(collc --algo-file)">
  ];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

#endif // COLLC_LOWERING_COLLTOSCHED_PASSES_TD

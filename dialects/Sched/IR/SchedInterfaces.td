//===- SchedInterfaces.td - interfaces of sched ops -------*- tablegen -*-===//
#ifndef SCHED_INTERFACES_TD
#define SCHED_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Sched_InstructionOpInterface : OpInterface<"InstructionOp"> {
  let cppNamespace = "::collc::sched";
  let description = [{
    An instruction of a channel stream: one `collc::sched::Opcode`. Its
    operands are the attributes `from` (the sender of the recv part), `to`
    (the receiver of the send part), `src`/`src_index` and
    `dst`/`dst_index` (chunk ranges), `count`, `step` and `after`, present
    as the opcode needs them.
  }];
  let methods = [
    StaticInterfaceMethod<"The opcode this op expands to.",
                          "::collc::sched::Opcode", "getOpcode">,
  ];
}

#endif // SCHED_INTERFACES_TD

//===- CheckLowered.cpp - expand and verify lowered collectives -----------===//
#include "compiler/Check/CheckLowered.h"

#include "mlir/IR/Diagnostics.h"

namespace collc {

std::vector<CheckedCollective>
checkLowered(std::vector<lowering::LoweredCollective> lowered,
             const sched::VerifyOptions &options) {
  std::vector<CheckedCollective> checked;
  checked.reserve(lowered.size());
  for (lowering::LoweredCollective &l : lowered) {
    CheckedCollective c;
    c.lowered = std::move(l);
    if (c.lowered.algorithm) {
      mlir::FailureOr<sched::Program> program =
          sched::expandSchedule(c.lowered.schedule, c.lowered.expand);
      if (succeeded(program)) {
        c.verify = sched::verifyProgram(*program, options);
        if (!c.verify.ok()) {
          mlir::InFlightDiagnostic diag =
              c.lowered.op->emitError("sched-verify: the ")
              << c.lowered.algorithm->name << " schedule of this "
              << sched::collectiveName(c.lowered.collective) << " ("
              << c.lowered.algorithm->source
              << ", n = " << c.lowered.layout.size
              << ", k = " << c.lowered.expand.chunksPerPart << ") is wrong";
          for (const sched::VerifyError &error : c.verify.errors)
            diag.attachNote() << error.message;
        }
        c.program = std::move(*program);
      }
    }
    checked.push_back(std::move(c));
  }
  return checked;
}

} // namespace collc

//===- sched-test-opt.cpp - MlirOptMain for the sched dialect's tests -----===//
#include "dialects/Sched/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  collc::sched::registerSchedDialect(registry);
  collc::sched::registerSchedPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "sched dialect test driver\n", registry));
}

//===- collc-opt.cpp - MlirOptMain with every collc dialect and pass ------===//
#include "compiler/Pipeline/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  collc::registerCollcDialects(registry);
  collc::registerCollcPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "collc optimizer driver\n", registry));
}

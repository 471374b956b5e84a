//===- poot-opt.cpp - The mlir-opt of poot --------------------------------===//
//
// Parses, verifies and transforms poot graphs with any prefix of the poot
// pipeline, printing IR. Every poot pass is registered, plus MLIR's generic
// canonicalize and cse.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"

/// --poot-explain: every fusion pass reports each candidate as a remark.
static llvm::cl::opt<bool> explainAll(
    "poot-explain",
    llvm::cl::desc("Report every fusion candidate and why it fused or not"),
    llvm::cl::cb<void, bool>([](bool on) { poot::setExplainByDefault(on); }));

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<poot::PootDialect, mlir::func::FuncDialect>();
  poot::registerPootPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "poot optimizer driver\n", registry));
}

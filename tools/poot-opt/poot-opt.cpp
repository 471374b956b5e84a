//===- poot-opt.cpp - The mlir-opt of poot --------------------------------===//
//
// Parses, verifies and transforms poot graphs with any prefix of the poot
// pipeline, printing IR. Every poot pass is registered, plus MLIR's generic
// canonicalize and cse, and every dialect the generator writes, so the output
// of any prefix (--poot-generate's kernels included) reads back in.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Codegen/Passes.h"
#include "poot/Passes/Passes.h"
#include "poot/Plan/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
  registry.insert<poot::PootDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::arith::ArithDialect,
                  mlir::scf::SCFDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::vector::VectorDialect,
                  mlir::spirv::SPIRVDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::ROCDL::ROCDLDialect,
                  mlir::nvgpu::NVGPUDialect>();
  poot::registerPootPasses();
  poot::registerPootPlanPasses();
  poot::registerPootCodegenPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  // Diagnostics name the location, not the op's IR, unless asked: MLIR 19's
  // printer crashes on some malformed attributes (an i1 dense array) that
  // the verifier would print on its way to the error.
  std::vector<char *> args(argv, argv + argc);
  std::string quiet = "--mlir-print-op-on-diagnostic=false";
  if (llvm::none_of(args, [](const char *a) {
        return llvm::StringRef(a).contains("print-op-on-diagnostic");
      }))
    args.insert(args.begin() + 1, quiet.data());
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(), "poot optimizer driver\n",
      registry));
}

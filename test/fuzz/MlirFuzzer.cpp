//===- MlirFuzzer.cpp - libFuzzer target: poot graphs as MLIR text --------===//
//
// Parses the input as an MLIR module with the dialects a poot graph uses
// (poot, func) registered, which runs the parser, the poot dialect's
// attribute and type parsers, its op parsers and verifiers (PootOps.cpp,
// PootFusedOps.cpp, PootSparseOps.cpp, the graph conventions of
// PootDialect.cpp). A module that verifies then goes through the fusion
// pipeline the compiler runs (poot-canonicalize, poot-rope, poot-attention,
// poot-block-select), which is where a
// hostile graph reaches the folds, the range analysis and the matchers; with
// an odd input length the passes explain every candidate too. Every
// diagnostic is swallowed: an error is the expected answer to a bad graph. A
// crash, a sanitizer report, or a pass that leaves IR that does not verify
// is a defect (the last one aborts).
//
// A fresh context per input, single-threaded, so nothing carries from one
// input to the next.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

namespace {

const DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *reg = new DialectRegistry;
    reg->insert<poot::PootDialect, func::FuncDialect>();
    return reg;
  }();
  return *r;
}

void addFusionPasses(OpPassManager &fpm, bool explain) {
  fpm.addPass(poot::createCanonicalize());
  poot::RopeFusionOptions rope;
  rope.explain = explain;
  fpm.addPass(poot::createRopeFusion(rope));
  poot::AttentionFusionOptions attention;
  attention.explain = explain;
  fpm.addPass(poot::createAttentionFusion(attention));
  poot::BlockSelectOptions select;
  select.explain = explain;
  fpm.addPass(poot::createBlockSelect(select));
}

} // namespace

/// MLIR and LLVM are prebuilt without ASan, poot's code with it: the inline
/// allocators of LLVM's headers (BumpPtrAllocator) then poison a slab in an
/// instrumented copy and hand it out from an uninstrumented one, a report
/// that is no defect. Manual poisoning is what only those headers do here,
/// so it is off; ASan's own redzones and checks stay.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext ctx(registry(), MLIRContext::Threading::DISABLED);
  // As the tools do: MLIR 19's printer crashes on some malformed
  // attributes (an i1 dense array) a verifier error would print.
  ctx.printOpOnDiagnostic(false);
  ctx.loadAllAvailableDialects();
  // Swallows every diagnostic (errors and the explain remarks alike).
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });

  // As the compile driver does: a copy in a NUL-terminated buffer, which
  // MLIR's lexer relies on (parseSourceString on bytes that are not
  // NUL-terminated reads past their end). The parser verifies what it
  // parsed (ParserConfig's verifyAfterParse).
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input.mlir"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
  if (!module)
    return 0;

  // The verifier runs once at the end, so that a pass leaving invalid IR
  // aborts here instead of reading as a refused graph.
  PassManager pm(&ctx);
  pm.enableVerifier(false);
  addFusionPasses(pm.nest<func::FuncOp>(), /*explain=*/size % 2 == 1);
  if (failed(pm.run(*module)))
    return 0; // a pass refused the graph with a diagnostic
  if (failed(verify(*module))) {
    llvm::errs() << "the fusion passes left a module that does not verify\n";
    std::abort();
  }
  return 0;
}

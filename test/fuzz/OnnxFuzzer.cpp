//===- OnnxFuzzer.cpp - libFuzzer target: the ONNX importer ---------------===//
//
// Parses the input as an ONNX ModelProto and imports it (lib/Frontend/ONNX)
// with one fixed set of dimension bindings (the names the test models use:
// batch=2, seq=3, past=4, total=7, total_seq=7, enc_seq=6) and the
// weights read, external data looked up in an empty directory made at start.
// An import error must come back as a message; an import that succeeds must
// give a module that verifies, one weight record per weight input, and a
// graph that the fusion pipeline (poot-canonicalize, poot-rope,
// poot-attention, poot-block-select) either refuses with a diagnostic or
// leaves verifying. Anything else aborts; crashes and sanitizer reports are
// defects as they stand.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Frontend/ONNX.h"
#include "poot/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

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

/// An empty directory for external data: a model naming a data file finds
/// nothing there, and the importer never reads outside it.
const std::string &emptyDir() {
  static std::string *dir = [] {
    char tmpl[] = "/tmp/poot-fuzz-onnx-XXXXXX";
    const char *made = mkdtemp(tmpl);
    if (!made) {
      std::perror("mkdtemp");
      std::abort();
    }
    return new std::string(made);
  }();
  return *dir;
}

const poot::onnx::ImportOptions &options() {
  static poot::onnx::ImportOptions *o = [] {
    auto *opts = new poot::onnx::ImportOptions;
    opts->dims = {{"batch", 2}, {"seq", 3},       {"past", 4},
                  {"total", 7}, {"total_seq", 7}, {"enc_seq", 6}};
    opts->loadWeights = true;
    opts->externalDataDir = emptyDir();
    return opts;
  }();
  return *o;
}

[[noreturn]] void fail(const char *what) {
  llvm::errs() << "onnx fuzz: " << what << "\n";
  std::abort();
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

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)options(); // make the directory before the first input
  atexit([] { rmdir(emptyDir().c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > static_cast<size_t>(INT_MAX))
    return 0;
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    return 0;

  MLIRContext ctx(registry(), MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });

  auto result = poot::onnx::importModel(ctx, model, options());
  if (!result) {
    std::string message = llvm::toString(result.takeError());
    if (message.empty())
      fail("an import error without a message");
    return 0;
  }
  if (!result->module)
    fail("an import that succeeded without a module");
  if (failed(verify(*result->module)))
    fail("the importer wrote a module that does not verify");
  for (const poot::onnx::Weight &w : result->weights)
    if (w.name.empty())
      fail("a weight without a name");

  PassManager pm(&ctx);
  pm.enableVerifier(false);
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(poot::createCanonicalize());
  fpm.addPass(poot::createRopeFusion());
  fpm.addPass(poot::createAttentionFusion());
  fpm.addPass(poot::createBlockSelect());
  if (succeeded(pm.run(*result->module)) && failed(verify(*result->module)))
    fail("the fusion passes left an imported module that does not verify");
  return 0;
}

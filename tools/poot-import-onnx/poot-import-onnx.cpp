//===- poot-import-onnx.cpp - Writes an ONNX model as a poot graph --------===//
//
// Imports an ONNX model with the bound symbolic dimensions and prints the
// poot graph. With --weights-dir each initializer that became a graph input
// is written as DIR/<name>.npy, so `poot-run --input=NAME=DIR/NAME.npy`
// binds it. On any error it prints one line naming the problem and writes
// nothing: neither the graph nor a weight file.
//
//===----------------------------------------------------------------------===//

#include "poot/Frontend/ONNX.h"
#include "poot/Runtime/Npy.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("poot-import-onnx options");

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.onnx>"), cl::cat(category));
cl::list<std::string> dimSpecs("dim",
                               cl::desc("Bind a symbolic dimension: name=N"),
                               cl::value_desc("name=N"), cl::cat(category));
cl::opt<int64_t> kvCapacity("kv-capacity",
                            cl::desc("Turn the past/present caches into state "
                                     "of this many rows written at the pos "
                                     "slot (docs/onnx.md)"),
                            cl::init(0), cl::cat(category));
cl::opt<std::string> weightsDir(
    "weights-dir",
    cl::desc("Write each weight input as DIR/<name>.npy (the directory must "
             "exist)"),
    cl::value_desc("dir"), cl::cat(category));
cl::opt<std::string> funcName("func", cl::desc("Name of the graph function"),
                              cl::init("main"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file"), cl::init("-"),
                                cl::value_desc("filename"), cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::errs() << "poot-import-onnx: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "poot-import-onnx: ONNX model -> poot graph\n");

  poot::onnx::ImportOptions options;
  options.funcName = funcName;
  if (llvm::Error err = poot::onnx::bindDims(dimSpecs, options))
    return fail(llvm::toString(std::move(err)));
  if (kvCapacity.getNumOccurrences())
    options.kvCapacity = kvCapacity;
  options.loadWeights = !weightsDir.empty();
  if (!weightsDir.empty() && !llvm::sys::fs::is_directory(weightsDir))
    return fail("--weights-dir '" + weightsDir + "' is not a directory");

  MLIRContext ctx;
  auto result = poot::onnx::importModelFile(ctx, modelPath, options);
  if (!result) {
    std::string message = llvm::toString(result.takeError());
    if (message.find("unbound symbolic dimension") != std::string::npos)
      message += " (bind it with --dim NAME=N)";
    return fail(message);
  }

  // Render the graph first, so nothing is written when any step fails.
  std::string text;
  llvm::raw_string_ostream os(text);
  result->module->print(os);
  os.flush();

  std::unique_ptr<llvm::ToolOutputFile> out;
  if (outputFile != "-") {
    std::string err;
    out = openOutputFile(outputFile, &err);
    if (!out)
      return fail(err);
  }

  if (!weightsDir.empty())
    if (llvm::Error err = poot::onnx::writeWeights(weightsDir, *result))
      return fail(llvm::toString(std::move(err)));

  if (out) {
    out->os() << text;
    out->keep();
  } else {
    llvm::outs() << text;
  }
  return 0;
}

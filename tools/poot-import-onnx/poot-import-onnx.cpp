//===- poot-import-onnx.cpp - Writes an ONNX model as a poot graph --------===//
//
// Imports an ONNX model with the bound symbolic dimensions and prints the
// poot graph. With --weights-dir each initializer that became a graph input
// is written as DIR/<name>.npy, so `poot-run --input=NAME=DIR/NAME.npy`
// binds it. On any error it prints one line naming the problem and writes
// nothing: neither the graph nor a weight file. With --narrow-i64 every
// int64 value of the graph (inputs, weights, constants, results) is i32, for
// devices without 64-bit integers (the generic vulkan preset: shaderInt64 is
// optional in Vulkan).
//
//===----------------------------------------------------------------------===//

#include "poot/Frontend/ONNX.h"
#include "poot/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>

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

cl::opt<bool> narrowI64(
    "narrow-i64",
    cl::desc("Store every int64 value as i32 (inputs, weights, constants, "
             "results), for devices without 64-bit integers (the generic "
             "vulkan preset); a constant outside the i32 range is an error"),
    cl::init(false), cl::cat(category));

/// `type` with an i64 element type (of a tensor, or itself) made i32.
Type narrowed(Type type) {
  Builder b(type.getContext());
  if (type.isInteger(64))
    return b.getI32Type();
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    if (tensor.getElementType().isInteger(64))
      return RankedTensorType::get(tensor.getShape(), b.getI32Type(),
                                   tensor.getEncoding());
  return type;
}

/// Rewrites every i64 tensor of the module as i32: block arguments,
/// results, function types and the payload of constants. Integer values a
/// graph computes with are positions, lengths and token ids, which fit;
/// a constant that does not is refused. Sentinels such as INT64_MAX never
/// reach the graph: the importer folds the Slice bounds they appear in.
llvm::Error narrowModule(ModuleOp module, poot::onnx::ImportResult &result) {
  std::string err;
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(narrowed(arg.getType()));
    for (OpResult r : op->getResults())
      r.setType(narrowed(r.getType()));
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      FunctionType ft = func.getFunctionType();
      llvm::SmallVector<Type> ins, outs;
      for (Type t : ft.getInputs())
        ins.push_back(narrowed(t));
      for (Type t : ft.getResults())
        outs.push_back(narrowed(t));
      func.setFunctionType(FunctionType::get(op->getContext(), ins, outs));
    }
    if (op->getName().getStringRef() != "poot.constant")
      return;
    auto value = op->getAttrOfType<DenseIntElementsAttr>("value");
    if (!value || !value.getElementType().isInteger(64))
      return;
    llvm::SmallVector<int32_t> narrow;
    for (const llvm::APInt &v : value.getValues<llvm::APInt>()) {
      int64_t x = v.getSExtValue();
      if (x < std::numeric_limits<int32_t>::min() ||
          x > std::numeric_limits<int32_t>::max()) {
        if (err.empty())
          err = "--narrow-i64: constant " + std::to_string(x) +
                " does not fit in i32";
        return;
      }
      narrow.push_back(static_cast<int32_t>(x));
    }
    auto type = cast<RankedTensorType>(narrowed(value.getType()));
    if (value.isSplat())
      op->setAttr("value", DenseElementsAttr::get(type, narrow.front()));
    else
      op->setAttr("value",
                  DenseElementsAttr::get(type, llvm::ArrayRef<int32_t>(narrow)));
  });
  if (!err.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), err);
  for (poot::onnx::Weight &w : result.weights) {
    if (w.value.dtype() != poot::rt::DType::I64)
      continue;
    for (double v : w.value.values())
      if (v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "--narrow-i64: weight '" + w.name + "' has values outside i32");
    poot::rt::TensorType type = w.value.type();
    type.dtype = poot::rt::DType::I32;
    w.value = poot::rt::Tensor(type, w.value.values());
  }
  return llvm::Error::success();
}

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

  if (narrowI64)
    if (llvm::Error err = narrowModule(result->module.get(), *result))
      return fail(llvm::toString(std::move(err)));

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

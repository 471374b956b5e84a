//===- Options.cpp - What the tools share around the importer ------------===//
//
// Binding symbolic dimensions from "NAME=N" flags and writing the imported
// weights beside a graph or plan, for poot-import-onnx and poot-compile.
//
//===----------------------------------------------------------------------===//

#include "poot/Frontend/ONNX.h"
#include "poot/Runtime/Npy.h"

#include "llvm/Support/FileSystem.h"

using namespace poot;

llvm::Error poot::onnx::bindDims(const std::vector<std::string> &specs,
                                 ImportOptions &options) {
  for (const std::string &spec : specs) {
    auto [name, value] = llvm::StringRef(spec).split('=');
    int64_t n = 0;
    if (name.empty() || value.getAsInteger(10, n) || n < 1)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--dim expects name=N with N >= 1, got '" + spec + "'");
    if (!options.dims.emplace(name.str(), n).second)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--dim binds '" + name.str() +
                                         "' twice");
  }
  return llvm::Error::success();
}

llvm::Error poot::onnx::writeWeights(llvm::StringRef dir,
                                     const ImportResult &result) {
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + dir.str() + "' is not a directory");
  std::vector<std::pair<std::string, const rt::Tensor *>> files;
  for (const Weight &w : result.weights)
    files.emplace_back(
        fileSafeName(w.name), &w.value);
  if (rt::Status s = rt::writeNpyFiles(dir.str(), files); !s.isOk())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "writing weights: " + s.toString());
  return llvm::Error::success();
}

//===- ONNX.h - Imports ONNX models as poot graphs --------------*- C++ -*-===//
//
// The ONNX front end reads a ModelProto (through ONNX's generated protobuf
// classes) and writes one poot graph: a func.func over static shapes whose
// symbolic dimensions are bound by the caller. Initializers become graph
// inputs named after themselves, so the IR never grows with weight bytes;
// small integer tensors that shapes and indices are computed from (Reshape
// shapes, Slice starts, Gather indices, scalars) are folded into constants,
// and shape-computing subgraphs (Shape, Gather, Concat, ...) fold away once
// the dimensions are bound. docs/onnx.md lists the ops and the limits.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_FRONTEND_ONNX_H
#define POOT_FRONTEND_ONNX_H

#include "poot/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace poot::onnx {

/// What the importer needs besides the model.
struct ImportOptions {
  /// Values of the model's symbolic dimensions (`dim_param`), by name. A
  /// dimension the graph needs and that is not bound here is an error
  /// naming it.
  std::map<std::string, int64_t> dims;
  /// Capacity of the KV cache for models with past/present inputs and
  /// outputs. Not used yet: a model whose graph would need it imports as
  /// written (the concat form), and a capacity given is checked to be >= 1.
  std::optional<int64_t> kvCapacity;
  /// Name of the graph function.
  std::string funcName = "main";
  /// Read every initializer that becomes a graph input into `weights`.
  bool loadWeights = false;
  /// Directory external data files are looked up in; by default the
  /// directory of the model file (empty: the current directory).
  std::string externalDataDir;
};

/// One initializer that became a graph input, with its values when the
/// options asked for them.
struct Weight {
  std::string name;
  rt::Tensor value;
};

/// The imported graph and what the caller binds to its weight inputs.
struct ImportResult {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The weight inputs in argument order (values only with loadWeights).
  std::vector<Weight> weights;
};

/// Parses the ONNX model file at `path` and imports it. Errors (a file
/// that cannot be read, a malformed protobuf, an unknown op, an unbound
/// dimension, a missing external data file, ...) come back as one message
/// that names the node and op where one applies.
llvm::Expected<ImportResult> importModelFile(mlir::MLIRContext &ctx,
                                             llvm::StringRef path,
                                             const ImportOptions &options);

/// Imports a parsed model. External data is read relative to
/// `options.externalDataDir`.
llvm::Expected<ImportResult> importModel(mlir::MLIRContext &ctx,
                                         const ::onnx::ModelProto &model,
                                         const ImportOptions &options);

/// `name` with every character outside [A-Za-z0-9._:-] replaced by '_'
/// (and "_" before an empty, "." or ".." name): a file name, and the name a
/// weight input is given.
std::string fileSafeName(llvm::StringRef name);
/// The file name a weight is written to in a weights directory:
/// fileSafeName(name) + ".npy".
std::string weightFileName(llvm::StringRef name);

/// Adds the bindings "NAME=N" (N >= 1, each name once) of `specs` to
/// `options.dims`; an error naming the first spec that is not one.
llvm::Error bindDims(const std::vector<std::string> &specs,
                     ImportOptions &options);

/// Writes every weight of `result` (imported with loadWeights) as
/// `dir/weightFileName(name)`, all or none.
llvm::Error writeWeights(llvm::StringRef dir, const ImportResult &result);

} // namespace poot::onnx

#endif // POOT_FRONTEND_ONNX_H

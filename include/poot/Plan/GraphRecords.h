//===- GraphRecords.h - From a poot function to eqn records -----*- C++ -*-===//
//
// Turns a verified poot graph (a func.func at any stage of the pipeline) into
// the eqn records the runtime and the reference evaluator work on, so the
// oracle runs without MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PLAN_GRAPHRECORDS_H
#define POOT_PLAN_GRAPHRECORDS_H

#include "poot/Runtime/Graph.h"

#include "llvm/Support/Error.h"

namespace mlir {
class ModuleOp;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace poot {

/// Records `fn`. Fails with a message naming the op and its location when the
/// function holds an op or a type the records cannot carry.
llvm::Expected<rt::Graph> toGraphRecords(mlir::func::FuncOp fn);

/// Finds the graph of `module`: the function called `name`, or when `name` is
/// empty its only public function.
llvm::Expected<mlir::func::FuncOp> findGraph(mlir::ModuleOp module,
                                             llvm::StringRef name);

} // namespace poot

#endif // POOT_PLAN_GRAPHRECORDS_H

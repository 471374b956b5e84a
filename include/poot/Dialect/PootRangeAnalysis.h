//===- PootRangeAnalysis.h - Integer ranges of a poot graph -----*- C++ -*-===//
//
// MLIR's IntegerRangeAnalysis, seeded with what a poot graph declares: an
// argument with `poot.range = array<i64: lo, hi>` enters the analysis as
// [lo, hi - 1] (the binder refuses anything else). Poot ops are asked for
// their ranges even when some operand is a float, since many of them mix
// float and integer operands (gather, select, topk).
//
//===----------------------------------------------------------------------===//
#ifndef POOT_DIALECT_POOTRANGEANALYSIS_H
#define POOT_DIALECT_POOTRANGEANALYSIS_H

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"

#include <optional>

namespace poot {

class PootRangeAnalysis : public mlir::dataflow::IntegerRangeAnalysis {
public:
  using IntegerRangeAnalysis::IntegerRangeAnalysis;

  void setToEntryState(mlir::dataflow::IntegerValueRangeLattice *lattice)
      override;
  void visitOperation(
      mlir::Operation *op,
      llvm::ArrayRef<const mlir::dataflow::IntegerValueRangeLattice *> operands,
      llvm::ArrayRef<mlir::dataflow::IntegerValueRangeLattice *> results)
      override;
};

/// Runs the range analysis over `root` once and answers queries.
class RangeOracle {
public:
  explicit RangeOracle(mlir::Operation *root);
  /// The proven signed range of every element of `value`, if known.
  std::optional<mlir::ConstantIntRanges> rangeOf(mlir::Value value) const;
  bool succeeded() const { return ok; }

private:
  mlir::DataFlowSolver solver;
  bool ok = false;
};

} // namespace poot

#endif // POOT_DIALECT_POOTRANGEANALYSIS_H

//===- PootRangeAnalysis.cpp - Integer ranges of a poot graph -------------===//
//
// Seeds IntegerRangeAnalysis with the ranges a graph declares on its inputs.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootRangeAnalysis.h"
#include "poot/Dialect/PootDialect.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::dataflow;
using namespace poot;

static unsigned intWidthOf(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  Type et = tensor ? tensor.getElementType() : value.getType();
  auto it = dyn_cast<IntegerType>(et);
  return it ? it.getWidth() : 0;
}

void PootRangeAnalysis::setToEntryState(IntegerValueRangeLattice *lattice) {
  Value value = lattice->getPoint();
  unsigned width = intWidthOf(value);
  if (!width)
    return; // floats are not tracked: the lattice stays uninitialised
  ConstantIntRanges range = ConstantIntRanges::maxRange(width);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (fn && arg.getOwner()->isEntryBlock()) {
      if (auto declared = fn.getArgAttrOfType<DenseI64ArrayAttr>(
              arg.getArgNumber(), attrs::kRange);
          declared && declared.size() == 2)
        range = ConstantIntRanges::fromSigned(
            APInt(width, declared[0], /*isSigned=*/true),
            APInt(width, declared[1] - 1, /*isSigned=*/true));
    }
  }
  propagateIfChanged(lattice, lattice->join(IntegerValueRange(range)));
}

void PootRangeAnalysis::visitOperation(
    Operation *op, ArrayRef<const IntegerValueRangeLattice *> operands,
    ArrayRef<IntegerValueRangeLattice *> results) {
  auto inferrable = dyn_cast<InferIntRangeInterface>(op);
  if (!inferrable || !isa<PootDialect>(op->getDialect()))
    return IntegerRangeAnalysis::visitOperation(op, operands, results);
  SmallVector<IntegerValueRange> argRanges;
  for (const IntegerValueRangeLattice *lattice : operands)
    argRanges.push_back(lattice->getValue());
  auto join = [&](Value v, const IntegerValueRange &range) {
    auto result = dyn_cast<OpResult>(v);
    if (!result || result.getOwner() != op)
      return;
    IntegerValueRangeLattice *lattice = results[result.getResultNumber()];
    propagateIfChanged(lattice, lattice->join(range));
  };
  inferrable.inferResultRangesFromOptional(argRanges, join);
}

RangeOracle::RangeOracle(Operation *root) {
  solver.load<DeadCodeAnalysis>();
  solver.load<SparseConstantPropagation>();
  solver.load<PootRangeAnalysis>();
  ok = mlir::succeeded(solver.initializeAndRun(root));
}

std::optional<ConstantIntRanges> RangeOracle::rangeOf(Value value) const {
  auto *lattice = solver.lookupState<IntegerValueRangeLattice>(value);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

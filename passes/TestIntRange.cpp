//===- TestIntRange.cpp - Print proven integer ranges ---------------------===//
//
// A test pass: writes what the range analysis proves about each integer
// result into the IR so lit tests can check the proofs fusion relies on.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootRangeAnalysis.h"
#include "poot/Passes/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace poot {
#define GEN_PASS_DEF_TESTINTRANGE
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

struct TestIntRangePass
    : public poot::impl::TestIntRangeBase<TestIntRangePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    RangeOracle oracle(fn);
    if (!oracle.succeeded())
      return signalPassFailure();
    fn.walk([&](Operation *op) {
      if (op == fn || op->getNumResults() == 0)
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      bool any = false;
      for (Value result : op->getResults()) {
        auto tensor = dyn_cast<RankedTensorType>(result.getType());
        if (!tensor || !isa<IntegerType>(tensor.getElementType()))
          continue;
        if (any)
          os << " ";
        any = true;
        if (auto range = oracle.rangeOf(result)) {
          bool isBool = tensor.getElementType().isInteger(1);
          if (isBool)
            os << "[" << range->umin().getZExtValue() << ", "
               << range->umax().getZExtValue() << "]";
          else
            os << "[" << range->smin().getSExtValue() << ", "
               << range->smax().getSExtValue() << "]";
        } else {
          os << "?";
        }
      }
      if (any)
        op->setAttr("ranges", StringAttr::get(op->getContext(), os.str()));
    });
  }
};

} // namespace

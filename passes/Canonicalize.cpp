//===- Canonicalize.cpp - Normal forms for the fusion matchers ------------===//
//
// poot-canonicalize: the poot folds plus the normalising patterns the
// matchers rely on.
//
//===----------------------------------------------------------------------===//

#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace poot {
#define GEN_PASS_DEF_CANONICALIZE
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

/// transpose(transpose(x, p1), p2) is transpose(x, p1[p2]).
struct ComposeTransposes : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a transpose");
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getX(), perm);
    return success();
  }
};

/// broadcast(broadcast(x)) is one broadcast of x.
struct ComposeBroadcasts : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<BroadcastOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a broadcast");
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, inner.getX(), op.getShape());
    return success();
  }
};

struct CanonicalizePass
    : public poot::impl::CanonicalizeBase<CanonicalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateCanonicalizePatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void poot::populateCanonicalizePatterns(RewritePatternSet &patterns) {
  patterns.add<ComposeTransposes, ComposeBroadcasts>(patterns.getContext());
}

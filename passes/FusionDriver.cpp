//===- FusionDriver.cpp - Running fusion patterns with explanations -------===//
//
// The driver every fusion pass shares: the greedy rewrite, plus the
// --poot-explain report of each candidate, fused or declined.
//
//===----------------------------------------------------------------------===//

#include "poot/Passes/Patterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace {

/// Forgets the declines of candidates the rewrite erased, so a later op
/// allocated at the same address is never reported with their reason.
struct ForgetErased : public RewriterBase::Listener {
  explicit ForgetErased(llvm::DenseMap<Operation *, std::string> &declined)
      : declined(declined) {}
  void notifyOperationErased(Operation *op) override { declined.erase(op); }
  llvm::DenseMap<Operation *, std::string> &declined;
};

} // namespace

LogicalResult poot::applyFusionPatterns(
    Operation *root, StringRef what, bool explain,
    llvm::function_ref<void(RewritePatternSet &, ExplainFn)> populate,
    llvm::function_ref<bool(Operation *)> stillCandidate) {
  RewritePatternSet patterns(root->getContext());
  llvm::DenseMap<Operation *, std::string> declined;
  ExplainFn fn;
  std::string label = what.str();
  if (explain)
    fn = [&declined, label](Operation *op, bool fused,
                            const std::string &reason) {
      if (fused) {
        op->emitRemark() << label << " fused: " << reason;
        declined.erase(op);
      } else {
        declined[op] = reason;
      }
    };
  populate(patterns, fn);
  ForgetErased listener(declined);
  GreedyRewriteConfig config;
  config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
  config.listener = &listener;
  if (failed(applyPatternsAndFoldGreedily(root, std::move(patterns), config)))
    return failure();
  if (explain)
    root->walk([&](Operation *op) {
      auto it = declined.find(op);
      if (it != declined.end() && (!stillCandidate || stillCandidate(op)))
        op->emitRemark() << label << " declined: " << it->second;
    });
  return success();
}

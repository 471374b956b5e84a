//===- Rope.cpp - RoPE chains -> poot.rope --------------------------------===//
//
// poot-rope (being written).
//
//===----------------------------------------------------------------------===//

#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace poot {
#define GEN_PASS_DEF_ROPEFUSION
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {
struct RopeFusionPass : public poot::impl::RopeFusionBase<RopeFusionPass> {
  using RopeFusionBase::RopeFusionBase;
  void runOnOperation() override {}
};
} // namespace

void poot::populateRopeFusionPatterns(RewritePatternSet &, ExplainFn) {}

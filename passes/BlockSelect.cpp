//===- BlockSelect.cpp - Sparse block selection -> fused sparse ops -------===//
//
// poot-block-select (being written).
//
//===----------------------------------------------------------------------===//

#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

namespace poot {
#define GEN_PASS_DEF_BLOCKSELECT
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;

namespace {
struct BlockSelectPass : public poot::impl::BlockSelectBase<BlockSelectPass> {
  using BlockSelectBase::BlockSelectBase;
  void runOnOperation() override {}
};
} // namespace

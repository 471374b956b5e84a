//===- PootSparseOps.cpp - Typing rules of the sparse ops -----------------===//
//
// The typing rules of poot.block_topk and poot.selected_attention: what the
// block-selected sparse form may hold. poot-block-select declines a chain
// these rules cannot type and leaves it alone, so a verified op is one the
// evaluator and the kernel generator can take without further checks.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"

#include "AttentionLayout.h"

using namespace mlir;
using namespace poot;

/// A position is one scalar for every batch row or one per row.
static bool isPosOf(RankedTensorType pos, int64_t batch) {
  return pos.getRank() == 0 ||
         (pos.getRank() == 1 && pos.getDimSize(0) == batch);
}

//===----------------------------------------------------------------------===//
// block_topk
//===----------------------------------------------------------------------===//

int64_t BlockTopKOp::getNumBlocks() {
  return getScores().getType().getDimSize(2) / static_cast<int64_t>(getRatio());
}

LogicalResult BlockTopKOp::verify() {
  auto scores = getScores().getType();
  if (scores.getRank() != 3)
    return emitOpError() << "expected scores of rank 3 [B, Lq, Lk], got rank "
                         << scores.getRank();
  int64_t b = scores.getDimSize(0), lq = scores.getDimSize(1),
          lk = scores.getDimSize(2);
  int64_t ratio = getRatio();
  if (ratio < 1 || lk % ratio)
    return emitOpError() << "expected a ratio dividing the " << lk
                         << " keys, got " << ratio;
  int64_t blocks = lk / ratio;
  int64_t k = getK();
  if (k < 1 || k > blocks)
    return emitOpError() << "expected k in [1, " << blocks << "], got " << k;
  if (auto pos = getPos())
    if (!isPosOf(cast<RankedTensorType>(pos.getType()), b))
      return emitOpError() << "expected pos as a scalar or [" << b << "], got "
                           << pos.getType();
  auto out = getBlocks().getType();
  SmallVector<int64_t> expected{b, lq, k};
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected blocks [" << b << ", " << lq << ", " << k
                         << "], got " << out;
  return success();
}

void BlockTopKOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                                SetIntLatticeFn set) {
  // Every id names a block: topk indices lie inside the axis they rank.
  set(getBlocks(), ConstantIntRanges::fromSigned(
                       APInt(32, 0), APInt(32, getNumBlocks() - 1)));
}

//===----------------------------------------------------------------------===//
// selected_attention
//===----------------------------------------------------------------------===//

int64_t SelectedAttentionOp::getKeyLength() {
  if (auto read = getRead())
    return cast<RankedTensorType>(read.getType()).getDimSize(1);
  return getK().getType().getDimSize(2);
}

int64_t SelectedAttentionOp::getVisitedKeys() {
  int64_t selected = getBlocks().getType().getDimSize(2);
  return std::min(getKeyLength(),
                  (selected + 1) * static_cast<int64_t>(getRatio()));
}

LogicalResult SelectedAttentionOp::verify() {
  auto q = getQ().getType();
  int64_t lk = 0, dv = 0;
  if (failed(verifyAttentionLayout(*this, q, getK().getType(),
                                   getV().getType(), getRead(), Value(),
                                   getNRep(), lk, dv)))
    return failure();
  Type et = q.getElementType();
  int64_t b = q.getDimSize(0), hq = q.getDimSize(1), lq = q.getDimSize(2);
  int64_t ratio = getRatio();
  if (ratio < 1 || lk % ratio)
    return emitOpError() << "expected a ratio dividing the " << lk
                         << " keys, got " << ratio;
  auto blocks = getBlocks().getType();
  if (blocks.getRank() != 3 || blocks.getDimSize(0) != b ||
      blocks.getDimSize(1) != lq || blocks.getDimSize(2) < 1)
    return emitOpError() << "expected blocks [" << b << ", " << lq
                         << ", K] with K >= 1, got " << blocks;
  if (auto pos = getPos())
    if (!isPosOf(cast<RankedTensorType>(pos.getType()), b))
      return emitOpError() << "expected pos as a scalar or [" << b << "], got "
                           << pos.getType();
  if (auto cap = getSoftcap())
    if (!(cap->convertToDouble() > 0.0))
      return emitOpError() << "expected softcap > 0, got "
                           << cap->convertToDouble();
  auto out = getType();
  SmallVector<int64_t> expected{b, hq, lq, dv};
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != et)
    return emitOpError() << "expected result [" << b << ", " << hq << ", " << lq
                         << ", " << dv << "] of " << et << ", got " << out;
  return success();
}

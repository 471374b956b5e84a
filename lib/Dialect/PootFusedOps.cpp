//===- PootFusedOps.cpp - Typing rules of the fused ops -------------------===//
//
// The typing rules of poot.rope and poot.attention: what a fused op may hold.
// A matcher that cannot satisfy these declines and leaves the chain alone.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"

#include "InferInputs.h"

#include "AttentionLayout.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace poot;

//===----------------------------------------------------------------------===//
// rope
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (failed(poot::detail::checkInferInputs(adaptor, ctx, loc, operands)))
    return failure();
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  StringRef style = adaptor.getStyle();
  if (style != "half" && style != "interleaved")
    return emitOptionalError(loc, "expected style \"half\" or "
                                  "\"interleaved\", got \"",
                             style, "\"");
  if (x.getRank() < 1)
    return emitOptionalError(loc, "expected x of rank >= 1, got 0");
  int64_t d = x.getShape().back();
  int64_t r = adaptor.getRotaryDim();
  if (r < 2 || r > d || r % 2)
    return emitOptionalError(loc, "expected an even rotary_dim in [2, ", d,
                             "], got ", r);
  SmallVector<int64_t> rotShape(x.getShape());
  rotShape.back() = r;
  for (Value table : {adaptor.getCos(), adaptor.getSin()}) {
    auto t = cast<RankedTensorType>(table.getType());
    if (t.getElementType() != x.getElementType())
      return emitOptionalError(loc, "expected cos/sin element type ",
                               x.getElementType(), ", got ",
                               t.getElementType());
    bool fits = t.getRank() <= x.getRank();
    for (int64_t i = 0; fits && i < t.getRank(); ++i) {
      int64_t td = t.getDimSize(t.getRank() - 1 - i);
      int64_t xd = rotShape[rotShape.size() - 1 - i];
      fits = td == xd || td == 1;
    }
    if (!fits || t.getShape().back() != r)
      return emitOptionalError(loc, "expected cos/sin broadcastable to the "
                                    "rotary part with last dim ",
                               r, ", got ", t);
  }
  inferred.push_back(x);
  return success();
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

int64_t AttentionOp::getKeyLength() {
  if (getRead())
    return cast<RankedTensorType>(getRead().getType()).getDimSize(1);
  return getK().getType().getDimSize(2);
}

LogicalResult poot::verifyAttentionLayout(Operation *op, RankedTensorType q,
                                          RankedTensorType k,
                                          RankedTensorType v, Value read,
                                          Value kShared, int64_t nRep,
                                          int64_t &lk, int64_t &dv) {
  if (q.getRank() != 4)
    return op->emitOpError()
           << "expected q of rank 4 [B, Hq, Lq, Dk], got rank " << q.getRank();
  Type et = q.getElementType();
  if (k.getElementType() != et || v.getElementType() != et)
    return op->emitOpError()
           << "expected q, k and v of one element type, got " << et << ", "
           << k.getElementType() << " and " << v.getElementType();
  int64_t b = q.getDimSize(0), hq = q.getDimSize(1), dk = q.getDimSize(3);
  if (nRep < 1 || hq % nRep)
    return op->emitOpError()
           << "expected n_rep dividing " << hq << " query heads, got " << nRep;
  int64_t hkv = hq / nRep;
  lk = 0;
  dv = 0;
  if (read) {
    // Paged: pools [S, Hkv, D] and a read map [B, Lk].
    auto rt = cast<RankedTensorType>(read.getType());
    if (kShared)
      return op->emitOpError("expected no k_shared with a paged key");
    if (rt.getRank() != 2 || rt.getDimSize(0) != b)
      return op->emitOpError()
             << "expected read map [" << b << ", Lk], got " << rt;
    lk = rt.getDimSize(1);
    if (k.getRank() != 3 || k.getDimSize(1) != hkv || k.getDimSize(2) != dk)
      return op->emitOpError()
             << "expected key pool [S, " << hkv << ", " << dk << "], got " << k;
    if (v.getRank() != 3 || v.getDimSize(0) != k.getDimSize(0) ||
        v.getDimSize(1) != hkv)
      return op->emitOpError() << "expected value pool [" << k.getDimSize(0)
                               << ", " << hkv << ", Dv], got " << v;
    dv = v.getDimSize(2);
  } else {
    if (k.getRank() != 4 || v.getRank() != 4)
      return op->emitOpError() << "expected k and v of rank 4, got ranks "
                               << k.getRank() << " and " << v.getRank();
    lk = k.getDimSize(2);
    int64_t kd = dk;
    if (kShared) {
      auto st = cast<RankedTensorType>(kShared.getType());
      if (st.getRank() != 4 || st.getDimSize(0) != b || st.getDimSize(1) != 1 ||
          st.getDimSize(2) != lk || st.getElementType() != et)
        return op->emitOpError() << "expected k_shared [" << b << ", 1, " << lk
                                 << ", s] of " << et << ", got " << st;
      kd = dk - st.getDimSize(3);
    }
    if (k.getDimSize(0) != b || k.getDimSize(1) != hkv || k.getDimSize(3) != kd)
      return op->emitOpError() << "expected k [" << b << ", " << hkv << ", Lk, "
                               << kd << "], got " << k;
    if (v.getDimSize(0) != b || v.getDimSize(1) != hkv || v.getDimSize(2) != lk)
      return op->emitOpError() << "expected v [" << b << ", " << hkv << ", "
                               << lk << ", Dv], got " << v;
    dv = v.getDimSize(3);
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = getQ().getType();
  int64_t lk = 0, dv = 0;
  if (failed(verifyAttentionLayout(*this, q, getK().getType(),
                                   getV().getType(), getRead(), getKShared(),
                                   getNRep(), lk, dv)))
    return failure();
  Type et = q.getElementType();
  int64_t b = q.getDimSize(0), hq = q.getDimSize(1), lq = q.getDimSize(2);
  if (auto mask = getMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    bool ok = mt.getRank() == 4 && mt.getElementType() == et &&
              (mt.getDimSize(0) == b || mt.getDimSize(0) == 1) &&
              (mt.getDimSize(1) == hq || mt.getDimSize(1) == 1) &&
              mt.getDimSize(2) == lq && mt.getDimSize(3) == lk;
    if (!ok)
      return emitOpError() << "expected mask [" << b << "|1, " << hq << "|1, "
                           << lq << ", " << lk << "] of " << et << ", got "
                           << mt;
  }
  if (auto len = getLen()) {
    auto lt = cast<RankedTensorType>(len.getType());
    if (lt.getRank() != 1 || lt.getDimSize(0) != b)
      return emitOpError() << "expected len [" << b << "], got " << lt;
  }
  if (auto pos = getPos()) {
    auto pt = cast<RankedTensorType>(pos.getType());
    if (pt.getRank() > 1 || (pt.getRank() == 1 && pt.getDimSize(0) != b))
      return emitOpError() << "expected pos as a scalar or [" << b
                           << "], got " << pt;
  }
  if (auto slopes = getAlibiSlopes())
    if (static_cast<int64_t>(slopes->size()) != hq)
      return emitOpError() << "expected " << hq << " alibi slopes, got "
                           << slopes->size();
  if (auto window = getWindow())
    if (*window < 1)
      return emitOpError() << "expected window >= 1, got " << *window;
  if (auto cap = getSoftcap())
    if (!(cap->convertToDouble() > 0.0))
      return emitOpError() << "expected softcap > 0, got "
                           << cap->convertToDouble();
  auto out = getType();
  SmallVector<int64_t> expected{b, hq, lq, dv};
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != et)
    return emitOpError() << "expected result [" << b << ", " << hq << ", "
                         << lq << ", " << dv << "] of " << et << ", got "
                         << out;
  // The planner's schedule, where there is one: typed, and its head group
  // a divisor of n_rep (the kernels assume whole groups).
  if (Attribute attr = (*this)->getAttr(attrs::kSchedule)) {
    auto schedule = dyn_cast<AttentionScheduleAttr>(attr);
    if (!schedule)
      return emitOpError() << "expected " << attrs::kSchedule
                           << " to be a #poot.attention_schedule, got "
                           << attr;
    if (getNRep() % schedule.getGroup())
      return emitOpError() << "expected a schedule head group dividing n_rep "
                           << getNRep() << ", got " << schedule.getGroup();
  }
  return success();
}

//===- HeadMap.cpp - Head maps and their canonical forms ------------------===//
//
// The reader of HeadMap.h and the patterns of poot-canonicalize that bring
// every spelling of repeat_kv next to the matmuls of its attention, where
// the attention matcher reads it. Each rewrite computes the same values:
//
// - TransposeAboveHeadMap: transpose(map(x)) is map'(transpose(x)): a map
//   re-indexes one axis and a transpose only renames axes, so the map moves
//   to the axis the transpose sends it to (repeat_kv done in the
//   [B, L, Hkv, D] layout before the head transpose, or under k^T).
// - SinkHeadMap: op(map(x), y) is map(op(x, y)) for an elementwise op,
//   a slice or a concat whose other operands do not vary along the mapped
//   axis (or carry the same map): each output element reads the same
//   inputs either way. RoPE applied to keys after their repeat becomes
//   RoPE on the key heads, repeated after.
// - SplitBroadcastAtReshape: reshape(broadcast(y)) whose dims the reshape
//   splits further is the broadcast of the split y (a dim broadcast in full
//   or held in full splits either way): a repeat on [B * Hkv, L, D]
//   reshaped to [B, Hq, L, D] becomes the repeat on [B, Hkv, L, D].
// - ReshapeSplitsGatherAxis: reshape(gather(x, idx)) that splits the
//   gathered axis into [P, H] is a gather of x split into [P, K] by m
//   when idx[p * H + h] = p * K + m[h] for every p and h (checked element
//   by element; a map that crosses p is left alone).
// - ConcatOfCopies: concat(x, x, ..) or a concat of unit slices of one x
//   along a non-last axis is a broadcast (x one wide there) or a gather of
//   x with the index the pieces spell.
// - Gathers by constant indices: an index that is the arange of the whole
//   axis reshapes x; a scalar index is a slice; a slice of a concat inside
//   one piece is a slice of that piece.
//
//===----------------------------------------------------------------------===//

#include "HeadMap.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace poot;
using namespace poot::heads;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }

int64_t normAxis(int64_t a, int64_t rank) { return a < 0 ? a + rank : a; }

RankedTensorType withDim(RankedTensorType t, int64_t axis, int64_t size) {
  SmallVector<int64_t> shape(t.getShape());
  shape[axis] = size;
  return RankedTensorType::get(shape, t.getElementType());
}

/// The repeat level of `axis` of `t`, read from a broadcast over the two
/// dims (outer `eo` x inner `ei`) that axis merges, `expO` and `expI`
/// saying which of them the broadcast stretches from 1: output head h = io
/// ei + ii reads input head (outer kept ? io : 0) x (inner kept ? ei : 1)
/// + (inner kept ? ii : 0), of an input axis of the kept dims' product.
HeadMapLevel repeatLevel(RankedTensorType t, int64_t axis, int64_t eo,
                         int64_t ei, bool expO, bool expI, Value src) {
  HeadMapLevel level;
  level.kind = HeadMapLevel::Repeat;
  level.axis = axis;
  level.baseType = withDim(t, axis, (expO ? 1 : eo) * (expI ? 1 : ei));
  for (int64_t h = 0; h < t.getDimSize(axis); ++h) {
    int64_t io = h / ei, ii = h % ei;
    level.map.push_back((expO ? 0 : io) * (expI ? 1 : ei) + (expI ? 0 : ii));
  }
  level.src = src;
  return level;
}

/// Indices are read from constants of at most this many elements.
constexpr int64_t kIndexLimit = 1 << 16;

/// The elements of an integer constant (a splat repeated), or nothing.
std::optional<SmallVector<int64_t>> intConstant(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : nullptr;
  auto t = typeOf(v);
  if (!dense || t.getElementType().isInteger(1) ||
      t.getNumElements() > kIndexLimit)
    return std::nullopt;
  SmallVector<int64_t> out;
  if (dense.isSplat()) {
    out.assign(t.getNumElements(), dense.getSplatValue<APInt>().getSExtValue());
    return out;
  }
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(x.getSExtValue());
  return out;
}

int64_t wrapTo(Type type, int64_t v) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits >= 64)
    return v;
  return APInt(64, v, /*isSigned=*/true).trunc(bits).getSExtValue();
}

std::optional<SmallVector<int64_t>> evalIndexImpl(Value v, int depth) {
  auto t = typeOf(v);
  if (depth > 16 || t.getRank() > 1 ||
      !t.getElementType().isSignlessInteger() ||
      t.getElementType().isInteger(1) || t.getNumElements() > kIndexLimit)
    return std::nullopt;
  int64_t n = t.getNumElements();
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto e = intConstant(v))
    return e;
  if (isa<IotaOp>(def)) {
    SmallVector<int64_t> out(n);
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  if (isa<BroadcastOp, ReshapeOp>(def)) {
    auto x = evalIndexImpl(def->getOperand(0), depth + 1);
    if (!x || (x->size() != 1 && static_cast<int64_t>(x->size()) != n))
      return std::nullopt;
    if (x->size() == 1)
      return SmallVector<int64_t>(n, x->front());
    return x;
  }
  if (auto cv = dyn_cast<ConvertOp>(def)) {
    auto x = evalIndexImpl(cv.getX(), depth + 1);
    if (!x)
      return std::nullopt;
    for (int64_t &e : *x)
      e = wrapTo(t.getElementType(), e);
    return x;
  }
  if (isa<AddOp, SubOp, MulOp, DivOp>(def)) {
    auto a = evalIndexImpl(def->getOperand(0), depth + 1);
    auto b = evalIndexImpl(def->getOperand(1), depth + 1);
    if (!a || !b)
      return std::nullopt;
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = (*a)[a->size() == 1 ? 0 : i],
              y = (*b)[b->size() == 1 ? 0 : i];
      int64_t r;
      if (isa<AddOp>(def))
        r = static_cast<int64_t>(static_cast<uint64_t>(x) + y);
      else if (isa<SubOp>(def))
        r = static_cast<int64_t>(static_cast<uint64_t>(x) - y);
      else if (isa<MulOp>(def))
        r = static_cast<int64_t>(static_cast<uint64_t>(x) * y);
      else if (y == 0)
        return std::nullopt;
      else
        r = y == -1 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(x))
                    : x / y;
      out.push_back(wrapTo(t.getElementType(), r));
    }
    return out;
  }
  return std::nullopt;
}

} // namespace

std::optional<SmallVector<int64_t>> poot::heads::evalIndex(Value v) {
  return evalIndexImpl(v, 0);
}

//===----------------------------------------------------------------------===//
// Reading one level
//===----------------------------------------------------------------------===//

Value HeadMapLevel::materialize(OpBuilder &b, Location loc) const {
  if (Value v = base())
    return v;
  return b.create<ReshapeOp>(loc, baseType, src);
}

static std::optional<HeadMapLevel> readRepeat(Value out) {
  auto t = typeOf(out);
  int64_t r = t.getRank();
  auto outer = out.getDefiningOp<ReshapeOp>();
  if (!outer)
    return std::nullopt;
  auto e = typeOf(outer.getX());
  auto bc = outer.getX().getDefiningOp<BroadcastOp>();
  if (!bc)
    return std::nullopt;
  auto bt = typeOf(bc.getX());
  if (bt.getRank() != e.getRank())
    return std::nullopt;
  for (int64_t a = 0; e.getRank() == r + 1 && a < r; ++a) {
    bool fits = e.getDimSize(a) * e.getDimSize(a + 1) == t.getDimSize(a);
    for (int64_t d = 0; fits && d < a; ++d)
      fits = e.getDimSize(d) == t.getDimSize(d);
    for (int64_t d = a + 1; fits && d < r; ++d)
      fits = e.getDimSize(d + 1) == t.getDimSize(d);
    if (!fits)
      continue;
    // Only the two dims of the axis may broadcast.
    bool others = true;
    for (int64_t d = 0; d <= r; ++d)
      if (d != a && d != a + 1 && bt.getDimSize(d) != e.getDimSize(d))
        others = false;
    if (!others)
      continue;
    int64_t eo = e.getDimSize(a), ei = e.getDimSize(a + 1);
    bool expO = bt.getDimSize(a) == 1 && eo > 1;
    bool expI = bt.getDimSize(a + 1) == 1 && ei > 1;
    if (!expO && !expI)
      continue;
    if ((!expO && bt.getDimSize(a) != eo) ||
        (!expI && bt.getDimSize(a + 1) != ei))
      continue;
    Value src = bc.getX();
    if (auto rs = src.getDefiningOp<ReshapeOp>())
      src = rs.getX();
    return repeatLevel(t, a, eo, ei, expO, expI, src);
  }
  // The outer reshape may also drop or insert unit dims while it merges
  // (ChatGLM's expand over [s, b, g, 1, hn] viewed [s, b * np, hn] with
  // b = 1, where the reshapes collapse into one). Unit dims hold no data
  // and keep the row-major order of the others, so the repeat is read on
  // the dims that are not 1: the merged pair is the axis, and the base in
  // the output's frame is that same data with the axis at its base size.
  SmallVector<int64_t> eDims, tDims; // positions of dims that are not 1
  int64_t er = e.getRank();
  for (int64_t d = 0; d < er; ++d)
    if (e.getDimSize(d) != 1)
      eDims.push_back(d);
  for (int64_t d = 0; d < r; ++d)
    if (t.getDimSize(d) != 1)
      tDims.push_back(d);
  int64_t n = static_cast<int64_t>(tDims.size());
  // (All dims not 1 at the output's rank + 1 was read above.)
  if (static_cast<int64_t>(eDims.size()) != n + 1 ||
      (er == r + 1 && n == r))
    return std::nullopt;
  for (int64_t a = 0; a < n; ++a) {
    int64_t ea = eDims[a], eb = eDims[a + 1];
    bool fits = e.getDimSize(ea) * e.getDimSize(eb) ==
                t.getDimSize(tDims[a]);
    for (int64_t j = 0; fits && j < a; ++j)
      fits = e.getDimSize(eDims[j]) == t.getDimSize(tDims[j]);
    for (int64_t j = a + 1; fits && j < n; ++j)
      fits = e.getDimSize(eDims[j + 1]) == t.getDimSize(tDims[j]);
    if (!fits)
      continue;
    bool others = true;
    for (int64_t d = 0; d < er; ++d)
      if (d != ea && d != eb && bt.getDimSize(d) != e.getDimSize(d))
        others = false;
    if (!others)
      continue;
    int64_t eo = e.getDimSize(ea), ei = e.getDimSize(eb);
    bool expO = bt.getDimSize(ea) == 1, expI = bt.getDimSize(eb) == 1;
    if (!expO && !expI)
      continue;
    if ((!expO && bt.getDimSize(ea) != eo) ||
        (!expI && bt.getDimSize(eb) != ei))
      continue;
    // No base value of that type exists: materialize reshapes the
    // broadcast's source (same data, same order) to it.
    return repeatLevel(t, tDims[a], eo, ei, expO, expI, bc.getX());
  }
  return std::nullopt;
}

std::optional<HeadMapLevel> poot::heads::readHeadMap(Value out) {
  if (!out || !isTensor(out))
    return std::nullopt;
  auto t = typeOf(out);
  int64_t r = t.getRank();
  if (r < 1)
    return std::nullopt;
  if (auto level = readRepeat(out))
    return level;
  if (auto g = out.getDefiningOp<GatherOp>()) {
    auto xt = typeOf(g.getX());
    if (typeOf(g.getIdx()).getRank() != 1 || xt.getRank() != r)
      return std::nullopt;
    int64_t axis = normAxis(static_cast<int64_t>(g.getAxis()), r);
    auto idx = evalIndex(g.getIdx());
    if (!idx)
      return std::nullopt;
    int64_t hin = xt.getDimSize(axis);
    if (llvm::any_of(*idx, [&](int64_t i) { return i < 0 || i >= hin; }))
      return std::nullopt;
    HeadMapLevel level;
    level.kind = HeadMapLevel::Gather;
    level.axis = axis;
    level.src = g.getX();
    level.baseType = xt;
    level.map = *idx;
    return level;
  }
  if (auto b = out.getDefiningOp<BroadcastOp>()) {
    auto xt = typeOf(b.getX());
    if (xt.getRank() != r)
      return std::nullopt;
    int64_t axis = -1;
    for (int64_t d = 0; d < r; ++d) {
      if (xt.getDimSize(d) == t.getDimSize(d))
        continue;
      if (axis >= 0)
        return std::nullopt; // more than one axis broadcast
      axis = d;
    }
    if (axis < 0)
      return std::nullopt;
    HeadMapLevel level;
    level.kind = HeadMapLevel::Broadcast;
    level.axis = axis;
    level.src = b.getX();
    level.baseType = xt;
    level.map.assign(t.getDimSize(axis), 0);
    return level;
  }
  return std::nullopt;
}

Value poot::heads::rebuildHeadMap(OpBuilder &b, Location loc,
                                  const HeadMapLevel &level, Value base,
                                  int64_t axis, RankedTensorType outType) {
  auto bt = typeOf(base);
  switch (level.kind) {
  case HeadMapLevel::Broadcast:
    return b.create<BroadcastOp>(loc, base, outType.getShape());
  case HeadMapLevel::Gather: {
    // A constant index of the map itself (the original may be an iota
    // expression computed next to the original gather).
    auto it = RankedTensorType::get({static_cast<int64_t>(level.map.size())},
                                    b.getI64Type());
    Value idx = b.create<ConstantOp>(
        loc, DenseElementsAttr::get(it, ArrayRef<int64_t>(level.map)));
    return b.create<GatherOp>(loc, base, idx, axis);
  }
  case HeadMapLevel::Repeat:
    break;
  }
  // The repeat: split the axis, broadcast the unit, merge.
  int64_t hout = outType.getDimSize(axis);
  int64_t hin = bt.getDimSize(axis);
  // Interleaved: [hin, n] with the n broadcast; tiled: [n, hin].
  bool interleaved = true;
  for (int64_t h = 0; h < hout && interleaved; ++h)
    interleaved = level.map[h] == h / (hout / hin);
  SmallVector<int64_t> unit, full;
  for (int64_t d = 0; d < bt.getRank(); ++d) {
    if (d != axis) {
      unit.push_back(bt.getDimSize(d));
      full.push_back(outType.getDimSize(d));
      continue;
    }
    int64_t n = hout / hin;
    if (interleaved) {
      unit.append({hin, 1});
      full.append({hin, n});
    } else {
      unit.append({1, hin});
      full.append({n, hin});
    }
  }
  Value r1 = b.create<ReshapeOp>(
      loc, RankedTensorType::get(unit, bt.getElementType()), base);
  Value bc = b.create<BroadcastOp>(loc, r1, full);
  return b.create<ReshapeOp>(loc, outType, bc);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// Whether `level`'s map can be rebuilt by rebuildHeadMap in the repeat
/// spelling (interleaved or tiled), for maps read from a repeat.
bool rebuildable(const HeadMapLevel &level, int64_t hin) {
  if (level.kind != HeadMapLevel::Repeat)
    return true;
  int64_t hout = level.map.size();
  if (hin == 0 || hout % hin)
    return false;
  int64_t n = hout / hin;
  bool inter = true, tiled = true;
  for (int64_t h = 0; h < hout; ++h) {
    inter &= level.map[h] == h / n;
    tiled &= level.map[h] == h % hin;
  }
  return inter || tiled;
}

/// A head map on a non-last axis (heads are never the channel axis; the
/// key axis of a softmax broadcast is left to the softmax readers).
std::optional<HeadMapLevel> movableMap(Value v) {
  auto level = readHeadMap(v);
  if (!level || level->axis == typeOf(v).getRank() - 1 ||
      !rebuildable(*level, level->baseType.getDimSize(level->axis)))
    return std::nullopt;
  return level;
}

/// transpose(map(x), p) -> map'(transpose(x, p)).
struct TransposeAboveHeadMap : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto level = movableMap(op.getX());
    if (!level)
      return rewriter.notifyMatchFailure(op, "operand is not a head map");
    ArrayRef<int64_t> perm = op.getPerm();
    int64_t axis = -1;
    for (int64_t j = 0; j < static_cast<int64_t>(perm.size()); ++j)
      if (perm[j] == level->axis)
        axis = j;
    Location loc = op.getLoc();
    Value base = level->materialize(rewriter, loc);
    Value moved = rewriter.create<TransposeOp>(loc, base, perm);
    rewriter.replaceOp(
        op, rebuildHeadMap(rewriter, loc, *level, moved, axis, op.getType()));
    return success();
  }
};

/// Whether `v` (right-aligned in a rank-`rank` frame) does not vary along
/// `axis`.
bool invariantAlong(Value v, int64_t axis, int64_t rank) {
  auto t = typeOf(v);
  int64_t d = axis - (rank - t.getRank());
  return d < 0 || t.getDimSize(d) == 1;
}

bool isSplatConstant(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    return dense && dense.isSplat();
  }
  return false;
}

bool sameMap(const HeadMapLevel &a, const HeadMapLevel &b) {
  return a.axis == b.axis && a.map == b.map &&
         a.baseType.getDimSize(a.axis) == b.baseType.getDimSize(b.axis);
}

/// op(map(x), y) -> map(op(x, y)) for elementwise ops, slices and concats
/// whose other operands do not vary along the mapped axis.
struct SinkHeadMap : public RewritePattern {
  SinkHeadMap(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    bool unary = isa<NegOp, ConvertOp>(op);
    bool binary = isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op);
    auto slice = dyn_cast<SliceOp>(op);
    auto concat = dyn_cast<ConcatOp>(op);
    if ((!unary && !binary && !slice && !concat) || op->getNumResults() != 1)
      return failure();
    auto rt = typeOf(op->getResult(0));
    int64_t rank = rt.getRank();
    Location loc = op->getLoc();

    if (slice) {
      auto level = movableMap(slice.getX());
      if (!level)
        return rewriter.notifyMatchFailure(op, "not a slice of a head map");
      int64_t a = level->axis;
      auto xt = typeOf(slice.getX());
      if (slice.getStart()[a] != 0 || slice.getStep()[a] != 1 ||
          slice.getLimit()[a] != xt.getDimSize(a))
        return rewriter.notifyMatchFailure(op, "the slice cuts the heads");
      int64_t hin = level->baseType.getDimSize(a);
      SmallVector<int64_t> limit(slice.getLimit());
      limit[a] = hin;
      Value base = level->materialize(rewriter, loc);
      Value s = rewriter.create<SliceOp>(loc, base, slice.getStart(), limit,
                                         slice.getStep());
      rewriter.replaceOp(op, rebuildHeadMap(rewriter, loc, *level, s, a, rt));
      return success();
    }

    if (concat) {
      int64_t c = normAxis(static_cast<int64_t>(concat.getAxis()), rank);
      SmallVector<HeadMapLevel> levels;
      for (Value in : concat.getInputs()) {
        auto level = movableMap(in);
        if (!level || level->axis == c ||
            (!levels.empty() && !sameMap(*level, levels.front())))
          return rewriter.notifyMatchFailure(op, "inputs are not one head "
                                                 "map");
        levels.push_back(*level);
      }
      SmallVector<Value> bases;
      for (const HeadMapLevel &l : levels)
        bases.push_back(l.materialize(rewriter, loc));
      Value cat = rewriter.create<ConcatOp>(loc, bases, c);
      rewriter.replaceOp(op, rebuildHeadMap(rewriter, loc, levels.front(), cat,
                                            levels.front().axis, rt));
      return success();
    }

    // Elementwise: the lead operand holds the result's shape.
    std::optional<HeadMapLevel> lead;
    for (Value v : op->getOperands())
      if (typeOf(v) ==
          RankedTensorType::get(rt.getShape(), typeOf(v).getElementType()))
        if ((lead = movableMap(v)))
          break;
    if (!lead)
      return rewriter.notifyMatchFailure(op, "no operand is a head map");
    int64_t a = lead->axis, hin = lead->baseType.getDimSize(a);
    // Every check before the first op is built: a pattern that builds and
    // then fails leaves dead ops the driver erases, and runs again.
    SmallVector<std::optional<HeadMapLevel>> levels;
    bool tensorOther = unary, seenLead = false;
    for (Value v : op->getOperands()) {
      auto level = readHeadMap(v);
      if (level && level->axis == a && sameMap(*level, *lead) &&
          typeOf(v).getShape() == rt.getShape()) {
        levels.push_back(level);
        tensorOther |= seenLead;
        seenLead = true;
        continue;
      }
      if (!invariantAlong(v, a, rank))
        return rewriter.notifyMatchFailure(op, "an operand varies along the "
                                               "heads");
      // x op splat is the scalar op the layout ops hoist above (the other
      // direction); it stays.
      if (!isSplatConstant(v))
        tensorOther = true;
      levels.push_back(std::nullopt);
    }
    if (!tensorOther)
      return rewriter.notifyMatchFailure(op, "only splat operands besides "
                                             "the map");
    SmallVector<Value> operands;
    for (auto [v, level] : llvm::zip(op->getOperands(), levels))
      operands.push_back(level ? level->materialize(rewriter, loc) : v);
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addAttributes(op->getAttrs());
    state.addTypes(withDim(rt, a, hin));
    Value inner = rewriter.create(state)->getResult(0);
    rewriter.replaceOp(op, rebuildHeadMap(rewriter, loc, *lead, inner, a, rt));
    return success();
  }
};

/// reshape(broadcast(y)) with the reshape splitting dims of the broadcast:
/// the broadcast of y split the same way. Only broadcasts of leading dims
/// (a repeat of batch or head dims): a broadcast over rows or keys is a
/// softmax's or a mask's, read as it is.
struct SplitBroadcastAtReshape : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto bc = op.getX().getDefiningOp<BroadcastOp>();
    if (!bc)
      return rewriter.notifyMatchFailure(op, "operand is not a broadcast");
    auto e = typeOf(bc.getResult()), t = op.getType();
    auto yt = typeOf(bc.getX());
    int64_t er = e.getRank();
    if (er < 3)
      return rewriter.notifyMatchFailure(op, "rank below 3");
    SmallVector<int64_t> y(er - yt.getRank(), 1);
    llvm::append_range(y, yt.getShape());
    for (int64_t d = er - 2; d < er; ++d)
      if (y[d] != e.getDimSize(d))
        return rewriter.notifyMatchFailure(op, "broadcasts rows or keys");
    // Cumulative products of the non-unit dims of both shapes.
    SmallVector<int64_t> cuts;
    SmallVector<int64_t> owner; // e dim of each cut of e
    int64_t p = 1;
    for (int64_t d = 0; d < er; ++d)
      if (e.getDimSize(d) != 1) {
        p *= e.getDimSize(d);
        cuts.push_back(p);
      }
    int64_t eCuts = cuts.size();
    p = 1;
    for (int64_t d : t.getShape())
      if (d != 1) {
        p *= d;
        cuts.push_back(p);
      }
    llvm::sort(cuts);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    if (static_cast<int64_t>(cuts.size()) == eCuts)
      return rewriter.notifyMatchFailure(op, "nothing to split");
    // The refinement: each piece of an e dim, broadcast when that dim is.
    SmallVector<int64_t> refined, refinedY;
    int64_t prev = 1, k = 0;
    p = 1;
    for (int64_t d = 0; d < er; ++d) {
      int64_t n = e.getDimSize(d);
      if (n == 1)
        continue;
      p *= n;
      while (k < static_cast<int64_t>(cuts.size()) && cuts[k] <= p) {
        if (cuts[k] % prev)
          return rewriter.notifyMatchFailure(op, "dims do not divide");
        int64_t piece = cuts[k] / prev;
        refined.push_back(piece);
        refinedY.push_back(y[d] == 1 ? 1 : piece);
        prev = cuts[k];
        ++k;
      }
    }
    Location loc = op.getLoc();
    Value r1 = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(refinedY, yt.getElementType()), bc.getX());
    Value b2 = rewriter.create<BroadcastOp>(loc, r1, refined);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, t, b2);
    return success();
  }
};

/// reshape(gather(x, idx, a)) splitting the gathered axis into [P, H], with
/// idx[p * H + h] = p * K + m[h]: gather(reshape(x) split into [P, K], m).
struct ReshapeSplitsGatherAxis : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto g = op.getX().getDefiningOp<GatherOp>();
    if (!g || typeOf(g.getIdx()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "not a reshape of a gather");
    auto in = typeOf(g.getResult()), t = op.getType(), xt = typeOf(g.getX());
    int64_t r = in.getRank();
    int64_t a = normAxis(static_cast<int64_t>(g.getAxis()), r);
    if (t.getRank() != r + 1)
      return rewriter.notifyMatchFailure(op, "not one split");
    bool fits = t.getDimSize(a) * t.getDimSize(a + 1) == in.getDimSize(a);
    for (int64_t d = 0; fits && d < a; ++d)
      fits = t.getDimSize(d) == in.getDimSize(d);
    for (int64_t d = a + 1; fits && d < r; ++d)
      fits = t.getDimSize(d + 1) == in.getDimSize(d);
    int64_t P = t.getDimSize(a), H = t.getDimSize(a + 1);
    if (!fits || P == 1 || xt.getDimSize(a) % P)
      return rewriter.notifyMatchFailure(op, "does not split the gathered "
                                             "axis");
    int64_t K = xt.getDimSize(a) / P;
    auto idx = evalIndex(g.getIdx());
    if (!idx)
      return rewriter.notifyMatchFailure(op, "index not known");
    SmallVector<int64_t> m(H);
    for (int64_t pi = 0; pi < P; ++pi)
      for (int64_t h = 0; h < H; ++h) {
        int64_t v = (*idx)[pi * H + h] - pi * K;
        if (v < 0 || v >= K || (pi && v != m[h]))
          return rewriter.notifyMatchFailure(op, "the index crosses the "
                                                 "outer dim");
        m[h] = v;
      }
    Location loc = op.getLoc();
    SmallVector<int64_t> split(xt.getShape().take_front(a));
    split.append({P, K});
    llvm::append_range(split, xt.getShape().drop_front(a + 1));
    Value xs = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(split, xt.getElementType()), g.getX());
    auto it = RankedTensorType::get({H}, rewriter.getI64Type());
    Value mi = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(it, ArrayRef<int64_t>(m)));
    rewriter.replaceOpWithNewOp<GatherOp>(op, xs, mi, a + 1);
    return success();
  }
};

/// concat of copies of one x (or unit slices of it) along a non-last axis.
struct ConcatOfCopies : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto rt = op.getType();
    int64_t rank = rt.getRank();
    int64_t c = normAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (op.getInputs().size() < 2 || rank < 3 || c == rank - 1)
      return rewriter.notifyMatchFailure(op, "not a concat of heads");
    Value x;
    SmallVector<int64_t> idx;
    bool whole = true;
    for (Value in : op.getInputs()) {
      Value src = in;
      int64_t start = 0, step = 1, count = typeOf(in).getDimSize(c);
      if (auto s = in.getDefiningOp<SliceOp>()) {
        auto st = typeOf(s.getX());
        bool others = true;
        for (int64_t d = 0; d < rank; ++d)
          if (d != c && (s.getStart()[d] != 0 || s.getStep()[d] != 1 ||
                         s.getLimit()[d] != st.getDimSize(d)))
            others = false;
        if (others) {
          src = s.getX();
          start = s.getStart()[c];
          step = s.getStep()[c];
          whole = false;
        }
      }
      if (x && src != x)
        return rewriter.notifyMatchFailure(op, "inputs of several tensors");
      x = src;
      for (int64_t i = 0; i < count; ++i)
        idx.push_back(start + i * step);
    }
    Location loc = op.getLoc();
    auto xt = typeOf(x);
    if (whole && xt.getDimSize(c) == 1) {
      rewriter.replaceOpWithNewOp<BroadcastOp>(op, x, rt.getShape());
      return success();
    }
    // n whole copies of x along c, merged by a reshape into the axis in
    // front (candle's repeat_kv: cat(copies, seq axis) viewed [b, Hkv * n,
    // L, D]): element (r, l) of the axis viewed [n, L] is x's l, the
    // broadcast of x with a unit axis in front of c. Reshaped back, that is
    // the copies; the reshape that follows composes with it into the
    // repeat_kv spelling readHeadMap reads (m[h] = h / n).
    int64_t n = op.getInputs().size();
    if (whole && c > 0 && op->hasOneUse())
      if (auto rs = dyn_cast<ReshapeOp>(*op->getUsers().begin())) {
        auto ot = rs.getType();
        SmallVector<int64_t> merged(rt.getShape());
        merged[c - 1] *= n;
        merged[c] /= n;
        if (ot.getShape() == ArrayRef<int64_t>(merged)) {
          SmallVector<int64_t> unit(xt.getShape()), spread(xt.getShape());
          unit.insert(unit.begin() + c, 1);
          spread.insert(spread.begin() + c, n);
          Value u = rewriter.create<ReshapeOp>(
              loc, RankedTensorType::get(unit, xt.getElementType()), x);
          Value b = rewriter.create<BroadcastOp>(loc, u, spread);
          rewriter.replaceOpWithNewOp<ReshapeOp>(op, rt, b);
          return success();
        }
      }
    auto it = RankedTensorType::get({static_cast<int64_t>(idx.size())},
                                    rewriter.getI64Type());
    Value iv = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(it, ArrayRef<int64_t>(idx)));
    rewriter.replaceOpWithNewOp<GatherOp>(op, x, iv, c);
    return success();
  }
};

/// gather(x, idx) with a constant idx that is the arange of x's whole axis:
/// x reshaped to [.., idx.shape, ..].
struct GatherArangeIndex : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto xt = typeOf(op.getX());
    int64_t a = normAxis(static_cast<int64_t>(op.getAxis()), xt.getRank());
    auto idx = intConstant(op.getIdx());
    if (!idx || typeOf(op.getIdx()).getRank() < 1 ||
        static_cast<int64_t>(idx->size()) != xt.getDimSize(a))
      return rewriter.notifyMatchFailure(op, "not a constant index over the "
                                             "axis");
    for (int64_t i = 0, n = idx->size(); i < n; ++i)
      if ((*idx)[i] != i)
        return rewriter.notifyMatchFailure(op, "index is not an arange");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getX());
    return success();
  }
};

/// gather(x, k) with a scalar constant k inside the axis: the slice k:k+1,
/// reshaped to drop the axis.
struct GatherScalarIndex : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto xt = typeOf(op.getX());
    int64_t a = normAxis(static_cast<int64_t>(op.getAxis()), xt.getRank());
    if (typeOf(op.getIdx()).getRank() != 0)
      return rewriter.notifyMatchFailure(op, "index is not a scalar");
    auto idx = evalIndex(op.getIdx());
    if (!idx || (*idx)[0] < 0 || (*idx)[0] >= xt.getDimSize(a))
      return rewriter.notifyMatchFailure(op, "index not known inside the "
                                             "axis");
    SmallVector<int64_t> start(xt.getRank(), 0), limit(xt.getShape()),
        step(xt.getRank(), 1);
    start[a] = (*idx)[0];
    limit[a] = (*idx)[0] + 1;
    Value s =
        rewriter.create<SliceOp>(op.getLoc(), op.getX(), start, limit, step);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), s);
    return success();
  }
};

/// slice(concat(..)) along the concat axis inside one piece: a slice of
/// that piece.
struct SliceOfConcat : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto cat = op.getX().getDefiningOp<ConcatOp>();
    if (!cat)
      return rewriter.notifyMatchFailure(op, "not a slice of a concat");
    auto rt = op.getType();
    int64_t rank = rt.getRank();
    int64_t c = normAxis(static_cast<int64_t>(cat.getAxis()), rank);
    int64_t first = op.getStart()[c];
    int64_t last = first + (rt.getDimSize(c) - 1) * op.getStep()[c];
    if (rt.getDimSize(c) == 0)
      return rewriter.notifyMatchFailure(op, "empty slice");
    int64_t offset = 0;
    for (Value in : cat.getInputs()) {
      int64_t n = typeOf(in).getDimSize(c);
      if (first >= offset && last < offset + n) {
        SmallVector<int64_t> start(op.getStart()), limit(op.getLimit());
        start[c] -= offset;
        limit[c] = std::min(limit[c] - offset, n);
        rewriter.replaceOpWithNewOp<SliceOp>(op, in, start, limit,
                                             op.getStep());
        return success();
      }
      offset += n;
    }
    return rewriter.notifyMatchFailure(op, "the slice spans pieces");
  }
};

} // namespace

void poot::heads::populateHeadMapPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeAboveHeadMap, SinkHeadMap, SplitBroadcastAtReshape,
               ReshapeSplitsGatherAxis, ConcatOfCopies, GatherArangeIndex,
               GatherScalarIndex, SliceOfConcat>(patterns.getContext());
}

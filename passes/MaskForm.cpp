//===- MaskForm.cpp - Normal forms of index and mask expressions ----------===//
//
// The patterns of MaskForm.h. Each computes the same values as what it
// replaces:
//
// - ArangeToIota: a constant integer tensor equal to a * index(d) + b along
//   one axis d (and the same along every other) is iota(d) * a + b. Only
//   where it feeds index arithmetic and compares (a table the rope chain
//   converts to float keeps folding as a constant).
// - BandTable: a slice (at run-time starts, or a static one of a table too
//   large to fold) of a constant whose last two dims are a band, value a on
//   exactly the cells lo <= col - row <= hi and b elsewhere (every entry is
//   checked), other dims 1: the compare of (t + col0) - (i + row0) against
//   the band, with a and b selected. A dynamic_slice clamps its starts into
//   the table; the clamp is written out unless integer range analysis proves
//   the start inside, so a start that may run past the table keeps the
//   clamp (and the mask matcher keeps such a mask a tensor). A whole band
//   table read only as mask logic (a select, and/or/not, a product with a
//   non-constant) is its band likewise (BandTableInMask).
// - Boolean folds: convert(select(c, A, B)) to i1 with constant A and B is
//   c, not(c) or a constant; a compare of select(c, A, B) (or of a bool
//   converted to a number) against a constant likewise; and/or with a
//   constant side; not(not(c)).
// - ConcatOfIndexExpr: a concat of splat constants and one index
//   expression (iotas and splats only) is that expression re-read over the
//   whole axis, its iota along the axis offset by the piece's start, when
//   the re-read values are checked equal to each constant piece.
// - SelectOfSelect: nested selects sharing a side are one select of a
//   combined condition.
// - ProductOfFillAndIndicator: select(c1, f, 0) * convert(c2 : i1) is
//   select(c1 & c2, f, 0) for a finite f (up to the sign of a zero);
//   SelectOfOwnIndicator: select(c, A, convert(c)) is select(c, A, 0),
//   and likewise for a side that is any select of constants of c or of
//   not(c) (an indicator offset by small integers counts as one).
// - ScoresTimesIndicator: scores * b -+ F * (1 - b) for a 0/1 indicator b
//   and a finite splat F is select(b, scores, -+F) (exact for finite
//   scores).
// - ImpliedCompare: and/or of two compares one of which implies the other
//   over the index grid and the positions' ranges is the stronger/weaker.
// - ConvertOfSelect: a float convert of a select of two splats it keeps
//   exactly is the select of the converted splats; ConvertOfBoolConvert: a
//   bool through a number and back is the bool.
// - BoolSelectOfConstant: a select of booleans with a constant side is
//   and/or/not of its condition; CompareOfBandTable: a compare of a whole
//   constant band table with a splat is the band condition.
// - SelectOfOneAndZero: select(c, 1, +0) is convert(c); GatherOfIndexExpr:
//   a gather of an index expression by run-time indices is the expression
//   at those indices.
// - ConditionToItsDependence: a condition of iotas and splats is rebuilt
//   over the axes it varies along and broadcast back.
//
//===----------------------------------------------------------------------===//

#include "MaskForm.h"

#include "poot/Dialect/PootDialect.h"
#include "poot/Dialect/PootRangeAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallSet.h"

#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace poot;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Tables are read up to this many elements.
constexpr int64_t kTableLimit = 1 << 22;
/// Tables up to this many elements are folded by FoldConstantSlice instead.
constexpr int64_t kFoldedTable = 1 << 16;

/// A splat value of an integer, bool or float constant (through broadcasts
/// and reshapes), as a double.
std::optional<double> splatNumber(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    if (!dense || !dense.isSplat())
      return std::nullopt;
    Type et = dense.getElementType();
    if (isa<FloatType>(et))
      return dense.getSplatValue<APFloat>().convertToDouble();
    if (et.isInteger(1))
      return dense.getSplatValue<bool>() ? 1.0 : 0.0;
    return static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
  }
  return std::nullopt;
}

Value splatConstant(OpBuilder &b, Location loc, Type et, double v) {
  auto t = RankedTensorType::get({}, et);
  Attribute a;
  if (auto ft = dyn_cast<FloatType>(et))
    a = b.getFloatAttr(ft, v);
  else if (et.isInteger(1))
    a = b.getBoolAttr(v != 0.0);
  else
    a = b.getIntegerAttr(et, static_cast<int64_t>(v));
  return b.create<ConstantOp>(loc, DenseElementsAttr::get(t, a));
}

Value boolConstant(OpBuilder &b, Location loc, RankedTensorType t, bool v) {
  auto bt = RankedTensorType::get(t.getShape(), b.getI1Type());
  return b.create<ConstantOp>(loc, DenseElementsAttr::get(bt, v));
}

/// `c` brought to the shape of `t` (a broadcast where it is smaller).
Value toShape(OpBuilder &b, Location loc, Value c, RankedTensorType t) {
  if (typeOf(c).getShape() == t.getShape())
    return c;
  return b.create<BroadcastOp>(loc, c, t.getShape());
}

//===----------------------------------------------------------------------===//
// arange constants
//===----------------------------------------------------------------------===//

struct ArangeToIota : public OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto t = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<DenseIntElementsAttr>(op.getValue());
    if (!t || !dense || dense.isSplat() || t.getElementType().isInteger(1) ||
        t.getNumElements() > kTableLimit || t.getRank() < 1)
      return failure();
    // Only index arithmetic: a constant the graph converts to float (RoPE
    // positions) or gathers with stays a constant.
    for (Operation *user : op->getUsers()) {
      if (isa<CompareOp, AddOp, SubOp, NegOp, ReshapeOp, BroadcastOp>(user))
        continue;
      if (auto cv = dyn_cast<ConvertOp>(user);
          cv && cv.getType().getElementType().isSignlessInteger() &&
          !cv.getType().getElementType().isInteger(1))
        continue;
      return rewriter.notifyMatchFailure(op, "read by other than index "
                                             "arithmetic");
    }
    SmallVector<int64_t> v;
    for (const APInt &x : dense.getValues<APInt>())
      v.push_back(x.getSExtValue());
    int64_t rank = t.getRank();
    SmallVector<int64_t> strides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * t.getDimSize(d + 1);
    for (int64_t d = 0; d < rank; ++d) {
      if (t.getDimSize(d) < 2)
        continue;
      int64_t b = v[0], a = v[strides[d]] - v[0];
      if (a == 0)
        continue;
      bool ok = true;
      for (int64_t n = 0, e = v.size(); ok && n < e; ++n)
        ok = v[n] == a * ((n / strides[d]) % t.getDimSize(d)) + b;
      if (!ok)
        continue;
      Location loc = op.getLoc();
      Type et = t.getElementType();
      Value r = rewriter.create<IotaOp>(loc, t, static_cast<uint64_t>(d));
      if (a != 1)
        r = rewriter.create<MulOp>(loc, r, splatConstant(rewriter, loc, et, a));
      if (b != 0)
        r = rewriter.create<AddOp>(loc, r, splatConstant(rewriter, loc, et, b));
      rewriter.replaceOp(op, r);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not an arange along one axis");
  }
};

//===----------------------------------------------------------------------===//
// Band tables
//===----------------------------------------------------------------------===//

/// A constant whose last two dims hold value `a` on the band
/// lo <= col - row <= hi and `b` elsewhere.
struct Band {
  Attribute a, b;
  int64_t lo, hi;
  bool needLo, needHi; ///< whether the table crosses the bound at all
};

std::optional<Band> readBand(ConstantOp c) {
  auto t = typeOf(c.getResult());
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  int64_t rank = t.getRank();
  if (!dense || dense.isSplat() || rank < 2 || t.getNumElements() > kTableLimit)
    return std::nullopt;
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (t.getDimSize(d) != 1)
      return std::nullopt;
  int64_t rows = t.getDimSize(rank - 2), cols = t.getDimSize(rank - 1);
  SmallVector<Attribute> values(dense.getValues<Attribute>());
  // The distinct values (two at most).
  SmallVector<Attribute> distinct;
  for (Attribute v : values) {
    if (llvm::is_contained(distinct, v))
      continue;
    if (distinct.size() == 2)
      return std::nullopt;
    distinct.push_back(v);
  }
  if (distinct.size() != 2)
    return std::nullopt;
  for (int which = 0; which < 2; ++which) {
    Attribute a = distinct[which], b = distinct[1 - which];
    std::optional<int64_t> lo, hi;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < cols; ++k)
        if (values[r * cols + k] == a) {
          lo = lo ? std::min(*lo, k - r) : k - r;
          hi = hi ? std::max(*hi, k - r) : k - r;
        }
    bool band = lo.has_value();
    for (int64_t r = 0; band && r < rows; ++r)
      for (int64_t k = 0; band && k < cols; ++k)
        band = (values[r * cols + k] == a) == (*lo <= k - r && k - r <= *hi);
    if (!band)
      continue;
    return Band{a, b, *lo, *hi, *lo > -(rows - 1), *hi < cols - 1};
  }
  return std::nullopt;
}

/// The start of a slice of `size` out of `dim` as dynamic_slice reads it:
/// clamped into [0, dim - size], the clamp written out unless proven
/// idle. In the integer type `index`.
Value effectiveStart(PatternRewriter &rewriter, Location loc, Value start,
                     int64_t dim, int64_t size, Operation *at, Type index) {
  auto scalar = RankedTensorType::get({}, index);
  auto constant = [&](int64_t v) -> Value {
    return rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(scalar, rewriter.getIntegerAttr(index, v)));
  };
  int64_t hi = dim - size;
  if (hi == 0)
    return constant(0);
  if (auto k = splatNumber(start))
    return constant(std::min<int64_t>(std::max<int64_t>(*k, 0), hi));
  Value s = start;
  if (typeOf(s).getElementType() != index)
    s = rewriter.create<ConvertOp>(loc, scalar, s);
  bool inside = false;
  if (auto fn = at->getParentOfType<func::FuncOp>()) {
    RangeOracle oracle(fn);
    if (auto r = oracle.rangeOf(start))
      inside = r->smin().getSExtValue() >= 0 && r->smax().getSExtValue() <= hi;
  }
  if (inside)
    return s;
  s = rewriter.create<MinOp>(loc, s, constant(hi));
  return rewriter.create<MaxOp>(loc, s, constant(0));
}

/// The band of `table` read at rows `rows` and columns `cols` of a result
/// of type `out` (index vectors [.., Lq, 1] and [.., 1, Lk] of type
/// `index`).
Value buildBandAt(PatternRewriter &rewriter, Location loc, const Band &band,
                  Value i, Value t, RankedTensorType out, Type i64) {
  Value d = rewriter.create<SubOp>(loc, t, i);
  Value cond;
  auto bound = [&](ComparePredicate pred, int64_t v) {
    Value c = rewriter.create<CompareOp>(loc, pred, d,
                                         splatConstant(rewriter, loc, i64, v));
    cond = cond ? rewriter.create<AndOp>(loc, cond, c).getResult() : c;
  };
  if (band.needHi)
    bound(ComparePredicate::le, band.hi);
  if (band.needLo)
    bound(ComparePredicate::ge, band.lo);
  cond = toShape(rewriter, loc, cond, out);
  Type et = out.getElementType();
  auto number = [](Attribute a) -> double {
    if (auto f = dyn_cast<FloatAttr>(a))
      return f.getValueAsDouble();
    if (auto b = dyn_cast<BoolAttr>(a))
      return b.getValue() ? 1.0 : 0.0;
    return static_cast<double>(cast<IntegerAttr>(a).getValue().getSExtValue());
  };
  double a = number(band.a), b = number(band.b);
  if (et.isInteger(1))
    return a != 0.0 ? cond : rewriter.create<NotOp>(loc, cond).getResult();
  // A 0/1 table is the condition converted (exactly).
  if (a == 1.0 && b == 0.0)
    return rewriter.create<ConvertOp>(loc, out, cond);
  if (a == 0.0 && b == 1.0)
    return rewriter.create<ConvertOp>(
        loc, out, rewriter.create<NotOp>(loc, cond).getResult());
  Value av = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({}, et), band.a));
  Value bv = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({}, et), band.b));
  return rewriter.create<SelectOp>(loc, cond, av, bv);
}

/// The rows (along `dim` of `out`, from the back: 1 rows, 0 columns) as an
/// index vector of `out`'s rank: an iota plus `start`.
Value bandIndex(PatternRewriter &rewriter, Location loc, RankedTensorType out,
                int64_t fromBack, Value start, Type i64) {
  int64_t rank = out.getRank();
  SmallVector<int64_t> shape(rank, 1);
  shape[rank - 1 - fromBack] = out.getDimSize(rank - 1 - fromBack);
  Value x = rewriter.create<IotaOp>(loc, RankedTensorType::get(shape, i64),
                                    static_cast<uint64_t>(rank - 1 - fromBack));
  auto s = splatNumber(start);
  if (!s || *s != 0.0)
    x = rewriter.create<AddOp>(loc, x, start);
  return x;
}

/// The band of `table` read at rows row0 + i and columns col0 + t of a
/// result of type `out`.
Value buildBand(PatternRewriter &rewriter, Location loc, const Band &band,
                Value row0, Value col0, RankedTensorType out,
                Type index = nullptr) {
  Type i64 = index ? index : rewriter.getI64Type();
  Value t = bandIndex(rewriter, loc, out, 0, col0, i64);
  Value i = bandIndex(rewriter, loc, out, 1, row0, i64);
  return buildBandAt(rewriter, loc, band, i, t, out, i64);
}

/// gather(table, idx) of a band table along its rows or its columns, idx
/// a vector of run-time indices (a gather outside the axis is a run-time
/// error, so each is a row or column of the table): element j of the
/// gathered axis is the band at index idx[j]. litgpt reads its causal mask
/// as mask_cache.index_select(2, input_pos).
struct BandTableGather : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto c = op.getX().getDefiningOp<ConstantOp>();
    auto xt = typeOf(op.getX());
    int64_t rank = xt.getRank();
    // The attribute is the signed axis (negative from the back).
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    auto it = typeOf(op.getIdx());
    if (!c || rank < 2 || it.getRank() != 1 || axis < rank - 2)
      return rewriter.notifyMatchFailure(op, "not a row or column gather of "
                                             "a constant");
    auto band = readBand(c);
    if (!band)
      return rewriter.notifyMatchFailure(op, "the table is not a band");
    auto out = op.getType();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    int64_t fromBack = rank - 1 - axis;
    SmallVector<int64_t> shape(rank, 1);
    shape[axis] = it.getDimSize(0);
    Value idx = op.getIdx();
    if (it.getElementType() != i64)
      idx = rewriter.create<ConvertOp>(
          loc, RankedTensorType::get(it.getShape(), i64), idx);
    Value gathered = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, i64), idx);
    Value zero = splatConstant(rewriter, loc, i64, 0);
    Value other = bandIndex(rewriter, loc, out, 1 - fromBack, zero, i64);
    Value rows = fromBack == 1 ? gathered : other;
    Value cols = fromBack == 1 ? other : gathered;
    rewriter.replaceOp(op,
                       buildBandAt(rewriter, loc, *band, rows, cols, out, i64));
    return success();
  }
};

struct BandTableDynamicSlice : public OpRewritePattern<DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto c = op.getX().getDefiningOp<ConstantOp>();
    if (!c)
      return rewriter.notifyMatchFailure(op, "not a slice of a constant");
    auto band = readBand(c);
    if (!band)
      return rewriter.notifyMatchFailure(op, "the table is not a band");
    auto xt = typeOf(op.getX());
    auto out = op.getType();
    int64_t rank = xt.getRank();
    Location loc = op.getLoc();
    // The rebuilt band computes in the starts' type (i32 where the graph
    // was narrowed for a device without 64-bit integers), i64 where they
    // differ.
    Value r = op.getStarts()[rank - 2], k = op.getStarts()[rank - 1];
    Type index = typeOf(r).getElementType();
    if (index != typeOf(k).getElementType())
      index = rewriter.getI64Type();
    Value row0 = effectiveStart(rewriter, loc, r, xt.getDimSize(rank - 2),
                                out.getDimSize(rank - 2), op, index);
    Value col0 = effectiveStart(rewriter, loc, k, xt.getDimSize(rank - 1),
                                out.getDimSize(rank - 1), op, index);
    rewriter.replaceOp(op,
                       buildBand(rewriter, loc, *band, row0, col0, out, index));
    return success();
  }
};

struct BandTableSlice : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto c = op.getX().getDefiningOp<ConstantOp>();
    auto xt = typeOf(op.getX());
    int64_t rank = xt.getRank();
    if (!c || xt.getNumElements() <= kFoldedTable || rank < 2 ||
        op.getStep()[rank - 1] != 1 || op.getStep()[rank - 2] != 1)
      return rewriter.notifyMatchFailure(op, "not a unit-step slice of a "
                                             "large constant");
    auto band = readBand(c);
    if (!band)
      return rewriter.notifyMatchFailure(op, "the table is not a band");
    Location loc = op.getLoc();
    // Static starts and table dims fit i32, which every device has.
    Type i32 = rewriter.getI32Type();
    auto scalar = RankedTensorType::get({}, i32);
    auto constant = [&](int64_t v) -> Value {
      return rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, rewriter.getI32IntegerAttr(v)));
    };
    rewriter.replaceOp(
        op, buildBand(rewriter, loc, *band, constant(op.getStart()[rank - 2]),
                      constant(op.getStart()[rank - 1]), op.getType(), i32));
    return success();
  }
};

/// Whether every read of `v` is mask logic: a select (either side or the
/// condition), and/or/not, or a product with a value that is no constant
/// (a fill times an indicator), through reshapes and broadcasts. Constant
/// arithmetic is left to the constant folds.
bool readAsMaskOnly(Value v, int depth = 0) {
  if (v.use_empty() || depth > 8)
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isa<SelectOp, AndOp, OrOp, NotOp>(user))
      continue;
    if (isa<ReshapeOp, BroadcastOp>(user) &&
        readAsMaskOnly(user->getResult(0), depth + 1))
      continue;
    // A compare with a constant read as mask logic (ParlAI's `mask == 0`
    // of its 0/1 tril table): the folds of a compare of a bool converted
    // to a number take it.
    if (auto cmp = dyn_cast<CompareOp>(user)) {
      Value other = cmp->getOperand(1 - use.getOperandNumber());
      if (splatNumber(other) && readAsMaskOnly(cmp.getResult(), depth + 1))
        continue;
    }
    if (auto mul = dyn_cast<MulOp>(user)) {
      Value other = mul->getOperand(1 - use.getOperandNumber());
      if (!other.getDefiningOp<ConstantOp>())
        continue;
    }
    return false;
  }
  return true;
}

/// A whole constant band table (value a on lo <= col - row <= hi of its
/// last two dims, b elsewhere, every entry checked, other dims 1) that is
/// read only as mask logic is the band it tabulates, rebuilt over the
/// table's own type with rows and columns from 0: cell (r, k) of the
/// result is a exactly where lo <= k - r <= hi, which is where the table
/// holds a, so every cell is the table's own value (a 0/1 table as the
/// condition converted, which is exact). Traced front ends leave such
/// tables where they fold torch.triu(torch.full(min), 1) or
/// torch.tril(ones_like(mask, bool), -window) at trace time; as
/// conditions, the boolean folds, the fill-times-indicator product and the
/// select-of-select rules read them like any other compare.
struct BandTableInMask : public OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getType()))
      return failure();
    if (!readAsMaskOnly(op.getResult()))
      return rewriter.notifyMatchFailure(op, "read by other than mask logic");
    auto band = readBand(op);
    if (!band)
      return rewriter.notifyMatchFailure(op, "the table is not a band");
    // The indices are built in i32 (a table read here has at most 2^22
    // elements, so t - i fits): the unfused graph of a declined candidate
    // then runs where 64-bit integers are not supported, as the table did.
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value zero = splatConstant(rewriter, loc, i32, 0);
    rewriter.replaceOp(op, buildBand(rewriter, loc, *band, zero, zero,
                                     typeOf(op.getResult()), i32));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Boolean folds
//===----------------------------------------------------------------------===//

/// `v` as select(c, A, B) of two constants (a bool converted to a number is
/// select(c, 1, 0)): c, A and B.
std::optional<std::tuple<Value, double, double>>
selectOfConstants(Value v, int depth = 0) {
  if (auto sel = v.getDefiningOp<SelectOp>()) {
    auto a = splatNumber(sel.getOnTrue()), b = splatNumber(sel.getOnFalse());
    if (a && b)
      return std::tuple{sel.getCond(), *a, *b};
  }
  if (auto cv = v.getDefiningOp<ConvertOp>())
    if (typeOf(cv.getX()).getElementType().isInteger(1))
      return std::tuple{cv.getX(), 1.0, 0.0};
  // S + K, K + S, K - S, S - K with S one of the above and K a splat, where
  // every value is a small integer (each sum exact in any float type, bf16
  // included): Pix2Struct's 1 - mask, an indicator added to zeros.
  Operation *def = v.getDefiningOp();
  if (!def || !isa<AddOp, SubOp>(def) ||
      !isa<FloatType>(typeOf(v).getElementType()))
    return std::nullopt;
  auto small = [](double x) {
    return std::abs(x) <= 256 && std::floor(x) == x;
  };
  for (int side = 0; side < 2; ++side) {
    auto k = splatNumber(def->getOperand(1 - side));
    if (!k || !small(*k))
      continue;
    Value inner = def->getOperand(side);
    if (inner.getDefiningOp() == nullptr || depth > 3)
      continue;
    auto s = selectOfConstants(inner, depth + 1);
    if (!s)
      continue;
    auto [c, a, b] = *s;
    if (!small(a) || !small(b))
      continue;
    auto apply = [&](double x) {
      if (isa<AddOp>(def))
        return x + *k;
      return side == 0 ? x - *k : *k - x;
    };
    return std::tuple{c, apply(a), apply(b)};
  }
  return std::nullopt;
}

/// log(select(c, a, b)) -> select(c, log a, log b) where a branch is a
/// constant (a bool converted to a float being select(c, 1, 0)): log is
/// taken element by element either way, and the constant branch folds, so
/// a 0/1 table's log (mistral-src's log(triu(tril(ones)))) becomes the
/// select of 0 and -inf the mask readers take.
struct LogOfSelect : public OpRewritePattern<LogOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cond, a, b;
    if (auto sel = op.getX().getDefiningOp<SelectOp>()) {
      cond = sel.getCond();
      a = sel.getOnTrue();
      b = sel.getOnFalse();
      if (!splatNumber(a) && !splatNumber(b))
        return rewriter.notifyMatchFailure(op, "no constant branch");
    } else if (auto cv = op.getX().getDefiningOp<ConvertOp>();
               cv && typeOf(cv.getX()).getElementType().isInteger(1)) {
      cond = cv.getX();
      auto ft = cast<FloatType>(op.getType().getElementType());
      auto scalar = RankedTensorType::get({}, ft);
      a = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, rewriter.getFloatAttr(ft, 1.0)));
      b = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, rewriter.getFloatAttr(ft, 0.0)));
    } else {
      return rewriter.notifyMatchFailure(op, "not a select or a bool");
    }
    // The select keeps its operands' shapes, so its type is the log's.
    Value la = rewriter.create<LogOp>(loc, a);
    Value lb = rewriter.create<LogOp>(loc, b);
    rewriter.replaceOpWithNewOp<SelectOp>(op, cond, la, lb);
    return success();
  }
};

/// The bool of truth values (onTrue, onFalse) of c: c, not c, or constant.
Value boolOf(PatternRewriter &rewriter, Location loc, Value c, bool onTrue,
             bool onFalse, RankedTensorType out) {
  if (onTrue == onFalse)
    return boolConstant(rewriter, loc, out, onTrue);
  Value r = onTrue ? c : rewriter.create<NotOp>(loc, c).getResult();
  return toShape(rewriter, loc, r, out);
}

/// convert(select(c, A, B)) to i1, A and B constants.
struct BoolOfSelect : public OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().getElementType().isInteger(1))
      return failure();
    auto sel = op.getX().getDefiningOp<SelectOp>();
    auto s = sel ? selectOfConstants(sel) : std::nullopt;
    if (!s)
      return rewriter.notifyMatchFailure(op, "not a select of constants");
    auto [c, a, b] = *s;
    rewriter.replaceOp(
        op, boolOf(rewriter, op.getLoc(), c, a != 0.0, b != 0.0, op.getType()));
    return success();
  }
};

bool holds(ComparePredicate p, double x, double y) {
  switch (p) {
  case ComparePredicate::eq:
    return x == y;
  case ComparePredicate::ne:
    return x != y;
  case ComparePredicate::lt:
    return x < y;
  case ComparePredicate::le:
    return x <= y;
  case ComparePredicate::gt:
    return x > y;
  case ComparePredicate::ge:
    return x >= y;
  }
  return false;
}

/// compare(select(c, A, B), K) (either side) with A, B, K constants.
struct CompareOfSelect : public OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    for (bool left : {true, false}) {
      Value x = left ? op.getLhs() : op.getRhs();
      Value k = left ? op.getRhs() : op.getLhs();
      auto s = selectOfConstants(x);
      auto kv = splatNumber(k);
      if (!s || !kv)
        continue;
      auto [c, a, b] = *s;
      auto test = [&](double v) {
        return left ? holds(op.getPredicate(), v, *kv)
                    : holds(op.getPredicate(), *kv, v);
      };
      rewriter.replaceOp(
          op, boolOf(rewriter, op.getLoc(), c, test(a), test(b), op.getType()));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a compare of a select of "
                                           "constants");
  }
};

/// and/or with a constant side, and(x, x), or(x, x).
template <typename OpTy, bool IsAnd>
struct LogicWithConstant : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    if (op.getLhs() == op.getRhs()) {
      rewriter.replaceOp(op, toShape(rewriter, loc, op.getLhs(), out));
      return success();
    }
    for (bool left : {true, false}) {
      Value k = left ? op.getLhs() : op.getRhs();
      Value x = left ? op.getRhs() : op.getLhs();
      auto kv = splatNumber(k);
      if (!kv)
        continue;
      bool truth = *kv != 0.0;
      // and(true, x) = x, and(false, x) = false; or(false, x) = x,
      // or(true, x) = true.
      if (truth == IsAnd)
        rewriter.replaceOp(op, toShape(rewriter, loc, x, out));
      else
        rewriter.replaceOp(op, boolConstant(rewriter, loc, out, truth));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no constant side");
  }
};

struct NotNot : public OpRewritePattern<NotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NotOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<NotOp>();
    if (!inner)
      return failure();
    rewriter.replaceOp(op, inner.getX());
    return success();
  }
};


/// reshape(broadcast(c)) of a condition, the reshape only inserting or
/// dropping unit dims: broadcast(reshape'(c)), c laid out as the result
/// first. TF's tf.tile of a mask row over the batch followed by
/// expand_dims(mask, 1) so reaches the readers as a compare in the frame of
/// the scores, broadcast over the batch as any mask is.
struct UnitReshapeOfBroadcastCond : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto bc = op.getX().getDefiningOp<BroadcastOp>();
    auto in = typeOf(op.getX()), out = op.getType();
    if (!bc || !in.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "not a broadcast condition");
    auto dims = unitDimMap(in, out);
    if (!dims)
      return rewriter.notifyMatchFailure(op, "moves non-unit dims");
    auto &[pin, pout] = *dims;
    auto xt = typeOf(bc.getX());
    SmallVector<int64_t> padded(in.getRank() - xt.getRank(), 1);
    llvm::append_range(padded, xt.getShape());
    SmallVector<int64_t> shape(out.getRank(), 1);
    for (size_t i = 0; i < pin.size(); ++i)
      shape[pout[i]] = padded[pin[i]];
    Location loc = op.getLoc();
    Value x = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, xt.getElementType()), bc.getX());
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, x, out.getShape());
    return success();
  }
};

/// reshape(u(c)) -> u(reshape(c)) for u a negation or a bool converted to a
/// number, any reshape: a unary elementwise op commutes with every
/// relabelling of its elements. The condition then meets the reshapes under
/// it (latent diffusion's key mask repeated over a flattened (b h) axis and
/// viewed back: the views compose away and the readers see the broadcast
/// over heads), and the readers of indicators meet convert(c) itself.
struct ReshapeOfUnaryCondition : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *u = op.getX().getDefiningOp();
    if (!u || !u->hasOneUse() || !isa<NotOp, ConvertOp>(u) ||
        !typeOf(u->getOperand(0)).getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "not a reshaped condition");
    Value c = rewriter.create<ReshapeOp>(
        op.getLoc(),
        RankedTensorType::get(op.getType().getShape(), rewriter.getI1Type()),
        u->getOperand(0));
    OperationState state(u->getLoc(), u->getName(), ValueRange{c},
                         TypeRange{op.getType()}, u->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// Whether `v` is computed without a matmul (constants, iotas, inputs and
/// elementwise or data-movement ops over them): a mask, not scores.
bool productFree(Value v, llvm::DenseMap<Value, bool> &memo, int depth = 0) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool free = true;
  if (def) {
    if (isa<MatmulOp>(def) || depth > 64 || def->getNumRegions())
      free = false;
    for (Value x : def->getOperands())
      if (free && !productFree(x, memo, depth + 1))
        free = false;
  }
  memo[v] = free;
  return free;
}

/// reshape(f(a, b)) -> f(reshape(a), reshape(b)) for a binary elementwise
/// f over masks (no matmul behind either side) where the reshape only
/// splits dims (and inserts or drops unit dims): each side's dim is then
/// either 1 (it stays 1 in every part) or whole (it splits the same way),
/// so every element is the same. PyTorch's multi_head_attention_forward
/// adds its causal mask [1, L, S] and its padding [B H, 1, S] in the
/// flattened batch and views the sum as [B, H, L, S]: after this the
/// padding meets its own view of [B, H, 1, S] and reads as a mask per
/// batch row, and the causal part as a band.
template <typename OpTy>
struct SplitReshapeOfMaskArith : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern<ReshapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto f = op.getX().template getDefiningOp<OpTy>();
    if (!f || !f->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a reshaped elementwise op");
    auto in = typeOf(f.getResult()), out = typeOf(op.getResult());
    ArrayRef<int64_t> I = in.getShape(), O = out.getShape();
    // group[o]: the input dim output dim o comes from (-1: a unit dim of
    // its own).
    SmallVector<int64_t> group(O.size(), -1);
    size_t o = 0;
    for (size_t i = 0; i < I.size(); ++i) {
      if (I[i] == 1)
        continue;
      while (o < O.size() && O[o] == 1)
        ++o;
      int64_t prod = 1;
      while (o < O.size() && prod < I[i]) {
        prod *= O[o];
        group[o++] = static_cast<int64_t>(i);
      }
      if (prod != I[i])
        return rewriter.notifyMatchFailure(op, "not a split of dims");
    }
    for (; o < O.size(); ++o)
      if (O[o] != 1)
        return rewriter.notifyMatchFailure(op, "not a split of dims");
    bool splits = false;
    for (size_t d = 0; d + 1 < O.size(); ++d)
      splits |= group[d] >= 0 && group[d] == group[d + 1];
    if (!splits)
      return rewriter.notifyMatchFailure(op, "splits no dim");
    llvm::DenseMap<Value, bool> memo;
    SmallVector<RankedTensorType> targets;
    for (Value x : {f.getLhs(), f.getRhs()}) {
      if (!productFree(x, memo))
        return rewriter.notifyMatchFailure(op, "a side computed by a matmul");
      auto xt = typeOf(x);
      int64_t lead = in.getRank() - xt.getRank();
      SmallVector<int64_t> shape;
      for (size_t d = 0; d < O.size(); ++d) {
        int64_t i = group[d];
        int64_t xd = i < lead ? 1 : (i < 0 ? 1 : xt.getDimSize(i - lead));
        if (xd != 1 && xd != I[i])
          return rewriter.notifyMatchFailure(op, "a side of another size");
        shape.push_back(xd == 1 ? 1 : O[d]);
      }
      targets.push_back(RankedTensorType::get(shape, xt.getElementType()));
    }
    Value operands[2] = {f.getLhs(), f.getRhs()};
    SmallVector<Value> sides;
    for (int k = 0; k < 2; ++k)
      sides.push_back(typeOf(operands[k]) == targets[k]
                          ? operands[k]
                          : rewriter.create<ReshapeOp>(op.getLoc(), targets[k],
                                                       operands[k])
                                .getResult());
    rewriter.replaceOpWithNewOp<OpTy>(op, sides[0], sides[1]);
    return success();
  }
};

/// select(c, 1, 0) -> convert(c) and select(c, 0, 1) -> convert(not(c)) for
/// a float result of c's shape: the same numbers (a bool converts to 1.0 or
/// +0.0), spelled as the indicator the mask readers take (Jukebox's
/// ones(q, k).tril() used as w * mask - 1e9 * (1 - mask)).
struct SelectOfOneAndZero : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    if (!isa<FloatType>(out.getElementType()) ||
        typeOf(op.getCond()).getShape() != out.getShape())
      return rewriter.notifyMatchFailure(op, "not a float select of c's shape");
    auto a = splatNumber(op.getOnTrue()), b = splatNumber(op.getOnFalse());
    auto isPlusZero = [](Value v) {
      auto c = v.getDefiningOp<ConstantOp>();
      auto d = c ? dyn_cast<DenseFPElementsAttr>(c.getValue()) : nullptr;
      return d && d.isSplat() && d.getSplatValue<APFloat>().isPosZero();
    };
    Value c = op.getCond();
    if (a && b && *a == 1.0 && *b == 0.0 && isPlusZero(op.getOnFalse())) {
    } else if (a && b && *a == 0.0 && *b == 1.0 && isPlusZero(op.getOnTrue())) {
      c = rewriter.create<NotOp>(op.getLoc(), c.getType(), c);
    } else {
      return rewriter.notifyMatchFailure(op, "sides are not 1 and +0");
    }
    rewriter.replaceOpWithNewOp<ConvertOp>(op, out, c);
    return success();
  }
};

/// not(broadcast(x)) -> broadcast(not(x)): the negation on the smaller
/// condition, so the broadcast is the outermost op of the condition and
/// the select's own broadcasting can take it.
struct NotOfBroadcast : public OpRewritePattern<NotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NotOp op,
                                PatternRewriter &rewriter) const override {
    auto bc = op->getOperand(0).getDefiningOp<BroadcastOp>();
    if (!bc || !bc->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a negated broadcast");
    Value x = rewriter.create<NotOp>(op.getLoc(), bc.getX().getType(),
                                     bc.getX());
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, x,
                                             typeOf(op.getResult()).getShape());
    return success();
  }
};

/// select(broadcast(c), a, b) -> select(c, a, b) where the select's own
/// broadcasting gives the same result shape: the condition is read at the
/// size it was built (a key mask [B, 1, 1, Lk] stays per batch row instead
/// of becoming one copy per head).
struct SelectOfBroadcastCond : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto bc = op->getOperand(0).getDefiningOp<BroadcastOp>();
    if (!bc)
      return rewriter.notifyMatchFailure(op, "condition is no broadcast");
    SmallVector<int64_t> ab, all;
    if (!OpTrait::util::getBroadcastedShape(typeOf(op->getOperand(1)).getShape(),
                                            typeOf(op->getOperand(2)).getShape(),
                                            ab) ||
        !OpTrait::util::getBroadcastedShape(typeOf(bc.getX()).getShape(), ab,
                                            all) ||
        ArrayRef<int64_t>(all) != typeOf(op.getResult()).getShape())
      return rewriter.notifyMatchFailure(op, "the broadcast sets the shape");
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(0, bc.getX()); });
    return success();
  }
};

/// reshape(op(x, y)) for a compare or a logic op, the reshape only
/// inserting or dropping unit dims (not just leading ones): op(reshape'(x),
/// reshape'(y)), each operand laid out as the result (its broadcast dims
/// staying 1). Data does not move, so each element compares the same pair; the
/// mask readers then see the conditions in the frame of the scores.
struct UnitReshapeOfLogic : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getX().getDefiningOp();
    if (!def || !isa<CompareOp, AndOp, OrOp, NotOp>(def))
      return rewriter.notifyMatchFailure(op, "not a reshaped condition");
    auto in = typeOf(op.getX()), out = op.getType();
    auto map = unitDimMap(in, out);
    if (!map)
      return rewriter.notifyMatchFailure(op, "moves non-unit dims");
    // Named copies: a lambda below reads them (clang rejects capturing a
    // structured binding before C++20).
    SmallVector<int64_t> pin = map->first, pout = map->second;
    // Leading unit dims change nothing under right-aligned broadcasting;
    // the readers look through such reshapes.
    if (pin.empty() ||
        (in.getRank() - pin.front() == out.getRank() - pout.front() &&
         llvm::all_of(llvm::seq<size_t>(0, pin.size()), [&](size_t i) {
           return in.getRank() - pin[i] == out.getRank() - pout[i];
         })))
      return rewriter.notifyMatchFailure(op, "only leading unit dims");
    Location loc = op.getLoc();
    SmallVector<Value> operands;
    for (Value x : def->getOperands()) {
      auto xt = typeOf(x);
      SmallVector<int64_t> padded(in.getRank() - xt.getRank(), 1);
      llvm::append_range(padded, xt.getShape());
      SmallVector<int64_t> shape(out.getRank(), 1);
      for (size_t i = 0; i < pin.size(); ++i)
        shape[pout[i]] = padded[pin[i]];
      if (ArrayRef<int64_t>(shape) == xt.getShape()) {
        operands.push_back(x);
        continue;
      }
      operands.push_back(rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, xt.getElementType()), x));
    }
    OperationState state(def->getLoc(), def->getName());
    state.addOperands(operands);
    state.addAttributes(def->getAttrs());
    state.addTypes(out);
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Concats of index expressions
//===----------------------------------------------------------------------===//

/// Index expressions: values computed from iotas and splat constants alone
/// by broadcasts, unit-dim reshapes, integer converts, integer arithmetic,
/// compares, logic and selects. Such a value is a function of its element's
/// indices, so it can be re-evaluated over another index range.
///
/// `shifted` views an index expression `v` with its axis `axis` (in v's own
/// dims) re-indexed: element j of the new value along `axis` is what v's
/// formula gives at index j - shift, over `size` elements. A dim of 1 along
/// the axis (or no such axis, axis < 0) does not depend on it and stays.

/// The axis of an operand of rank `opRank` under a result of rank `rank`
/// (right-aligned broadcasting) that `axis` of the result reads, or -1
/// when the operand does not vary along it.
int64_t operandAxis(int64_t axis, int64_t rank, Value operand) {
  auto t = typeOf(operand);
  int64_t a = axis < 0 ? -1 : axis - (rank - t.getRank());
  if (a < 0 || t.getDimSize(a) == 1)
    return -1;
  return a;
}

/// For a reshape that only inserts or drops unit dims, the input axis of
/// the output's non-unit `axis` (-1 when the reshape moves data otherwise).
int64_t reshapeInputAxis(ReshapeOp r, int64_t axis) {
  auto dims = unitDimMap(typeOf(r.getX()), r.getType());
  if (!dims)
    return -2;
  auto &[pin, pout] = *dims;
  int64_t found = -1;
  for (size_t i = 0; i < pin.size(); ++i)
    if (pout[i] == axis)
      found = pin[i];
  return found;
}

/// Sign-extends the low `width` bits of x (integer ops wrap in their type).
int64_t wrapTo(int64_t x, unsigned width) {
  if (width >= 64)
    return x;
  if (width == 1)
    return x & 1;
  uint64_t m = (uint64_t(1) << width) - 1, u = uint64_t(x) & m;
  if (u >> (width - 1))
    u |= ~m;
  return static_cast<int64_t>(u);
}

bool isIndexInt(Type et) { return isa<IntegerType>(et); }

/// Index expressions are evaluated over at most this many elements.
constexpr int64_t kEvalLimit = 1 << 20;

/// The splat value of an integer or bool constant (through broadcasts and
/// reshapes), sign-extended (a bool as 0/1).
std::optional<int64_t> splatInt(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : nullptr;
    if (!dense || !dense.isSplat())
      return std::nullopt;
    APInt x = dense.getSplatValue<APInt>();
    if (x.getBitWidth() == 1)
      return x.getBoolValue() ? 1 : 0;
    if (x.getBitWidth() > 64)
      return std::nullopt;
    return x.getSExtValue();
  }
  return std::nullopt;
}

/// Row-major values of a shaped integer/bool value.
struct Grid {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> v;
};

/// The flat index into a right-aligned broadcast operand of shape `in` of
/// the element `flat` of a result of shape `out`.
int64_t broadcastIndex(ArrayRef<int64_t> out, ArrayRef<int64_t> in,
                       int64_t flat) {
  int64_t idx = 0, stride = 1, off = out.size() - in.size();
  for (int64_t d = out.size() - 1; d >= 0; --d) {
    int64_t i = flat % out[d];
    flat /= out[d];
    if (d >= off) {
      int64_t s = in[d - off];
      idx += (s == 1 ? 0 : i) * stride;
      stride *= s;
    }
  }
  return idx;
}

/// The shape of `v` with `axis` resized to `size` (when v varies along it).
SmallVector<int64_t> shiftedShape(Value v, int64_t axis, int64_t size) {
  SmallVector<int64_t> s(typeOf(v).getShape());
  if (axis >= 0)
    s[axis] = size;
  return s;
}

/// Evaluates the shifted view of the integer or bool index expression `v`
/// (see above); nullopt when v is not one or is too large.
/// Memo of evalShifted and buildShifted (an index expression is a DAG: a
/// value read twice is evaluated and rebuilt once).
struct ShiftMemo {
  DenseMap<std::pair<Value, int64_t>, std::optional<Grid>> grids;
  DenseMap<std::pair<Value, int64_t>, Value> built;
  /// Where set (a 1-D integer vector as long as the axis), buildShifted
  /// reads the iotas along the axis at these indices instead of shifting
  /// them: the expression gathered along the axis.
  Value axisIndex;
};

/// Index expressions are read up to this many distinct values.
constexpr unsigned kExprLimit = 256;

std::optional<Grid> evalShiftedNode(Value v, int64_t axis, int64_t shift,
                                    int64_t size, ShiftMemo &memo, int depth);

std::optional<Grid> evalShifted(Value v, int64_t axis, int64_t shift,
                                int64_t size, ShiftMemo &memo, int depth = 0) {
  auto key = std::pair{v, axis};
  if (auto it = memo.grids.find(key); it != memo.grids.end())
    return it->second;
  if (memo.grids.size() >= kExprLimit)
    return std::nullopt;
  auto g = evalShiftedNode(v, axis, shift, size, memo, depth);
  memo.grids[key] = g;
  return g;
}

std::optional<Grid> evalShiftedNode(Value v, int64_t axis, int64_t shift,
                                    int64_t size, ShiftMemo &memo, int depth) {
  auto t = typeOf(v);
  Type et = t.getElementType();
  if (depth > 32 || !isIndexInt(et))
    return std::nullopt;
  unsigned width = et.getIntOrFloatBitWidth();
  Grid g;
  g.shape = shiftedShape(v, axis, size);
  int64_t n = 1;
  for (int64_t d : g.shape)
    n *= d;
  if (n > kEvalLimit)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto s = splatInt(v); s && isa<ConstantOp>(def)) {
    g.v.assign(n, wrapTo(*s, width));
    return g;
  }
  if (auto iota = dyn_cast<IotaOp>(def)) {
    int64_t d = iota.getDim();
    for (int64_t f = 0; f < n; ++f) {
      int64_t r = f;
      for (int64_t e = g.shape.size() - 1; e > d; --e)
        r /= g.shape[e];
      int64_t i = r % g.shape[d];
      g.v.push_back(wrapTo(d == axis ? i - shift : i, width));
    }
    return g;
  }
  auto fromOperand = [&](Value x, int64_t xAxis) -> std::optional<Grid> {
    auto in = evalShifted(x, xAxis, shift, size, memo, depth + 1);
    if (!in)
      return std::nullopt;
    Grid out;
    out.shape = g.shape;
    for (int64_t f = 0; f < n; ++f)
      out.v.push_back(in->v[broadcastIndex(g.shape, in->shape, f)]);
    return out;
  };
  int64_t rank = t.getRank();
  if (auto b = dyn_cast<BroadcastOp>(def))
    return fromOperand(b.getX(), operandAxis(axis, rank, b.getX()));
  if (auto r = dyn_cast<ReshapeOp>(def)) {
    int64_t a = axis < 0 ? -1 : reshapeInputAxis(r, axis);
    if (a == -2 || (axis >= 0 && a < 0))
      return std::nullopt;
    auto in = evalShifted(r.getX(), a, shift, size, memo, depth + 1);
    if (!in)
      return std::nullopt;
    g.v = in->v; // the same data, unit dims moved
    return g;
  }
  if (auto c = dyn_cast<ConvertOp>(def)) {
    if (!isIndexInt(typeOf(c.getX()).getElementType()))
      return std::nullopt;
    auto in = fromOperand(c.getX(), axis);
    if (!in)
      return std::nullopt;
    for (int64_t &x : in->v)
      x = et.isInteger(1) ? (x != 0) : wrapTo(x, width);
    return in;
  }
  if (auto s = dyn_cast<SelectOp>(def)) {
    auto c = fromOperand(s.getCond(), operandAxis(axis, rank, s.getCond()));
    auto a =
        fromOperand(s.getOnTrue(), operandAxis(axis, rank, s.getOnTrue()));
    auto b =
        fromOperand(s.getOnFalse(), operandAxis(axis, rank, s.getOnFalse()));
    if (!c || !a || !b)
      return std::nullopt;
    for (int64_t f = 0; f < n; ++f)
      g.v.push_back(c->v[f] ? a->v[f] : b->v[f]);
    return g;
  }
  if (auto nt = dyn_cast<NotOp>(def)) {
    auto x = fromOperand(nt.getX(), axis);
    if (!x)
      return std::nullopt;
    for (int64_t &e : x->v)
      e = !e;
    return x;
  }
  if (auto ng = dyn_cast<NegOp>(def)) {
    auto x = fromOperand(ng.getX(), axis);
    if (!x)
      return std::nullopt;
    for (int64_t &e : x->v)
      e = wrapTo(static_cast<int64_t>(0 - static_cast<uint64_t>(e)), width);
    return x;
  }
  if (!isa<AddOp, SubOp, MulOp, MinOp, MaxOp, AndOp, OrOp, CompareOp>(def))
    return std::nullopt;
  Value lv = def->getOperand(0), rv = def->getOperand(1);
  if (!isIndexInt(typeOf(lv).getElementType()))
    return std::nullopt;
  auto l = fromOperand(lv, operandAxis(axis, rank, lv));
  auto r = fromOperand(rv, operandAxis(axis, rank, rv));
  if (!l || !r)
    return std::nullopt;
  unsigned w = typeOf(lv).getElementType().getIntOrFloatBitWidth();
  for (int64_t f = 0; f < n; ++f) {
    int64_t x = l->v[f], y = r->v[f], z = 0;
    // Wrapping (two's complement) arithmetic, as the ops compute it.
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    if (isa<AddOp>(def))
      z = static_cast<int64_t>(ux + uy);
    else if (isa<SubOp>(def))
      z = static_cast<int64_t>(ux - uy);
    else if (isa<MulOp>(def))
      z = static_cast<int64_t>(ux * uy);
    else if (isa<MinOp>(def))
      z = std::min(x, y);
    else if (isa<MaxOp>(def))
      z = std::max(x, y);
    else if (isa<AndOp>(def))
      z = x && y;
    else if (isa<OrOp>(def))
      z = x || y;
    else
      z = holds(cast<CompareOp>(def).getPredicate(), double(x), double(y));
    g.v.push_back(wrapTo(z, w == 1 ? 1 : width));
  }
  return g;
}

/// Builds the shifted view of an index expression that evalShifted read.
Value buildShiftedNode(PatternRewriter &rewriter, Value v, int64_t axis,
                       int64_t shift, int64_t size, ShiftMemo &memo);

Value buildShifted(PatternRewriter &rewriter, Value v, int64_t axis,
                   int64_t shift, int64_t size, ShiftMemo &memo) {
  if (axis < 0)
    return v;
  Value &slot = memo.built[{v, axis}];
  if (!slot)
    slot = buildShiftedNode(rewriter, v, axis, shift, size, memo);
  return slot;
}

Value buildShiftedNode(PatternRewriter &rewriter, Value v, int64_t axis,
                       int64_t shift, int64_t size, ShiftMemo &memo) {
  auto t = typeOf(v);
  auto nt = RankedTensorType::get(shiftedShape(v, axis, size),
                                  t.getElementType());
  Operation *def = v.getDefiningOp();
  Location loc = v.getLoc();
  int64_t rank = t.getRank();
  if (auto s = splatNumber(v); s && isa<ConstantOp>(def))
    return rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(
                 nt, cast<DenseElementsAttr>(cast<ConstantOp>(def).getValue())
                         .getSplatValue<Attribute>()));
  if (auto iota = dyn_cast<IotaOp>(def)) {
    if (memo.axisIndex && static_cast<int64_t>(iota.getDim()) == axis) {
      SmallVector<int64_t> shape(rank, 1);
      shape[axis] = size;
      Value x = memo.axisIndex;
      auto xt = typeOf(x);
      x = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, xt.getElementType()), x);
      if (xt.getElementType() != t.getElementType())
        x = rewriter.create<ConvertOp>(
            loc, RankedTensorType::get(shape, t.getElementType()), x);
      if (ArrayRef<int64_t>(shape) == nt.getShape())
        return x;
      return rewriter.create<BroadcastOp>(loc, x, nt.getShape());
    }
    Value r = rewriter.create<IotaOp>(loc, nt, iota.getDim());
    if (static_cast<int64_t>(iota.getDim()) == axis && shift != 0)
      r = rewriter.create<SubOp>(
          loc, r, splatConstant(rewriter, loc, t.getElementType(), shift));
    return r;
  }
  if (auto b = dyn_cast<BroadcastOp>(def)) {
    Value x = buildShifted(rewriter, b.getX(),
                           operandAxis(axis, rank, b.getX()), shift, size,
                           memo);
    return rewriter.create<BroadcastOp>(loc, x, nt.getShape());
  }
  if (auto r = dyn_cast<ReshapeOp>(def)) {
    Value x =
        buildShifted(rewriter, r.getX(), reshapeInputAxis(r, axis), shift,
                     size, memo);
    return rewriter.create<ReshapeOp>(loc, nt, x);
  }
  // Elementwise: the same op over the shifted operands.
  SmallVector<Value> operands;
  for (Value x : def->getOperands())
    operands.push_back(
        buildShifted(rewriter, x, operandAxis(axis, rank, x), shift, size,
                     memo));
  OperationState state(loc, def->getName());
  state.addOperands(operands);
  state.addAttributes(def->getAttrs());
  state.addTypes(nt);
  return rewriter.create(state)->getResult(0);
}

/// gather(x, idx) along an axis of an index expression x (iotas and splat
/// constants under elementwise ops, compares and logic, all of x's rank):
/// x rebuilt over the gathered shape, its iotas along the axis replaced by
/// idx (laid along the axis). Element j of the gathered axis is x's formula
/// at index idx[j] (a gather outside the axis is a run-time error), so the
/// mask readers see the position: gpt-fast's causal_mask[None, None,
/// input_pos] of a tril built from iotas is causal from input_pos.
struct GatherOfIndexExpr : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool indexTree(Value v, int64_t rank, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def || depth > 8 || !isa<RankedTensorType>(v.getType()))
      return false;
    if (splatNumber(v) && isa<ConstantOp>(def))
      return typeOf(v).getRank() <= rank;
    if (typeOf(v).getRank() != rank)
      return false;
    if (isa<IotaOp>(def))
      return true;
    if (!isa<CompareOp, AndOp, OrOp, NotOp, AddOp, SubOp, MulOp, MinOp,
             MaxOp, SelectOp>(def))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value x) {
      return indexTree(x, rank, depth + 1);
    });
  }

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto xt = typeOf(op.getX());
    int64_t rank = xt.getRank();
    // The attribute is read as the signed axis it is (negative from the
    // back).
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    auto it = typeOf(op.getIdx());
    // The axis must be there in full (a unit axis gathered n times would
    // need a broadcast the rebuilt tree does not make).
    if (axis < 0 || axis >= rank || it.getRank() != 1 || rank < 1 ||
        xt.getDimSize(axis) == 1 ||
        !isa<IntegerType>(it.getElementType()) ||
        !indexTree(op.getX(), rank, 0))
      return rewriter.notifyMatchFailure(op, "not a gather of an index "
                                             "expression");
    // The expression over the gathered axis, its iota along the axis read
    // at the gathered indices (buildShifted with the indices in the memo).
    ShiftMemo memo;
    memo.axisIndex = op.getIdx();
    Value r = buildShifted(rewriter, op.getX(), axis, /*shift=*/0,
                           it.getDimSize(0), memo);
    assert(r.getType() == op.getType() && "rebuilt type differs");
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// The splat attribute of a constant (through broadcasts and reshapes).
Attribute splatAttr(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    if (!dense || !dense.isSplat())
      return nullptr;
    return dense.getSplatValue<Attribute>();
  }
  return nullptr;
}

/// concat(pieces) along an axis where one piece X is an index expression
/// (or select(c, a, b) of one with splat a, b) at offset P and every other
/// piece a splat constant K: the shifted view of X over the whole axis
/// (element j along it is X's formula at j - P), when that view is proven
/// to equal each K on K's own range (the view is evaluated there, cell by
/// cell). On X's own range the view is X itself, so every element is the
/// same. A static past in front of a causal triangle
/// (cat([zeros(L, past), triu_mask], -1)) becomes one causal condition
/// shifted by the past.
struct ConcatOfIndexExpr : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    int64_t rank = out.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank || op.getInputs().size() < 2)
      return failure();
    // The one piece that is not a splat constant.
    int64_t which = -1, offset = 0, at = 0;
    for (auto [n, x] : llvm::enumerate(op.getInputs())) {
      if (!splatAttr(x)) {
        if (which >= 0)
          return rewriter.notifyMatchFailure(op, "two non-constant pieces");
        which = n;
        offset = at;
      }
      at += typeOf(x).getDimSize(axis);
    }
    if (which < 0)
      return rewriter.notifyMatchFailure(op, "all pieces constant");
    Value x = op.getInputs()[which];
    int64_t size = out.getDimSize(axis);
    // The truth of the condition a piece needs: select(c, a, b) equals a
    // splat K where c is true iff a == K, false iff b == K.
    Value cond = x;
    Attribute onTrue, onFalse;
    if (!isIndexInt(typeOf(x).getElementType())) {
      // A select behind a broadcast that only adds leading unit dims (the
      // [bsz, 1, n, n] view of an [n, n] table): the same cells, right
      // aligned.
      Value sx = x;
      if (auto b = sx.getDefiningOp<BroadcastOp>()) {
        auto in = typeOf(b.getX()), bt = typeOf(b.getResult());
        int64_t off = bt.getRank() - in.getRank();
        if (off >= 0 &&
            bt.getShape().drop_front(off) == in.getShape() &&
            llvm::all_of(bt.getShape().take_front(off),
                         [](int64_t d) { return d == 1; }))
          sx = b.getX();
      }
      auto sel = sx.getDefiningOp<SelectOp>();
      if (!sel)
        return rewriter.notifyMatchFailure(op, "not an index expression");
      cond = sel.getCond();
      onTrue = splatAttr(sel.getOnTrue());
      onFalse = splatAttr(sel.getOnFalse());
      if (!onTrue || !onFalse)
        return rewriter.notifyMatchFailure(op, "select of non-splats");
    }
    int64_t condAxis = operandAxis(axis, rank, cond);
    ShiftMemo memo;
    auto grid = condAxis < 0 ? std::nullopt
                             : evalShifted(cond, condAxis, offset, size, memo);
    if (!grid)
      return rewriter.notifyMatchFailure(op, "not an index expression");
    // Check each constant piece's range of the axis.
    int64_t lo = 0;
    for (auto [n, piece] : llvm::enumerate(op.getInputs())) {
      int64_t w = typeOf(piece).getDimSize(axis);
      if (static_cast<int64_t>(n) != which) {
        Attribute k = splatAttr(piece);
        // Whether a cell of truth `c` of the view holds K.
        auto equalsK = [&](int64_t c) -> bool {
          if (!onTrue) { // a bool or integer piece: the value itself
            const APInt &kv = cast<IntegerAttr>(k).getValue();
            return c == (kv.getBitWidth() == 1 ? int64_t(kv.getBoolValue())
                                               : kv.getSExtValue());
          }
          return (c ? onTrue : onFalse) == k;
        };
        int64_t gr = grid->shape.size();
        int64_t ga = condAxis;
        for (int64_t f = 0, e = grid->v.size(); f < e; ++f) {
          int64_t r = f;
          for (int64_t d = gr - 1; d > ga; --d)
            r /= grid->shape[d];
          int64_t j = r % grid->shape[ga];
          if (j >= lo && j < lo + w && !equalsK(grid->v[f]))
            return rewriter.notifyMatchFailure(
                op, "a constant piece differs from the shifted expression");
        }
      }
      lo += w;
    }
    Value r;
    if (!onTrue) {
      r = buildShifted(rewriter, x, axis, offset, size, memo);
    } else {
      // The sides as scalars: they are splats, and may carry X's shape.
      auto scalar = RankedTensorType::get({}, out.getElementType());
      Value a = rewriter.create<ConstantOp>(
          op.getLoc(), DenseElementsAttr::get(scalar, onTrue));
      Value b = rewriter.create<ConstantOp>(
          op.getLoc(), DenseElementsAttr::get(scalar, onFalse));
      Value c = buildShifted(rewriter, cond, condAxis, offset, size, memo);
      r = rewriter.create<SelectOp>(op.getLoc(), c, a, b);
    }
    rewriter.replaceOp(op, toShape(rewriter, op.getLoc(), r, out));
    return success();
  }
};

/// A unit-step slice of an index expression (or of a select of two splats
/// over one), along one axis at a time: the expression rebuilt over the
/// sliced range, its iotas offset by the start. Persimmon builds its mask
/// one key wider than the keys and slices it to them; gemma_pytorch slices
/// the rows it needs out of its table; HF's eager attention slices the
/// 4-D mask, expanded over the batch, to the keys.
struct SliceOfIndexExpr : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getX();
    auto in = typeOf(x);
    int64_t rank = in.getRank(), axis = -1;
    for (int64_t d = 0; d < rank; ++d) {
      if (op.getStep()[d] != 1)
        return rewriter.notifyMatchFailure(op, "a strided slice");
      if (axis < 0 &&
          (op.getStart()[d] != 0 || op.getLimit()[d] != in.getDimSize(d)))
        axis = d;
    }
    if (axis < 0)
      return failure();
    // The axes the slice cuts (every one unit-step, above).
    SmallVector<int64_t> cut;
    for (int64_t d = 0; d < rank; ++d)
      if (op.getStart()[d] != 0 || op.getLimit()[d] != in.getDimSize(d))
        cut.push_back(d);
    // Behind a broadcast that keeps every sliced axis as it is (HF's
    // mask.expand(B, 1, -1, -1) before the slice to the keys): the slice
    // moves to its input, and the broadcast follows it.
    if (auto bc = x.getDefiningOp<BroadcastOp>()) {
      auto yt = typeOf(bc.getX());
      int64_t lead = rank - yt.getRank();
      SmallVector<int64_t> st(yt.getRank(), 0), li(yt.getShape()),
          sp(yt.getRank(), 1);
      for (int64_t d : cut) {
        int64_t inAxis = d - lead;
        if (inAxis < 0 || yt.getDimSize(inAxis) != in.getDimSize(d))
          return rewriter.notifyMatchFailure(op, "slice of a broadcast axis");
        st[inAxis] = op.getStart()[d];
        li[inAxis] = op.getLimit()[d];
      }
      Value sl = rewriter.create<SliceOp>(op.getLoc(), bc.getX(), st, li, sp);
      rewriter.replaceOpWithNewOp<BroadcastOp>(op, sl,
                                               typeOf(op.getResult()).getShape());
      return success();
    }
    // Behind a reshape that only inserts or drops unit dims (HF's
    // mask[None, None] before the slice, Bark's registered tril buffer
    // sliced to the rows and keys of a step): the slice moves to its input.
    if (auto re = x.getDefiningOp<ReshapeOp>()) {
      auto yt = typeOf(re.getX());
      bool indexLike = isIndexInt(yt.getElementType()) ||
                       re.getX().getDefiningOp<SelectOp>();
      if (!indexLike)
        return rewriter.notifyMatchFailure(op, "slice behind a reshape");
      SmallVector<int64_t> st(yt.getRank(), 0), li(yt.getShape()),
          sp(yt.getRank(), 1);
      for (int64_t d : cut) {
        int64_t inAxis = reshapeInputAxis(re, d);
        if (inAxis < 0)
          return rewriter.notifyMatchFailure(op, "slice behind a reshape");
        st[inAxis] = op.getStart()[d];
        li[inAxis] = op.getLimit()[d];
      }
      Value sl = rewriter.create<SliceOp>(op.getLoc(), re.getX(), st, li, sp);
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), sl);
      return success();
    }
    Value cond = x;
    Attribute onTrue, onFalse;
    if (!isIndexInt(in.getElementType())) {
      auto sel = x.getDefiningOp<SelectOp>();
      if (!sel)
        return rewriter.notifyMatchFailure(op, "not an index expression");
      cond = sel.getCond();
      onTrue = splatAttr(sel.getOnTrue());
      onFalse = splatAttr(sel.getOnFalse());
      if (!onTrue || !onFalse)
        return rewriter.notifyMatchFailure(op, "select of non-splats");
    }
    int64_t start = op.getStart()[axis];
    int64_t size = op.getLimit()[axis] - start;
    int64_t condAxis = operandAxis(axis, rank, cond);
    ShiftMemo memo;
    // A condition that does not vary along the axis is kept whole.
    if (condAxis >= 0 && !evalShifted(cond, condAxis, -start, size, memo))
      return rewriter.notifyMatchFailure(op, "not an index expression");
    Location loc = op.getLoc();
    Value c = buildShifted(rewriter, cond, condAxis, -start, size, memo);
    Value r = c;
    if (onTrue) {
      auto scalar = RankedTensorType::get({}, in.getElementType());
      Value a = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, onTrue));
      Value b = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, onFalse));
      r = rewriter.create<SelectOp>(loc, c, a, b);
    }
    // The axis sliced, the others whole: brought to that shape, then the
    // slice of the remaining axes.
    SmallVector<int64_t> shape(in.getShape());
    shape[axis] = size;
    r = toShape(rewriter, loc,
                r, RankedTensorType::get(shape, in.getElementType()));
    SmallVector<int64_t> rs(op.getStart()), rl(op.getLimit());
    rs[axis] = 0;
    rl[axis] = size;
    if (RankedTensorType::get(shape, in.getElementType()) != op.getType())
      r = rewriter.create<SliceOp>(loc, r, rs, rl, op.getStep());
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Whether two values are provably equal element for element: the same
/// value, or splat constants of the same element (bitwise).
bool sameSplatOrValue(Value a, Value b) {
  if (a == b)
    return true;
  Attribute x = splatAttr(a), y = splatAttr(b);
  return x && x == y;
}

/// A select nested in a select with a side the two share: the inner
/// select's other side is taken under one condition.
///   select(c1, X, select(c2, Y, Z)), X == Z: select(!c1 & c2, Y, Z)
///     (c1: X = Z; !c1 & c2: Y; !c1 & !c2: Z);
///   select(c1, X, select(c2, Y, Z)), X == Y: select(c1 | c2, Y, Z);
///   select(c1, select(c2, Y, Z), X), X == Z: select(c1 & c2, Y, Z);
///   select(c1, select(c2, Y, Z), X), X == Y: select(!c1 | c2, Y, Z).
/// Each element is the same; the shared side must have the select's shape
/// or broadcast to it, as every side does.
struct SelectOfSelect : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    Location loc = op.getLoc();
    Value c1 = op.getCond();
    for (bool innerOnFalse : {true, false}) {
      Value innerV = innerOnFalse ? op.getOnFalse() : op.getOnTrue();
      Value x = innerOnFalse ? op.getOnTrue() : op.getOnFalse();
      auto inner = innerV.getDefiningOp<SelectOp>();
      // The inner select may sit behind a reshape or a broadcast (HF's
      // mask[None, None, :, :]) when both its sides are splats: then
      // layout(select(c2, Y, Z)) is select(layout(c2'), Y, Z), c2' being
      // c2 brought to the inner select's shape, since every element moves
      // with its condition and the sides are the same everywhere.
      Operation *layout = nullptr;
      if (!inner && innerV.getDefiningOp() &&
          isa<ReshapeOp, BroadcastOp>(innerV.getDefiningOp())) {
        layout = innerV.getDefiningOp();
        inner = layout->getOperand(0).getDefiningOp<SelectOp>();
        if (inner && (!splatAttr(inner.getOnTrue()) ||
                      !splatAttr(inner.getOnFalse())))
          inner = nullptr;
      }
      if (!inner)
        continue;
      Value c2 = inner.getCond(), y = inner.getOnTrue(), z = inner.getOnFalse();
      bool eqZ = sameSplatOrValue(x, z), eqY = sameSplatOrValue(x, y);
      if (!eqZ && !eqY)
        continue;
      if (layout) {
        auto lt = typeOf(innerV);
        Value full = toShape(rewriter, loc, c2, inner.getType());
        auto bt = RankedTensorType::get(lt.getShape(), rewriter.getI1Type());
        if (isa<ReshapeOp>(layout))
          c2 = rewriter.create<ReshapeOp>(loc, bt, full);
        else
          c2 = rewriter.create<BroadcastOp>(loc, full, lt.getShape());
        auto scalar = [&](Value side) -> Value {
          auto st = RankedTensorType::get({}, typeOf(side).getElementType());
          return rewriter.create<ConstantOp>(
              loc, DenseElementsAttr::get(st, splatAttr(side)));
        };
        y = scalar(y);
        z = scalar(z);
      }
      Value cond;
      if (innerOnFalse && eqZ)
        cond = rewriter.create<AndOp>(
            loc, rewriter.create<NotOp>(loc, c1).getResult(), c2);
      else if (innerOnFalse)
        cond = rewriter.create<OrOp>(loc, c1, c2);
      else if (eqZ)
        cond = rewriter.create<AndOp>(loc, c1, c2);
      else
        cond = rewriter.create<OrOp>(
            loc, rewriter.create<NotOp>(loc, c1).getResult(), c2);
      Value r = rewriter.create<SelectOp>(loc, cond, y, z);
      rewriter.replaceOp(op, toShape(rewriter, loc, r, out));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no shared side");
  }
};


//===----------------------------------------------------------------------===//
// Products of fills and indicators
//===----------------------------------------------------------------------===//

/// The condition of a bool converted to a number (through broadcasts and
/// unit reshapes): convert(c : i1 -> T) is 1 where c holds and 0 elsewhere.
Value indicatorOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def) &&
        typeOf(def->getOperand(0)).getNumElements() ==
            typeOf(v).getNumElements()) {
      v = def->getOperand(0);
      continue;
    }
    break;
  }
  auto cv = v.getDefiningOp<ConvertOp>();
  if (cv && typeOf(cv.getX()).getElementType().isInteger(1))
    return cv.getX();
  return nullptr;
}

/// select(c, A, convert(c)) is select(c, A, 0): the select takes its false
/// side only where c is false, and there the converted condition is 0
/// (likewise select(c, convert(c), B) is select(c, 1, B)). Falcon's
/// (mask * 1.0).masked_fill(mask, -1e9) so becomes a fill of 0 and -1e9.
struct SelectOfOwnIndicator : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto stripBroadcast = [](Value x) {
      while (auto bc = x.getDefiningOp<BroadcastOp>())
        x = bc.getX();
      return x;
    };
    Value c = stripBroadcast(op.getCond());
    // The condition negated: not(x) decides x the other way.
    Value negated;
    if (auto n = c.getDefiningOp<NotOp>())
      negated = stripBroadcast(n.getX());
    for (bool onTrue : {false, true}) {
      Value side = onTrue ? op.getOnTrue() : op.getOnFalse();
      // A side that is a select of constants of this condition (a bool
      // converted to a number, or 1 - that: Pix2Struct's
      // masked_fill(1 - m == 1, min) keeps 1 - m, which is 0 wherever the
      // fill does not apply).
      auto sc = side.getDefiningOp() ? selectOfConstants(side) : std::nullopt;
      if (!sc)
        continue;
      auto [sideCond, a, b] = *sc;
      sideCond = stripBroadcast(sideCond);
      double value;
      if (sideCond == c)
        value = onTrue ? a : b;
      else if (negated && sideCond == negated)
        value = onTrue ? b : a;
      else
        continue;
      // The side's shape broadcasts into the result either way, so the
      // select keeps its type with a scalar in its place.
      Type et = cast<RankedTensorType>(side.getType()).getElementType();
      if (!isa<FloatType>(et) && !isa<IntegerType>(et))
        continue;
      SmallVector<int64_t> shape;
      Value k = splatConstant(rewriter, op.getLoc(), et, value);
      // Where the side alone gave the result its shape, the constant takes
      // that shape (a splat).
      if (!OpTrait::util::getBroadcastedShape(
              typeOf(op.getCond()).getShape(),
              typeOf(onTrue ? op.getOnFalse() : op.getOnTrue()).getShape(),
              shape) ||
          ArrayRef<int64_t>(shape) != op.getType().getShape())
        k = rewriter.create<BroadcastOp>(op.getLoc(), k,
                                         typeOf(side).getShape());
      Value t = onTrue ? k : op.getOnTrue(), f = onTrue ? op.getOnFalse() : k;
      auto r = rewriter.create<SelectOp>(op.getLoc(), op.getCond(), t, f);
      assert(r.getType() == op.getType() && "select type changed");
      rewriter.replaceOp(op, r.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no side is the condition itself");
  }
};

/// Whether `v` is mask arithmetic over integers or bools: of an integer or
/// bool type, a convert of such a value, or an elementwise op whose every
/// non-splat operand is such a value.
bool maskLike(Value v, int depth = 0) {
  if (isa<IntegerType>(typeOf(v).getElementType()))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (auto cv = dyn_cast<ConvertOp>(def))
    return maskLike(cv.getX(), depth + 1);
  if (!isa<AddOp, SubOp, MulOp, SelectOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value x) {
    return splatAttr(x) || maskLike(x, depth + 1);
  });
}

/// f(broadcast(x), K, ...) -> broadcast(f(x, K, ...)) for an elementwise
/// add, subtract, multiply or select of integer or bool mask arithmetic
/// whose operands are splats or broadcasts to the result: every element
/// is the same, computed on the fewer elements the mask was built over.
/// HF's _expand_mask broadcasts the padding [B, 1, 1, S] to [B, 1, T, S]
/// before `1 - mask` and its fill; the mask so keeps its per-key shape.
template <typename OpTy>
struct MaskArithOfBroadcast : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    auto out = typeOf(o->getResult(0));
    SmallVector<Value> inner;
    SmallVector<int64_t> shape;
    bool anyBroadcast = false;
    for (Value x : o->getOperands()) {
      if (splatAttr(x) && typeOf(x).getRank() == 0) {
        inner.push_back(x);
        continue;
      }
      // A broadcast to the result is taken off; an operand the op itself
      // broadcasts (smaller than the result) stays as it is.
      Value y = x;
      if (ArrayRef<int64_t>(typeOf(x).getShape()) == out.getShape()) {
        auto bc = x.template getDefiningOp<BroadcastOp>();
        if (!bc)
          return rewriter.notifyMatchFailure(op, "an operand is no broadcast");
        y = bc.getX();
        anyBroadcast = true;
      }
      if (!maskLike(y))
        return rewriter.notifyMatchFailure(op, "not mask arithmetic");
      SmallVector<int64_t> joined;
      if (!mlir::OpTrait::util::getBroadcastedShape(
              shape, typeOf(y).getShape(), joined))
        return rewriter.notifyMatchFailure(op, "inputs do not broadcast");
      shape = joined;
      inner.push_back(y);
    }
    if (!anyBroadcast || ArrayRef<int64_t>(shape) == out.getShape())
      return rewriter.notifyMatchFailure(op, "nothing to take off");
    Value r;
    if constexpr (std::is_same_v<OpTy, SelectOp>)
      r = rewriter.create<SelectOp>(op.getLoc(), inner[0], inner[1], inner[2]);
    else
      r = rewriter.create<OpTy>(op.getLoc(), inner[0], inner[1]);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, r, out.getShape());
    return success();
  }
};

/// S * K (either order) with S a select of two small-integer constants
/// under a condition (an indicator, or one offset by small integers:
/// `convert(c) - 1`) and K a finite splat: select(c, A K, B K), each product
/// rounded to the result's type as the graph's own product is (A and B are
/// exact, so A K in f64 is exact and rounds once). Paddle's bool mask
/// conversion `(cast(mask) - 1) * 1e9` so becomes select(mask, 0, -1e9),
/// the fill the mask readers take.
struct SplatTimesSelectOfConstants : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    auto ft = dyn_cast<FloatType>(out.getElementType());
    if (!ft)
      return failure();
    for (auto [x, y] : {std::pair{op.getLhs(), op.getRhs()},
                        std::pair{op.getRhs(), op.getLhs()}}) {
      auto k = splatNumber(y);
      if (!k || !std::isfinite(*k) || !splatAttr(y) || !x.getDefiningOp() ||
          x.getDefiningOp<ConvertOp>())
        continue;
      auto s = selectOfConstants(x);
      if (!s)
        continue;
      auto [c, a, b] = *s;
      auto rounded = [&](double v) {
        APFloat f(v);
        bool lost;
        f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        return f;
      };
      APFloat pa = rounded(a * *k), pb = rounded(b * *k);
      if (!pa.isFinite() || !pb.isFinite())
        continue;
      auto scalar = RankedTensorType::get({}, ft);
      Location loc = op.getLoc();
      Value va = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, rewriter.getFloatAttr(ft, pa)));
      Value vb = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, rewriter.getFloatAttr(ft, pb)));
      Value r = rewriter.create<SelectOp>(loc, c, va, vb);
      rewriter.replaceOp(op, toShape(rewriter, loc, r, out));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a splat times a select of constants");
  }
};

/// select(c1, A, B) * convert(c2) (either operand order) with splat A, B
/// one of which is zero and the other finite, or a splat F * convert(c2):
/// the select of the nonzero fill under c1 & c2 (c2 alone for F).
/// Cell by cell, with A = F and B = 0: c1 & c2 gives F * 1 = F; c1 & !c2
/// gives F * 0, a zero; !c1 gives 0 * 1 or 0 * 0, a zero. So the product is
/// F exactly where c1 & c2 and a zero elsewhere (a finite F: inf * 0 would
/// be NaN). The one difference is the sign of a zero (F * 0 is -0 for a
/// negative F, the select's 0 is +0), which compares equal and which adding
/// the mask to a score does not change but on a -0 score (the sum is then
/// -0 or +0); the mask readers take either zero as visible, as they do
/// for convert(c) * F itself. With A = 0 and B = F the condition is
/// !c1 & c2.
struct ProductOfFillAndIndicator : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    if (!isa<FloatType>(out.getElementType()))
      return failure();
    Location loc = op.getLoc();
    for (auto [x, y] : {std::pair{op.getLhs(), op.getRhs()},
                        std::pair{op.getRhs(), op.getLhs()}}) {
      Value c2 = indicatorOf(y);
      if (!c2)
        continue;
      auto finiteNonzero = [](std::optional<double> f) {
        return f && std::isfinite(*f) && *f != 0.0;
      };
      Value cond, fill;
      if (auto sel = x.getDefiningOp<SelectOp>()) {
        auto a = splatNumber(sel.getOnTrue()), b = splatNumber(sel.getOnFalse());
        if (!a || !b)
          continue;
        if (*b == 0.0 && finiteNonzero(a)) {
          cond = rewriter.create<AndOp>(loc, sel.getCond(), c2);
          fill = sel.getOnTrue();
        } else if (*a == 0.0 && finiteNonzero(b)) {
          cond = rewriter.create<AndOp>(
              loc, rewriter.create<NotOp>(loc, sel.getCond()).getResult(), c2);
          fill = sel.getOnFalse();
        } else {
          continue;
        }
      } else if (Attribute f = splatAttr(x);
                 f && finiteNonzero(splatNumber(x))) {
        cond = c2;
        fill = x;
      } else {
        continue;
      }
      auto scalar = RankedTensorType::get({}, out.getElementType());
      Value f = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, splatAttr(fill)));
      Value zero = splatConstant(rewriter, loc, out.getElementType(), 0.0);
      Value r = rewriter.create<SelectOp>(loc, cond, f, zero);
      rewriter.replaceOp(op, toShape(rewriter, loc, r, out));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a fill times an indicator");
  }
};

/// The condition of the indicator `v` (see indicatorOf) brought to `v`'s
/// own shape by the same reshapes and broadcasts `v` went through, so each
/// element of the result is true exactly where `v` is 1.
Value indicatorCondOf(PatternRewriter &rewriter, Location loc, Value v) {
  SmallVector<Operation *> layout;
  Value x = v;
  while (Operation *def = x.getDefiningOp()) {
    if (!isa<BroadcastOp, ReshapeOp>(def))
      break;
    layout.push_back(def);
    x = def->getOperand(0);
  }
  auto cv = x.getDefiningOp<ConvertOp>();
  if (!cv || !typeOf(cv.getX()).getElementType().isInteger(1))
    return nullptr;
  Value c = cv.getX();
  if (typeOf(c).getShape() != typeOf(x).getShape())
    return nullptr;
  for (Operation *op : llvm::reverse(layout)) {
    auto shape = typeOf(op->getResult(0)).getShape();
    if (isa<ReshapeOp>(op))
      c = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, rewriter.getI1Type()), c);
    else
      c = rewriter.create<BroadcastOp>(loc, c, shape);
  }
  return c;
}

/// Whether a value of type `in` broadcasts into `out` without growing it
/// (right-aligned, each dim 1 or out's).
bool broadcastsInto(RankedTensorType in, RankedTensorType out) {
  if (in.getRank() > out.getRank())
    return false;
  int64_t off = out.getRank() - in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (in.getDimSize(d) != 1 && in.getDimSize(d) != out.getDimSize(d + off))
      return false;
  return true;
}

/// min(x, select(c, A, B)) with each of A, B a bound of x's float type:
/// the top (+inf, or the largest finite value) leaves x, the bottom (-inf,
/// or the lowest finite value) is that bottom. So it is select(c, x, B)
/// for A the top and B the bottom (or the mirror). Exact for min(x, -inf)
/// and min(x, +inf) on every x; the largest finite top takes x to be
/// finite (as the scores are), and the lowest finite bottom is taken only
/// where x is a clamp max(y, L) with L no lower, so x is never below it.
/// MLC-LLM's first Llama applies its causal table so:
/// minimum(maximum(s, f16 min), select(t > i, f16 min, f16 max)).
struct MinOfBoundSelect : public OpRewritePattern<MinOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MinOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    auto ft = dyn_cast<FloatType>(out.getElementType());
    if (!ft)
      return failure();
    double largest =
        APFloat::getLargest(ft.getFloatSemantics()).convertToDouble();
    for (auto [x, m] : {std::pair{op.getLhs(), op.getRhs()},
                        std::pair{op.getRhs(), op.getLhs()}}) {
      // Broadcasts align on the right as the select's operands do, so a
      // broadcast select is the select of its condition.
      while (auto b = m.getDefiningOp<BroadcastOp>())
        m = b.getX();
      auto sel = m.getDefiningOp<SelectOp>();
      if (!sel || typeOf(x) != out)
        continue;
      auto a = splatNumber(sel.getOnTrue()), b = splatNumber(sel.getOnFalse());
      if (!a || !b)
        continue;
      // The clamp below x, if any.
      std::optional<double> floor;
      if (auto mx = x.getDefiningOp<MaxOp>())
        for (Value side : {mx.getLhs(), mx.getRhs()})
          if (auto l = splatNumber(side))
            floor = floor ? std::max(*floor, *l) : *l;
      auto isTop = [&](double v) { return v == INFINITY || v == largest; };
      auto isBottom = [&](double v) {
        return v == -INFINITY || (v == -largest && floor && *floor >= v);
      };
      bool topTrue = isTop(*a) && isBottom(*b);
      if (!topTrue && !(isBottom(*a) && isTop(*b)))
        continue;
      // The condition must not broadcast past x.
      if (!broadcastsInto(typeOf(sel.getCond()), out))
        continue;
      Location loc = op.getLoc();
      Value bottom = splatConstant(rewriter, loc, ft, topTrue ? *b : *a);
      Value r = rewriter.create<SelectOp>(loc, sel.getCond(),
                                          topTrue ? x : bottom,
                                          topTrue ? bottom : x);
      rewriter.replaceOp(op, r);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a min with a bound select");
  }
};

/// select(c, max(x, L), L) with splat L is max(select(c, x, L), L): where c
/// holds both are max(x, L); elsewhere L against max(L, L) = L. The clamp
/// of the scores then sits outside the mask, where the matcher reads it.
struct SelectOfClamp : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType().getElementType()))
      return failure();
    for (bool onTrue : {true, false}) {
      Value side = onTrue ? op.getOnTrue() : op.getOnFalse();
      Value other = onTrue ? op.getOnFalse() : op.getOnTrue();
      auto mx = side.getDefiningOp<MaxOp>();
      auto l = splatNumber(other);
      if (!mx || !l || typeOf(side) != op.getType())
        continue;
      for (auto [x, bound] : {std::pair{mx.getLhs(), mx.getRhs()},
                              std::pair{mx.getRhs(), mx.getLhs()}}) {
        auto lb = splatNumber(bound);
        if (!lb || *lb != *l || typeOf(x) != op.getType())
          continue;
        Location loc = op.getLoc();
        Value sel = rewriter.create<SelectOp>(loc, op.getCond(),
                                              onTrue ? x : other,
                                              onTrue ? other : x);
        rewriter.replaceOpWithNewOp<MaxOp>(op, op.getType(), sel, bound);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no clamp under the select");
  }
};

/// Whether `v` is convert(c : i1) behind reshapes and broadcasts of any
/// size: what indicatorCondOf rebuilds as a condition of `v`'s shape.
bool indicatorBehindLayout(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<BroadcastOp, ReshapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  auto cv = v.getDefiningOp<ConvertOp>();
  return cv && typeOf(cv.getX()).getElementType().isInteger(1) &&
         typeOf(cv.getX()).getShape() == typeOf(v).getShape();
}

/// F * (1 - b) for a finite nonzero splat F and a 0/1 indicator b =
/// convert(c): select(c, 0, F). Where c holds the product is F * 0, a zero
/// (-0 for a negative F, which the mask readers and a sum with a score
/// take as the select's +0); elsewhere it is F * 1 = F exactly. Keras'
/// MaskedSoftmax and TF BERT write their additive mask so:
/// (1 - cast(mask)) * large_negative.
struct FillTimesComplement : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    if (!isa<FloatType>(out.getElementType()))
      return failure();
    for (auto [f, r] : {std::pair{op.getLhs(), op.getRhs()},
                        std::pair{op.getRhs(), op.getLhs()}}) {
      auto fv = splatNumber(f);
      auto sub = r.getDefiningOp<SubOp>();
      if (!fv || !std::isfinite(*fv) || *fv == 0.0 || !splatAttr(f) || !sub)
        continue;
      auto one = splatNumber(sub.getLhs());
      if (!one || *one != 1.0 || !indicatorBehindLayout(sub.getRhs()))
        continue;
      // Built only once every check has passed: indicatorCondOf fails
      // before it builds anything.
      Location loc = op.getLoc();
      Value c = indicatorCondOf(rewriter, loc, sub.getRhs());
      if (!c)
        continue;
      auto scalar = RankedTensorType::get({}, out.getElementType());
      Value fill = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(scalar, splatAttr(f)));
      Value zero = splatConstant(rewriter, loc, out.getElementType(), 0.0);
      Value sel = rewriter.create<SelectOp>(loc, c, zero, fill);
      rewriter.replaceOp(op, toShape(rewriter, loc, sel, out));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a fill times a complement");
  }
};

/// `v` as a select of two constants (selectOfConstants) behind reshapes and
/// broadcasts: the layout ops and the select's parts. No op is built.
struct LayoutSelect {
  SmallVector<Operation *> layout; ///< from `v` inwards
  Value cond, inner;               ///< the select's condition and result
  double onTrue, onFalse;
};
std::optional<LayoutSelect> layoutSelectOf(Value v) {
  LayoutSelect out;
  Value x = v;
  while (Operation *def = x.getDefiningOp()) {
    if (!isa<BroadcastOp, ReshapeOp>(def))
      break;
    out.layout.push_back(def);
    x = def->getOperand(0);
  }
  auto s = selectOfConstants(x);
  if (!s)
    return std::nullopt;
  std::tie(out.cond, out.onTrue, out.onFalse) = *s;
  out.inner = x;
  return out;
}

/// The condition of `ls` at every element of the value it was read from:
/// the select's condition brought to the select's shape, then through the
/// same reshapes and broadcasts.
Value layoutCond(PatternRewriter &rewriter, Location loc,
                 const LayoutSelect &ls) {
  auto it = typeOf(ls.inner);
  Value c = toShape(rewriter, loc, ls.cond,
                    RankedTensorType::get(it.getShape(), rewriter.getI1Type()));
  for (Operation *op : llvm::reverse(ls.layout)) {
    auto shape = typeOf(op->getResult(0)).getShape();
    if (isa<ReshapeOp>(op))
      c = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, rewriter.getI1Type()), c);
    else
      c = rewriter.create<BroadcastOp>(loc, c, shape);
  }
  return c;
}

/// compare(layout(select(c, A, B)), K) with constants A, B, K: c, !c or a
/// constant (CompareOfSelect without the layout). Transformer-XL compares
/// its bool mask, converted to an integer and viewed, with 1.
struct CompareOfLayoutSelect : public OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    for (bool left : {true, false}) {
      Value x = left ? op.getLhs() : op.getRhs();
      Value k = left ? op.getRhs() : op.getLhs();
      auto ls = layoutSelectOf(x);
      auto kv = splatNumber(k);
      if (!ls || ls->layout.empty() || !kv)
        continue;
      auto test = [&](double v) {
        return left ? holds(op.getPredicate(), v, *kv)
                    : holds(op.getPredicate(), *kv, v);
      };
      bool a = test(ls->onTrue), b = test(ls->onFalse);
      Value c = a == b ? Value() : layoutCond(rewriter, op.getLoc(), *ls);
      rewriter.replaceOp(op, boolOf(rewriter, op.getLoc(), c, a, b,
                                    op.getType()));
      return success();
    }
    return failure();
  }
};

/// The product of two 0/1 indicators (a bool converted to a number, or a
/// select of 1 and 0, behind reshapes and broadcasts) is the indicator of
/// their and: 1 * 1 = 1, and any 0 gives 0 (no sign: both are
/// non-negative). gemma_pytorch's triu(ones) * tril(ones) band, compared
/// with 1.
struct ProductOfIndicators : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto zeroOne = [](const std::optional<LayoutSelect> &ls) {
      return ls && ((ls->onTrue == 1.0 && ls->onFalse == 0.0) ||
                    (ls->onTrue == 0.0 && ls->onFalse == 1.0));
    };
    auto l = layoutSelectOf(op.getLhs()), r = layoutSelectOf(op.getRhs());
    if (!zeroOne(l) || !zeroOne(r))
      return failure();
    Location loc = op.getLoc();
    auto truthOf = [&](const LayoutSelect &ls) -> Value {
      Value c = layoutCond(rewriter, loc, ls);
      return ls.onTrue == 1.0 ? c : rewriter.create<NotOp>(loc, c).getResult();
    };
    Value both = rewriter.create<AndOp>(loc, truthOf(*l), truthOf(*r));
    auto out = op.getType();
    Type et = out.getElementType();
    Value one = splatConstant(rewriter, loc, et, 1.0);
    Value zero = splatConstant(rewriter, loc, et, 0.0);
    Value sel = rewriter.create<SelectOp>(loc, both, one, zero);
    rewriter.replaceOp(op, toShape(rewriter, loc, sel, out));
    return success();
  }
};

/// select(c, X, select(c, Y, Z)) is select(c, X, Z), and select(c,
/// select(c, Y, Z), X) is select(c, Y, X): the inner select is read only
/// where c already decided it. litgpt fills its 0/1 band table in place,
/// select(c, -inf, select(c, 1, 0)).
struct SelectOfSameCondition : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    // Views that keep every element's right-aligned position: broadcasts
    // and reshapes that add or drop leading unit dims.
    auto strip = [](Value v) {
      while (Operation *def = v.getDefiningOp()) {
        if (!isa<BroadcastOp, ReshapeOp>(def))
          break;
        auto in = typeOf(def->getOperand(0));
        auto trimmed = [](ArrayRef<int64_t> x) {
          while (!x.empty() && x.front() == 1)
            x = x.drop_front();
          return x;
        };
        if (!isa<BroadcastOp>(def) &&
            !(isa<ReshapeOp>(def) &&
              trimmed(in.getShape()) == trimmed(typeOf(v).getShape())))
          break;
        v = def->getOperand(0);
      }
      return v;
    };
    Value c = strip(op.getCond());
    for (bool innerOnFalse : {true, false}) {
      Value side = innerOnFalse ? op.getOnFalse() : op.getOnTrue();
      auto inner = side.getDefiningOp<SelectOp>();
      if (!inner || strip(inner.getCond()) != c)
        continue;
      // The same condition at every element: the inner select's condition
      // must broadcast as the outer one's does (right-aligned from the
      // same value, through unit reshapes only).
      Value keep = innerOnFalse ? inner.getOnFalse() : inner.getOnTrue();
      Value t = innerOnFalse ? op.getOnTrue() : keep;
      Value f = innerOnFalse ? keep : op.getOnFalse();
      Value r = rewriter.create<SelectOp>(op.getLoc(), op.getCond(), t, f);
      rewriter.replaceOp(op, toShape(rewriter, op.getLoc(), r, op.getType()));
      return success();
    }
    return failure();
  }
};

/// The two spellings of a fill over the complement of an indicator `ind`:
/// F * (1 - ind) or (1 - ind) * F with F a finite nonzero splat: F where
/// ind is 0 and (+-)0 where it is 1. The fill F, or nullopt.
std::optional<Attribute> fillOverComplement(Value t, Value ind) {
  // select(c, 0, F), as FillTimesComplement leaves F * (1 - b) for
  // b = convert(c), behind the broadcast to the product's shape.
  if (auto b = t.getDefiningOp<BroadcastOp>())
    t = b.getX();
  if (auto sel = t.getDefiningOp<SelectOp>()) {
    auto z = splatNumber(sel.getOnTrue()), f = splatNumber(sel.getOnFalse());
    // The condition must be the indicator's own, through the same chain of
    // reshapes and broadcasts (shape by shape), so it is true exactly where
    // the indicator is 1.
    auto chain = [](Value v, bool throughConvert) {
      SmallVector<ArrayRef<int64_t>> shapes;
      while (Operation *def = v.getDefiningOp()) {
        if (!isa<BroadcastOp, ReshapeOp>(def))
          break;
        shapes.push_back(typeOf(v).getShape());
        v = def->getOperand(0);
      }
      if (throughConvert)
        if (auto cv = v.getDefiningOp<ConvertOp>())
          v = cv.getX();
      return std::pair{v, shapes};
    };
    auto [ci, si] = chain(ind, true);
    auto [cs, ss] = chain(sel.getCond(), false);
    bool same = indicatorOf(ind) && ci == cs && si == ss;
    if (same && z && *z == 0.0 && f &&
        std::isfinite(*f) && *f != 0.0 && splatAttr(sel.getOnFalse()))
      return splatAttr(sel.getOnFalse());
    return std::nullopt;
  }
  auto mul = t.getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  for (auto [f, r] : {std::pair{mul.getLhs(), mul.getRhs()},
                      std::pair{mul.getRhs(), mul.getLhs()}}) {
    auto fv = splatNumber(f);
    auto sub = r.getDefiningOp<SubOp>();
    if (!fv || !std::isfinite(*fv) || *fv == 0.0 || !sub || !splatAttr(f))
      continue;
    auto one = splatNumber(sub.getLhs());
    if (!one || *one != 1.0 || sub.getRhs() != ind)
      continue;
    return splatAttr(f);
  }
  return std::nullopt;
}

/// The multiplicative mask of TF GPT-2 (and OpenAI's GPT-2 mask_attn_weights,
/// pytorch-pretrained-bert): w * b - F * (1 - b), or w * b + F * (1 - b),
/// b = convert(c) a 0/1 indicator, F a finite nonzero splat, is
/// select(c, w, -F) (select(c, w, F) for the sum). Where c holds the terms
/// are w * 1 and F * 0 = +-0, and w -+ 0 is w; where it does not they are
/// w * 0 = +-0 and F, and +-0 -+ F is exactly -+F. This takes w * 0 to be 0,
/// which holds for finite w: a score that is +-inf or NaN at a hidden key
/// makes the product NaN (and the graph's row NaN) where the select hides
/// the key. Only taken where w is a product's output (the scores, maybe
/// scaled), never on a constant, so a graph that is not an attention keeps
/// its arithmetic.
template <typename OpTy>
struct ScoresTimesIndicator : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  static bool fromMatmul(Value w) {
    for (int depth = 0; depth < 8; ++depth) {
      Operation *def = w.getDefiningOp();
      if (!def)
        return false;
      if (isa<MatmulOp>(def))
        return true;
      if (isa<MulOp, DivOp>(def) && splatNumber(def->getOperand(1))) {
        w = def->getOperand(0);
        continue;
      }
      if (isa<MulOp>(def) && splatNumber(def->getOperand(0))) {
        w = def->getOperand(1);
        continue;
      }
      if (isa<ConvertOp, ReshapeOp, TransposeOp>(def)) {
        w = def->getOperand(0);
        continue;
      }
      return false;
    }
    return false;
  }
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    if (!isa<FloatType>(out.getElementType()))
      return failure();
    constexpr bool isSub = std::is_same_v<OpTy, SubOp>;
    auto prod = op.getLhs().template getDefiningOp<MulOp>();
    if (!prod)
      return rewriter.notifyMatchFailure(op, "not a product plus a fill");
    for (auto [w, ind] : {std::pair{prod.getLhs(), prod.getRhs()},
                          std::pair{prod.getRhs(), prod.getLhs()}}) {
      if (!indicatorOf(ind) || indicatorOf(w) || !fromMatmul(w))
        continue;
      auto fill = fillOverComplement(op.getRhs(), ind);
      if (!fill)
        continue;
      // The select must have the op's shape: w and the fill term broadcast
      // to it alike.
      if (typeOf(w).getShape() != out.getShape())
        continue;
      Location loc = op.getLoc();
      Value c = indicatorCondOf(rewriter, loc, ind);
      if (!c)
        continue;
      auto et = cast<FloatType>(out.getElementType());
      APFloat f = cast<FloatAttr>(*fill).getValue();
      bool losesInfo = false;
      f.convert(et.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      if (isSub)
        f.changeSign();
      Value fv = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(RankedTensorType::get({}, et),
                                      rewriter.getFloatAttr(et, f)));
      rewriter.replaceOpWithNewOp<SelectOp>(op, c, w, fv);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not scores times an indicator "
                                           "plus a fill over its complement");
  }
};

/// A fill subtracted from the scores, x - select(c, A, B) with splat sides
/// (Keras' Attention layer: scores -= 1e9 * cast(logical_not(mask)), whose
/// product is such a select by ProductOfFillAndIndicator), is x +
/// select(c, -A, -B): negating a number is exact and x - y is x + (-y) in
/// every rounding, zeros included (x - 0 is x + -0). Only on the scores (a
/// product's output, maybe scaled), so the mask reads as an added fill.
struct SubOfSplatSelect : public OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    auto et = dyn_cast<FloatType>(out.getElementType());
    if (!et)
      return failure();
    auto sel = op.getRhs().getDefiningOp<SelectOp>();
    if (!sel || !ScoresTimesIndicator<AddOp>::fromMatmul(op.getLhs()))
      return rewriter.notifyMatchFailure(op, "not the scores minus a select");
    Attribute a = splatAttr(sel.getOnTrue()), b = splatAttr(sel.getOnFalse());
    auto fa = dyn_cast_or_null<FloatAttr>(a);
    auto fb = dyn_cast_or_null<FloatAttr>(b);
    if (!fa || !fb || fa.getType() != et || fb.getType() != et)
      return rewriter.notifyMatchFailure(op, "select sides are not splats");
    Location loc = op.getLoc();
    auto negated = [&](FloatAttr f, Value side) -> Value {
      APFloat v = f.getValue();
      v.changeSign();
      return rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(typeOf(side),
                                      rewriter.getFloatAttr(et, v)));
    };
    Value r = rewriter.create<SelectOp>(
        loc, sel.getCond(), negated(fa, sel.getOnTrue()),
        negated(fb, sel.getOnFalse()));
    // The negated sides keep the sides' types, so r has the select's.
    rewriter.replaceOpWithNewOp<AddOp>(op, op.getLhs(), r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Implied compares
//===----------------------------------------------------------------------===//

/// An integer index expression as sum k[r] * index(r) + sum a * atom + c,
/// axes counted from the right (r = 0 the last), so right-aligned
/// broadcasting keeps them; an atom is a value constant over the grid (a
/// position). Read only where every intermediate value provably fits its
/// type (no wrap), so the form is the value exactly.
struct IndexForm {
  llvm::SmallDenseMap<int64_t, int64_t> k;      ///< right axis -> coefficient
  llvm::SmallDenseMap<int64_t, int64_t> extent; ///< right axis -> size
  SmallVector<std::pair<Value, int64_t>> atoms;
  int64_t c = 0;

  void addAtom(Value v, int64_t a) {
    for (auto &[x, b] : atoms)
      if (x == v) {
        b += a;
        return;
      }
    atoms.push_back({v, a});
  }
  void scale(int64_t n) {
    for (auto &[r, a] : k)
      a *= n;
    for (auto &[x, a] : atoms)
      a *= n;
    c *= n;
  }
  bool add(const IndexForm &o, int64_t sign) {
    for (auto [r, a] : o.k) {
      auto e = extent.find(r);
      if (e != extent.end() && e->second != o.extent.lookup(r))
        return false;
      extent[r] = o.extent.lookup(r);
      k[r] += sign * a;
    }
    for (auto [x, a] : o.atoms)
      addAtom(x, sign * a);
    c += sign * o.c;
    return true;
  }
};

struct IndexReader {
  explicit IndexReader(func::FuncOp fn) : fn(fn) {}
  func::FuncOp fn;
  /// The declared and proven ranges, solved over the function the first
  /// time a form has an atom (a form of iotas and constants needs none).
  mutable std::unique_ptr<RangeOracle> oracle;
  mutable DenseMap<Value, std::optional<IndexForm>> memo;

  std::optional<ConstantIntRanges> rangeOf(Value v) const {
    if (!oracle)
      oracle = std::make_unique<RangeOracle>(fn);
    return oracle->rangeOf(v);
  }

  /// The interval of a form over the grid and the atoms' ranges.
  std::optional<std::pair<int64_t, int64_t>> bounds(const IndexForm &f) const {
    constexpr int64_t kBig = int64_t(1) << 40;
    int64_t lo = f.c, hi = f.c;
    auto acc = [&](int64_t a, int64_t xlo, int64_t xhi) {
      if (std::abs(a) > kBig || std::abs(xlo) > kBig || std::abs(xhi) > kBig)
        return false;
      lo += std::min(a * xlo, a * xhi);
      hi += std::max(a * xlo, a * xhi);
      return std::abs(lo) <= kBig * 4 && std::abs(hi) <= kBig * 4;
    };
    for (auto [r, a] : f.k)
      if (a && !acc(a, 0, f.extent.lookup(r) - 1))
        return std::nullopt;
    for (auto [x, a] : f.atoms) {
      if (!a)
        continue;
      auto rg = rangeOf(x);
      if (!rg)
        return std::nullopt;
      if (!acc(a, rg->smin().getSExtValue(), rg->smax().getSExtValue()))
        return std::nullopt;
    }
    return std::pair{lo, hi};
  }

  /// Whether `f` provably fits the integer type of `v`.
  bool fits(const IndexForm &f, Value v) const {
    auto b = bounds(f);
    if (!b)
      return false;
    unsigned w = typeOf(v).getElementType().getIntOrFloatBitWidth();
    if (w < 8)
      return false;
    int64_t m = w >= 64 ? std::numeric_limits<int64_t>::max()
                        : (int64_t(1) << (w - 1)) - 1;
    return b->first >= -m && b->second <= m;
  }

  std::optional<IndexForm> read(Value v, int depth = 0) const {
    auto t = typeOf(v);
    Type et = t.getElementType();
    if (depth > 16 || !isIndexInt(et) || et.isInteger(1))
      return std::nullopt;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    if (memo.size() >= kExprLimit)
      return std::nullopt;
    auto r = readNode(v, depth);
    if (r && !fits(*r, v))
      r = std::nullopt;
    memo[v] = r;
    return r;
  }

  std::optional<IndexForm> readNode(Value v, int depth) const {
    auto t = typeOf(v);
    IndexForm out;
    Operation *def = v.getDefiningOp();
    if (auto s = splatInt(v)) {
      out.c = *s;
      return out;
    }
    if (auto r = readOp(v, depth))
      return r;
    if (llvm::all_of(t.getShape(), [](int64_t d) { return d == 1; })) {
      // Any other value constant over the grid is a position: the reshapes
      // around it are stripped so that one position is one atom.
      while (def && isa<ReshapeOp, BroadcastOp>(def) &&
             typeOf(def->getOperand(0)).getNumElements() == 1) {
        v = def->getOperand(0);
        def = v.getDefiningOp();
      }
      out.addAtom(v, 1);
      return out;
    }
    return std::nullopt;
  }

  std::optional<IndexForm> readOp(Value v, int depth) const {
    auto t = typeOf(v);
    int64_t rank = t.getRank();
    IndexForm out;
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto iota = dyn_cast<IotaOp>(def)) {
      int64_t d = iota.getDim(), n = t.getDimSize(d);
      if (n != 1) {
        out.k[rank - 1 - d] = 1;
        out.extent[rank - 1 - d] = n;
      }
      return out;
    }
    if (auto b = dyn_cast<BroadcastOp>(def))
      return read(b.getX(), depth + 1);
    if (auto c = dyn_cast<ConvertOp>(def)) {
      auto x = typeOf(c.getX()).getElementType();
      if (!isIndexInt(x) || x.isInteger(1))
        return std::nullopt;
      return read(c.getX(), depth + 1); // checked to fit the result below
    }
    if (auto re = dyn_cast<ReshapeOp>(def)) {
      auto in = typeOf(re.getX());
      SmallVector<int64_t> pin, pout;
      for (int64_t d = 0; d < in.getRank(); ++d)
        if (in.getDimSize(d) != 1)
          pin.push_back(d);
      for (int64_t d = 0; d < rank; ++d)
        if (t.getDimSize(d) != 1)
          pout.push_back(d);
      if (pin.size() != pout.size())
        return std::nullopt;
      auto x = read(re.getX(), depth + 1);
      if (!x)
        return std::nullopt;
      IndexForm y;
      y.atoms = x->atoms;
      y.c = x->c;
      for (size_t i = 0; i < pin.size(); ++i) {
        if (in.getDimSize(pin[i]) != t.getDimSize(pout[i]))
          return std::nullopt;
        int64_t from = in.getRank() - 1 - pin[i], to = rank - 1 - pout[i];
        if (x->k.count(from)) {
          y.k[to] = x->k.lookup(from);
          y.extent[to] = x->extent.lookup(from);
        }
      }
      return y;
    }
    if (isa<AddOp, SubOp>(def)) {
      auto l = read(def->getOperand(0), depth + 1);
      auto r = read(def->getOperand(1), depth + 1);
      if (!l || !r || !l->add(*r, isa<SubOp>(def) ? -1 : 1))
        return std::nullopt;
      return l;
    }
    if (auto n = dyn_cast<NegOp>(def)) {
      auto x = read(n.getX(), depth + 1);
      if (!x)
        return std::nullopt;
      x->scale(-1);
      return x;
    }
    if (auto m = dyn_cast<MulOp>(def))
      for (auto [a, b] : {std::pair{m.getLhs(), m.getRhs()},
                          std::pair{m.getRhs(), m.getLhs()}})
        if (auto s = splatInt(b); s && std::abs(*s) <= (int64_t(1) << 20)) {
          auto x = read(a, depth + 1);
          if (!x)
            return std::nullopt;
          IndexForm y = *x;
          y.scale(*s);
          return y;
        }
    return std::nullopt;
  }

  /// A compare as `form >= bound` (integers: x > y is x - y >= 1).
  /// not(A >= p) is -A >= 1 - p.
  std::optional<std::pair<IndexForm, int64_t>> atLeast(Value cond) const {
    if (auto n = cond.getDefiningOp<NotOp>()) {
      auto x = atLeast(n.getX());
      if (!x)
        return std::nullopt;
      x->first.scale(-1);
      return std::pair{x->first, 1 - x->second};
    }
    auto cmp = cond.getDefiningOp<CompareOp>();
    if (!cmp)
      return std::nullopt;
    auto l = read(cmp.getLhs()), r = read(cmp.getRhs());
    if (!l || !r || !l->add(*r, -1))
      return std::nullopt;
    switch (cmp.getPredicate()) {
    case ComparePredicate::ge:
      return std::pair{*l, int64_t(0)};
    case ComparePredicate::gt:
      return std::pair{*l, int64_t(1)};
    case ComparePredicate::le:
      l->scale(-1);
      return std::pair{*l, int64_t(0)};
    case ComparePredicate::lt:
      l->scale(-1);
      return std::pair{*l, int64_t(1)};
    default:
      return std::nullopt;
    }
  }

  /// Whether compare `a` implies compare `b` on every element: a is
  /// A >= p, b is B >= q, and B - A >= q - p over the whole grid and the
  /// atoms' ranges, so A >= p gives B = A + (B - A) >= p + (q - p) = q.
  bool implies(Value a, Value b) const {
    auto fa = atLeast(a), fb = atLeast(b);
    if (!fa || !fb)
      return false;
    IndexForm d = fb->first;
    if (!d.add(fa->first, -1))
      return false;
    auto bd = bounds(d);
    return bd && bd->first >= fb->second - fa->second;
  }
};

/// and(a, b) where a implies b is a; or(a, b) where a implies b is b (each
/// element: a true gives b true). With a and b compares (or negated
/// compares) of index forms whose difference is bounded over the grid and
/// the positions' declared ranges. Llama's triu(finfo.min, 1) * (arange(T) > cache_position)
/// hides keys where t > i and t > pos + i: with pos >= 0 the second implies
/// the first, and the mask is the causal one at pos.
template <typename OpTy, bool IsAnd>
struct ImpliedCompare : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value l = op.getLhs(), r = op.getRhs();
    auto isCompare = [](Value v) {
      if (auto n = v.getDefiningOp<NotOp>())
        v = n.getX();
      return static_cast<bool>(v.getDefiningOp<CompareOp>());
    };
    if (!isCompare(l) || !isCompare(r))
      return failure();
    auto fn = op->template getParentOfType<func::FuncOp>();
    if (!fn)
      return failure();
    IndexReader reader(fn);
    auto out = cast<RankedTensorType>(op.getType());
    for (auto [a, b] : {std::pair{l, r}, std::pair{r, l}}) {
      if (!reader.implies(a, b))
        continue;
      rewriter.replaceOp(op,
                         toShape(rewriter, op.getLoc(), IsAnd ? a : b, out));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "neither side implies the other");
  }
};


/// and(a, b) and or(a, b) where compare `a` holds, or fails, on every
/// element (its difference `A >= p` bounded over the grid entirely at or
/// above p, or below it) and `b` is a band compare (varying along two
/// axes): `a` is the constant it is. flash-attention's reference keeps keys
/// with `col < row + sk - sq - w and col >= 0`, every column of an arange
/// being >= 0. Only beside a band: a compare decided alone (a decode's
/// `t <= pos` over every cached key) stays, so the band reader still reads
/// it as the causal mask it was written as.
template <typename OpTy, bool IsAnd>
struct DecidedConjunct : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value l = op.getLhs(), r = op.getRhs();
    if (!l.template getDefiningOp<CompareOp>() ||
        !r.template getDefiningOp<CompareOp>())
      return failure();
    auto fn = op->template getParentOfType<func::FuncOp>();
    if (!fn)
      return failure();
    IndexReader reader(fn);
    auto axes = [](const IndexForm &f) {
      return llvm::count_if(f.k, [](auto &x) { return x.second != 0; });
    };
    for (auto [a, b] : {std::pair{l, r}, std::pair{r, l}}) {
      auto fa = reader.atLeast(a), fb = reader.atLeast(b);
      // Positions would need the range solver over the whole function:
      // only compares of iotas and constants are decided.
      if (!fa || !fb || axes(fb->first) < 2 ||
          llvm::any_of(fa->first.atoms, [](auto &x) { return x.second != 0; }))
        continue;
      auto bd = reader.bounds(fa->first);
      if (!bd || (bd->first < fa->second && bd->second >= fa->second))
        continue;
      bool truth = bd->first >= fa->second;
      auto out = cast<RankedTensorType>(op.getType());
      // and(true, b) = b, and(false, b) = false; or alike.
      if (truth == IsAnd)
        rewriter.replaceOp(op, toShape(rewriter, op.getLoc(), b, out));
      else
        rewriter.replaceOp(op, boolConstant(rewriter, op.getLoc(), out, truth));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no side decided beside a band");
  }
};

/// compare(x, min(a, b)) and compare(x, max(a, b)) of integers as two
/// compares, each element's min being a or b, whichever is smaller:
/// x > min(a, b) is x > a or x > b, x < min(a, b) is x < a and x < b (and
/// >=, <= alike); max the other way round. A min or max on the left side
/// is first moved right (x < y is y > x). flash-attention's reference
/// bounds its band on the right by min(row + sk - sq, sk).
struct CompareOfMinMax : public OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    Type et = typeOf(op.getLhs()).getElementType();
    if (!isIndexInt(et) || et.isInteger(1))
      return failure();
    ComparePredicate p = op.getPredicate();
    Value x = op.getLhs(), y = op.getRhs();
    auto isMinMax = [](Value v) {
      return v.getDefiningOp<MinOp>() || v.getDefiningOp<MaxOp>();
    };
    auto mirror = [](ComparePredicate q) {
      switch (q) {
      case ComparePredicate::gt: return ComparePredicate::lt;
      case ComparePredicate::ge: return ComparePredicate::le;
      case ComparePredicate::lt: return ComparePredicate::gt;
      case ComparePredicate::le: return ComparePredicate::ge;
      default: return q;
      }
    };
    if (p != ComparePredicate::gt && p != ComparePredicate::ge &&
        p != ComparePredicate::lt && p != ComparePredicate::le)
      return failure();
    if (!isMinMax(y)) {
      if (!isMinMax(x))
        return failure();
      std::swap(x, y);
      p = mirror(p);
    }
    Operation *m = y.getDefiningOp();
    bool isMin = isa<MinOp>(m);
    bool above = p == ComparePredicate::gt || p == ComparePredicate::ge;
    Location loc = op.getLoc();
    Value c0 = rewriter.create<CompareOp>(loc, p, x, m->getOperand(0));
    Value c1 = rewriter.create<CompareOp>(loc, p, x, m->getOperand(1));
    Value r = isMin == above ? rewriter.create<OrOp>(loc, c0, c1).getResult()
                             : rewriter.create<AndOp>(loc, c0, c1).getResult();
    rewriter.replaceOp(op, toShape(rewriter, loc, r, typeOf(op.getResult())));
    return success();
  }
};

/// compare(a, b) of float index expressions: values built from float
/// iotas, integer values converted to float, integer-valued splat
/// constants, + - * and negation, reshapes and broadcasts, each value
/// proven within the float type's exact integers (|x| <= 2^(p+1) for p
/// significand bits, the declared ranges of positions included), so every
/// float op on the way is exact integer arithmetic. The compare is then the
/// same compare of the i64 expressions, which the mask readers read.
/// KerasHub's compute_causal_mask builds arange(T, float32) + cache_index
/// >= arange(S, float32) this way.
struct FloatIndexCompare : public OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;

  struct Bounds {
    double lo = 0, hi = 0;
  };

  /// The range of float index expression `v`, every node checked against
  /// `limit`; nullopt when `v` is not one.
  static std::optional<Bounds> bounds(Value v, double limit,
                                      const RangeOracle &oracle, int depth) {
    if (depth > 16 || !isa<FloatType>(typeOf(v).getElementType()))
      return std::nullopt;
    std::optional<Bounds> r;
    Operation *def = v.getDefiningOp();
    if (auto c = splatNumber(v)) {
      if (*c != std::trunc(*c))
        return std::nullopt;
      r = Bounds{*c, *c};
    } else if (auto iota = dyn_cast_or_null<IotaOp>(def)) {
      int64_t n = typeOf(v).getDimSize(iota.getDim());
      r = Bounds{0, static_cast<double>(n - 1)};
    } else if (auto cv = dyn_cast_or_null<ConvertOp>(def)) {
      Type from = typeOf(cv.getX()).getElementType();
      if (isa<FloatType>(from))
        return std::nullopt;
      auto rg = oracle.rangeOf(cv.getX());
      if (!rg || from.isInteger(1))
        return std::nullopt;
      r = Bounds{static_cast<double>(rg->smin().getSExtValue()),
                 static_cast<double>(rg->smax().getSExtValue())};
    } else if (isa_and_nonnull<ReshapeOp, BroadcastOp>(def)) {
      r = bounds(def->getOperand(0), limit, oracle, depth + 1);
    } else if (auto neg = dyn_cast_or_null<NegOp>(def)) {
      auto x = bounds(neg.getX(), limit, oracle, depth + 1);
      if (x)
        r = Bounds{-x->hi, -x->lo};
    } else if (isa_and_nonnull<AddOp, SubOp, MulOp>(def)) {
      auto a = bounds(def->getOperand(0), limit, oracle, depth + 1);
      auto b = bounds(def->getOperand(1), limit, oracle, depth + 1);
      if (!a || !b)
        return std::nullopt;
      if (isa<AddOp>(def))
        r = Bounds{a->lo + b->lo, a->hi + b->hi};
      else if (isa<SubOp>(def))
        r = Bounds{a->lo - b->hi, a->hi - b->lo};
      else {
        double c[] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo,
                      a->hi * b->hi};
        r = Bounds{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
    }
    if (!r || std::fabs(r->lo) > limit || std::fabs(r->hi) > limit)
      return std::nullopt;
    return r;
  }

  /// The i64 expression computing what float index expression `v` does.
  static Value build(PatternRewriter &rewriter, Location loc, Value v,
                     DenseMap<Value, Value> &built) {
    if (auto it = built.find(v); it != built.end())
      return it->second;
    auto t = typeOf(v);
    auto it64 = RankedTensorType::get(t.getShape(), rewriter.getI64Type());
    Operation *def = v.getDefiningOp();
    Value r;
    if (auto c = splatNumber(v)) {
      r = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(
                   RankedTensorType::get({}, rewriter.getI64Type()),
                   static_cast<int64_t>(*c)));
      if (t.getRank())
        r = rewriter.create<BroadcastOp>(loc, r, t.getShape());
    } else if (auto iota = dyn_cast<IotaOp>(def)) {
      r = rewriter.create<IotaOp>(loc, it64, iota.getDim());
    } else if (auto cv = dyn_cast<ConvertOp>(def)) {
      r = rewriter.create<ConvertOp>(loc, it64, cv.getX());
    } else if (isa<ReshapeOp>(def)) {
      r = rewriter.create<ReshapeOp>(
          loc, it64, build(rewriter, loc, def->getOperand(0), built));
    } else if (isa<BroadcastOp>(def)) {
      r = rewriter.create<BroadcastOp>(
          loc, build(rewriter, loc, def->getOperand(0), built), t.getShape());
    } else if (auto neg = dyn_cast<NegOp>(def)) {
      r = rewriter.create<NegOp>(loc, build(rewriter, loc, neg.getX(), built));
    } else {
      Value a = build(rewriter, loc, def->getOperand(0), built);
      Value b = build(rewriter, loc, def->getOperand(1), built);
      if (isa<AddOp>(def))
        r = rewriter.create<AddOp>(loc, a, b);
      else if (isa<SubOp>(def))
        r = rewriter.create<SubOp>(loc, a, b);
      else
        r = rewriter.create<MulOp>(loc, a, b);
    }
    built[v] = r;
    return r;
  }

  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    auto ft = dyn_cast<FloatType>(typeOf(op.getLhs()).getElementType());
    if (!ft)
      return rewriter.notifyMatchFailure(op, "not a float compare");
    // Splat constants alone are folded elsewhere; an index must vary.
    if (splatNumber(op.getLhs()) && splatNumber(op.getRhs()))
      return rewriter.notifyMatchFailure(op, "constants");
    auto fn = op->getParentOfType<func::FuncOp>();
    if (!fn)
      return failure();
    double limit = std::ldexp(1.0, ft.getFPMantissaWidth());
    RangeOracle oracle(fn);
    if (!bounds(op.getLhs(), limit, oracle, 0) ||
        !bounds(op.getRhs(), limit, oracle, 0))
      return rewriter.notifyMatchFailure(op, "not exact float indices");
    DenseMap<Value, Value> built;
    Location loc = op.getLoc();
    Value a = build(rewriter, loc, op.getLhs(), built);
    Value b = build(rewriter, loc, op.getRhs(), built);
    rewriter.replaceOpWithNewOp<CompareOp>(op, op.getPredicate(), a, b);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Converts of masks
//===----------------------------------------------------------------------===//

/// convert(select(c, A, B)) float -> float with splat A, B whose values the
/// convert keeps exactly: select(c, A', B') with A', B' the same values in
/// the new type. A convert is elementwise, so converting the selected value
/// is selecting the converted one; with A and B exact in the new type the
/// constants need no rounding, and the result is the same bit for bit.
/// A widening convert (bf16 or f16 to f32) is exact for every value:
/// finfo(bf16).min = -(2 - 2^-7) * 2^127 has an 8-bit significand and an
/// exponent f32 shares, so it is an f32 as it is; 0 and -inf are exact in
/// every float type. A narrowing convert is taken only where it loses
/// nothing (f32's finfo.min to bf16 rounds to -inf and is left).
struct ConvertOfSelect : public OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto ft = dyn_cast<FloatType>(op.getType().getElementType());
    if (!ft || !isa<FloatType>(typeOf(op.getX()).getElementType()))
      return failure();
    auto sel = op.getX().getDefiningOp<SelectOp>();
    if (!sel)
      return rewriter.notifyMatchFailure(op, "not a select");
    auto exact = [&](Value v) -> Value {
      auto a = dyn_cast_or_null<FloatAttr>(splatAttr(v));
      if (!a)
        return nullptr;
      APFloat f = a.getValue();
      bool loses = false;
      auto st = f.convert(ft.getFloatSemantics(),
                          APFloat::rmNearestTiesToEven, &loses);
      if (loses || (st != APFloat::opOK))
        return nullptr;
      return rewriter.create<ConstantOp>(
          op.getLoc(), DenseElementsAttr::get(RankedTensorType::get({}, ft),
                                              rewriter.getFloatAttr(ft, f)));
    };
    // Both sides are checked before anything is built.
    auto exactOnly = [&](Value v) {
      auto a = dyn_cast_or_null<FloatAttr>(splatAttr(v));
      if (!a)
        return false;
      APFloat f = a.getValue();
      bool loses = false;
      return f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                       &loses) == APFloat::opOK &&
             !loses;
    };
    if (!exactOnly(sel.getOnTrue()) || !exactOnly(sel.getOnFalse()))
      return rewriter.notifyMatchFailure(op, "sides not exact in the type");
    Value a = exact(sel.getOnTrue()), b = exact(sel.getOnFalse());
    Value r = rewriter.create<SelectOp>(op.getLoc(), sel.getCond(), a, b);
    rewriter.replaceOp(op, toShape(rewriter, op.getLoc(), r, op.getType()));
    return success();
  }
};

/// convert(convert(c : i1 -> T) -> U): the inner value is exactly 0 or 1,
/// which every numeric T holds, and converting 0/1 to U is what converting
/// c does (to i1: 1 is true, 0 false, so the result is c itself). A mask
/// passed through a float and back to bool is its condition.
struct ConvertOfBoolConvert : public OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<ConvertOp>();
    if (!inner || !typeOf(inner.getX()).getElementType().isInteger(1))
      return failure();
    Value c = inner.getX();
    if (op.getType().getElementType().isInteger(1)) {
      rewriter.replaceOp(op, toShape(rewriter, op.getLoc(), c, op.getType()));
      return success();
    }
    rewriter.replaceOpWithNewOp<ConvertOp>(op, op.getType(), c);
    return success();
  }
};


//===----------------------------------------------------------------------===//
// Boolean tables
//===----------------------------------------------------------------------===//

/// select(c, X, Y) of booleans with a constant side: by its truth table,
/// select(c, K1, K2) is c, not(c) or a constant; select(c, true, y) is
/// c | y, select(c, false, y) is !c & y, select(c, x, true) is !c | x and
/// select(c, x, false) is c & x. tinygrad's tril(ones) is
/// _tri.where(false, ones), i.e. not(_tri).
struct BoolSelectOfConstant : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    if (!out.getElementType().isInteger(1))
      return failure();
    Location loc = op.getLoc();
    Value c = op.getCond();
    auto a = splatNumber(op.getOnTrue()), b = splatNumber(op.getOnFalse());
    if (a && b) {
      rewriter.replaceOp(op, boolOf(rewriter, loc, c, *a != 0.0, *b != 0.0, out));
      return success();
    }
    Value r;
    if (a) {
      Value y = op.getOnFalse();
      r = *a != 0.0
              ? rewriter.create<OrOp>(loc, c, y).getResult()
              : rewriter.create<AndOp>(
                    loc, rewriter.create<NotOp>(loc, c).getResult(), y)
                    .getResult();
    } else if (b) {
      Value x = op.getOnTrue();
      r = *b != 0.0
              ? rewriter.create<OrOp>(
                    loc, rewriter.create<NotOp>(loc, c).getResult(), x)
                    .getResult()
              : rewriter.create<AndOp>(loc, c, x).getResult();
    } else {
      return rewriter.notifyMatchFailure(op, "no constant side");
    }
    rewriter.replaceOp(op, toShape(rewriter, loc, r, out));
    return success();
  }
};

/// A table value as a double, when the double is the value exactly.
std::optional<double> exactNumber(Attribute a) {
  if (auto f = dyn_cast<FloatAttr>(a)) {
    APFloat v = f.getValue();
    bool loses = false;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &loses);
    if (loses)
      return std::nullopt;
    return v.convertToDouble();
  }
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    const APInt &v = i.getValue();
    if (v.getBitWidth() == 1)
      return v.getBoolValue() ? 1.0 : 0.0;
    int64_t x = v.getSExtValue();
    if (std::abs(x) > (int64_t(1) << 52))
      return std::nullopt;
    return static_cast<double>(x);
  }
  return std::nullopt;
}

/// compare(T, K) (either side) of a constant band table T (value a on the
/// band lo <= col - row <= hi of its last two dims, b elsewhere, every entry
/// checked, other dims 1) and a splat K: the band condition where
/// compare(a, K) holds and compare(b, K) does not (its negation the other
/// way, a constant when both agree). Each cell compares its own table value
/// with K, which is a or b as the band says. ONNX's Trilu folded to a 0/1
/// table then Equal(mask, 0) is the causal condition negated.
struct CompareOfBandTable : public OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    for (bool left : {true, false}) {
      Value x = left ? op.getLhs() : op.getRhs();
      Value k = left ? op.getRhs() : op.getLhs();
      auto c = x.getDefiningOp<ConstantOp>();
      auto kv = splatNumber(k);
      Attribute ka = splatAttr(k);
      if (!c || !kv || !ka || !exactNumber(ka))
        continue;
      // The table must span the result's last two dims (not broadcast
      // along them): the band is read in the table's own rows and columns.
      auto ct = typeOf(c.getResult());
      auto ot = op.getType();
      if (ct.getRank() < 2 || ot.getRank() < ct.getRank() ||
          ct.getDimSize(ct.getRank() - 1) != ot.getDimSize(ot.getRank() - 1) ||
          ct.getDimSize(ct.getRank() - 2) != ot.getDimSize(ot.getRank() - 2))
        continue;
      auto band = readBand(c);
      if (!band)
        continue;
      auto av = exactNumber(band->a), bv = exactNumber(band->b);
      if (!av || !bv)
        continue;
      auto test = [&](double v) {
        return left ? holds(op.getPredicate(), v, *kv)
                    : holds(op.getPredicate(), *kv, v);
      };
      bool ta = test(*av), tb = test(*bv);
      auto out = op.getType();
      Location loc = op.getLoc();
      if (ta == tb) {
        rewriter.replaceOp(op, boolConstant(rewriter, loc, out, ta));
        return success();
      }
      Band truth = *band;
      truth.a = rewriter.getBoolAttr(ta);
      truth.b = rewriter.getBoolAttr(tb);
      // In i32, as BandTableInMask's (a table read here fits it).
      Type i32 = rewriter.getI32Type();
      Value zero = splatConstant(rewriter, loc, i32, 0);
      rewriter.replaceOp(
          op, buildBand(rewriter, loc, truth, zero, zero, out, i32));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a compare of a band table");
  }
};


//===----------------------------------------------------------------------===//
// Index expressions over fewer axes
//===----------------------------------------------------------------------===//

/// The axes (counted from the right) an index expression varies along: an
/// iota along its own dim (when that dim is not 1), a splat along none, a
/// broadcast or elementwise op along its operands' (right-aligned), a
/// reshape that only inserts or drops unit dims along its input's, moved.
/// nullopt when `v` is not an index expression.
using DepMemo = DenseMap<Value, std::optional<llvm::SmallSet<int64_t, 4>>>;

std::optional<llvm::SmallSet<int64_t, 4>> dependenceNode(Value v,
                                                         DepMemo &memo,
                                                         int depth);

std::optional<llvm::SmallSet<int64_t, 4>> dependence(Value v, DepMemo &memo,
                                                     int depth = 0) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  if (memo.size() >= kExprLimit)
    return std::nullopt;
  auto d = dependenceNode(v, memo, depth);
  memo[v] = d;
  return d;
}

std::optional<llvm::SmallSet<int64_t, 4>> dependenceNode(Value v,
                                                         DepMemo &memo,
                                                         int depth) {
  auto t = typeOf(v);
  if (depth > 32 || !isIndexInt(t.getElementType()))
    return std::nullopt;
  int64_t rank = t.getRank();
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  llvm::SmallSet<int64_t, 4> out;
  if (splatAttr(v) && isa<ConstantOp, BroadcastOp, ReshapeOp>(def))
    return out;
  if (auto iota = dyn_cast<IotaOp>(def)) {
    int64_t d = iota.getDim();
    if (t.getDimSize(d) != 1)
      out.insert(rank - 1 - d);
    return out;
  }
  if (auto r = dyn_cast<ReshapeOp>(def)) {
    auto in = typeOf(r.getX());
    SmallVector<int64_t> pin, pout;
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (in.getDimSize(d) != 1)
        pin.push_back(d);
    for (int64_t d = 0; d < rank; ++d)
      if (t.getDimSize(d) != 1)
        pout.push_back(d);
    if (pin.size() != pout.size())
      return std::nullopt;
    auto x = dependence(r.getX(), memo, depth + 1);
    if (!x)
      return std::nullopt;
    for (size_t i = 0; i < pin.size(); ++i) {
      if (in.getDimSize(pin[i]) != t.getDimSize(pout[i]))
        return std::nullopt;
      if (x->count(in.getRank() - 1 - pin[i]))
        out.insert(rank - 1 - pout[i]);
    }
    return out;
  }
  if (!isa<BroadcastOp, ConvertOp, NotOp, NegOp, AddOp, SubOp, MulOp, MinOp,
           MaxOp, AndOp, OrOp, CompareOp, SelectOp>(def))
    return std::nullopt;
  for (Value x : def->getOperands()) {
    auto d = dependence(x, memo, depth + 1);
    if (!d)
      return std::nullopt;
    out.insert(d->begin(), d->end());
  }
  return out;
}

/// The shape an index expression of shape `shape` varying along `dep` takes
/// over those axes alone: rank 1 + the highest such axis, each dim its own
/// where it varies and 1 elsewhere.
SmallVector<int64_t> dependenceShape(ArrayRef<int64_t> shape,
                                     const llvm::SmallSet<int64_t, 4> &dep) {
  int64_t rank = shape.size(), n = 0;
  for (int64_t r : dep)
    n = std::max(n, r + 1);
  SmallVector<int64_t> out(n, 1);
  for (int64_t r : dep)
    out[n - 1 - r] = shape[rank - 1 - r];
  return out;
}

/// Rebuilds an index expression over the axes it varies along (see
/// dependence): each op over its operands' reduced forms. Element j of the
/// reduced value is the value at any index that agrees with j on those
/// axes: along the others the value is constant.
Value buildReducedNode(PatternRewriter &rewriter, Value v, DepMemo &deps,
                       DenseMap<Value, Value> &built);

Value buildReduced(PatternRewriter &rewriter, Value v, DepMemo &deps,
                   DenseMap<Value, Value> &built) {
  Value &slot = built[v];
  if (!slot)
    slot = buildReducedNode(rewriter, v, deps, built);
  return slot;
}

Value buildReducedNode(PatternRewriter &rewriter, Value v, DepMemo &deps,
                       DenseMap<Value, Value> &built) {
  auto t = typeOf(v);
  auto dep = *dependence(v, deps);
  auto nt = RankedTensorType::get(dependenceShape(t.getShape(), dep),
                                  t.getElementType());
  if (nt == t)
    return v;
  Operation *def = v.getDefiningOp();
  Location loc = v.getLoc();
  if (Attribute s = splatAttr(v); s && isa<ConstantOp, BroadcastOp, ReshapeOp>(def))
    return rewriter.create<ConstantOp>(loc, DenseElementsAttr::get(nt, s));
  if (auto iota = dyn_cast<IotaOp>(def)) {
    // Along a unit dim an iota is 0 everywhere (it varies along nothing,
    // and the reduced form may have fewer dims than its own).
    if (dep.empty())
      return rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(
                   nt, rewriter.getZeroAttr(t.getElementType())));
    int64_t r = t.getRank() - 1 - static_cast<int64_t>(iota.getDim());
    return rewriter.create<IotaOp>(
        loc, nt, static_cast<uint64_t>(nt.getRank() - 1 - r));
  }
  if (isa<BroadcastOp, ReshapeOp>(def)) {
    Value x = buildReduced(rewriter, def->getOperand(0), deps, built);
    auto xt = typeOf(x);
    if (xt == nt)
      return x;
    if (xt.getNumElements() == nt.getNumElements())
      return rewriter.create<ReshapeOp>(loc, nt, x);
    return rewriter.create<BroadcastOp>(loc, x, nt.getShape());
  }
  SmallVector<Value> operands;
  for (Value x : def->getOperands())
    operands.push_back(buildReduced(rewriter, x, deps, built));
  OperationState state(loc, def->getName());
  state.addOperands(operands);
  state.addAttributes(def->getAttrs());
  state.addTypes(nt);
  return rewriter.create(state)->getResult(0);
}

/// A condition built from iotas and splats over a larger shape than it
/// varies along (JAX's broadcasted_iota over the whole grouped logits
/// shape) is its form over those axes, broadcast back: the same value at
/// every element, and the mask readers see the [Lq, Lk] dependence.
template <typename OpTy>
struct ConditionToItsDependence : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value v = op->getResult(0);
    auto t = typeOf(v);
    DepMemo deps;
    auto dep = dependence(v, deps);
    if (!dep)
      return rewriter.notifyMatchFailure(op, "not an index expression");
    auto shape = dependenceShape(t.getShape(), *dep);
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    if (n >= t.getNumElements())
      return rewriter.notifyMatchFailure(op, "varies along every axis");
    DenseMap<Value, Value> built;
    Value r = buildReduced(rewriter, v, deps, built);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, r, t.getShape());
    return success();
  }
};

} // namespace

bool poot::isMaskArithmetic(Value v) { return maskLike(v); }

/// For a reshape from `in` to `out` that only inserts or drops unit dims,
/// the non-unit dims of each, in order and pairwise of one size; nullopt
/// when the reshape moves data otherwise.
std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
poot::unitDimMap(RankedTensorType in, RankedTensorType out) {
  SmallVector<int64_t> pin, pout;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (in.getDimSize(d) != 1)
      pin.push_back(d);
  for (int64_t d = 0; d < out.getRank(); ++d)
    if (out.getDimSize(d) != 1)
      pout.push_back(d);
  if (pin.size() != pout.size())
    return std::nullopt;
  for (size_t i = 0; i < pin.size(); ++i)
    if (in.getDimSize(pin[i]) != out.getDimSize(pout[i]))
      return std::nullopt;
  return std::pair{pin, pout};
}


void poot::populateMaskFormPatterns(RewritePatternSet &patterns) {
  patterns.add<ArangeToIota, BandTableDynamicSlice, BandTableSlice,
               BandTableGather,
               BandTableInMask, LogOfSelect,
               BoolOfSelect, CompareOfSelect, LogicWithConstant<AndOp, true>,
               LogicWithConstant<OrOp, false>, NotNot, UnitReshapeOfLogic, ReshapeOfUnaryCondition, NotOfBroadcast,
               SelectOfOneAndZero, GatherOfIndexExpr,
               SplitReshapeOfMaskArith<AddOp>, SplitReshapeOfMaskArith<MulOp>,
               SplitReshapeOfMaskArith<AndOp>, SplitReshapeOfMaskArith<OrOp>,
               SelectOfBroadcastCond,
               UnitReshapeOfBroadcastCond,
               ConcatOfIndexExpr, SelectOfSelect, ProductOfFillAndIndicator,
               FillTimesComplement, SplatTimesSelectOfConstants,
               MaskArithOfBroadcast<AddOp>, MaskArithOfBroadcast<SubOp>,
               MaskArithOfBroadcast<MulOp>, MaskArithOfBroadcast<SelectOp>,
               MinOfBoundSelect, SelectOfClamp,
               CompareOfLayoutSelect, ProductOfIndicators, SliceOfIndexExpr,
               SelectOfSameCondition,
               SelectOfOwnIndicator, ScoresTimesIndicator<AddOp>,
               ScoresTimesIndicator<SubOp>, SubOfSplatSelect,
               ImpliedCompare<AndOp, true>, ImpliedCompare<OrOp, false>,
               DecidedConjunct<AndOp, true>, DecidedConjunct<OrOp, false>,
               CompareOfMinMax, FloatIndexCompare,
               ConvertOfSelect, ConvertOfBoolConvert, BoolSelectOfConstant,
               CompareOfBandTable, ConditionToItsDependence<CompareOp>,
               ConditionToItsDependence<AndOp>, ConditionToItsDependence<OrOp>,
               ConditionToItsDependence<NotOp>>(
      patterns.getContext());
}

//===- Canonicalize.cpp - Normal forms for the fusion matchers ------------===//
//
// poot-canonicalize: the poot folds plus the normalising patterns the
// matchers rely on. Every pattern here rewrites a graph into one that
// computes the same values: layout ops only move data, constants fold with
// the evaluator's semantics, and an algebraic rewrite is used only where both
// sides are the same real function with the same IEEE special cases
// (pow(x, -1) and 1 / x). Rounding may differ only where a constant
// subexpression is evaluated once (in double, rounded to its type once).
//
// The normal forms, and why the matchers want them:
// - transpose and broadcast chains compose (reshape chains fold in the op);
// - constant subexpressions fold (a scale computed as 1 / sqrt(d) in the
//   graph becomes one splat the attention matcher can read);
// - a division by a splat power of two is the multiply by its reciprocal
//   (exact); pow(x, -1) is 1 / x;
// - a multiply, divide, add or subtract by a splat moves after the layout
//   ops applied to its result (the scale on q sits next to the matmul even
//   when a permute came after it);
// - a reduction without keepdim re-expanded by a reshape keeps its dim;
// - a transpose between two reshapes that only move unit dims is one
//   transpose;
// - repeat_kv spelled as a repeat-interleave gather (constant head map, or
//   one computed from iota) becomes reshape/broadcast/reshape;
// - the layout ops between the two matmuls of an attention (a transposed
//   score layout, a flattened batch, a softmax on a reshaped view, P . V as
//   (V^T . P^T)^T) move up to the first matmul, where they compose or are
//   absorbed (ScoreLayout.cpp says how each step is proven);
// - head maps (repeat_kv in every spelling: copies concatenated, gathers,
//   repeats on a flattened batch or in the [B, L, H, D] layout) move next
//   to the matmuls: transposes above them, head-invariant elementwise ops
//   (RoPE) below them (HeadMap.cpp);
// - masks tabulated by front ends become the index compares the mask
//   matcher reads: arange constants are iotas, sliced band tables are
//   compares, boolean bookkeeping folds (MaskForm.cpp).
//
//===----------------------------------------------------------------------===//

#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "HeadMap.h"
#include "MaskForm.h"
#include "ScoreLayout.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>

namespace poot {
#define GEN_PASS_DEF_CANONICALIZE
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// An axis attribute (stored unsigned, written possibly negative) as an
/// index into a rank-`rank` shape.
int64_t normAxis(uint64_t axis, int64_t rank) {
  int64_t a = static_cast<int64_t>(axis);
  return a < 0 ? a + rank : a;
}

/// Constants are folded only up to this many elements: the point is to
/// expose scales and index maps, not to evaluate the graph at compile time.
constexpr int64_t kFoldLimit = 4096;

//===----------------------------------------------------------------------===//
// Constant folding with the evaluator's semantics
//===----------------------------------------------------------------------===//

/// The elements of a constant as doubles (floats) or int64s (integers and
/// i1), in row-major order; a splat of any size holds its one value.
struct Elements {
  RankedTensorType type;
  bool splat = false;
  SmallVector<double> f;
  SmallVector<int64_t> i;
  bool isFloat() const { return isa<FloatType>(type.getElementType()); }
  double fAt(int64_t n) const { return f[splat ? 0 : n]; }
  int64_t iAt(int64_t n) const { return i[splat ? 0 : n]; }
};

std::optional<Elements> elementsOf(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || (!dense.isSplat() && dense.getNumElements() > kFoldLimit))
    return std::nullopt;
  Elements e;
  e.type = typeOf(v);
  e.splat = dense.isSplat();
  if (e.splat) {
    Type et = e.type.getElementType();
    if (isa<FloatType>(et))
      e.f.push_back(dense.getSplatValue<APFloat>().convertToDouble());
    else if (et.isInteger(1))
      e.i.push_back(dense.getSplatValue<bool>() ? 1 : 0);
    else if (et.isSignlessInteger())
      e.i.push_back(dense.getSplatValue<APInt>().getSExtValue());
    else
      return std::nullopt;
    return e;
  }
  Type et = e.type.getElementType();
  if (isa<FloatType>(et)) {
    for (const APFloat &x : dense.getValues<APFloat>())
      e.f.push_back(x.convertToDouble());
  } else if (et.isInteger(1)) {
    for (bool b : dense.getValues<bool>())
      e.i.push_back(b ? 1 : 0);
  } else if (et.isSignlessInteger()) {
    for (const APInt &x : dense.getValues<APInt>())
      e.i.push_back(x.getSExtValue());
  } else {
    return std::nullopt;
  }
  return e;
}

/// Wraps an int64 into the two's complement range of `type`.
int64_t wrapTo(Type type, int64_t v) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits == 1)
    return v != 0;
  if (bits >= 64)
    return v;
  return APInt(64, v, /*isSigned=*/true).trunc(bits).getSExtValue();
}

/// Builds a constant attribute of `type` from doubles or int64s (one value
/// makes a splat).
DenseElementsAttr makeElements(RankedTensorType type, ArrayRef<double> f,
                               ArrayRef<int64_t> ints) {
  Type et = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(et)) {
    SmallVector<APFloat> values;
    for (double x : f) {
      APFloat v(x);
      bool loses;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &loses);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (et.isInteger(1)) {
    SmallVector<bool> values;
    for (int64_t x : ints)
      values.push_back(x != 0);
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values;
  for (int64_t x : ints)
    values.push_back(APInt(et.getIntOrFloatBitWidth(), x, /*isSigned=*/true));
  return DenseElementsAttr::get(type, values);
}

/// Row-major offset into `in` (right-aligned, numpy broadcast) of the flat
/// index `flat` of `out`.
int64_t broadcastOffset(ArrayRef<int64_t> out, ArrayRef<int64_t> in,
                        int64_t flat) {
  int64_t offset = 0, stride = 1;
  int64_t lead = out.size() - in.size();
  for (int64_t d = out.size() - 1; d >= 0; --d) {
    int64_t idx = flat % out[d];
    flat /= out[d];
    if (d >= lead) {
      int64_t dim = in[d - lead];
      offset += (dim == 1 ? 0 : idx) * stride;
      stride *= dim;
    }
  }
  return offset;
}

/// unary(constant) -> constant.
template <typename OpTy>
struct FoldConstantUnary : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto x = elementsOf(op.getX());
    if (!x)
      return rewriter.notifyMatchFailure(op, "operand is not a small constant");
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<double> f;
    SmallVector<int64_t> ints;
    if (x->isFloat()) {
      for (double v : x->f)
        f.push_back(apply(v));
    } else {
      // Only neg and abs take integers; they wrap like the evaluator's.
      if (!std::is_same_v<OpTy, NegOp> && !std::is_same_v<OpTy, AbsOp>)
        return rewriter.notifyMatchFailure(op, "not an integer op");
      for (int64_t v : x->i)
        ints.push_back(wrapTo(type.getElementType(), applyInt(v)));
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(op, makeElements(type, f, ints));
    return success();
  }
  static double apply(double v) {
    if constexpr (std::is_same_v<OpTy, ExpOp>)
      return std::exp(v);
    else if constexpr (std::is_same_v<OpTy, LogOp>)
      return std::log(v);
    else if constexpr (std::is_same_v<OpTy, TanhOp>)
      return std::tanh(v);
    else if constexpr (std::is_same_v<OpTy, NegOp>)
      return -v;
    else if constexpr (std::is_same_v<OpTy, SinOp>)
      return std::sin(v);
    else if constexpr (std::is_same_v<OpTy, CosOp>)
      return std::cos(v);
    else if constexpr (std::is_same_v<OpTy, SqrtOp>)
      return std::sqrt(v);
    else if constexpr (std::is_same_v<OpTy, RsqrtOp>)
      return 1.0 / std::sqrt(v);
    else if constexpr (std::is_same_v<OpTy, AbsOp>)
      return std::fabs(v);
    return v;
  }
  static int64_t applyInt(int64_t v) {
    if constexpr (std::is_same_v<OpTy, NegOp>)
      return static_cast<int64_t>(0ull - static_cast<uint64_t>(v));
    else if constexpr (std::is_same_v<OpTy, AbsOp>)
      return v < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(v)) : v;
    return v;
  }
};

enum class Bin { Add, Sub, Mul, Div, Max, Min, Pow };

/// binary(constant, constant) -> constant, numpy-broadcast.
template <typename OpTy, Bin K>
struct FoldConstantBinary : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto a = elementsOf(op.getLhs()), b = elementsOf(op.getRhs());
    if (!a || !b)
      return rewriter.notifyMatchFailure(op, "operands are not small "
                                             "constants");
    auto type = cast<RankedTensorType>(op.getType());
    bool splat = a->splat && b->splat;
    if (!splat && type.getNumElements() > kFoldLimit)
      return rewriter.notifyMatchFailure(op, "result too large to fold");
    SmallVector<double> f;
    SmallVector<int64_t> ints;
    for (int64_t n = 0, e = splat ? 1 : type.getNumElements(); n < e; ++n) {
      int64_t ia = broadcastOffset(type.getShape(), a->type.getShape(), n);
      int64_t ib = broadcastOffset(type.getShape(), b->type.getShape(), n);
      if (a->isFloat()) {
        double x = a->fAt(ia), y = b->fAt(ib), r = 0;
        switch (K) {
        case Bin::Add:
          r = x + y;
          break;
        case Bin::Sub:
          r = x - y;
          break;
        case Bin::Mul:
          r = x * y;
          break;
        case Bin::Div:
          r = x / y;
          break;
        case Bin::Max:
          r = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
          break;
        case Bin::Min:
          r = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
          break;
        case Bin::Pow:
          r = std::pow(x, y);
          break;
        }
        f.push_back(r);
        continue;
      }
      // Integers wrap as the evaluator's do; a division by zero or a
      // negative power is a run-time error, so it stays in the graph.
      uint64_t x = a->iAt(ia), y = b->iAt(ib);
      int64_t sx = a->iAt(ia), sy = b->iAt(ib), r = 0;
      switch (K) {
      case Bin::Add:
        r = static_cast<int64_t>(x + y);
        break;
      case Bin::Sub:
        r = static_cast<int64_t>(x - y);
        break;
      case Bin::Mul:
        r = static_cast<int64_t>(x * y);
        break;
      case Bin::Div:
        if (sy == 0)
          return rewriter.notifyMatchFailure(op, "integer division by zero");
        r = sy == -1 ? static_cast<int64_t>(0ull - x) : sx / sy;
        break;
      case Bin::Max:
        r = std::max(sx, sy);
        break;
      case Bin::Min:
        r = std::min(sx, sy);
        break;
      case Bin::Pow:
        return rewriter.notifyMatchFailure(op, "integer pow is not folded");
      }
      ints.push_back(wrapTo(type.getElementType(), r));
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(op, makeElements(type, f, ints));
    return success();
  }
};

/// convert(broadcast(x)) -> broadcast(convert(x)): elementwise, and on
/// fewer elements. A table broadcast to the scores and converted to a
/// condition (candle's u8 causal table) then folds, and a mask converted
/// after its broadcast (Praxis) meets the mask readers as it is. Taken when
/// the broadcast has no other reader or holds a constant.
struct ConvertOfBroadcast : public OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto bc = op.getX().getDefiningOp<BroadcastOp>();
    if (!bc || !(bc->hasOneUse() || bc.getX().getDefiningOp<ConstantOp>()))
      return rewriter.notifyMatchFailure(op, "not a broadcast of its own");
    auto in = typeOf(bc.getX());
    Value c = rewriter.create<ConvertOp>(
        op.getLoc(),
        RankedTensorType::get(in.getShape(), op.getType().getElementType()),
        bc.getX());
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, c, op.getType().getShape());
    return success();
  }
};

/// convert(constant) -> constant, with convert's semantics (float to int
/// truncates and saturates, NaN gives 0; anything to i1 is x != 0).
struct FoldConstantConvert : public OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto x = elementsOf(op.getX());
    if (!x)
      return rewriter.notifyMatchFailure(op, "operand is not a small constant");
    auto type = op.getType();
    Type to = type.getElementType();
    SmallVector<double> f;
    SmallVector<int64_t> ints;
    for (int64_t n = 0, e = x->splat ? 1 : type.getNumElements(); n < e; ++n) {
      double fv = x->isFloat() ? x->f[n] : static_cast<double>(x->i[n]);
      if (isa<FloatType>(to)) {
        f.push_back(fv);
        continue;
      }
      if (to.isInteger(1)) {
        ints.push_back(x->isFloat() ? fv != 0.0 : x->i[n] != 0);
        continue;
      }
      if (!x->isFloat()) {
        ints.push_back(wrapTo(to, x->i[n]));
        continue;
      }
      unsigned bits = to.getIntOrFloatBitWidth();
      double lo = bits == 32 ? -2147483648.0 : -9223372036854775808.0;
      double hi = bits == 32 ? 2147483647.0 : 9223372036854774784.0;
      ints.push_back(std::isnan(fv) ? 0
                                    : static_cast<int64_t>(std::min(
                                          std::max(std::trunc(fv), lo), hi)));
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(op, makeElements(type, f, ints));
    return success();
  }
};

/// compare(broadcast(x), c) with c a splat: broadcast(compare(x, c)), the
/// compare taken on the fewer elements (a mask value broadcast to the
/// scores and compared with a threshold, as Praxis' apply_mask_to_logits
/// does); the mask readers then meet the compare of the mask itself.
struct CompareOfBroadcast : public OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Value b = side ? op.getRhs() : op.getLhs();
      Value c = side ? op.getLhs() : op.getRhs();
      auto bc = b.getDefiningOp<BroadcastOp>();
      auto e = elementsOf(c);
      if (!bc || !bc->hasOneUse() || !e || !e->splat ||
          typeOf(c).getRank() != 0)
        continue;
      Value x = bc.getX();
      Value lhs = side ? c : x, rhs = side ? x : c;
      Value r = rewriter.create<CompareOp>(op.getLoc(), op.getPredicate(), lhs,
                                           rhs);
      rewriter.replaceOpWithNewOp<BroadcastOp>(op, r, op.getType().getShape());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no broadcast against a splat");
  }
};

/// slice(constant) -> constant: a registered mask buffer sliced to the
/// current lengths becomes the constant the mask matcher can read.
struct FoldConstantSlice : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto c = op.getX().getDefiningOp<ConstantOp>();
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    if (!dense || dense.getNumElements() > (1 << 16))
      return rewriter.notifyMatchFailure(op, "operand is not a small "
                                             "constant");
    auto in = typeOf(op.getX()), out = op.getType();
    SmallVector<Attribute> all(dense.getValues<Attribute>());
    SmallVector<Attribute> picked;
    SmallVector<int64_t> inStrides(in.getRank(), 1);
    for (int64_t d = in.getRank() - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * in.getDimSize(d + 1);
    for (int64_t n = 0, e = out.getNumElements(); n < e; ++n) {
      int64_t rest = n, offset = 0;
      for (int64_t d = out.getRank() - 1; d >= 0; --d) {
        int64_t idx = rest % out.getDimSize(d);
        rest /= out.getDimSize(d);
        offset += (op.getStart()[d] + idx * op.getStep()[d]) * inStrides[d];
      }
      picked.push_back(all[offset]);
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, DenseElementsAttr::get(out, picked));
    return success();
  }
};

/// dynamic_update_slice(constant, constant, constant starts) -> constant,
/// the starts clamped into [0, dim - update dim] as the op clamps them:
/// xFormers' reference materialises its block-diagonal causal bias by
/// writing each block's tril into a -inf table, which then reads as the
/// constant mask it is.
struct FoldConstantDynamicUpdateSlice
    : public OpRewritePattern<DynamicUpdateSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicUpdateSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto denseOf = [](Value v) -> DenseElementsAttr {
      auto c = v.getDefiningOp<ConstantOp>();
      return c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    };
    DenseElementsAttr x = denseOf(op.getX()), u = denseOf(op.getUpdate());
    if (!x || !u || x.getNumElements() > (1 << 16))
      return rewriter.notifyMatchFailure(op, "operands are not small "
                                             "constants");
    auto xt = typeOf(op.getX()), ut = typeOf(op.getUpdate());
    SmallVector<int64_t> starts;
    for (auto [d, sv] : llvm::enumerate(op.getStarts())) {
      DenseElementsAttr st = denseOf(sv);
      if (!st || st.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "a start is not a constant");
      int64_t v = (*st.getValues<APInt>().begin()).getSExtValue();
      int64_t hi = xt.getDimSize(d) - ut.getDimSize(d);
      starts.push_back(std::min(std::max<int64_t>(v, 0), hi));
    }
    if (static_cast<int64_t>(starts.size()) != xt.getRank())
      return rewriter.notifyMatchFailure(op, "starts of another rank");
    SmallVector<Attribute> out(x.getValues<Attribute>());
    SmallVector<Attribute> upd(u.getValues<Attribute>());
    SmallVector<int64_t> strides(xt.getRank(), 1);
    for (int64_t d = xt.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * xt.getDimSize(d + 1);
    for (int64_t n = 0, e = ut.getNumElements(); n < e; ++n) {
      int64_t rest = n, offset = 0;
      for (int64_t d = ut.getRank() - 1; d >= 0; --d) {
        int64_t idx = rest % ut.getDimSize(d);
        rest /= ut.getDimSize(d);
        offset += (starts[d] + idx) * strides[d];
      }
      out[offset] = upd[n];
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, DenseElementsAttr::get(xt, out));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Algebra that is exact
//===----------------------------------------------------------------------===//

/// The splat value of a constant seen through broadcasts and reshapes.
std::optional<double> splatOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    if (!dense || !dense.isSplat())
      return std::nullopt;
    if (isa<FloatType>(dense.getElementType()))
      return dense.getSplatValue<APFloat>().convertToDouble();
    return std::nullopt;
  }
  return std::nullopt;
}

/// Whether every element of `v` is >= 0 or NaN by construction: an exp, an
/// abs, a sum, max, product or sum of such values, or a float convert of
/// one.
bool nonNegative(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return false;
  if (isa<ExpOp, AbsOp>(def))
    return true;
  if (auto r = dyn_cast<ReduceSumOp>(def))
    return nonNegative(r.getX(), depth + 1);
  if (auto r = dyn_cast<ReduceMaxOp>(def))
    return nonNegative(r.getX(), depth + 1);
  if (auto c = dyn_cast<ConvertOp>(def))
    return isa<FloatType>(typeOf(c.getX()).getElementType()) &&
           nonNegative(c.getX(), depth + 1);
  if (isa<AddOp, MulOp>(def))
    return nonNegative(def->getOperand(0), depth + 1) &&
           nonNegative(def->getOperand(1), depth + 1);
  return false;
}

/// abs(x) is x where x is nonnegative by construction (the abs
/// jax.scipy.special.logsumexp takes of its sum of exps), so the softmax
/// readers see the sum itself.
struct AbsOfNonNegative : public OpRewritePattern<AbsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AbsOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType().getElementType()) ||
        !nonNegative(op.getX()))
      return rewriter.notifyMatchFailure(op, "not nonnegative by construction");
    rewriter.replaceOp(op, op.getX());
    return success();
  }
};

/// pow(x, -1) is 1 / x for every IEEE x (zeros, infinities and NaN
/// included), and the softmax matcher reads a reciprocal.
struct PowMinusOneToReciprocal : public OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    auto e = splatOf(op.getRhs());
    if (!e || *e != -1.0)
      return rewriter.notifyMatchFailure(op, "exponent is not a splat -1");
    if (op.getLhs().getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "the exponent broadcasts x");
    auto et = cast<FloatType>(op.getType().getElementType());
    Value one = rewriter.create<ConstantOp>(
        op.getLoc(), DenseElementsAttr::get(RankedTensorType::get({}, et),
                                            rewriter.getFloatAttr(et, 1.0)));
    rewriter.replaceOpWithNewOp<DivOp>(op, one, op.getLhs());
    return success();
  }
};

/// x / c -> x * (1 / c) for a splat c = +-2^k whose reciprocal is a normal
/// number of the type: both round the same real x * 2^-k, so the result is
/// bit for bit the same; other divisors stay divisions.
struct DivByPowerOfTwoToMul : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    auto et = dyn_cast<FloatType>(op.getType().getElementType());
    auto c = splatOf(op.getRhs());
    if (!et || !c || *c == 0.0)
      return rewriter.notifyMatchFailure(op, "divisor is not a float splat");
    int exp = 0;
    double mant = std::frexp(std::fabs(*c), &exp);
    if (mant != 0.5)
      return rewriter.notifyMatchFailure(op, "divisor is not a power of two");
    APFloat recip(1.0 / *c);
    bool loses = false;
    recip.convert(et.getFloatSemantics(), APFloat::rmNearestTiesToEven, &loses);
    if (loses || !recip.isNormal())
      return rewriter.notifyMatchFailure(op, "reciprocal not a normal number "
                                             "of the type");
    auto type = typeOf(op.getRhs());
    Value r = rewriter.create<ConstantOp>(
        op.getLoc(), DenseElementsAttr::get(type, FloatAttr::get(et, recip)));
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getLhs(), r);
    return success();
  }
};

/// x - c * y -> x + (-c) * y for a float splat c: IEEE rounding is
/// symmetric, so (-c) * y is exactly -(c * y), and x - p is exactly
/// x + (-p) (infinities and NaN included). A penalty subtracted from the
/// scores (Funnel's `scores - 1e6 * (1 - mask)`, XLNet's
/// `scores - 1e30 * mask`) is then the additive mask the matcher reads.
struct SubOfScaled : public OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubOp op,
                                PatternRewriter &rewriter) const override {
    auto mul = op.getRhs().getDefiningOp<MulOp>();
    if (!mul || !isa<FloatType>(op.getType().getElementType()))
      return rewriter.notifyMatchFailure(op, "rhs is not a float product");
    for (unsigned i = 0; i < 2; ++i) {
      Value c = mul->getOperand(i), y = mul->getOperand(1 - i);
      auto v = splatOf(c);
      // A splat of both sides is folded by the constant folder instead.
      if (!v || splatOf(y))
        continue;
      auto ct = cast<RankedTensorType>(c.getType());
      auto et = cast<FloatType>(ct.getElementType());
      Value neg = rewriter.create<ConstantOp>(
          mul.getLoc(),
          DenseElementsAttr::get(ct, rewriter.getFloatAttr(et, -*v)));
      Value p = rewriter.create<MulOp>(mul.getLoc(), mul.getType(),
                                       i == 0 ? neg : y, i == 0 ? y : neg);
      rewriter.replaceOpWithNewOp<AddOp>(op, op.getType(), op.getLhs(), p);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no splat factor");
  }
};

/// convert(x * c) -> convert(x) * c for a widening float convert and a
/// splat c = +-2^k: x * c is exact in both types wherever it is a normal
/// number of the narrow one, so the two agree there; where x * c falls
/// below the narrow type's normals the narrow product rounds and the wide
/// one does not (the rewrite is the more exact, by at most half a
/// subnormal step). A query scaled before it is upcast (flaxformer's
/// query / sqrt(depth) in bf16, then f32 logits) is then the scale the
/// fused op applies to its f32 scores.
struct ConvertOfPowerOfTwoScale : public OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto from = dyn_cast<FloatType>(typeOf(op.getX()).getElementType());
    auto to = dyn_cast<FloatType>(op.getType().getElementType());
    auto mul = op.getX().getDefiningOp<MulOp>();
    if (!from || !to || to.getWidth() <= from.getWidth() || !mul ||
        !mul->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a widened product");
    for (unsigned i = 0; i < 2; ++i) {
      Value c = mul->getOperand(i), x = mul->getOperand(1 - i);
      auto v = splatOf(c);
      int exp = 0;
      if (!v || *v == 0.0 || std::frexp(std::fabs(*v), &exp) != 0.5 ||
          x.getType() != mul.getType())
        continue;
      Value wide = rewriter.create<ConvertOp>(op.getLoc(), op.getType(), x);
      Value cst = rewriter.create<ConstantOp>(
          op.getLoc(), DenseElementsAttr::get(RankedTensorType::get({}, to),
                                              rewriter.getFloatAttr(to, *v)));
      rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), wide, cst);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no power-of-two splat factor");
  }
};

/// slice(convert(concat(..))) -> convert(slice(concat(..))): a convert is
/// elementwise, so it commutes with picking elements, and the slice then
/// meets the concat (a slice inside one piece is that piece). Gemma's
/// PyTorch rotary stacks the rotated halves as (real, imag) pairs in f32,
/// casts them (type_as) and takes the halves back apart by slices.
struct SliceOfConvertedConcat : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto cv = op.getX().getDefiningOp<ConvertOp>();
    if (!cv || !cv.getX().getDefiningOp<ConcatOp>())
      return rewriter.notifyMatchFailure(op, "not a slice of a converted "
                                             "concat");
    Value inner = rewriter.create<SliceOp>(op.getLoc(), cv.getX(),
                                           op.getStart(), op.getLimit(),
                                           op.getStep());
    rewriter.replaceOpWithNewOp<ConvertOp>(op, op.getType(), inner);
    return success();
  }
};

/// concat(convert(a), convert(b), ..) of converts between the same types
/// -> convert(concat(a, b, ..)): elementwise, either order.
struct ConcatOfConverts : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    Type from;
    for (Value in : op.getInputs()) {
      auto cv = in.getDefiningOp<ConvertOp>();
      if (!cv)
        return rewriter.notifyMatchFailure(op, "a piece is no convert");
      Type t = typeOf(cv.getX()).getElementType();
      if (from && t != from)
        return rewriter.notifyMatchFailure(op, "converts from two types");
      from = t;
      inputs.push_back(cv.getX());
    }
    auto out = op.getType();
    Value cat = rewriter.create<ConcatOp>(op.getLoc(), inputs, op.getAxis());
    rewriter.replaceOpWithNewOp<ConvertOp>(op, out, cat);
    return success();
  }
};

/// reshape(convert(concat(..))) -> convert(reshape(concat(..))), and
/// concat(reshape(a), reshape(b), ..) where each reshape only appends unit
/// dims and the concat is along an earlier axis -> the concat of a, b, ..
/// reshaped: the element order is the same. With the two above, a rotation
/// written as stacked pairs taken apart again is its concat of halves.
struct ReshapeOfConvertedConcat : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto cv = op.getX().getDefiningOp<ConvertOp>();
    if (!cv || !cv.getX().getDefiningOp<ConcatOp>())
      return rewriter.notifyMatchFailure(op, "not a converted concat");
    auto in = typeOf(cv.getX());
    Value r = rewriter.create<ReshapeOp>(
        op.getLoc(),
        RankedTensorType::get(op.getType().getShape(), in.getElementType()),
        cv.getX());
    rewriter.replaceOpWithNewOp<ConvertOp>(op, op.getType(), r);
    return success();
  }
};

struct ConcatOfUnitReshapes : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto out = op.getType();
    int64_t rank = out.getRank();
    // The attribute is the signed axis (negative from the back).
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    SmallVector<Value> inputs;
    int64_t innerRank = -1;
    for (Value in : op.getInputs()) {
      auto r = in.getDefiningOp<ReshapeOp>();
      if (!r)
        return rewriter.notifyMatchFailure(op, "a piece is no reshape");
      auto a = typeOf(r.getX()), b = typeOf(r.getResult());
      int64_t ar = a.getRank();
      if (ar <= axis || (innerRank >= 0 && ar != innerRank) ||
          b.getShape().take_front(ar) != a.getShape() ||
          !llvm::all_of(b.getShape().drop_front(ar),
                        [](int64_t d) { return d == 1; }))
        return rewriter.notifyMatchFailure(op, "not a trailing unit reshape");
      innerRank = ar;
      inputs.push_back(r.getX());
    }
    if (innerRank < 0 || innerRank == rank)
      return rewriter.notifyMatchFailure(op, "nothing appended");
    Value cat = rewriter.create<ConcatOp>(op.getLoc(), inputs, op.getAxis());
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, out, cat);
    return success();
  }
};

/// layout(x op c) -> layout(x) op c for a splat c: an elementwise op with a
/// constant commutes with data movement, and the matchers find a scale or a
/// reciprocal next to the op that consumes it rather than behind a permute.
template <typename LayoutOp>
struct HoistLayoutAboveScalarOp : public OpRewritePattern<LayoutOp> {
  using OpRewritePattern<LayoutOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(LayoutOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getX().getDefiningOp();
    if (!def || !isa<MulOp, DivOp, AddOp, SubOp>(def))
      return rewriter.notifyMatchFailure(op, "operand is not a scalar op");
    if (!isa<FloatType>(typeOf(op.getX()).getElementType()))
      return rewriter.notifyMatchFailure(op, "integer ops stay put");
    if (!def->hasOneUse())
      return rewriter.notifyMatchFailure(op, "the scalar op has other uses");
    Value lhs = def->getOperand(0), rhs = def->getOperand(1);
    bool constOnRight =
        splatOf(rhs) && lhs.getType() == def->getResult(0).getType();
    bool constOnLeft = !constOnRight && splatOf(lhs) &&
                       rhs.getType() == def->getResult(0).getType();
    if (!constOnRight && !constOnLeft)
      return rewriter.notifyMatchFailure(op, "not x op splat");
    Value x = constOnRight ? lhs : rhs;
    // Mask arithmetic stays before a broadcast (the mask forms take the
    // broadcast off it, where it was built).
    if (std::is_same_v<LayoutOp, BroadcastOp> && isMaskArithmetic(x))
      return rewriter.notifyMatchFailure(op, "mask arithmetic stays put");
    double c = *splatOf(constOnRight ? rhs : lhs);
    auto et = cast<FloatType>(typeOf(x).getElementType());
    Location loc = op.getLoc();
    Value moved;
    if constexpr (std::is_same_v<LayoutOp, TransposeOp>)
      moved = rewriter.create<TransposeOp>(loc, x, op.getPerm());
    else if constexpr (std::is_same_v<LayoutOp, BroadcastOp>)
      moved = rewriter.create<BroadcastOp>(loc, x, op.getShape());
    else
      moved = rewriter.create<ReshapeOp>(loc, op.getType(), x);
    Value cst = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, et),
                                    rewriter.getFloatAttr(et, c)));
    OperationState state(def->getLoc(), def->getName());
    state.addOperands(constOnRight ? ValueRange{moved, cst}
                                   : ValueRange{cst, moved});
    state.addTypes(op.getType());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// reshape(reduce(x, axis)) that only restores the reduced unit dim is
/// reduce(x, axis, keepdim): the softmax matcher reads the keepdim form.
template <typename ReduceOp>
struct ReduceKeepdim : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern<ReshapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto reduce = op.getX().template getDefiningOp<ReduceOp>();
    if (!reduce || reduce.getKeepdim() || !reduce->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a single-use reduction "
                                             "without keepdim");
    auto in = typeOf(reduce.getX());
    int64_t axis = normAxis(reduce.getAxis(), in.getRank());
    SmallVector<int64_t> kept(in.getShape());
    kept[axis] = 1;
    if (op.getType().getShape() != ArrayRef<int64_t>(kept))
      return rewriter.notifyMatchFailure(op, "reshape is not the keepdim "
                                             "shape");
    rewriter.replaceOpWithNewOp<ReduceOp>(op, reduce.getX(), axis,
                                          /*keepdim=*/true);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

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

/// The positions of the non-unit dims of a shape.
SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> out;
  for (int64_t d = 0, e = shape.size(); d < e; ++d)
    if (shape[d] != 1)
      out.push_back(d);
  return out;
}

/// Whether a reshape between the two shapes only inserts or drops unit
/// dims (the non-unit dims stay, in order).
bool onlyUnitDims(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  auto na = nonUnitDims(a), nb = nonUnitDims(b);
  return llvm::equal(llvm::map_range(na, [&](int64_t d) { return a[d]; }),
                     llvm::map_range(nb, [&](int64_t d) { return b[d]; }));
}

/// reshape(transpose(reshape(x))) whose reshapes only insert or drop unit
/// dims is one transpose of x (of its non-unit dims) and a reshape: the
/// data moves as the transpose of the non-unit dims says, wherever the unit
/// dims sit. Layout rewrites around unit dims (a flattened batch of one head)
/// leave such sandwiches.
struct TransposeBetweenUnitReshapes : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto tr = op.getX().getDefiningOp<TransposeOp>();
    auto inner = tr ? tr.getX().getDefiningOp<ReshapeOp>() : nullptr;
    if (!inner)
      return rewriter.notifyMatchFailure(op, "not reshape(transpose(reshape))");
    Value x = inner.getX();
    auto xs = typeOf(x).getShape(), ys = typeOf(inner.getResult()).getShape();
    auto zs = tr.getType().getShape();
    if (!onlyUnitDims(xs, ys) || !onlyUnitDims(zs, op.getType().getShape()))
      return rewriter.notifyMatchFailure(op, "a reshape moves non-unit dims");
    // The non-unit dims of z in order, as dims of x.
    auto nx = nonUnitDims(xs), ny = nonUnitDims(ys);
    llvm::DenseMap<int64_t, int64_t> yToX;
    for (auto [i, d] : llvm::enumerate(ny))
      yToX[d] = nx[i];
    SmallVector<int64_t> order, units;
    for (int64_t p : tr.getPerm())
      if (ys[p] != 1)
        order.push_back(yToX.lookup(p));
    for (int64_t d = 0, e = xs.size(); d < e; ++d)
      if (xs[d] == 1)
        units.push_back(d);
    // The non-unit dims in their own order: no data moves, one reshape.
    if (llvm::is_sorted(order)) {
      if (typeOf(x) == op.getType())
        rewriter.replaceOp(op, x);
      else
        rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), x);
      return success();
    }
    // The unit dims go where the result has its own when the ranks agree
    // (then no reshape is left), else after the rest.
    SmallVector<int64_t> q;
    auto ws = op.getType().getShape();
    if (ws.size() == xs.size()) {
      auto o = order.begin(), u = units.begin();
      for (int64_t d : ws)
        q.push_back(d != 1 ? *o++ : *u++);
    } else {
      q = order;
      llvm::append_range(q, units);
    }
    Value t = x;
    if (!llvm::equal(q, llvm::seq<int64_t>(0, xs.size())))
      t = rewriter.create<TransposeOp>(op.getLoc(), x, q);
    if (t.getType() == op.getType())
      rewriter.replaceOp(op, t);
    else
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), t);
    return success();
  }
};

/// The runs of `atoms` (sizes, in order) whose products are the dims of
/// `shape`: run j holds the atoms of dim j (none for a unit dim). Nullopt
/// when a dim would split an atom.
std::optional<SmallVector<SmallVector<int64_t>>>
atomRuns(ArrayRef<int64_t> atoms, ArrayRef<int64_t> shape) {
  SmallVector<SmallVector<int64_t>> runs;
  size_t a = 0;
  for (int64_t d : shape) {
    SmallVector<int64_t> run;
    int64_t product = 1;
    while (product < d && a < atoms.size()) {
      product *= atoms[a];
      run.push_back(a++);
    }
    if (product != d)
      return std::nullopt;
    runs.push_back(std::move(run));
  }
  if (a != atoms.size())
    return std::nullopt;
  return runs;
}

/// reshape(transpose(reshape(x))) where the first reshape merges runs of
/// x's dims, the transpose permutes the merged dims and the second reshape
/// cuts the result only between x's dims, is one transpose of x's dims and
/// one reshape that merges them: the data moves as the permutation of x's
/// dims says. Megatron's sequence-major attention merges the batch with
/// the (repeated) heads, [s, b, ng, r, d] -> [s, b * ng * r, d], transposes
/// that to the front and views it as [b, ng * r, s, d]: the transpose of
/// [s, b, ng, r, d] to [b, ng, r, s, d] and a merge of ng and r, the repeat
/// of the head map in its usual place. Reshapes of unit dims alone are left
/// to TransposeBetweenUnitReshapes.
struct TransposeOfMergedDims : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto tr = op.getX().getDefiningOp<TransposeOp>();
    auto inner = tr ? tr.getX().getDefiningOp<ReshapeOp>() : nullptr;
    if (!inner || !tr->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not reshape(transpose(reshape))");
    Value x = inner.getX();
    auto xs = typeOf(x).getShape(), ys = typeOf(inner.getResult()).getShape();
    auto ws = op.getType().getShape();
    if (onlyUnitDims(xs, ys) && onlyUnitDims(tr.getType().getShape(), ws))
      return rewriter.notifyMatchFailure(op, "unit dims only");
    SmallVector<int64_t> atoms, atomDim;
    for (auto [d, size] : llvm::enumerate(xs))
      if (size != 1) {
        atoms.push_back(size);
        atomDim.push_back(static_cast<int64_t>(d));
      }
    auto runs = atomRuns(atoms, ys);
    if (!runs)
      return rewriter.notifyMatchFailure(op, "the first reshape splits a dim");
    // The atoms in the transposed order, and the result cut over them.
    SmallVector<int64_t> order, sizes;
    for (int64_t p : tr.getPerm())
      for (int64_t a : (*runs)[p]) {
        order.push_back(a);
        sizes.push_back(atoms[a]);
      }
    if (!atomRuns(sizes, ws))
      return rewriter.notifyMatchFailure(op, "the second reshape splits a dim");
    SmallVector<int64_t> perm;
    for (int64_t a : order)
      perm.push_back(atomDim[a]);
    for (auto [d, size] : llvm::enumerate(xs))
      if (size == 1)
        perm.push_back(static_cast<int64_t>(d));
    Value t = x;
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, xs.size())))
      t = rewriter.create<TransposeOp>(op.getLoc(), x, perm);
    if (t.getType() == op.getType())
      rewriter.replaceOp(op, t);
    else
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), t);
    return success();
  }
};

/// gather(x, idx, axis) with idx = [i / n for i < H * n] is the
/// repeat-interleave of x along axis (torch.repeat_interleave, repeat_kv as
/// an index_select): reshape to [.., H, 1, ..], broadcast to [.., H, n, ..],
/// reshape to [.., H * n, ..]. An identity map is x itself.
struct GatherRepeatInterleave : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto x = typeOf(op.getX());
    int64_t axis = normAxis(op.getAxis(), x.getRank());
    if (typeOf(op.getIdx()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "index is not a vector");
    auto idx = heads::evalIndex(op.getIdx());
    if (!idx)
      return rewriter.notifyMatchFailure(op, "index not known at compile "
                                             "time");
    int64_t h = x.getDimSize(axis), total = idx->size();
    if (total % h)
      return rewriter.notifyMatchFailure(op, "index length is not a multiple "
                                             "of the axis");
    int64_t n = total / h;
    for (int64_t i = 0; i < total; ++i)
      if ((*idx)[i] != i / n)
        return rewriter.notifyMatchFailure(op, "index is not i / n");
    if (n == 1) {
      rewriter.replaceOp(op, op.getX());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<int64_t> split(x.getShape().take_front(axis + 1));
    split.push_back(1);
    llvm::append_range(split, x.getShape().drop_front(axis + 1));
    Value r = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(split, x.getElementType()), op.getX());
    split[axis + 1] = n;
    Value b = rewriter.create<BroadcastOp>(loc, r, split);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), b);
    return success();
  }
};

/// gather(x, idx, axis) with idx = [a + s i] (s >= 1), a compile-time
/// arange inside the axis, is the strided slice x[a : a + s n : s] along
/// it: gemma_pytorch takes its prefill mask rows as index_select(mask, 2,
/// arange(L)), which the mask readers then read as a slice of the table.
struct GatherOfArange : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto x = typeOf(op.getX());
    int64_t axis = normAxis(op.getAxis(), x.getRank());
    if (typeOf(op.getIdx()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "index is not a vector");
    auto idx = heads::evalIndex(op.getIdx());
    if (!idx || idx->empty())
      return rewriter.notifyMatchFailure(op, "index not known at compile "
                                             "time");
    int64_t n = idx->size(), a = (*idx)[0];
    int64_t step = n > 1 ? (*idx)[1] - a : 1;
    if (step < 1 || a < 0 || a + step * (n - 1) >= x.getDimSize(axis))
      return rewriter.notifyMatchFailure(op, "not an increasing arange "
                                             "inside the axis");
    for (int64_t i = 0; i < n; ++i)
      if ((*idx)[i] != a + step * i)
        return rewriter.notifyMatchFailure(op, "not an arange");
    SmallVector<int64_t> start(x.getRank(), 0), limit(x.getShape()),
        steps(x.getRank(), 1);
    start[axis] = a;
    limit[axis] = a + step * (n - 1) + 1;
    steps[axis] = step;
    rewriter.replaceOpWithNewOp<SliceOp>(op, op.getX(), start, limit, steps);
    return success();
  }
};

struct CanonicalizePass
    : public poot::impl::CanonicalizeBase<CanonicalizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateCanonicalizePatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    if (failed(applyPatternsAndFoldGreedily(getOperation(), frozen)))
      return signalPassFailure();
    // Equal values built twice (a front end repeating the same view or
    // slice on each path, or two patterns rebuilding one) are merged, so
    // the readers after this pass see one value where the graph has one,
    // then the patterns run again over what merging exposed.
    IRRewriter rewriter(&getContext());
    DominanceInfo dom(getOperation());
    bool changed = false;
    eliminateCommonSubExpressions(rewriter, dom, getOperation(), &changed);
    if (changed && failed(applyPatternsAndFoldGreedily(getOperation(), frozen)))
      return signalPassFailure();
  }
};

} // namespace

void poot::populateCanonicalizePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<ComposeTransposes, ComposeBroadcasts, FoldConstantConvert,
           CompareOfBroadcast, ConvertOfBroadcast,
           FoldConstantSlice, FoldConstantDynamicUpdateSlice,
           PowMinusOneToReciprocal, DivByPowerOfTwoToMul,
           AbsOfNonNegative, SubOfScaled, ConvertOfPowerOfTwoScale,
           SliceOfConvertedConcat, ConcatOfConverts, ReshapeOfConvertedConcat,
           ConcatOfUnitReshapes,
           HoistLayoutAboveScalarOp<TransposeOp>,
           HoistLayoutAboveScalarOp<ReshapeOp>,
           HoistLayoutAboveScalarOp<BroadcastOp>, ReduceKeepdim<ReduceSumOp>,
           ReduceKeepdim<ReduceMaxOp>, ReduceKeepdim<ReduceMinOp>,
           GatherRepeatInterleave, GatherOfArange, TransposeBetweenUnitReshapes,
           TransposeOfMergedDims>(ctx);
  populateScoreLayoutPatterns(patterns);
  heads::populateHeadMapPatterns(patterns);
  populateMaskFormPatterns(patterns);
  patterns.add<FoldConstantUnary<ExpOp>, FoldConstantUnary<LogOp>,
               FoldConstantUnary<TanhOp>, FoldConstantUnary<NegOp>,
               FoldConstantUnary<SinOp>, FoldConstantUnary<CosOp>,
               FoldConstantUnary<SqrtOp>, FoldConstantUnary<RsqrtOp>,
               FoldConstantUnary<AbsOp>>(ctx);
  patterns.add<
      FoldConstantBinary<AddOp, Bin::Add>, FoldConstantBinary<SubOp, Bin::Sub>,
      FoldConstantBinary<MulOp, Bin::Mul>, FoldConstantBinary<DivOp, Bin::Div>,
      FoldConstantBinary<MaxOp, Bin::Max>, FoldConstantBinary<MinOp, Bin::Min>,
      FoldConstantBinary<PowOp, Bin::Pow>>(ctx);
}

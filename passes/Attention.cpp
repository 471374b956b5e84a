//===- Attention.cpp - Attention chains -> poot.attention -----------------===//
//
// Recognises attention in the spellings real front ends produce and replaces
// each chain with one poot.attention, rooted at the second matmul (P . V).
// Going backwards from the root it looks through a NaN guard on the
// probabilities (re-applied on the output) and the empty-row guards (kept
// only where proven never to fire), finds the softmax in one of its normal
// forms (SoftmaxForm.h: divided by its sum or shifted by its log-sum-exp;
// row shifts such as a max, a global max or a scaled max are taken off on
// the way and proven finite on every row with a visible key), then
// peels the score transform in the contract's order, outside in: masks,
// softcap, scale, down to the first matmul (a -inf mask may sit inside a
// positive scale: it hides the same keys); then the GQA repeat on k and v
// (repeat_kv, a head gather, an expand or the matmul's own broadcast), and
// the key form (paged through a proven read map, split MLA key, live
// length); unbatched [H, L, D] operands are read as B = 1. Mask conditions
// and constant masks are read for their meaning (causal at a position,
// sliding window, ALiBi); the rest stays a tensor.
// A finite fill (finfo.min, -1e9, -10000) counts as -inf only when it is
// low enough for exp to flush and every row provably keeps a visible key.
// The fused op takes the widest float type of the chain, so a bf16 model
// with an f32 attention core keeps its f32 core.
//
// poot-canonicalize brings the other spellings (scales computed in the
// graph, layout ops between a scale and its matmul, repeat-interleave
// gathers, keys-first softmax layouts) to the forms read here.
//
// A chain that differs from the contract (DESIGN 4.4) in any way that changes
// what it computes is declined with its reason and keeps its primitive form;
// the decision is taken before the first op is built, so a decline leaves the
// IR untouched.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Dialect/PootRangeAnalysis.h"
#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "SoftmaxForm.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace poot {
#define GEN_PASS_DEF_ATTENTIONFUSION
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;
using namespace poot::match;

namespace {

//===----------------------------------------------------------------------===//
// Small matchers
//===----------------------------------------------------------------------===//

bool isNegInf(Value v) {
  auto s = splatOf(v);
  return s && std::isinf(*s) && *s < 0;
}

/// A negative splat fill: -inf, or a finite value such as finfo.min, -1e9
/// or -10000.
std::optional<double> negativeFill(Value v) {
  auto s = splatOf(v);
  if (!s || !(*s < 0))
    return std::nullopt;
  return s;
}

/// The weakest finite fill that still counts as hiding a key: exp(x) is 0 in
/// f32 for x < -104, so a fill of -8192 or below keeps every masked weight at
/// exactly 0 while the scores stay within +-3700 (docs/numerics.md). It is
/// -1e4 as any dtype rounds it (bf16 holds -9984).
constexpr double kHidingFill = -8192.0;

/// A fill this low is finfo.min-like: it hides a key whatever finite score
/// or bias (up to +-1e29) is added to it.
constexpr double kLowestFill = -1e30;

/// Whether a reshape from `in` to `out` only adds or drops leading unit
/// dims: under right-aligned broadcasting it changes nothing.
bool isLeadingUnitReshape(RankedTensorType in, RankedTensorType out) {
  auto trimmed = [](ArrayRef<int64_t> s) {
    while (!s.empty() && s.front() == 1)
      s = s.drop_front();
    return s;
  };
  return trimmed(in.getShape()) == trimmed(out.getShape());
}

/// Looks through broadcasts and through reshapes that only add or drop
/// leading unit dims (a [Lq, Lk] mask viewed as [1, 1, Lq, Lk]).
Value stripAligned(Value v) {
  while (true) {
    if (auto b = v.getDefiningOp<BroadcastOp>()) {
      v = b.getX();
      continue;
    }
    auto r = v.getDefiningOp<ReshapeOp>();
    if (r && isLeadingUnitReshape(typeOf(r.getX()), r.getType())) {
      v = r.getX();
      continue;
    }
    return v;
  }
}

/// Whether `v` is computed from a matmul through the ops a score transform
/// uses (so it is the score side of an add or select, not the mask).
bool reachesMatmul(Value v, int depth = 0) {
  if (depth > 24)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<MatmulOp>(def))
    return true;
  if (!isa<AddOp, SubOp, MulOp, DivOp, SelectOp, ConvertOp, TanhOp>(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return reachesMatmul(operand, depth + 1);
  });
}

/// Follows reshapes that only insert or drop unit dims, and broadcasts, back
/// from axis `axis` of `v`; returns the source and the source axis, or
/// nothing when the value is not laid out along that axis.
std::optional<std::pair<Value, int64_t>> traceAxis(Value v, int64_t axis) {
  while (true) {
    auto t = typeOf(v);
    if (auto b = v.getDefiningOp<BroadcastOp>()) {
      auto in = typeOf(b.getX());
      int64_t a = axis - (t.getRank() - in.getRank());
      if (a < 0 || in.getDimSize(a) != t.getDimSize(axis))
        return std::nullopt;
      v = b.getX();
      axis = a;
      continue;
    }
    if (auto r = v.getDefiningOp<ReshapeOp>()) {
      auto in = typeOf(r.getX());
      // The reshape must keep the non-unit dims in order.
      SmallVector<int64_t> outDims, inDims;
      for (int64_t d : t.getShape())
        if (d != 1)
          outDims.push_back(d);
      for (int64_t d : in.getShape())
        if (d != 1)
          inDims.push_back(d);
      if (outDims != inDims || t.getDimSize(axis) == 1)
        return std::nullopt;
      int64_t rank = 0;
      for (int64_t i = 0; i < axis; ++i)
        rank += t.getDimSize(i) != 1;
      int64_t a = -1;
      for (int64_t i = 0, seen = 0; i < in.getRank(); ++i) {
        if (in.getDimSize(i) == 1)
          continue;
        if (seen++ == rank) {
          a = i;
          break;
        }
      }
      if (a < 0)
        return std::nullopt;
      v = r.getX();
      axis = a;
      continue;
    }
    if (auto c = v.getDefiningOp<ConvertOp>()) {
      if (!isa<IntegerType>(typeOf(c.getX()).getElementType()))
        return std::pair{v, axis};
      v = c.getX();
      continue;
    }
    return std::pair{v, axis};
  }
}

/// Whether every element of `v` equals its index along `axis`.
bool isIndexAlong(Value v, int64_t axis) {
  auto traced = traceAxis(v, axis);
  if (!traced)
    return false;
  auto iota = traced->first.getDefiningOp<IotaOp>();
  return iota && static_cast<int64_t>(iota.getDim()) == traced->second;
}

/// The value of rank `rank` whose only non-unit dim is `axis`, seen back
/// through broadcasts and unit reshapes: e.g. len [B] behind a
/// [B, 1, Lk, 1] comparison.
Value valueAlong(Value v, int64_t axis) {
  while (true) {
    if (auto b = v.getDefiningOp<BroadcastOp>()) {
      auto in = typeOf(b.getX());
      auto t = typeOf(v);
      int64_t a = axis - (t.getRank() - in.getRank());
      if (a < 0)
        return nullptr;
      for (int64_t i = 0; i < in.getRank(); ++i)
        if (i != a && in.getDimSize(i) != 1)
          return nullptr;
      v = b.getX();
      axis = a;
      continue;
    }
    if (auto r = v.getDefiningOp<ReshapeOp>()) {
      auto in = typeOf(r.getX());
      int64_t nonUnit =
          llvm::count_if(in.getShape(), [](int64_t d) { return d != 1; });
      if (nonUnit > 1)
        return nullptr;
      int64_t a = 0;
      for (int64_t i = 0; i < in.getRank(); ++i)
        if (in.getDimSize(i) != 1)
          a = i;
      v = r.getX();
      axis = a;
      continue;
    }
    break;
  }
  auto t = typeOf(v);
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (i != axis && t.getDimSize(i) != 1)
      return nullptr;
  return v;
}

//===----------------------------------------------------------------------===//
// The pieces of an attention chain
//===----------------------------------------------------------------------===//

/// What the score side of the chain holds once peeled.
struct Scores {
  Value qk;                      ///< the first matmul
  double scale = 1.0;            ///< product of every splat factor
  std::optional<double> softcap; ///< c of c * tanh(s / c)
  SmallVector<Value> masks;      ///< additive masks, outermost first
  /// Conditions of select(c, s, -inf) (keep where c) and, flagged true,
  /// of select(c, -inf, s) (keep where c is false).
  SmallVector<std::pair<Value, bool>> selectConds;
  /// The conditions above whose fill is a finite negative value, with that
  /// value as it reaches the softmax (the weakest when a condition repeats).
  llvm::DenseMap<Value, double> finiteFills;
  /// Every value the walk passed, from the softmax input down to the first
  /// matmul (with and without their converts): the score chain a shift's
  /// max must be taken over.
  llvm::DenseSet<Value> chain;
  /// The row shifts subtracted on the way (max subtractions), proven.
  SmallVector<Shift> shifts;
  Operation *softcapOp = nullptr; ///< the outer product of the softcap
  Operation *scaleOp = nullptr;   ///< the outermost scale op
};

std::optional<std::pair<Value, bool>> selectMask(Value term);
void maskTerms(Value m, SmallVectorImpl<Value> &terms);

/// Whether the scores are -inf wherever `c` says hidden (false when
/// `visibleWhenTrue`, true otherwise): a -inf select on the scores, or an
/// added select(c, 0, -inf), by the same condition with the same polarity.
bool hidesWithNegInf(const Scores &sc, Value c, bool visibleWhenTrue) {
  Value want = stripAligned(c);
  for (auto [cond, inverted] : sc.selectConds)
    if (stripAligned(cond) == want && inverted == !visibleWhenTrue &&
        !sc.finiteFills.count(cond))
      return true;
  SmallVector<Value> terms;
  for (Value m : sc.masks)
    maskTerms(m, terms);
  for (Value t : terms)
    if (auto sm = selectMask(t))
      if (stripAligned(sm->first) == want && sm->second == visibleWhenTrue)
        return true;
  return false;
}

/// Whether `y` is a value of the score chain, or an op computing the same
/// from the same operands (a front end may spell the masked scores twice,
/// once for the max and once for the exp).
bool onChain(const Scores &sc, Value y) {
  if (sc.chain.contains(y) || sc.chain.contains(stripFloatConvert(y)))
    return true;
  Operation *def = stripFloatConvert(y).getDefiningOp();
  if (!def || def->getNumRegions() || !isPure(def))
    return false;
  return llvm::any_of(sc.chain, [&](Value c) {
    Operation *other = c.getDefiningOp();
    return other && other != def &&
           OperationEquivalence::isEquivalentTo(
               def, other, OperationEquivalence::exactValueMatch, nullptr,
               OperationEquivalence::IgnoreLocations);
  });
}

/// The GQA repeat found behind an expanded key or value.
struct Repeat {
  Value base;
  int64_t nRep = 1;
};

/// Recognises repeat_kv on an expanded [B, Hq, L, D] tensor: reshape ->
/// broadcast -> reshape, or a gather along the head axis with index h / n.
FailureOr<Repeat> matchRepeat(Value expanded, int64_t hq, std::string &why) {
  auto t = typeOf(expanded);
  if (auto outer = expanded.getDefiningOp<ReshapeOp>()) {
    auto five = typeOf(outer.getX());
    auto bcast = outer.getX().getDefiningOp<BroadcastOp>();
    if (bcast && five.getRank() == 5) {
      auto inner = bcast.getX().getDefiningOp<ReshapeOp>();
      auto b5 = typeOf(bcast.getX());
      if (inner && b5.getRank() == 5 && b5.getDimSize(2) == 1) {
        auto base = typeOf(inner.getX());
        int64_t hkv = five.getDimSize(1), n = five.getDimSize(2);
        if (base.getRank() == 4 && base.getDimSize(1) == hkv &&
            hkv * n == t.getDimSize(1) &&
            five.getDimSize(0) == t.getDimSize(0) &&
            five.getDimSize(3) == t.getDimSize(2) &&
            five.getDimSize(4) == t.getDimSize(3) &&
            base.getDimSize(2) == t.getDimSize(2))
          return Repeat{inner.getX(), n};
      }
    }
  }
  // k.expand(B, Hq, L, D) of a single key head: multi-query attention.
  if (auto bcast = expanded.getDefiningOp<BroadcastOp>()) {
    auto in = typeOf(bcast.getX());
    if (in.getRank() == 4 && in.getDimSize(1) == 1 && t.getDimSize(1) == hq &&
        in.getDimSize(0) == t.getDimSize(0) &&
        in.getDimSize(2) == t.getDimSize(2) &&
        in.getDimSize(3) == t.getDimSize(3))
      return Repeat{bcast.getX(), hq};
  }
  if (auto gather = expanded.getDefiningOp<GatherOp>()) {
    int64_t axis = static_cast<int64_t>(gather.getAxis());
    axis = axis < 0 ? axis + 4 : axis;
    auto idxType = typeOf(gather.getIdx());
    auto base = typeOf(gather.getX());
    auto cst = gather.getIdx().getDefiningOp<ConstantOp>();
    auto dense = cst ? dyn_cast<DenseIntElementsAttr>(cst.getValue()) : nullptr;
    if (axis == 1 && idxType.getRank() == 1 && dense && base.getRank() == 4) {
      int64_t hkv = base.getDimSize(1);
      if (hq % hkv) {
        why = llvm::formatv("query heads {0} not divisible by key heads {1}",
                            hq, hkv);
        return failure();
      }
      int64_t n = hq / hkv, h = 0;
      for (const APInt &idx : dense.getValues<APInt>()) {
        if (idx.getSExtValue() != h / n) {
          why = llvm::formatv("head map sends query head {0} to key head {1}, "
                              "expected {2} (h / n_rep)",
                              h, idx.getSExtValue(), h / n);
          return failure();
        }
        ++h;
      }
      return Repeat{gather.getX(), n};
    }
  }
  return Repeat{expanded, 1};
}

/// Recognises repeat_kv on an unbatched [Hq, L, D] tensor: reshape to
/// [Hkv, 1, L, D], broadcast to [Hkv, n, L, D], reshape to [Hkv * n, L, D].
Repeat matchRepeatUnbatched(Value expanded) {
  auto t = typeOf(expanded);
  auto outer = expanded.getDefiningOp<ReshapeOp>();
  auto bcast = outer ? outer.getX().getDefiningOp<BroadcastOp>() : nullptr;
  auto inner = bcast ? bcast.getX().getDefiningOp<ReshapeOp>() : nullptr;
  if (!inner || t.getRank() != 3)
    return Repeat{expanded, 1};
  auto four = typeOf(outer.getX()), b4 = typeOf(bcast.getX());
  auto base = typeOf(inner.getX());
  if (four.getRank() != 4 || b4.getRank() != 4 || base.getRank() != 3 ||
      b4.getDimSize(1) != 1 || b4.getDimSize(0) != four.getDimSize(0) ||
      b4.getDimSize(2) != four.getDimSize(2) ||
      b4.getDimSize(3) != four.getDimSize(3))
    return Repeat{expanded, 1};
  int64_t hkv = four.getDimSize(0), n = four.getDimSize(1);
  if (base.getDimSize(0) != hkv || hkv * n != t.getDimSize(0) ||
      base.getDimSize(1) != t.getDimSize(1) ||
      base.getDimSize(2) != t.getDimSize(2) ||
      four.getDimSize(2) != t.getDimSize(1) ||
      four.getDimSize(3) != t.getDimSize(2))
    return Repeat{expanded, 1};
  return Repeat{inner.getX(), n};
}

/// A rank-4 tensor seen as rank 5 through a unit dim inserted at `axis`
/// (the group axis of JAX's grouped einsum), and the permutation that then
/// moves it into the rank-4 frame (empty when none does).
struct GroupedView {
  Value src;
  SmallVector<int64_t> perm;
};

/// Looks through broadcasts along `axis` of the rank-5 `x` only.
Value stripAxisBroadcast(Value x, int64_t axis) {
  while (auto b = x.getDefiningOp<BroadcastOp>()) {
    auto in = typeOf(b.getX()), out = typeOf(x);
    if (in.getRank() != out.getRank() || in.getDimSize(axis) != 1)
      return x;
    for (int64_t i = 0; i < in.getRank(); ++i)
      if (i != axis && in.getDimSize(i) != out.getDimSize(i))
        return x;
    x = b.getX();
  }
  return x;
}

/// Reads the rank-5 `x` as a rank-4 tensor with a unit dim at 2, spread
/// over the group axis only by broadcasts (before or after a transpose): a
/// reshape inserting that dim, or a transpose (moving a unit dim to 2) of a
/// reshape inserting it elsewhere.
std::optional<GroupedView> matchGroupedView(Value x) {
  x = stripAxisBroadcast(x, 2);
  if (typeOf(x).getRank() != 5)
    return std::nullopt;
  // The rank-4 source of a reshape that only inserts a unit dim at `unit`.
  auto unitReshape = [](Value y, int64_t unit) -> Value {
    auto r = y.getDefiningOp<ReshapeOp>();
    if (!r)
      return nullptr;
    SmallVector<int64_t> want(typeOf(y).getShape());
    want.erase(want.begin() + unit);
    if (typeOf(r.getX()).getShape() != ArrayRef<int64_t>(want))
      return nullptr;
    return r.getX();
  };
  if (typeOf(x).getDimSize(2) == 1)
    if (Value src = unitReshape(x, 2))
      return GroupedView{src, {}};
  auto tr = x.getDefiningOp<TransposeOp>();
  if (!tr)
    return std::nullopt;
  ArrayRef<int64_t> perm = tr.getPerm();
  Value in = stripAxisBroadcast(tr.getX(), perm[2]);
  if (typeOf(in).getDimSize(perm[2]) != 1)
    return std::nullopt;
  Value src = unitReshape(in, perm[2]);
  if (!src)
    return std::nullopt;
  GroupedView view{src, {}};
  for (int64_t i = 0; i < 5; ++i)
    if (i != 2)
      view.perm.push_back(perm[i] > perm[2] ? perm[i] - 1 : perm[i]);
  return view;
}

/// Peels a splat scale (mul by c, or div by c) off `v`, accumulating it;
/// the values passed go into `seen` when given.
Value peelScale(Value v, double &scale, llvm::DenseSet<Value> *seen = nullptr) {
  // The outer factor of a softcap c * tanh(s / c) is not a scale.
  auto isFactorOf = [](Value x, Value product) {
    return x.getType() == product.getType() && !x.getDefiningOp<TanhOp>();
  };
  while (true) {
    if (seen)
      seen->insert(v);
    v = stripFloatConvert(v);
    if (seen)
      seen->insert(v);
    if (auto mul = v.getDefiningOp<MulOp>()) {
      if (auto c = splatOf(mul.getRhs()); c && isFactorOf(mul.getLhs(), mul)) {
        scale *= *c;
        v = mul.getLhs();
        continue;
      }
      if (auto c = splatOf(mul.getLhs()); c && isFactorOf(mul.getRhs(), mul)) {
        scale *= *c;
        v = mul.getRhs();
        continue;
      }
    }
    if (auto div = v.getDefiningOp<DivOp>()) {
      if (auto c = splatOf(div.getRhs());
          c && *c != 0.0 && div.getLhs().getType() == div.getType()) {
        scale /= *c;
        v = div.getLhs();
        continue;
      }
    }
    return v;
  }
}

void maskTerms(Value m, SmallVectorImpl<Value> &terms);
std::optional<std::pair<Value, bool>> selectMask(Value term);

/// Whether every term of an additive mask is select(c, 0, -inf) (or its
/// inverse): a mask that only hides keys.
bool isHidingMask(Value m) {
  SmallVector<Value> terms;
  maskTerms(m, terms);
  return llvm::all_of(terms, [](Value t) { return selectMask(t).has_value(); });
}

/// The op of an additive mask term that puts +inf or NaN on the scores (a
/// constant holding one, or a select filling with one), if any.
Operation *unboundedMaskTerm(Value m) {
  SmallVector<Value> terms;
  maskTerms(m, terms);
  auto bad = [](const APFloat &f) {
    return f.isNaN() || (f.isInfinity() && !f.isNegative());
  };
  for (Value t : terms) {
    Value inner = stripRowView(t);
    if (auto c = inner.getDefiningOp<ConstantOp>()) {
      auto dense = dyn_cast<DenseFPElementsAttr>(c.getValue());
      if (dense && llvm::any_of(dense.getValues<APFloat>(), bad))
        return c;
    }
    if (auto sel = inner.getDefiningOp<SelectOp>())
      for (Value side : {sel.getOnTrue(), sel.getOnFalse()})
        if (auto f = splatOf(side);
            f && (std::isnan(*f) || (std::isinf(*f) && *f > 0)))
          return sel;
  }
  return nullptr;
}

/// Whether a hiding mask met inside the scale stage commutes with the scale
/// peeled so far (everything outside it): no softcap outside, and a product
/// of positive finite factors.
bool scaleCommutes(const Scores &out) {
  return !out.softcap && out.scale > 0 && std::isfinite(out.scale);
}

/// Peels the score transform in the contract's order, outside in, from the
/// softmax input `s` (the exp's argument). Row shifts (a max, or any
/// value constant along the key axis proven to be one) are taken off on the
/// way: the softmax does not see them. `pending` are shifts the normaliser
/// itself subtracted.
FailureOr<Scores> peelScores(Value s, std::string &why,
                             ArrayRef<Shift> pending = {}) {
  enum Stage { MaskStage, SoftcapStage, ScaleStage } stage = MaskStage;
  Scores out;
  out.shifts.append(pending.begin(), pending.end());
  // A shift subtracted at `at` is taken off everything outside it: only a
  // positive constant scale and added masks commute with it.
  auto takeShift = [&](Value c, Operation *at) -> LogicalResult {
    if (out.softcap) {
      why = describeOp(out.softcapOp) + " applies a softcap after " +
            describeOp(at) +
            " subtracts the row max: tanh does not commute with the shift";
      return failure();
    }
    if (!(out.scale > 0 && std::isfinite(out.scale))) {
      why = llvm::formatv("{0} scales the scores by {1} after {2} subtracts "
                          "the row max: only a positive constant keeps the "
                          "exponent at or below 0 there (exp could overflow "
                          "where the fused softmax does not)",
                          describeOp(out.scaleOp),
                          llvm::format("%g", out.scale), describeOp(at));
      return failure();
    }
    out.shifts.push_back({c, at});
    return success();
  };
  // Each step moves to an operand, so the walk ends at the graph's inputs.
  while (true) {
    out.chain.insert(s);
    s = stripFloatConvert(s);
    out.chain.insert(s);
    Operation *def = s.getDefiningOp();
    if (!def) {
      why = "the scores do not come from a matmul";
      return failure();
    }
    if (auto mm = dyn_cast<MatmulOp>(def)) {
      out.qk = mm;
      break;
    }
    if (auto sub = dyn_cast<SubOp>(def)) {
      Value c = sub.getRhs();
      if (sub.getLhs().getType() == sub.getType() &&
          isRowConstant(c, typeOf(s))) {
        if (failed(takeShift(c, sub)))
          return failure();
        s = sub.getLhs();
        continue;
      }
      if (auto max = stripRowView(c).getDefiningOp<ReduceMaxOp>()) {
        int64_t rank = typeOf(max.getX()).getRank();
        if (!max.getKeepdim())
          why = "the softmax max drops its axis: it does not broadcast per "
                "row";
        else if (!isLastAxis(max.getAxis(), rank))
          why = llvm::formatv("softmax max over axis {0}, expected the key "
                              "axis {1}",
                              static_cast<int64_t>(max.getAxis()), rank - 1);
        else
          why = describeOp(sub) + " subtracts a max that varies along the "
                                  "key axis";
        return failure();
      }
      why = describeOp(sub) + " subtracts a value that varies along the key "
                              "axis: not a per-row shift of the scores";
      return failure();
    }
    if (auto add = dyn_cast<AddOp>(def)) {
      bool l = reachesMatmul(add.getLhs()), r = reachesMatmul(add.getRhs());
      if (l == r) {
        why = "an add whose sides both (or neither) come from the scores";
        return failure();
      }
      Value m = l ? add.getRhs() : add.getLhs();
      // s + (-max): a shift written as an add.
      if (auto neg = stripRowView(m).getDefiningOp<NegOp>();
          neg && isRowConstant(m, typeOf(s))) {
        if (failed(takeShift(neg.getX(), add)))
          return failure();
        s = l ? add.getLhs() : add.getRhs();
        continue;
      }
      if (Operation *inf = unboundedMaskTerm(m)) {
        why = describeOp(inf) + " puts +inf or NaN in a mask on the scores: "
                                "a key it marks takes the whole weight of its "
                                "row (inf/inf), no softmax the fused op "
                                "computes";
        return failure();
      }
      // A mask of 0 and -inf commutes with a positive scale, exactly; any
      // other added tensor would be scaled with the scores.
      if (stage != MaskStage &&
          !(stage == ScaleStage && isHidingMask(m) && scaleCommutes(out))) {
        why = "a mask is added before the scale or softcap: the score order "
              "differs from (q.k)*scale -> softcap -> +mask";
        return failure();
      }
      out.masks.push_back(m);
      s = l ? add.getLhs() : add.getRhs();
      continue;
    }
    if (auto sel = dyn_cast<SelectOp>(def)) {
      // -inf * c is -inf for a positive finite c, so a -inf select before
      // the scale hides the same keys; before a softcap it would not
      // (c * tanh(-inf / c) is -c).
      if (stage != MaskStage && !(stage == ScaleStage && scaleCommutes(out))) {
        why = "a mask is selected before the scale or softcap: the score "
              "order differs from (q.k)*scale -> softcap -> +mask";
        return failure();
      }
      // A finite fill f inside a positive scale c reaches the softmax as f * c.
      auto record = [&](double fill) {
        if (std::isinf(fill))
          return;
        double reaching = fill * out.scale;
        auto [it, fresh] = out.finiteFills.try_emplace(sel.getCond(), reaching);
        if (!fresh)
          it->second = std::max(it->second, reaching);
      };
      if (auto f = negativeFill(sel.getOnFalse());
          f && reachesMatmul(sel.getOnTrue())) {
        record(*f);
        out.selectConds.push_back({sel.getCond(), false});
        s = sel.getOnTrue();
        continue;
      }
      if (auto f = negativeFill(sel.getOnTrue());
          f && reachesMatmul(sel.getOnFalse())) {
        record(*f);
        out.selectConds.push_back({sel.getCond(), true});
        s = sel.getOnFalse();
        continue;
      }
      auto fill = splatOf(sel.getOnFalse());
      if (!fill || !reachesMatmul(sel.getOnTrue()))
        fill = splatOf(sel.getOnTrue());
      if (fill && (std::isnan(*fill) || (std::isinf(*fill) && *fill > 0)))
        why = describeOp(sel) + " fills the scores with +inf or NaN: a key it "
                                "marks takes the whole weight of its row "
                                "(inf/inf), no softmax the fused op computes";
      else
        why = "a select on the scores whose fill is not negative";
      return failure();
    }
    if (auto mul = dyn_cast<MulOp>(def)) {
      // softcap: c * tanh(s / c)
      for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                          std::pair{mul.getRhs(), mul.getLhs()}}) {
        auto tanh = a.getDefiningOp<TanhOp>();
        auto c = splatOf(b);
        if (!tanh || !c)
          continue;
        // Exactly one factor inside the tanh: s / c or s * (1 / c).
        double inner = 1.0;
        Value x = tanh.getX();
        if (auto d = x.getDefiningOp<DivOp>(); d && splatOf(d.getRhs())) {
          inner = 1.0 / *splatOf(d.getRhs());
          x = d.getLhs();
        } else if (auto m = x.getDefiningOp<MulOp>();
                   m && splatOf(m.getRhs())) {
          inner = *splatOf(m.getRhs());
          x = m.getLhs();
        }
        if (std::fabs(inner * *c - 1.0) > 1e-6) {
          why =
              llvm::formatv("tanh softcap with outer factor {0} and inner "
                            "factor {1}: not c*tanh(s/c)",
                            llvm::format("%g", *c), llvm::format("%g", inner));
          return failure();
        }
        if (stage == ScaleStage) {
          why = "the softcap is applied before the scale: the score order "
                "differs from (q.k)*scale -> softcap";
          return failure();
        }
        if (out.softcap) {
          why = "two softcaps on one score";
          return failure();
        }
        out.softcap = *c;
        out.softcapOp = mul;
        stage = SoftcapStage;
        s = x;
        break;
      }
      if (s != mul.getResult())
        continue;
    }
    double factor = 1.0;
    Value inner = peelScale(s, factor, &out.chain);
    if (inner != s) {
      if (!out.scaleOp)
        out.scaleOp = def;
      out.scale *= factor;
      stage = ScaleStage;
      s = inner;
      continue;
    }
    if (isa<MulOp, DivOp>(def)) {
      why = describeOp(def) + " scales the scores by a factor that is not a "
                              "constant: no scale the fused op takes";
      return failure();
    }
    why = llvm::formatv("'{0}' between the first matmul and the softmax",
                        def->getName());
    return failure();
  }

  // Every shift must be finite wherever its row keeps a visible key: a max
  // over the score chain (at or inside where it is subtracted; every value
  // there is -inf on a row only where the softmax input is), or a finite
  // constant. Then exp(x - c) / sum(exp(x - c)) is the softmax of x.
  for (const Shift &sh : out.shifts) {
    auto frame = typeOf(sh.at->getResult(0));
    auto src = readShift(sh.value, frame, sh.at, why);
    if (failed(src))
      return failure();
    for (Value y : src->maxOver)
      if (!onChain(out, y)) {
        Operation *max = stripRowView(sh.value).getDefiningOp();
        why = describeOp(max ? max : sh.at) +
              " takes the max over a value that is not on the score chain "
              "the softmax normalises: the value " +
              describeOp(sh.at) +
              " subtracts is not proven finite on every row with a visible "
              "key";
        return failure();
      }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

struct AttentionFusion : public OpRewritePattern<MatmulOp> {
  AttentionFusion(MLIRContext *ctx, ExplainFn explain)
      : OpRewritePattern(ctx, /*benefit=*/1), explain(std::move(explain)) {}

  LogicalResult decline(PatternRewriter &rewriter, MatmulOp root,
                        const std::string &why) const {
    if (explain)
      explain(root, false, why);
    return rewriter.notifyMatchFailure(root, why);
  }

  LogicalResult matchAndRewrite(MatmulOp root,
                                PatternRewriter &rewriter) const override;

  /// Is the probabilities operand softmax-shaped at all? Only those matmuls
  /// are candidates worth explaining.
  static bool isCandidate(MatmulOp root) {
    return isProbabilities(root.getLhs()) ||
           (probabilitiesLayout(root.getLhs()) != nullptr);
  }

  /// Is `p` softmax-shaped at all?
  static bool isProbabilities(Value p) {
    p = stripFloatConvert(p);
    Operation *def = p.getDefiningOp();
    // exp(x - logsumexp(x)) normalises inside the exp.
    if (isa_and_nonnull<ExpOp>(def))
      return true;
    return def && isa<DivOp, MulOp, SelectOp>(def) &&
           llvm::any_of(def->getOperands(), [](Value v) {
             Operation *d = stripFloatConvert(v).getDefiningOp();
             return d &&
                    isa<ExpOp, ReduceSumOp, BroadcastOp, DivOp, SelectOp>(d);
           });
  }

  /// The layout op closest to P . V when `p` is softmax-shaped values
  /// behind transposes and reshapes: one poot-canonicalize could not prove
  /// a relabelling of the score axes and so left in place.
  static Operation *probabilitiesLayout(Value p) {
    Operation *first = nullptr;
    for (int depth = 0; depth < 8; ++depth) {
      p = stripFloatConvert(p);
      Operation *def = p.getDefiningOp();
      if (!def || !isa<TransposeOp, ReshapeOp>(def))
        return nullptr;
      if (!first)
        first = def;
      if (isProbabilities(def->getOperand(0)))
        return first;
      p = def->getOperand(0);
    }
    return nullptr;
  }

  ExplainFn explain;
};

/// The live bound a select condition expresses: `t < len[b]` over keys t
/// along `keyAxis`, with len a [B] vector. Returns len.
Value matchLiveCond(Value cond, int64_t keyAxis) {
  auto cmp = stripAligned(cond).getDefiningOp<CompareOp>();
  if (!cmp)
    return nullptr;
  Value t, len;
  int64_t rank = typeOf(cmp.getResult()).getRank();
  int64_t axis = keyAxis - (typeOf(cond).getRank() - rank);
  if (axis < 0)
    return nullptr;
  if (cmp.getPredicate() == ComparePredicate::lt) {
    t = cmp.getLhs();
    len = cmp.getRhs();
  } else if (cmp.getPredicate() == ComparePredicate::gt) {
    t = cmp.getRhs();
    len = cmp.getLhs();
  } else {
    return nullptr;
  }
  if (!isIndexAlong(t, axis))
    return nullptr;
  Value row = valueAlong(len, 0);
  if (!row || typeOf(row).getRank() < 1)
    return nullptr;
  return row;
}

/// Proves 1 <= len <= lk, holding a clamp to the seed's contract: a range
/// that comes from an index_guard's clamp counts only when the guard's
/// witness is a declared validation output.
bool proveLiveBound(Value len, int64_t lk, func::FuncOp fn, std::string &why) {
  RangeOracle oracle(fn);
  auto inside = [&](Value v) {
    auto r = oracle.rangeOf(v);
    return r && r->smin().getSExtValue() >= 1 && r->smax().getSExtValue() <= lk;
  };
  Value source = len;
  while (auto r = source.getDefiningOp<ReshapeOp>())
    source = r.getX();
  if (auto guard = source.getDefiningOp<IndexGuardOp>()) {
    bool witnessed = false;
    for (OpOperand &use : guard.getWitness().getUses()) {
      auto ret = dyn_cast<func::ReturnOp>(use.getOwner());
      if (ret && fn.getResultAttr(use.getOperandNumber(), attrs::kValidation))
        witnessed = true;
    }
    if (witnessed && inside(source))
      return true;
    if (inside(guard.getIdx()))
      return true;
    why =
        witnessed
            ? llvm::formatv("live length not proven inside [1, {0}]", lk).str()
            : "live length bounded only by an index_guard whose "
              "witness is not a validation output";
    return false;
  }
  if (inside(len))
    return true;
  why = llvm::formatv("live length not proven inside [1, {0}]", lk).str();
  return false;
}

/// A key or value with its live select and repeat stripped.
struct Operand {
  Value base; ///< [B, Hkv, L, D] (or the expanded value, nRep = 1)
  int64_t nRep = 1;
  Value liveLen; ///< len of select(t < len, x, 0), if any
};

FailureOr<Operand> matchKV(Value expanded, int64_t hq, std::string &why) {
  Operand out;
  auto rep = matchRepeat(expanded, hq, why);
  if (failed(rep))
    return failure();
  out.base = rep->base;
  out.nRep = rep->nRep;
  // select(t < len, x, 0) zeroes inactive rows (a true select, so a NaN
  // there cannot reach the output).
  if (auto sel = out.base.getDefiningOp<SelectOp>()) {
    if (isSplat(sel.getOnFalse(), 0.0) &&
        sel.getOnTrue().getType() == sel.getType()) {
      if (Value len = matchLiveCond(sel.getCond(), 2)) {
        out.liveLen = len;
        out.base = sel.getOnTrue();
      }
    }
  }
  return out;
}

/// Builds the additive mask `select(c, 0, -inf)` (or `select(c, -inf, 0)`
/// when `inverted`) for a select condition that is not a live bound.
Value maskFromCond(PatternRewriter &rewriter, Location loc, Value cond,
                   bool inverted, RankedTensorType scores) {
  Type et = scores.getElementType();
  auto condType = typeOf(cond);
  auto ft = RankedTensorType::get(condType.getShape(), et);
  auto fl = cast<FloatType>(et);
  Value zero = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(ft, rewriter.getFloatAttr(fl, 0.0)));
  Value ninf = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(
               ft, rewriter.getFloatAttr(
                       fl, APFloat::getInf(fl.getFloatSemantics(), true))));
  if (inverted)
    std::swap(zero, ninf);
  return rewriter.create<SelectOp>(loc, cond, zero, ninf);
}

/// Brings an additive mask to [B|1, Hq|1, Lq, Lk]; null when it does not
/// broadcast to the scores.
Value normaliseMask(PatternRewriter &rewriter, Location loc, Value mask,
                    RankedTensorType scores) {
  auto mt = typeOf(mask);
  if (mt.getRank() > 4)
    return nullptr;
  SmallVector<int64_t> padded(4 - mt.getRank(), 1);
  llvm::append_range(padded, mt.getShape());
  SmallVector<int64_t> target(4);
  for (int i = 0; i < 4; ++i) {
    int64_t s = scores.getDimSize(i), m = padded[i];
    if (m != s && m != 1)
      return nullptr;
    // Batch and head dims may stay 1; the row and key dims are spelled out.
    target[i] = (i < 2) ? m : s;
  }
  if (ArrayRef<int64_t>(padded) != mt.getShape())
    mask = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(padded, mt.getElementType()), mask);
  if (ArrayRef<int64_t>(target) != ArrayRef<int64_t>(padded))
    mask = rewriter.create<BroadcastOp>(loc, mask, target);
  if (typeOf(mask).getElementType() != scores.getElementType())
    mask = rewriter.create<ConvertOp>(
        loc, RankedTensorType::get(target, scores.getElementType()), mask);
  return mask;
}

//===----------------------------------------------------------------------===//
// Mask meaning: causal, sliding window, ALiBi
//===----------------------------------------------------------------------===//

/// An integer expression over the score grid, kept when it is affine in the
/// key index t, the query row i and one scalar position p:
/// `kt * t + ki * i + kp * p + c`.
struct Affine {
  int64_t kt = 0, ki = 0, kp = 0, c = 0;
  Value pos;
};

/// A position: a value constant over the score grid except along the batch
/// axis, seen back to its source (a scalar, or one value per row [B]).
Value scalarSource(Value v) {
  auto t = typeOf(v);
  int64_t off = 4 - t.getRank();
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (i + off != 0 && t.getDimSize(i) != 1)
      return nullptr;
  if (t.getRank() == 4 && t.getDimSize(0) != 1)
    return valueAlong(v, 0);
  auto allOnes = [](Value x) {
    return llvm::all_of(typeOf(x).getShape(), [](int64_t d) { return d == 1; });
  };
  while (true) {
    Operation *def = v.getDefiningOp();
    if (def && isa<ReshapeOp, BroadcastOp>(def) &&
        allOnes(def->getOperand(0))) {
      v = def->getOperand(0);
      continue;
    }
    return allOnes(v) ? v : nullptr;
  }
}

/// `v` as an affine form in the rank-4 score frame (axis 3 keys, axis 2
/// query rows); v's own dims align to the right of the frame.
std::optional<Affine> affineOf(Value v, int depth = 0) {
  if (depth > 16)
    return std::nullopt;
  auto t = typeOf(v);
  if (!t.getElementType().isSignlessInteger() ||
      t.getElementType().isInteger(1))
    return std::nullopt;
  int64_t off = 4 - t.getRank();
  if (off < 0)
    return std::nullopt;
  if (auto splat = splatOf(v)) {
    Affine a;
    a.c = static_cast<int64_t>(*splat);
    return a;
  }
  if (auto iota = v.getDefiningOp<IotaOp>()) {
    Affine a;
    int64_t axis = iota.getDim() + off;
    if (axis == 3)
      a.kt = 1;
    else if (axis == 2)
      a.ki = 1;
    else if (t.getDimSize(iota.getDim()) != 1)
      return std::nullopt;
    return a;
  }
  if (auto b = v.getDefiningOp<BroadcastOp>())
    return affineOf(b.getX(), depth + 1);
  if (auto r = v.getDefiningOp<ReshapeOp>();
      r && isLeadingUnitReshape(typeOf(r.getX()), r.getType()))
    return affineOf(r.getX(), depth + 1);
  if (auto c = v.getDefiningOp<ConvertOp>()) {
    if (!typeOf(c.getX()).getElementType().isSignlessInteger())
      return std::nullopt;
    return affineOf(c.getX(), depth + 1);
  }
  if (isa_and_nonnull<AddOp, SubOp>(v.getDefiningOp())) {
    Operation *op = v.getDefiningOp();
    auto l = affineOf(op->getOperand(0), depth + 1);
    auto r = affineOf(op->getOperand(1), depth + 1);
    if (!l || !r || (l->pos && r->pos && l->pos != r->pos))
      return std::nullopt;
    int64_t sign = isa<SubOp>(op) ? -1 : 1;
    Affine a;
    a.kt = l->kt + sign * r->kt;
    a.ki = l->ki + sign * r->ki;
    a.kp = l->kp + sign * r->kp;
    a.c = l->c + sign * r->c;
    a.pos = l->pos ? l->pos : r->pos;
    return a;
  }
  if (auto n = v.getDefiningOp<NegOp>()) {
    auto x = affineOf(n.getX(), depth + 1);
    if (!x)
      return std::nullopt;
    x->kt = -x->kt;
    x->ki = -x->ki;
    x->kp = -x->kp;
    x->c = -x->c;
    return x;
  }
  // Any other scalar is the position the queries start at.
  if (Value scalar = scalarSource(v)) {
    Affine a;
    a.kp = 1;
    a.pos = scalar;
    return a;
  }
  return std::nullopt;
}

/// Visibility bounds on u = t - qpos that a mask condition states.
struct Visibility {
  std::optional<int64_t> upper; ///< u <= upper
  std::optional<int64_t> lower; ///< u >= lower
  Value pos;
  bool posUsed = false;
  bool posKnown = false; ///< whether the terms agreed on using pos or not
};

/// Checks that `a` is u + c with u = t - (pos + i), folding the sign so the
/// key coefficient is +1; records the position used.
bool asRelative(Affine &a, bool &flip, Visibility &vis, int64_t lq) {
  flip = false;
  if (a.kt == -1) {
    a.kt = 1;
    a.ki = -a.ki;
    a.kp = -a.kp;
    a.c = -a.c;
    flip = true;
  }
  if (a.kt != 1 || (lq > 1 && a.ki != -1) || (a.kp != 0 && a.kp != -1))
    return false;
  bool usesPos = a.kp == -1;
  if (vis.posKnown && (usesPos != vis.posUsed || (usesPos && a.pos != vis.pos)))
    return false;
  vis.posKnown = true;
  vis.posUsed = usesPos;
  if (usesPos)
    vis.pos = a.pos;
  return true;
}

/// Reads the bounds a constant mask states: a boolean condition (true is
/// visible iff `visibleWhenTrue`) or an additive float mask of 0 (visible)
/// and -inf (hidden), over the [Lq, Lk] grid with every other dim of size 1.
/// When `finite` is given, one finite negative value may stand for -inf; it
/// is returned there for the caller to judge.
/// The visible cells must be exactly the band lo <= t - i <= hi (a tril is
/// hi = 0, a sliding window adds lo); a bound that no cell of the grid
/// crosses states nothing and is not recorded.
bool constantVisibility(ConstantOp c, bool visibleWhenTrue, Visibility &vis,
                        int64_t lq, std::optional<double> *finite = nullptr) {
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  auto t = typeOf(c.getResult());
  if (!dense || t.getRank() > 4 || t.getNumElements() > (1 << 20))
    return false;
  int64_t rank = t.getRank();
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (t.getDimSize(i) != 1)
      return false;
  int64_t cols = rank >= 1 ? t.getDimSize(rank - 1) : 1;
  int64_t rows = rank >= 2 ? t.getDimSize(rank - 2) : 1;
  if (rows != 1 && rows != lq)
    return false;
  SmallVector<bool> visible;
  Type et = t.getElementType();
  if (et.isInteger(1)) {
    for (bool b : dense.getValues<bool>())
      visible.push_back(b == visibleWhenTrue);
  } else if (isa<FloatType>(et)) {
    for (const APFloat &f : dense.getValues<APFloat>()) {
      if (f.isZero()) {
        visible.push_back(true);
      } else if (f.isInfinity() && f.isNegative()) {
        visible.push_back(false);
      } else if (finite && f.isNegative() && !f.isNaN()) {
        double x = f.convertToDouble();
        if (*finite && **finite != x)
          return false;
        *finite = x;
        visible.push_back(false);
      } else {
        return false;
      }
    }
  } else {
    return false;
  }
  if (vis.posKnown && vis.posUsed)
    return false;
  bool all = llvm::all_of(visible, [](bool b) { return b; });
  if (all)
    return true;
  // A pattern that does not vary by row only reads as a band for one row.
  if ((rows == 1 && lq != 1) || cols == 1)
    return false;
  std::optional<int64_t> lo, hi;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < cols; ++k)
      if (visible[i * cols + k]) {
        lo = lo ? std::min(*lo, k - i) : k - i;
        hi = hi ? std::max(*hi, k - i) : k - i;
      }
  if (!lo)
    return false;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = 0; k < cols; ++k)
      if (visible[i * cols + k] != (*lo <= k - i && k - i <= *hi))
        return false;
  vis.posKnown = true;
  vis.posUsed = false;
  auto tighten = [](std::optional<int64_t> &slot, int64_t v, bool isUpper) {
    slot = slot ? (isUpper ? std::min(*slot, v) : std::max(*slot, v)) : v;
  };
  if (cols - 1 > *hi)
    tighten(vis.upper, *hi, true);
  if (-(rows - 1) < *lo)
    tighten(vis.lower, *lo, false);
  return true;
}

/// Reads the bounds a condition puts on visible keys; `visibleWhenTrue`
/// says whether true means visible or masked.
bool collectVisibility(Value cond, bool visibleWhenTrue, Visibility &vis,
                       int64_t lq) {
  cond = stripAligned(cond);
  if (auto n = cond.getDefiningOp<NotOp>())
    return collectVisibility(n.getX(), !visibleWhenTrue, vis, lq);
  if (auto a = cond.getDefiningOp<AndOp>(); a && visibleWhenTrue)
    return collectVisibility(a.getLhs(), true, vis, lq) &&
           collectVisibility(a.getRhs(), true, vis, lq);
  if (auto o = cond.getDefiningOp<OrOp>(); o && !visibleWhenTrue)
    return collectVisibility(o.getLhs(), false, vis, lq) &&
           collectVisibility(o.getRhs(), false, vis, lq);
  if (auto c = cond.getDefiningOp<ConstantOp>())
    return constantVisibility(c, visibleWhenTrue, vis, lq);
  auto cmp = cond.getDefiningOp<CompareOp>();
  if (!cmp || typeOf(cmp.getLhs()).getRank() > 4)
    return false;
  auto l = affineOf(cmp.getLhs()), r = affineOf(cmp.getRhs());
  if (!l || !r || (l->pos && r->pos && l->pos != r->pos))
    return false;
  Affine e{l->kt - r->kt, l->ki - r->ki, l->kp - r->kp, l->c - r->c,
           l->pos ? l->pos : r->pos};
  ComparePredicate pred = cmp.getPredicate();
  if (pred == ComparePredicate::eq || pred == ComparePredicate::ne)
    return false;
  bool flip;
  if (!asRelative(e, flip, vis, lq))
    return false;
  // e p 0 with e = u + c; flipping the sign of e reverses the predicate,
  // and a masked polarity negates it.
  auto negate = [](ComparePredicate p) {
    switch (p) {
    case ComparePredicate::lt:
      return ComparePredicate::ge;
    case ComparePredicate::le:
      return ComparePredicate::gt;
    case ComparePredicate::gt:
      return ComparePredicate::le;
    case ComparePredicate::ge:
      return ComparePredicate::lt;
    default:
      return p;
    }
  };
  if (flip)
    pred = match::swapped(pred);
  if (!visibleWhenTrue)
    pred = negate(pred);
  auto tighten = [](std::optional<int64_t> &slot, int64_t v, bool isUpper) {
    slot = slot ? (isUpper ? std::min(*slot, v) : std::max(*slot, v)) : v;
  };
  switch (pred) {
  case ComparePredicate::le:
    tighten(vis.upper, -e.c, true);
    break;
  case ComparePredicate::lt:
    tighten(vis.upper, -e.c - 1, true);
    break;
  case ComparePredicate::ge:
    tighten(vis.lower, -e.c, false);
    break;
  case ComparePredicate::gt:
    tighten(vis.lower, -e.c + 1, false);
    break;
  default:
    return false;
  }
  return true;
}

/// The proven meaning of an additive mask, term by term; terms it cannot
/// explain stay a tensor.
struct MaskMeaning {
  bool causal = false;
  std::optional<int64_t> window;
  SmallVector<double> alibi;
  Value pos;
  int64_t posShift = 0;    ///< the causal bound sits at pos + posShift
  SmallVector<Value> rest; ///< unexplained additive terms
  SmallVector<std::pair<Value, bool>> restConds; ///< unexplained conditions
  SmallVector<std::string> notes;
  /// The weakest finite fill read as hiding keys, if any; the caller keeps
  /// it only when every row is proven to keep a visible key.
  std::optional<double> finiteFill;
  /// The visible band t - qpos in [lower, upper], qpos = i (+ pos).
  std::optional<int64_t> upper, lower;
  bool posUsed = false;
};

/// Splits an additive mask into its terms (through broadcasts).
void maskTerms(Value m, SmallVectorImpl<Value> &terms) {
  Value inner = stripAligned(m);
  if (auto add = inner.getDefiningOp<AddOp>();
      add && !reachesMatmul(add.getLhs()) && !reachesMatmul(add.getRhs())) {
    maskTerms(add.getLhs(), terms);
    maskTerms(add.getRhs(), terms);
    return;
  }
  terms.push_back(m);
}

/// select(c, 0, -inf) / select(c, -inf, 0): the condition and its polarity.
std::optional<std::pair<Value, bool>> selectMask(Value term) {
  auto sel = stripAligned(term).getDefiningOp<SelectOp>();
  if (!sel)
    return std::nullopt;
  if (isSplat(sel.getOnTrue(), 0.0) && isNegInf(sel.getOnFalse()))
    return std::pair{sel.getCond(), true};
  if (isNegInf(sel.getOnTrue()) && isSplat(sel.getOnFalse(), 0.0))
    return std::pair{sel.getCond(), false};
  return std::nullopt;
}

/// A mask term that hides keys where a condition says so: select(c, 0, f),
/// select(c, f, 0), convert(c) * f or (1 - convert(c)) * f, with f negative
/// (-inf only in the select forms: 0 * -inf is NaN). Returns the condition,
/// whether true means visible, and f.
std::optional<std::tuple<Value, bool, double>> fillMask(Value term) {
  Value inner = stripAligned(term);
  if (auto sel = inner.getDefiningOp<SelectOp>()) {
    if (isSplat(sel.getOnTrue(), 0.0))
      if (auto f = negativeFill(sel.getOnFalse()))
        return std::tuple{sel.getCond(), true, *f};
    if (isSplat(sel.getOnFalse(), 0.0))
      if (auto f = negativeFill(sel.getOnTrue()))
        return std::tuple{sel.getCond(), false, *f};
    return std::nullopt;
  }
  auto mul = inner.getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                      std::pair{mul.getRhs(), mul.getLhs()}}) {
    auto f = negativeFill(b);
    if (!f || std::isinf(*f))
      continue;
    // A {0, 1} float read from a boolean condition.
    auto boolOf = [](Value x) -> Value {
      auto cv = stripAligned(x).getDefiningOp<ConvertOp>();
      if (cv && typeOf(cv.getX()).getElementType().isInteger(1))
        return cv.getX();
      return nullptr;
    };
    if (Value c = boolOf(a))
      return std::tuple{c, false, *f};
    if (auto sub = stripAligned(a).getDefiningOp<SubOp>();
        sub && isSplat(sub.getLhs(), 1.0))
      if (Value c = boolOf(sub.getRhs()))
        return std::tuple{c, true, *f};
  }
  return std::nullopt;
}

/// slope[h] * float(t - qpos): the ALiBi bias.
std::optional<SmallVector<double>> alibiSlopes(Value term, int64_t hq,
                                               int64_t lq, Visibility &vis) {
  auto mul = stripAligned(term).getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                      std::pair{mul.getRhs(), mul.getLhs()}}) {
    auto cv = stripAligned(a).getDefiningOp<ConvertOp>();
    auto cst = stripAligned(b).getDefiningOp<ConstantOp>();
    if (!cv || !cst)
      continue;
    auto lin = affineOf(cv.getX());
    bool flip;
    Visibility probe = vis;
    if (!lin || lin->c != 0 || !asRelative(*lin, flip, probe, lq) || flip)
      continue;
    auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue());
    auto ct = typeOf(cst.getResult());
    if (!dense || ct.getRank() > 4)
      continue;
    // The slopes vary along the head axis (frame axis 1) only.
    int64_t off = 4 - ct.getRank();
    bool headOnly = true;
    for (int64_t i = 0; i < ct.getRank(); ++i)
      if (i + off != 1 && ct.getDimSize(i) != 1)
        headOnly = false;
    int64_t n = ct.getNumElements();
    if (!headOnly || (n != 1 && n != hq))
      continue;
    SmallVector<double> slopes;
    for (const APFloat &f : dense.getValues<APFloat>())
      slopes.push_back(f.convertToDouble());
    if (n == 1)
      slopes.assign(hq, slopes.front());
    vis = probe;
    return slopes;
  }
  return std::nullopt;
}

/// Reads the masks for their meaning. A finite negative fill is read as
/// hiding keys only when `finiteHides`; the conditions of `finiteFills` are
/// selects on the scores with such a fill.
MaskMeaning explainMasks(ArrayRef<Value> masks,
                         ArrayRef<std::pair<Value, bool>> conds, int64_t hq,
                         int64_t lq, bool finiteHides,
                         const llvm::DenseMap<Value, double> &finiteFills) {
  MaskMeaning out;
  Visibility vis;
  auto noteFill = [&](double f) {
    if (std::isinf(f))
      return;
    out.finiteFill = out.finiteFill ? std::max(*out.finiteFill, f) : f;
  };
  SmallVector<std::pair<Value, bool>> allConds(conds);
  SmallVector<Value> terms;
  for (Value m : masks)
    maskTerms(m, terms);
  SmallVector<Value> condTerms; // the select masks behind the conditions
  for (Value term : terms) {
    if (auto c = stripAligned(term).getDefiningOp<ConstantOp>();
        c && isa<FloatType>(typeOf(c.getResult()).getElementType())) {
      Visibility trial = vis;
      std::optional<double> finite;
      if (constantVisibility(c, true, trial, lq,
                             finiteHides ? &finite : nullptr)) {
        vis = trial;
        if (finite)
          noteFill(*finite);
        continue;
      }
    }
    if (auto fm = fillMask(term)) {
      auto [cond, visibleWhenTrue, fill] = *fm;
      Visibility trial = vis;
      if ((std::isinf(fill) || finiteHides) &&
          collectVisibility(cond, visibleWhenTrue, trial, lq)) {
        vis = trial;
        noteFill(fill);
        continue;
      }
    }
    if (out.alibi.empty())
      if (auto slopes = alibiSlopes(term, hq, lq, vis)) {
        out.alibi = *slopes;
        continue;
      }
    out.rest.push_back(term);
  }
  for (auto [c, inverted] : allConds) {
    auto finite = finiteFills.find(c);
    bool isFinite = finite != finiteFills.end();
    Visibility trial = vis;
    if ((!isFinite || finiteHides) &&
        collectVisibility(c, !inverted, trial, lq)) {
      vis = trial;
      if (isFinite)
        noteFill(finite->second);
    } else {
      out.restConds.push_back({c, inverted});
    }
  }
  auto keepAll = [&](const char *why) {
    MaskMeaning all;
    all.rest.assign(masks.begin(), masks.end());
    all.restConds.assign(conds.begin(), conds.end());
    all.notes.push_back(why);
    return all;
  };
  // The op records a causal bound at the query's own position: a bound at
  // qpos + c is causal at the position pos + c (c when the graph has no
  // pos). ALiBi reads the same position, so with ALiBi the offset cannot
  // move into pos and the mask stays a tensor.
  if (vis.upper && *vis.upper != 0) {
    if (!out.alibi.empty())
      return keepAll("mask kept as a tensor: causal offset is not the query "
                     "position");
    out.posShift = *vis.upper;
  }
  out.causal = vis.upper.has_value();
  if (vis.lower)
    out.window = 1 - (*vis.lower - out.posShift);
  if (out.window && *out.window < 1)
    return keepAll("mask kept as a tensor: empty sliding window");
  if (vis.posUsed)
    out.pos = vis.pos;
  out.upper = vis.upper;
  out.lower = vis.lower;
  out.posUsed = vis.posUsed;
  return out;
}

/// Whether every query row keeps a visible key in the band
/// t - qpos in [lower, upper] within [0, Lk), where query row i sits at
/// qpos = i, or i + pos over the declared range of `pos` when given.
bool rowsKeepAKey(std::optional<int64_t> upper, std::optional<int64_t> lower,
                  Value pos, int64_t lq, int64_t lk, func::FuncOp fn) {
  int64_t lo = 0, hi = lq - 1;
  if (pos) {
    RangeOracle oracle(fn);
    auto r = oracle.rangeOf(pos);
    if (!r)
      return false;
    lo += r->smin().getSExtValue();
    hi += r->smax().getSExtValue();
  }
  if (upper && lo + *upper < 0)
    return false;
  if (lower && hi + *lower > lk - 1)
    return false;
  if (upper && lower && *lower > *upper)
    return false;
  return true;
}

/// Why a finite fill read as hiding keys may differ from -inf, or "" when it
/// cannot: the fill is low enough that exp underflows to exactly 0 (for any
/// score at finfo.min-like fills), and every query row is proven to keep a
/// visible key, so the only place the two differ (a row with no visible key:
/// a finite fill averages it, -inf gives 0/0) never occurs.
std::string finiteFillRisk(const MaskMeaning &m, int64_t lq, int64_t lk,
                           func::FuncOp fn) {
  double fill = *m.finiteFill;
  std::string f = llvm::formatv("{0}", llvm::format("%g", fill)).str();
  if (fill > kHidingFill)
    return llvm::formatv("finite mask fill {0} is too small to hide keys: "
                         "exp(score + fill) need not underflow",
                         f);
  if (!m.alibi.empty() && fill > kLowestFill)
    return llvm::formatv("finite mask fill {0} under an ALiBi bias that "
                         "may outgrow it",
                         f);
  std::string noKey = llvm::formatv(
      "finite mask fill {0} with rows that may have no visible key", f);
  if (!m.rest.empty() || !m.restConds.empty() ||
      !rowsKeepAKey(m.upper, m.lower, m.posUsed ? m.pos : Value(), lq, lk, fn))
    return noKey;
  return "";
}

/// p = select(p != p, 0, p) (or select(p == p, p, 0)): a guard that turns
/// the NaN rows of the probabilities (a row with no visible key) into zeros.
/// Returns the guarded p.
Value matchNanGuard(Value v) {
  auto sel = stripFloatConvert(v).getDefiningOp<SelectOp>();
  if (!sel)
    return nullptr;
  auto cmp = sel.getCond().getDefiningOp<CompareOp>();
  if (!cmp || cmp.getLhs() != cmp.getRhs())
    return nullptr;
  Value p = cmp.getLhs();
  if (p.getType() != sel.getType())
    return nullptr;
  if (cmp.getPredicate() == ComparePredicate::ne &&
      isSplat(sel.getOnTrue(), 0.0) && sel.getOnFalse() == p)
    return p;
  if (cmp.getPredicate() == ComparePredicate::eq &&
      isSplat(sel.getOnFalse(), 0.0) && sel.getOnTrue() == p)
    return p;
  return nullptr;
}

/// The wider of two float types: f16 and bf16 meet in f32.
Type widerFloat(Type a, Type b) {
  if (a == b)
    return a;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa != wb)
    return wa > wb ? a : b;
  return Float32Type::get(a.getContext());
}

/// Whether an additive mask or a condition of shape `mt` broadcasts to the
/// [B, Hq, Lq, Lk] scores.
bool fitsScores(RankedTensorType mt, RankedTensorType scores) {
  if (mt.getRank() > 4)
    return false;
  int64_t off = 4 - mt.getRank();
  for (int64_t i = 0; i < mt.getRank(); ++i) {
    int64_t m = mt.getDimSize(i), s = scores.getDimSize(i + off);
    if (m != s && m != 1)
      return false;
  }
  return true;
}

LogicalResult
AttentionFusion::matchAndRewrite(MatmulOp root,
                                 PatternRewriter &rewriter) const {
  if (!isCandidate(root))
    return rewriter.notifyMatchFailure(root, "not a probabilities . v matmul");
  if (Operation *layout = probabilitiesLayout(root.getLhs()))
    return decline(rewriter, root,
                   describeOp(layout) +
                       " between the softmax and P . V: poot-canonicalize "
                       "moves such an op to the first matmul only where it "
                       "relabels the score axes and nothing else reads the "
                       "chain");
  // Everything is matched and proven before the first op is created: a
  // decline leaves the IR as it found it.
  std::string why;
  Value probs = root.getLhs();
  // The guards on the probabilities: the NaN guard (re-applied on the
  // output), and empty-row guards (kept only where proven never to fire).
  bool guarded = false;
  SmallVector<RowGuard> rowGuards;
  while (true) {
    if (Value inner = matchNanGuard(probs)) {
      guarded = true;
      probs = inner;
      continue;
    }
    auto rowGuard = readRowGuard(probs, why);
    if (!rowGuard)
      break;
    if (failed(*rowGuard))
      return decline(rewriter, root, why);
    rowGuards.push_back(**rowGuard);
    probs = (*rowGuard)->guarded;
  }
  auto softmax = readSoftmax(probs, why);
  if (failed(softmax))
    return decline(rewriter, root, why);
  auto peeled = peelScores(softmax->input, why, softmax->shifts);
  if (failed(peeled))
    return decline(rewriter, root, why);
  if (softmax->sumMask &&
      !hidesWithNegInf(*peeled, softmax->sumMask, softmax->sumKeepsTrue))
    return decline(rewriter, root,
                   describeOp(softmax->sumOp) +
                       " sums the exp only where a condition holds that "
                       "does not hide the same keys from the scores with "
                       "-inf: not the sum of the numerator");
  for (const RowGuard &g : rowGuards) {
    if (g.kind == RowGuard::EmptyScores && !onChain(*peeled, g.scores))
      return decline(rewriter, root,
                     describeOp(g.op) +
                         " zeroes rows by the max of a value that is not on "
                         "the score chain the softmax normalises");
    if (g.kind == RowGuard::SameMask &&
        !hidesWithNegInf(*peeled, g.cond, g.visibleWhenTrue))
      return decline(rewriter, root,
                     describeOp(g.op) +
                         " masks the probabilities after the softmax by a "
                         "condition the scores are not masked with: the "
                         "weights it keeps are not renormalised");
  }
  auto qk = peeled->qk.getDefiningOp<MatmulOp>();

  // q [B, Hq, Lq, Dk] . kT [B, H, Dk, Lk], each possibly scaled.
  double scale = peeled->scale;
  Value q = peelScale(qk.getLhs(), scale);
  Value kT = peelScale(qk.getRhs(), scale);
  auto qt = typeOf(q), ktt = typeOf(kT);
  // Unbatched [H, L, D] attention is the batched one at B = 1: the fused op
  // sees its operands reshaped to [1, H, L, D], and its scores [H, Lq, Lk]
  // are the last three dims of the [1, H, Lq, Lk] frame the masks are read
  // in (they align to the right).
  bool unbatched = qt.getRank() == 3 && ktt.getRank() == 3 &&
                   typeOf(root.getRhs()).getRank() == 3;
  // JAX's grouped einsum: q [B, Hkv, n, Lq, D] against keys and values
  // [B, Hkv, 1, L, D] spread over the group axis n by the matmuls or a
  // broadcast. Flattening (Hkv, n) gives query head h = kv * n + r, which
  // reads key head h / n: the rank-4 attention with n_rep = n, q reshaped
  // in and the result reshaped back.
  bool grouped = qt.getRank() == 5 && ktt.getRank() == 5 &&
                 typeOf(root.getRhs()).getRank() == 5;
  if (!unbatched && !grouped && (qt.getRank() != 4 || ktt.getRank() != 4))
    return decline(rewriter, root,
                   llvm::formatv("expected rank-4 [B, H, L, D], rank-3 "
                                 "[H, L, D] or grouped rank-5 [B, Hkv, n, L, "
                                 "D] operands, got ranks {0}, {1} and {2}",
                                 qt.getRank(), ktt.getRank(),
                                 typeOf(root.getRhs()).getRank()));
  std::optional<GroupedView> kView, vView;
  int64_t groups = 1;
  Value kTSrc = kT;
  SmallVector<int64_t> kTPerm; // k^T is kTSrc transposed by it, when set
  if (grouped) {
    kView = matchGroupedView(kT);
    vView = matchGroupedView(root.getRhs());
    if (!kView || !vView)
      return decline(rewriter, root,
                     "grouped keys or values are not one head per group "
                     "spread over the group axis");
    groups = qt.getDimSize(2);
    kTSrc = kView->src;
    kTPerm = kView->perm;
  }
  if (kTPerm.empty())
    if (auto tr = kTSrc.getDefiningOp<TransposeOp>()) {
      kTSrc = tr.getX();
      kTPerm = llvm::to_vector(tr.getPerm());
    }
  // The grouped operands in the rank-4 frame.
  auto permuted = [](RankedTensorType t, ArrayRef<int64_t> perm) {
    if (perm.empty())
      return t;
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return RankedTensorType::get(shape, t.getElementType());
  };
  if (grouped)
    ktt = permuted(typeOf(kTSrc), kTPerm);
  int64_t lead = unbatched ? 1 : 0; // dims the fused op has that q lacks
  int64_t b = unbatched ? 1 : qt.getDimSize(0);
  int64_t hq = qt.getDimSize(1 - lead), lq = qt.getDimSize(2 - lead);
  if (grouped) {
    hq = qt.getDimSize(1) * groups;
    lq = qt.getDimSize(3);
  }
  Location loc = root.getLoc();

  // The fused op wants k as [.., Lk, D]. k^T is a transpose of it, or of a
  // tensor in another layout (one permute from [B, L, H, D]), or k laid out
  // [.., D, Lk] in memory; the last two get a transpose when fused.
  Value kExp, kLayoutSrc;
  SmallVector<int64_t> kLayoutPerm =
      unbatched ? SmallVector<int64_t>{0, 2, 1} : SmallVector<int64_t>{0, 1, 3, 2};
  if (!kTPerm.empty()) {
    SmallVector<int64_t> composed;
    for (int64_t p : kLayoutPerm)
      composed.push_back(kTPerm[p]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size()))) {
      kExp = peelScale(kTSrc, scale);
    } else {
      kLayoutSrc = kTSrc;
      kLayoutPerm = composed;
    }
  } else {
    kLayoutSrc = kTSrc;
  }
  SmallVector<int64_t> kShape{
      unbatched ? 1 : ktt.getDimSize(0), ktt.getDimSize(1 - lead),
      ktt.getDimSize(3 - lead), ktt.getDimSize(2 - lead)};
  Value vExp = grouped ? vView->src : root.getRhs();
  auto vt = grouped ? permuted(typeOf(vExp), vView->perm) : typeOf(vExp);
  if (vt.getRank() != 4 - lead)
    return decline(rewriter, root, "expected a rank-4 value");
  int64_t vBatch = unbatched ? 1 : vt.getDimSize(0);
  if (kShape[0] != b || vBatch != b)
    return decline(rewriter, root,
                   llvm::formatv("key/value batch {0}/{1} broadcast against "
                                 "query batch {2}",
                                 kShape[0], vBatch, b));

  // Key and value heads: a repeat_kv, or the matmul broadcasting one head.
  auto headsOf = [&](Value expanded, int64_t h) -> FailureOr<Operand> {
    if (h == 1 && hq > 1)
      return Operand{expanded, hq, nullptr};
    if (h != hq) {
      why = llvm::formatv("key heads {0} do not match query heads {1}", h, hq);
      return failure();
    }
    if (!expanded)
      return Operand{nullptr, 1, nullptr};
    // The live form is read on [B, H, L, D] only.
    if (unbatched) {
      Repeat r = matchRepeatUnbatched(expanded);
      return Operand{r.base, r.nRep, nullptr};
    }
    return matchKV(expanded, hq, why);
  };
  FailureOr<Operand> kOp = Operand{}, vOp = Operand{};
  if (grouped) {
    // One key head per group; the group axis is the repeat.
    int64_t hkv = qt.getDimSize(1);
    if (kShape[1] != hkv || vt.getDimSize(1) != hkv)
      return decline(rewriter, root,
                     llvm::formatv("grouped key/value heads {0}/{1} do not "
                                   "match the query's {2} groups",
                                   kShape[1], vt.getDimSize(1), hkv));
    kOp = Operand{kExp, groups, nullptr};
    vOp = Operand{vExp, groups, nullptr};
  } else {
    kOp = headsOf(kExp, kShape[1]);
    if (failed(kOp))
      return decline(rewriter, root, why);
    vOp = headsOf(vExp, vt.getDimSize(1 - lead));
    if (failed(vOp))
      return decline(rewriter, root, why);
  }
  if (kOp->nRep != vOp->nRep)
    return decline(rewriter, root,
                   llvm::formatv("k and v repeat their heads differently "
                                 "({0} vs {1})",
                                 kOp->nRep, vOp->nRep));
  int64_t nRep = kOp->nRep;
  Value k = kOp->base, v = vOp->base;
  int64_t lk = kShape[2];

  // The live form: the same len bounds the key rows, the value rows and the
  // scores, and is proven inside [1, Lk].
  Value len;
  SmallVector<std::pair<Value, bool>> selectConds(peeled->selectConds);
  auto fn = root->getParentOfType<func::FuncOp>();
  if (kOp->liveLen && kOp->liveLen == vOp->liveLen) {
    auto it = llvm::find_if(selectConds, [&](std::pair<Value, bool> c) {
      return !c.second && !peeled->finiteFills.count(c.first) &&
             matchLiveCond(c.first, 3) == kOp->liveLen;
    });
    if (it == selectConds.end())
      return decline(rewriter, root,
                     "key rows are zeroed past a length the "
                     "scores are not masked by");
    if (!proveLiveBound(kOp->liveLen, lk, fn, why))
      return decline(rewriter, root, why);
    len = kOp->liveLen;
    selectConds.erase(it);
  } else if (kOp->liveLen || vOp->liveLen) {
    return decline(rewriter, root,
                   "key and value rows are bounded by different lengths");
  }

  // Key forms: paged through a proven read map, or the split MLA key.
  std::string form = "dense";
  Value read, kShared;
  auto pagedOf = [](Value x) -> std::pair<GatherOp, bool> {
    auto tr = x ? x.getDefiningOp<TransposeOp>() : nullptr;
    if (!tr || tr.getPerm() != ArrayRef<int64_t>{0, 2, 1, 3})
      return {nullptr, false};
    auto g = tr.getX().getDefiningOp<GatherOp>();
    if (!g ||
        (static_cast<int64_t>(g.getAxis()) != 0 &&
         static_cast<int64_t>(g.getAxis()) != -3) ||
        typeOf(g.getX()).getRank() != 3 || typeOf(g.getIdx()).getRank() != 2)
      return {nullptr, false};
    return {g, true};
  };
  auto [kg, kPaged] = pagedOf(k);
  auto [vg, vPaged] = pagedOf(v);
  std::string note;
  if (!grouped && kPaged && vPaged && kg.getIdx() == vg.getIdx()) {
    int64_t slots = typeOf(kg.getX()).getDimSize(0);
    RangeOracle oracle(fn);
    auto r = oracle.rangeOf(kg.getIdx());
    if (r && r->smin().getSExtValue() >= 0 &&
        r->smax().getSExtValue() < slots) {
      read = kg.getIdx();
      k = kg.getX();
      v = vg.getX();
      form = "paged";
    } else {
      note = llvm::formatv("; read map not proven inside the pool of {0} "
                           "slots, kept the gathered view",
                           slots);
    }
  } else if (auto cat =
                 !grouped && k ? k.getDefiningOp<ConcatOp>() : nullptr) {
    int64_t axis = static_cast<int64_t>(cat.getAxis());
    axis = axis < 0 ? axis + 4 : axis;
    if (axis == 3 && cat.getInputs().size() == 2) {
      Value shared = stripBroadcast(cat.getInputs()[1]);
      auto st = typeOf(shared);
      if (st.getRank() == 4 && st.getDimSize(1) == 1 && st.getDimSize(0) == b) {
        kShared = shared;
        k = cat.getInputs()[0];
        form = "split";
      }
    }
  }

  // One element type for the fused op: the widest the chain holds, so no
  // operand and no result loses precision (a bf16 model whose attention
  // core runs in f32 keeps its f32 core).
  auto resultType = typeOf(root.getResult());
  Type et = widerFloat(resultType.getElementType(), qt.getElementType());
  et = widerFloat(et, typeOf(k ? k : kLayoutSrc).getElementType());
  et = widerFloat(et, typeOf(v).getElementType());
  if (kShared)
    et = widerFloat(et, typeOf(kShared).getElementType());

  // Masks: what the graph proves of them becomes attributes (causal,
  // window, ALiBi slopes at the query position); the rest stays a tensor.
  auto scoresType = RankedTensorType::get({b, hq, lq, lk}, et);
  // Grouped scores are [B, Hkv, n, Lq, Lk]; a mask over [Lq, Lk] alone
  // means the same in the rank-4 frame. Others (per head or per batch row)
  // would need their axes regrouped.
  auto maskView = [&](Value m) { return grouped ? stripAligned(m) : m; };
  if (grouped) {
    SmallVector<Value> all(peeled->masks);
    for (auto [c, inverted] : selectConds)
      all.push_back(c);
    for (Value m : all)
      if (typeOf(maskView(m)).getRank() > 2)
        return decline(rewriter, root,
                       llvm::formatv("grouped scores take masks over [Lq, Lk] "
                                     "only, got {0}",
                                     typeOf(m)));
  }
  MaskMeaning meaning = explainMasks(peeled->masks, selectConds, hq, lq,
                                     /*finiteHides=*/true, peeled->finiteFills);
  if (meaning.finiteFill) {
    // A finite fill stands for -inf only where that is exact; otherwise the
    // masks are read again with finite fills as values (an additive one
    // stays a tensor, which computes the same sum).
    std::string risk = finiteFillRisk(meaning, lq, lk, fn);
    if (!risk.empty()) {
      meaning = explainMasks(peeled->masks, selectConds, hq, lq,
                             /*finiteHides=*/false, peeled->finiteFills);
      meaning.notes.push_back("mask kept as a tensor: " + risk);
      for (auto [c, inverted] : meaning.restConds)
        if (peeled->finiteFills.count(c))
          return decline(rewriter, root, risk);
    }
  }
  // select(c, s, f) with a finite f is no additive mask: it fuses only as
  // the -inf it stands for.
  for (auto [c, inverted] : meaning.restConds)
    if (auto it = peeled->finiteFills.find(c); it != peeled->finiteFills.end())
      return decline(rewriter, root,
                     llvm::formatv("finite mask fill {0} with rows that may "
                                   "have no visible key",
                                   llvm::format("%g", it->second)));
  for (auto [c, inverted] : meaning.restConds)
    if (!fitsScores(typeOf(maskView(c)), scoresType))
      return decline(rewriter, root,
                     llvm::formatv("mask of shape {0} does not broadcast to "
                                   "the scores {1}",
                                   typeOf(c), scoresType));
  for (Value m : meaning.rest)
    if (!fitsScores(typeOf(maskView(m)), scoresType))
      return decline(rewriter, root,
                     llvm::formatv("mask of shape {0} does not broadcast to "
                                   "the scores {1}",
                                   typeOf(m), scoresType));
  // An empty-row guard gives 0 where the fused op gives 0/0, so it fuses
  // only where it never fires: every row provably keeps a visible key (the
  // scores q.k * scale themselves being finite).
  for (const RowGuard &g : rowGuards) {
    std::string risk;
    if (g.kind != RowGuard::NoVisibleKey) {
      if (!meaning.rest.empty() || !meaning.restConds.empty())
        risk = "a mask kept as a tensor may hide a whole row";
      else if (len && meaning.lower)
        risk = "a window under a live length may leave a row no key";
      else if (!rowsKeepAKey(meaning.upper, meaning.lower,
                             meaning.posUsed ? meaning.pos : Value(), lq, lk,
                             fn))
        risk = "the causal or window band may leave a row no key over the "
               "declared positions";
    } else {
      // any() runs over the condition's own keys.
      auto ct = typeOf(g.cond);
      int64_t condKeys = ct.getRank() ? ct.getDimSize(ct.getRank() - 1) : 1;
      Visibility vis;
      if (!collectVisibility(g.cond, g.visibleWhenTrue, vis, lq))
        risk = "its condition is not read as a causal or window band";
      else if (!rowsKeepAKey(vis.upper, vis.lower,
                             vis.posUsed ? vis.pos : Value(), lq, condKeys, fn))
        risk = "its band may leave a row no key over the declared positions";
    }
    if (!risk.empty())
      return decline(rewriter, root,
                     describeOp(g.op) +
                         " zeroes the rows that have no visible key, where "
                         "the fused op gives 0/0 (NaN), and they are not "
                         "ruled out: " +
                         risk);
    note += g.kind == RowGuard::SameMask
                ? "; the mask after the softmax changes no weight"
                : "; empty-row guard never fires";
  }
  Value pos = meaning.pos;
  if (pos) {
    int64_t n = typeOf(pos).getNumElements();
    if (n != 1 && n != b)
      return decline(rewriter, root, "positions do not match the batch");
  }
  for (const std::string &n : meaning.notes)
    note += "; " + n;

  // The rewrite.
  if (kLayoutSrc)
    k = rewriter.create<TransposeOp>(loc, kLayoutSrc, kLayoutPerm);
  auto withBatch = [&](Value x) -> Value {
    if (!unbatched || !x)
      return x;
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, typeOf(x).getShape());
    return rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, typeOf(x).getElementType()), x);
  };
  q = withBatch(q);
  k = withBatch(k);
  v = withBatch(v);
  if (grouped) {
    q = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get({b, hq, lq, qt.getDimSize(4)},
                                   qt.getElementType()),
        q);
    if (!vView->perm.empty())
      v = rewriter.create<TransposeOp>(loc, v, vView->perm);
  }
  auto toType = [&](Value x) -> Value {
    if (!x || typeOf(x).getElementType() == et)
      return x;
    return rewriter.create<ConvertOp>(
        loc, RankedTensorType::get(typeOf(x).getShape(), et), x);
  };
  q = toType(q);
  k = toType(k);
  v = toType(v);
  kShared = toType(kShared);
  Value mask;
  for (auto [c, inverted] : meaning.restConds) {
    Value n = normaliseMask(
        rewriter, loc,
        maskFromCond(rewriter, loc, maskView(c), inverted, scoresType),
        scoresType);
    mask = mask ? rewriter.create<AddOp>(loc, mask, n).getResult() : n;
  }
  for (Value m : meaning.rest) {
    Value n = normaliseMask(rewriter, loc, maskView(m), scoresType);
    mask = mask ? rewriter.create<AddOp>(loc, mask, n).getResult() : n;
  }
  if (meaning.posShift) {
    // The causal bound sits meaning.posShift keys past the query position.
    auto it = pos ? typeOf(pos).getElementType() : rewriter.getI64Type();
    auto scalar = RankedTensorType::get({}, it);
    Value shift = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(
                 scalar, rewriter.getIntegerAttr(it, meaning.posShift)));
    pos = pos ? rewriter.create<AddOp>(loc, pos, shift).getResult() : shift;
  }
  if (pos) {
    // A scalar position, or one per batch row.
    auto pt = typeOf(pos);
    SmallVector<int64_t> shape;
    if (pt.getNumElements() != 1)
      shape.push_back(b);
    if (ArrayRef<int64_t>(shape) != pt.getShape())
      pos = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, pt.getElementType()), pos);
  }

  auto softcap = peeled->softcap ? rewriter.getF64FloatAttr(*peeled->softcap)
                                 : FloatAttr();
  // The result keeps the root's type; a bf16 chain that computed its
  // softmax in f32 converts back exactly as before.
  SmallVector<int64_t> fusedShape(lead, 1);
  llvm::append_range(fusedShape, resultType.getShape());
  if (grouped)
    fusedShape = {b, hq, lq, resultType.getDimSize(4)};
  auto fusedType = RankedTensorType::get(fusedShape, et);
  auto fused = rewriter.create<AttentionOp>(
      loc, fusedType, q, k, kShared, v, read, mask, len, pos,
      rewriter.getF64FloatAttr(scale), softcap,
      rewriter.getI64IntegerAttr(nRep),
      meaning.causal ? rewriter.getUnitAttr() : UnitAttr(),
      meaning.window ? rewriter.getI64IntegerAttr(*meaning.window)
                     : IntegerAttr(),
      meaning.alibi.empty() ? DenseF64ArrayAttr()
                            : rewriter.getDenseF64ArrayAttr(meaning.alibi));
  Value result = fused.getResult();
  if (unbatched || grouped)
    result = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(resultType.getShape(), et), result);
  if (typeOf(result) != resultType)
    result = rewriter.create<ConvertOp>(loc, resultType, result);
  if (guarded) {
    // With the max subtracted a row of p is NaN everywhere or nowhere, so
    // the guarded p . v is sum_t 0 * v[t] on exactly the rows where the
    // fused output is NaN: 0, or NaN where a value channel holds inf/NaN.
    Value vIn = root.getRhs();
    auto vType = typeOf(vIn);
    auto vet = cast<FloatType>(vType.getElementType());
    Value zero = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, vet),
                                    rewriter.getFloatAttr(vet, 0.0)));
    Value zeroed = rewriter.create<MulOp>(loc, vIn, zero);
    Value empty = rewriter.create<ReduceSumOp>(loc, zeroed,
                                               vType.getRank() - 2,
                                               /*keepdim=*/true);
    Value isNan =
        rewriter.create<CompareOp>(loc, ComparePredicate::ne, result, result);
    result = rewriter.create<SelectOp>(loc, isNan, empty, result);
  }
  if (explain) {
    std::string what = llvm::formatv(
        "{0} attention, n_rep {1}, scale {2}{3}{4}{5}{6}{7}{8}", form, nRep,
        llvm::format("%g", scale),
        peeled->softcap
            ? (", softcap " +
               llvm::formatv("{0}", llvm::format("%g", *peeled->softcap)).str())
            : std::string(),
        mask ? ", tensor mask" : "",
        std::string(meaning.causal ? ", causal" : "") +
            (meaning.window ? ", window " + std::to_string(*meaning.window)
                            : std::string()) +
            (meaning.alibi.empty() ? "" : ", alibi") +
            (meaning.pos ? " from pos" : "") +
            (meaning.posShift
                 ? llvm::formatv(" at offset {0}", meaning.posShift).str()
                 : std::string()),
        len ? ", live length" : "", guarded ? ", NaN guard on the output" : "",
        note);
    explain(root, true, what);
  }
  rewriter.replaceOp(root, result);
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AttentionFusionPass
    : public poot::impl::AttentionFusionBase<AttentionFusionPass> {
  using AttentionFusionBase::AttentionFusionBase;

  void runOnOperation() override {
    if (failed(applyFusionPatterns(
            getOperation(), "attention", explain || explainByDefault(),
            [](RewritePatternSet &patterns, ExplainFn fn) {
              populateAttentionFusionPatterns(patterns, std::move(fn));
            },
            [](Operation *op) { return isa<MatmulOp>(op); })))
      signalPassFailure();
  }
};

} // namespace

void poot::populateAttentionFusionPatterns(RewritePatternSet &patterns,
                                           ExplainFn explain) {
  patterns.add<AttentionFusion>(patterns.getContext(), std::move(explain));
}

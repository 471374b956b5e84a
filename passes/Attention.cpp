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
// positive scale: it hides the same keys; any other bias inside one is the
// scale distributed, added as bias * scale); then the head maps on k and v
// (HeadMap.h: repeat_kv, head gathers, an expand or the matmul's own
// broadcast), composed and proven one grouping (read in another order with
// the query heads regrouped, or as n_rep 1 when it is none), and the key
// form (paged through a proven read map, split MLA key, live
// length); unbatched [H, L, D] operands are read as B = 1. Mask conditions
// and constant masks are read for their meaning (causal at a position,
// sliding window, ALiBi), conjunct by conjunct under a -inf fill; the rest
// stays a tensor.
// A finite fill (finfo.min, -1e9, -10000) counts as -inf only when it is
// low enough for exp to flush and every row provably keeps a visible key.
// The fused op takes the widest float type of the chain, so a bf16 model
// with an f32 attention core keeps its f32 core.
//
// poot-canonicalize brings the other spellings (scales computed in the
// graph, layout ops between a scale and its matmul, repeat_kv under
// transposes or RoPE, keys-first softmax layouts, arange constants and
// sliced mask tables) to the forms read here.
//
// A chain that differs from the contract (the score order of docs/numerics.md) in any way that changes
// what it computes is declined with its reason and keeps its primitive form;
// the decision is taken before the first op is built, so a decline leaves the
// IR untouched.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Dialect/PootRangeAnalysis.h"
#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "HeadMap.h"
#include "MaskForm.h"
#include "SoftmaxForm.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

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
    // Any reshape of the leading dims of a broadcast of a value that varies
    // only along rows and keys: every leading index holds that value (a
    // mask repeated over the heads and flattened into a batch * heads axis,
    // ParlAI's and Sockeye's bmm masks).
    if (r)
      if (auto b = r.getX().getDefiningOp<BroadcastOp>()) {
        auto in = typeOf(r.getX()), out = r.getType(), xt = typeOf(b.getX());
        int64_t ir = in.getRank(), orank = out.getRank();
        bool rowsKeys = ir >= 2 && orank >= 2 &&
                        in.getDimSize(ir - 1) == out.getDimSize(orank - 1) &&
                        in.getDimSize(ir - 2) == out.getDimSize(orank - 2);
        for (int64_t d = 0; rowsKeys && d + 2 < xt.getRank(); ++d)
          rowsKeys = xt.getDimSize(d) == 1;
        if (rowsKeys) {
          v = b.getX();
          continue;
        }
      }
    return v;
  }
}

/// Whether `v` is computed from a matmul through the ops a score transform
/// uses (so it is the score side of an add or select, not the mask). With
/// `whole`, every value on the way has `v`'s shape: the scores' product,
/// not a bias read from another product through a broadcast (a one-hot row
/// of a bias table).
bool reachesMatmul(Value v, int depth = 0, bool whole = false) {
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
    return (!whole || typeOf(operand).getShape() == typeOf(v).getShape()) &&
           reachesMatmul(operand, depth + 1, whole);
  });
}

/// The layout op nearest `v` on a path to a matmul through the score
/// ops and layout ops, when `v` reaches one only through layout ops: the
/// scores left in another layout (named in a decline).
Operation *layoutOnScores(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 24)
    return nullptr;
  if (isa<TransposeOp, ReshapeOp>(def))
    return reachesMatmul(def->getOperand(0)) ||
                   layoutOnScores(def->getOperand(0), depth + 1)
               ? def
               : nullptr;
  if (!isa<AddOp, SubOp, MulOp, DivOp, SelectOp, ConvertOp, TanhOp>(def))
    return nullptr;
  for (Value operand : def->getOperands())
    if (Operation *layout = layoutOnScores(operand, depth + 1))
      return layout;
  return nullptr;
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
  /// The condition of the select peeled last, when no added mask was peeled
  /// after it: the select nearest the scores, with no mask inside it.
  Value innermostSelect;
  /// For each select condition (its first select), how many masks and
  /// selects had been peeled before it: the later ones lie inside it.
  llvm::DenseMap<Value, std::pair<size_t, size_t>> peeledBefore;
  /// Every value the walk passed, from the softmax input down to the first
  /// matmul (with and without their converts): the score chain a shift's
  /// max must be taken over.
  llvm::DenseSet<Value> chain;
  /// The row shifts subtracted on the way (max subtractions), proven.
  SmallVector<Shift> shifts;
  Operation *softcapOp = nullptr; ///< the outer product of the softcap
  Operation *scaleOp = nullptr;   ///< the outermost scale op
  /// max(s, L) on the masked scores (HF's clamp at finfo.min): every
  /// hidden score becomes the finite L.
  std::optional<double> clampFill;
  /// Biases added inside the scale, `(s + b) * c`, each mask and each of its
  /// terms with the factor c applied after it: the fused op adds b * c to
  /// the scaled scores, which is the same sum distributed.
  llvm::DenseMap<Value, double> biasFactor;
};

std::optional<std::pair<Value, bool>> selectMask(Value term);
void maskTerms(Value m, SmallVectorImpl<Value> &terms);

/// Whether the scores are -inf wherever `c` says hidden (false when
/// `visibleWhenTrue`, true otherwise): a -inf select on the scores, or an
/// added select(c, 0, -inf), by the same condition with the same polarity.
/// The condition of a select of the scores by `c` (visible when
/// `visibleWhenTrue`) whose fill is finite (`finite`) or -inf, or null.
Value selectingCond(const Scores &sc, Value c, bool visibleWhenTrue,
                    bool finite) {
  Value want = stripAligned(c);
  for (auto [cond, inverted] : sc.selectConds)
    if (stripAligned(cond) == want && inverted == !visibleWhenTrue &&
        sc.finiteFills.count(cond) == static_cast<size_t>(finite))
      return cond;
  return nullptr;
}

bool hidesWithNegInf(const Scores &sc, Value c, bool visibleWhenTrue) {
  if (selectingCond(sc, c, visibleWhenTrue, /*finite=*/false))
    return true;
  Value want = stripAligned(c);
  SmallVector<Value> terms;
  for (Value m : sc.masks)
    maskTerms(m, terms);
  for (Value t : terms)
    if (auto sm = selectMask(t))
      if (stripAligned(sm->first) == want && sm->second == visibleWhenTrue)
        return true;
  return false;
}

/// Whether the one mask on the scores is the select by `c` (hiding where
/// `c` is !visibleWhenTrue), with a -inf or a finite fill, or the added
/// select(c, 0, -inf): no other select, added mask or clamp, and no live
/// length. A row the fused op then finds empty is exactly a row `c` hides
/// whole.
bool onlyMaskIs(const Scores &sc, Value c, bool visibleWhenTrue,
                bool liveLength) {
  if (liveLength || sc.clampFill)
    return false;
  Value want = stripAligned(c);
  SmallVector<Value> terms;
  for (Value m : sc.masks)
    maskTerms(m, terms);
  if (sc.selectConds.size() == 1 && terms.empty()) {
    auto [cond, inverted] = sc.selectConds.front();
    return stripAligned(cond) == want && inverted == !visibleWhenTrue;
  }
  if (!sc.selectConds.empty() || terms.size() != 1)
    return false;
  auto sm = selectMask(terms.front());
  return sm && stripAligned(sm->first) == want &&
         sm->second == visibleWhenTrue;
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

/// `v` behind converts to a wider float type (each exact: f16 or bf16 to
/// f32, f32 to f64). A narrowing convert (f32 to f16 or bf16, f16 to bf16)
/// rounds, so an operand behind one is the rounded value: the attention
/// reads it as the graph does, in the narrow type.
Value stripWideningConvert(Value v) {
  while (auto cv = v.getDefiningOp<ConvertOp>()) {
    auto from = dyn_cast<FloatType>(typeOf(cv.getX()).getElementType());
    auto to = dyn_cast<FloatType>(cv.getType().getElementType());
    if (!from || !to || to.getWidth() <= from.getWidth())
      break;
    v = cv.getX();
  }
  return v;
}

/// Peels a splat scale (mul by c, or div by c) off `v`, accumulating it;
/// the values passed go into `seen` when given. Score values take every
/// float convert on the way (the fused op computes scores in f32 at
/// least); an operand (`operand`: q, k) only widening ones.
Value peelScale(Value v, double &scale, llvm::DenseSet<Value> *seen = nullptr,
                bool operand = false) {
  // The outer factor of a softcap c * tanh(s / c) is not a scale.
  auto isFactorOf = [](Value x, Value product) {
    return x.getType() == product.getType() && !x.getDefiningOp<TanhOp>();
  };
  while (true) {
    if (seen)
      seen->insert(v);
    v = operand ? stripWideningConvert(v) : stripFloatConvert(v);
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
      // Both sides computed from products: the scores are the side that is
      // its product's output elementwise, the other a bias read from a
      // product of another shape (which side is taken only decides what
      // the fused op multiplies: any tensor added is a mask it takes).
      if (l && r) {
        l = reachesMatmul(add.getLhs(), 0, /*whole=*/true);
        r = reachesMatmul(add.getRhs(), 0, /*whole=*/true);
      }
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
      // s + c for one finite splat c, after the scale and softcap (TF's
      // stable_softmax adds 1e-9 to the logits): every score of every row
      // moves by the same c, -inf stays -inf, and the softmax of a row does
      // not change when all its scores move alike (the max moves with
      // them), so the term is no mask and drops, one rounding of s + c
      // apart.
      if (auto c = splatOf(m);
          c && std::isfinite(*c) && stage == MaskStage) {
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
      // A mask of 0 and -inf commutes with a positive scale, exactly. Any
      // other tensor added inside a positive scale c is scaled with the
      // scores: (s + b) * c = s * c + b * c, so it is the mask b * c added
      // after the scale (the sum distributed, one rounding apart; b holds no
      // +inf or NaN, checked above, and -inf * c is -inf). Inside a softcap
      // the bias would pass through the tanh, which no mask of the fused op
      // does.
      if (stage != MaskStage && !(stage == ScaleStage && scaleCommutes(out))) {
        why = "a mask is added before the scale or softcap: the score order "
              "differs from (q.k)*scale -> softcap -> +mask";
        return failure();
      }
      if (stage == ScaleStage && !isHidingMask(m)) {
        SmallVector<Value> terms, outer;
        maskTerms(m, terms);
        if (!llvm::is_contained(terms, m))
          terms.push_back(m);
        for (Value o : out.masks) {
          outer.push_back(o);
          maskTerms(o, outer);
        }
        for (Value t : terms) {
          // The factor is looked up by value: one value added both inside
          // and outside a scale (or inside two) would need two at once.
          if (out.biasFactor.count(t) || llvm::is_contained(outer, t)) {
            why = describeOp(add) + " adds a bias that the chain also adds "
                                    "at another scale";
            return failure();
          }
        }
        // Factors that multiply to exactly 1 leave the bias as it is (but
        // still claim its values above).
        for (Value t : terms)
          out.biasFactor[t] = out.scale;
      }
      out.masks.push_back(m);
      out.innermostSelect = Value();
      s = l ? add.getLhs() : add.getRhs();
      continue;
    }
    // max(s, L), outermost, with L at a dtype's lowest: the clamp that
    // turns a -inf (or an overflowed) score into L. It changes nothing in a
    // row that keeps a visible key (exp(L - max) and exp(-inf - max) are
    // both 0), so it peels off where the masks prove every row keeps one
    // (checked with the masks' meaning, as a finite fill L).
    if (auto mx = dyn_cast<MaxOp>(def);
        mx && stage == MaskStage && out.masks.empty() &&
        out.selectConds.empty() && !out.clampFill) {
      for (auto [x, bound] : {std::pair{mx.getLhs(), mx.getRhs()},
                              std::pair{mx.getRhs(), mx.getLhs()}}) {
        auto l = splatOf(bound);
        // L at the lowest finite value of the scores' own type (OPT clamps
        // f16 scores at -65504) moves nothing but -inf: that is a fill L
        // as well, read under the same rules.
        bool typeLowest = false;
        if (auto ft = dyn_cast<FloatType>(mx.getType().getElementType());
            ft && l)
          typeLowest =
              *l == APFloat::getLargest(ft.getFloatSemantics(), true)
                        .convertToDouble();
        if (!l || !std::isfinite(*l) || (*l > kLowestFill && !typeLowest) ||
            x.getType() != mx.getType() || !reachesMatmul(x))
          continue;
        out.clampFill = *l;
        s = x;
        break;
      }
      if (s != mx.getResult())
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
        out.peeledBefore.try_emplace(
            sel.getCond(), out.masks.size(), out.selectConds.size());
        out.selectConds.push_back({sel.getCond(), false});
        out.innermostSelect = sel.getCond();
        s = sel.getOnTrue();
        continue;
      }
      if (auto f = negativeFill(sel.getOnTrue());
          f && reachesMatmul(sel.getOnFalse())) {
        record(*f);
        out.peeledBefore.try_emplace(
            sel.getCond(), out.masks.size(), out.selectConds.size());
        out.selectConds.push_back({sel.getCond(), true});
        out.innermostSelect = sel.getCond();
        s = sel.getOnFalse();
        continue;
      }
      auto fill = splatOf(sel.getOnFalse());
      if (!fill || !reachesMatmul(sel.getOnTrue()))
        fill = splatOf(sel.getOnTrue());
      Operation *layout = nullptr;
      for (Value side : {sel.getOnTrue(), sel.getOnFalse()})
        if (!layout)
          layout = layoutOnScores(side);
      if (fill && (std::isnan(*fill) || (std::isinf(*fill) && *fill > 0)))
        why = describeOp(sel) + " fills the scores with +inf or NaN: a key it "
                                "marks takes the whole weight of its row "
                                "(inf/inf), no softmax the fused op computes";
      else if (layout)
        why = describeOp(layout) + " between the first matmul and the "
                                   "softmax: the scores are selected in "
                                   "another layout than the product's";
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
        // c * tanh(a * s) with a != 1 / c is c * tanh((a c) s / c): the
        // softcap c of the scores scaled by a c (llama.cpp folds the scale
        // into the tanh's factor). Only for positive factors: a softcap
        // bounds the scores by +-c, and the scale stays positive.
        if (!(*c > 0 && inner > 0 && std::isfinite(*c) && std::isfinite(inner))) {
          why =
              llvm::formatv("tanh softcap with outer factor {0} and inner "
                            "factor {1}: not c*tanh(a*s) for positive c, a",
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
        if (std::fabs(inner * *c - 1.0) > 1e-6) {
          out.scale *= inner * *c;
          out.scaleOp = mul;
        }
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
           (probabilitiesLayout(root.getLhs()) != nullptr) ||
           reachesSummedExp(root.getLhs());
  }

  /// Whether `p` is computed, through a few elementwise and layout ops,
  /// from an exp that is also summed (a softmax's numerator under other
  /// ops: a mask applied after the exp, weights sliced and mixed). Such a
  /// product is explained when it declines; an exp nobody sums (SiLU in a
  /// gated MLP) is not a softmax and stays silent.
  static bool reachesSummedExp(Value p, int depth = 0) {
    if (depth > 6)
      return false;
    Operation *def = p.getDefiningOp();
    if (!def)
      return false;
    if (auto exp = dyn_cast<ExpOp>(def)) {
      return llvm::any_of(exp->getUsers(), [](Operation *u) {
        if (isa<ConvertOp>(u))
          return llvm::any_of(u->getUsers(), [](Operation *w) {
            return isa<ReduceSumOp>(w);
          });
        return isa<ReduceSumOp>(u);
      });
    }
    if (!isa<MulOp, DivOp, SelectOp, ConvertOp, ConcatOp, SliceOp, ReshapeOp,
             TransposeOp, AddOp>(def))
      return false;
    return llvm::any_of(def->getOperands(), [&](Value v) {
      return reachesSummedExp(v, depth + 1);
    });
  }

  /// Is `p` softmax-shaped at all?
  static bool isProbabilities(Value p) {
    p = stripFloatConvert(p);
    Operation *def = p.getDefiningOp();
    // exp(x - logsumexp(x)) normalises inside the exp.
    if (isa_and_nonnull<ExpOp>(def))
      return true;
    // x - max - log(sum(exp)): log-softmax taken as the weights (declined,
    // with its reason), alone or under a guard.
    auto logSoftmax = [](Operation *d) {
      return isa_and_nonnull<SubOp>(d) &&
             llvm::any_of(d->getOperands(), [](Value v) {
               return isa_and_nonnull<LogOp>(stripRowView(v).getDefiningOp());
             });
    };
    if (logSoftmax(def))
      return true;
    return def && isa<DivOp, MulOp, SelectOp>(def) &&
           llvm::any_of(def->getOperands(), [&](Value v) {
             Operation *d = stripFloatConvert(v).getDefiningOp();
             return d && (isa<ExpOp, ReduceSumOp, BroadcastOp, DivOp,
                              SelectOp>(d) ||
                          logSoftmax(d));
           });
  }

  /// The layout op closest to P . V when `p` is softmax-shaped values
  /// behind transposes, reshapes and slices: one poot-canonicalize could
  /// not prove a relabelling of the score axes and so left in place, or a
  /// slice of the probabilities (an extra logit column cut off, as
  /// attention sinks do).
  static Operation *probabilitiesLayout(Value p) {
    Operation *first = nullptr;
    for (int depth = 0; depth < 8; ++depth) {
      p = stripFloatConvert(p);
      Operation *def = p.getDefiningOp();
      if (!def || !isa<TransposeOp, ReshapeOp, SliceOp>(def))
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

/// The live bound a condition on the [B, H, Lq, Lk] scores states when it
/// hides exactly the keys t >= len[b] of batch row b: `t < len` or
/// `len > t` where true means visible, `t >= len` or `len <= t` where true
/// means hidden, through nots (which swap the two), broadcasts and
/// reshapes that only insert or drop unit dims, with t the key index and
/// len varying along the batch alone. Returns len as it is spelled (any
/// shape holding B elements along one axis), or null.
Value scoresLiveBound(Value cond, bool visibleWhenTrue, int64_t batch) {
  if (typeOf(cond).getRank() != 4 || typeOf(cond).getDimSize(0) != batch)
    return nullptr;
  Value c = cond;
  int64_t keyAxis = 3, batchAxis = 0;
  for (;;) {
    auto key = traceAxis(c, keyAxis);
    if (!key)
      return nullptr;
    if (batch > 1) {
      auto row = traceAxis(c, batchAxis);
      if (!row || row->first != key->first)
        return nullptr;
      batchAxis = row->second;
    }
    c = key->first;
    keyAxis = key->second;
    auto n = c.getDefiningOp<NotOp>();
    if (!n)
      break;
    c = n.getX();
    visibleWhenTrue = !visibleWhenTrue;
  }
  auto cmp = c.getDefiningOp<CompareOp>();
  if (!cmp)
    return nullptr;
  Value t, len;
  switch (cmp.getPredicate()) {
  case ComparePredicate::lt:
  case ComparePredicate::ge:
    t = cmp.getLhs();
    len = cmp.getRhs();
    break;
  case ComparePredicate::gt:
  case ComparePredicate::le:
    t = cmp.getRhs();
    len = cmp.getLhs();
    break;
  default:
    return nullptr;
  }
  bool visibleBelow = cmp.getPredicate() == ComparePredicate::lt ||
                      cmp.getPredicate() == ComparePredicate::gt;
  if (visibleBelow != visibleWhenTrue)
    return nullptr;
  // Both sides broadcast to the compare's shape, aligned at the right.
  int64_t rank = typeOf(cmp.getResult()).getRank();
  auto tt = typeOf(t), lt = typeOf(len);
  int64_t tAxis = keyAxis - (rank - tt.getRank());
  if (tAxis < 0 || tt.getDimSize(tAxis) == 1 || !isIndexAlong(t, tAxis))
    return nullptr;
  if (!isa<IntegerType>(lt.getElementType()))
    return nullptr;
  if (batch == 1) {
    // One length: any broadcast or reshape of a single element.
    while (Operation *def = len.getDefiningOp()) {
      if (!isa<BroadcastOp, ReshapeOp>(def))
        break;
      len = def->getOperand(0);
    }
    return typeOf(len).getNumElements() == 1 ? len : nullptr;
  }
  int64_t lAxis = batchAxis - (rank - lt.getRank());
  if (lAxis < 0 || lt.getDimSize(lAxis) != batch)
    return nullptr;
  Value row = valueAlong(len, lAxis);
  if (!row || typeOf(row).getNumElements() != batch)
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

/// Builds the additive mask `select(c, 0, -inf)` (or `select(c, -inf, 0)`
/// when `inverted`) for a select condition that is not a live bound; with
/// `fill`, that value in place of -inf.
Value maskFromCond(PatternRewriter &rewriter, Location loc, Value cond,
                   bool inverted, RankedTensorType scores,
                   std::optional<double> fill = std::nullopt) {
  Type et = scores.getElementType();
  auto condType = typeOf(cond);
  auto ft = RankedTensorType::get(condType.getShape(), et);
  auto fl = cast<FloatType>(et);
  Value zero = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(ft, rewriter.getFloatAttr(fl, 0.0)));
  Value ninf = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(
               ft, fill ? rewriter.getFloatAttr(fl, *fill)
                        : rewriter.getFloatAttr(
                              fl, APFloat::getInf(fl.getFloatSemantics(),
                                                  true))));
  if (inverted)
    std::swap(zero, ninf);
  return rewriter.create<SelectOp>(loc, cond, zero, ninf);
}

/// Brings an additive mask to [B|1, Hq|1, Lq, Lk]; null when it does not
/// broadcast to the scores.
Value normaliseMask(PatternRewriter &rewriter, Location loc, Value mask,
                    RankedTensorType scores) {
  // A broadcast is taken off: the fused op broadcasts its batch and head
  // dims itself, and spells out the rows and keys below (a padding mask
  // [B, 1, 1, S] expanded over the heads stays one row of keys a batch).
  // So is one under a reshape that only inserts or drops unit dims (a
  // table expanded over the heads of a flattened batch * heads axis): the
  // reshape goes onto the broadcast's operand.
  for (;;) {
    if (auto bc = mask.getDefiningOp<BroadcastOp>()) {
      mask = bc.getX();
      continue;
    }
    auto r = mask.getDefiningOp<ReshapeOp>();
    auto bc = r ? r.getX().getDefiningOp<BroadcastOp>() : BroadcastOp();
    if (!bc)
      break;
    auto in = typeOf(r.getX()), out = typeOf(r.getResult());
    auto yt = typeOf(bc.getX());
    auto dims = unitDimMap(in, out);
    if (!dims)
      break;
    auto &[pin, pout] = *dims;
    SmallVector<int64_t> padded(in.getRank() - yt.getRank(), 1);
    llvm::append_range(padded, yt.getShape());
    SmallVector<int64_t> shape(out.getRank(), 1);
    for (size_t i = 0; i < pin.size(); ++i)
      shape[pout[i]] = padded[pin[i]];
    mask = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, yt.getElementType()), bc.getX());
  }
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

/// An integer expression over v's own axes: `sum k[a] * index(a) + kp * p
/// + c`, with p a position that is constant over v or varies along one
/// axis only (`posAxis`, one position per batch row once aligned).
struct Linear {
  SmallVector<int64_t> k;
  int64_t kp = 0, c = 0;
  Value pos;
  int64_t posAxis = -1;
};

/// `v` as a Linear over its own axes, read through broadcasts, reshapes
/// that only insert or drop unit dims (the non-unit dims keep their
/// order), integer converts, sums, negations and constant multiples.
std::optional<Linear> linearOf(Value v, int depth = 0) {
  if (depth > 16)
    return std::nullopt;
  auto t = typeOf(v);
  if (!t.getElementType().isSignlessInteger() ||
      t.getElementType().isInteger(1))
    return std::nullopt;
  int64_t rank = t.getRank();
  Linear out;
  out.k.assign(rank, 0);
  if (auto splat = splatOf(v)) {
    out.c = static_cast<int64_t>(*splat);
    return out;
  }
  // Moves a Linear of a value aligned to the right of rank `rank`.
  auto align = [&](Linear x, int64_t from) {
    Linear y = x;
    y.k.assign(rank, 0);
    for (int64_t a = 0; a < from; ++a)
      y.k[a + rank - from] = x.k[a];
    if (x.posAxis >= 0)
      y.posAxis = x.posAxis + rank - from;
    return y;
  };
  Operation *def = v.getDefiningOp();
  if (auto iota = dyn_cast_or_null<IotaOp>(def)) {
    int64_t d = iota.getDim();
    if (t.getDimSize(d) != 1)
      out.k[d] = 1;
    return out;
  }
  if (auto b = dyn_cast_or_null<BroadcastOp>(def)) {
    auto x = linearOf(b.getX(), depth + 1);
    if (!x)
      return std::nullopt;
    return align(*x, typeOf(b.getX()).getRank());
  }
  if (auto c = dyn_cast_or_null<ConvertOp>(def)) {
    if (!typeOf(c.getX()).getElementType().isSignlessInteger())
      return std::nullopt;
    auto x = linearOf(c.getX(), depth + 1);
    return x;
  }
  if (auto r = dyn_cast_or_null<ReshapeOp>(def)) {
    auto in = typeOf(r.getX());
    SmallVector<int64_t> inDims, outDims;
    for (int64_t a = 0; a < in.getRank(); ++a)
      if (in.getDimSize(a) != 1)
        inDims.push_back(a);
    for (int64_t a = 0; a < rank; ++a)
      if (t.getDimSize(a) != 1)
        outDims.push_back(a);
    bool same = inDims.size() == outDims.size();
    for (size_t i = 0; same && i < inDims.size(); ++i)
      same = in.getDimSize(inDims[i]) == t.getDimSize(outDims[i]);
    if (same) {
      auto x = linearOf(r.getX(), depth + 1);
      if (x) {
        Linear y = *x;
        y.k.assign(rank, 0);
        y.posAxis = -1;
        for (size_t i = 0; i < inDims.size(); ++i) {
          y.k[outDims[i]] = x->k[inDims[i]];
          if (x->posAxis == inDims[i])
            y.posAxis = outDims[i];
        }
        return y;
      }
    }
  }
  if (isa_and_nonnull<AddOp, SubOp>(def)) {
    auto l = linearOf(def->getOperand(0), depth + 1);
    auto r = linearOf(def->getOperand(1), depth + 1);
    if (!l || !r)
      return std::nullopt;
    Linear a = align(*l, typeOf(def->getOperand(0)).getRank());
    Linear b = align(*r, typeOf(def->getOperand(1)).getRank());
    if (a.kp && b.kp && (a.pos != b.pos || a.posAxis != b.posAxis))
      return std::nullopt;
    int64_t sign = isa<SubOp>(def) ? -1 : 1;
    for (int64_t i = 0; i < rank; ++i)
      out.k[i] = a.k[i] + sign * b.k[i];
    out.kp = a.kp + sign * b.kp;
    out.c = a.c + sign * b.c;
    out.pos = a.kp ? a.pos : b.pos;
    out.posAxis = a.kp ? a.posAxis : b.posAxis;
    if (!out.kp) {
      out.pos = Value();
      out.posAxis = -1;
    }
    return out;
  }
  if (auto m = dyn_cast_or_null<MulOp>(def)) {
    for (auto [x, f] : {std::pair{m.getLhs(), m.getRhs()},
                        std::pair{m.getRhs(), m.getLhs()}}) {
      auto s = splatOf(f);
      if (!s || *s != std::trunc(*s))
        continue;
      auto lx = linearOf(x, depth + 1);
      if (!lx)
        return std::nullopt;
      Linear y = align(*lx, typeOf(x).getRank());
      int64_t n = static_cast<int64_t>(*s);
      for (int64_t &kk : y.k)
        kk *= n;
      y.kp *= n;
      y.c *= n;
      return y;
    }
  }
  if (auto n = dyn_cast_or_null<NegOp>(def)) {
    auto x = linearOf(n.getX(), depth + 1);
    if (!x)
      return std::nullopt;
    for (int64_t &kk : x->k)
      kk = -kk;
    x->kp = -x->kp;
    x->c = -x->c;
    return x;
  }
  // Any other value constant over v is the position the queries start at;
  // one that varies along a single axis is one position per row of it.
  SmallVector<int64_t> varying;
  for (int64_t a = 0; a < rank; ++a)
    if (t.getDimSize(a) != 1)
      varying.push_back(a);
  if (varying.empty()) {
    if (Value scalar = scalarSource(v)) {
      out.kp = 1;
      out.pos = scalar;
      return out;
    }
    return std::nullopt;
  }
  if (varying.size() == 1)
    if (Value row = valueAlong(v, varying.front())) {
      out.kp = 1;
      out.pos = row;
      out.posAxis = varying.front();
      return out;
    }
  return std::nullopt;
}

/// `v` as an affine form in the rank-4 score frame (axis 3 keys, axis 2
/// query rows); v's own dims align to the right of the frame.
std::optional<Affine> affineOf(Value v, int depth = 0) {
  auto t = typeOf(v);
  int64_t off = 4 - t.getRank();
  if (off < 0)
    return std::nullopt;
  auto lin = linearOf(v, depth);
  if (!lin)
    return std::nullopt;
  // Nothing may vary along the batch or head axes but the position (along
  // the batch axis).
  for (int64_t a = 0; a < t.getRank(); ++a)
    if (a + off < 2 && lin->k[a] != 0)
      return std::nullopt;
  if (lin->kp && lin->posAxis >= 0 && lin->posAxis + off != 0)
    return std::nullopt;
  Affine out;
  out.kt = off <= 3 ? lin->k[3 - off] : 0;
  out.ki = off <= 2 ? lin->k[2 - off] : 0;
  out.kp = lin->kp;
  out.c = lin->c;
  out.pos = lin->pos;
  return out;
}

/// Visibility bounds on u = t - qpos that a mask condition states.
struct Visibility {
  std::optional<int64_t> upper; ///< u <= upper
  std::optional<int64_t> lower; ///< u >= lower
  Value pos;
  bool posUsed = false;
  bool posKnown = false; ///< whether the terms agreed on using pos or not
  /// Bounds on t - pos alone, the same for every query row (ONNX exports
  /// AND a padding mask `t < pos + Lq` into the causal one): kept only
  /// where the band implies them (explainMasks checks), read at all only
  /// when `allowAbsolute`. Each is (upper?, bound).
  SmallVector<std::pair<bool, int64_t>> absolute;
  bool allowAbsolute = true;
};

/// Checks that `a` is u + c with u = t - (pos + i), folding the sign so the
/// key coefficient is +1; records the position used.
/// With `absolute`, `a` is t - pos + c instead, the same for every row.
bool asRelative(Affine &a, bool &flip, Visibility &vis, int64_t lq,
                bool absolute = false) {
  flip = false;
  if (a.kt == -1) {
    a.kt = 1;
    a.ki = -a.ki;
    a.kp = -a.kp;
    a.c = -a.c;
    flip = true;
  }
  if (a.kt != 1 || (a.kp != 0 && a.kp != -1))
    return false;
  if (absolute ? a.ki != 0 : (lq > 1 && a.ki != -1))
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

/// A mask table computed at compile time (xFormers' block-diagonal causal
/// bias, written block by block into a -inf table) that is -inf outside a
/// band of its rows and keys: the band is what the table keeps at most,
/// so it is read (tiles past it are never visited) and the table stays the
/// tensor mask, adding -inf again where the band hides. Returns whether
/// the band tightened `vis`.
bool enclosingBand(Value term, Visibility &vis, int64_t lq, int64_t lk) {
  if (vis.posKnown && vis.posUsed)
    return false;
  Value src = stripBroadcast(term);
  auto t = typeOf(src);
  int64_t rank = t.getRank();
  if (!isa<FloatType>(t.getElementType()) || rank < 2 ||
      t.getDimSize(rank - 2) != lq || t.getDimSize(rank - 1) != lk ||
      lq < 2 || lk < 2)
    return false;
  auto cells = constantElements(src, 1 << 16);
  if (!cells)
    return false;
  std::optional<int64_t> lo, hi;
  for (int64_t f = 0, n = cells->size(); f < n; ++f) {
    double x = (*cells)[f];
    if (x == -INFINITY)
      continue;
    int64_t k = f % lk, i = (f / lk) % lq;
    lo = lo ? std::min(*lo, k - i) : k - i;
    hi = hi ? std::max(*hi, k - i) : k - i;
  }
  if (!lo)
    return false; // every key hidden: nothing to read
  bool upper = lk - 1 > *hi && (!vis.upper || *vis.upper > *hi);
  bool lower = -(lq - 1) < *lo && (!vis.lower || *vis.lower < *lo);
  if (!upper && !lower)
    return false;
  vis.posKnown = true;
  vis.posUsed = false;
  if (upper)
    vis.upper = *hi;
  if (lower)
    vis.lower = *lo;
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
  // A bound on t - pos alone (no query row term) over several rows.
  bool absolute = lq > 1 && e.ki == 0 && vis.allowAbsolute;
  if (!asRelative(e, flip, vis, lq, absolute))
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
  auto tighten = [&](std::optional<int64_t> &slot, int64_t v, bool isUpper) {
    if (absolute) {
      vis.absolute.push_back({isUpper, v});
      return;
    }
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
  bool scaledBias = false; ///< a bias added inside the scale was read
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

/// `x` in the float type `sem`, rounded toward zero: a fill as it reaches
/// the scores through a narrowing convert, never lower than a device's
/// convert gives.
APFloat towardZero(double x, const llvm::fltSemantics &sem) {
  APFloat a(x);
  bool lost;
  a.convert(sem, APFloat::rmTowardZero, &lost);
  return a;
}

/// A mask term that hides keys where a condition says so: select(c, 0, f),
/// select(c, f, 0), convert(c) * f or (1 - convert(c)) * f, with f negative
/// (-inf only in the select forms: 0 * -inf is NaN). Returns the condition,
/// whether true means visible, and f.
std::optional<std::tuple<Value, bool, double>> fillMask(Value term) {
  Value inner = stripAligned(term);
  // Float converts of the term convert the fill and keep 0: the fill is
  // read as it reaches the scores, rounded through each type in turn.
  // Rounded toward zero, the value read is never lower than a device's
  // convert gives, so it hides keys only where the real fill does (the
  // fused op uses -inf, whatever the fill, where it is read as hiding).
  SmallVector<const llvm::fltSemantics *> through;
  while (auto cv = inner.getDefiningOp<ConvertOp>()) {
    auto to = dyn_cast<FloatType>(typeOf(cv.getResult()).getElementType());
    if (!to || !isa<FloatType>(typeOf(cv.getX()).getElementType()))
      break;
    through.push_back(&to.getFloatSemantics());
    inner = stripAligned(cv.getX());
  }
  auto reaching = [&](double f) {
    for (const llvm::fltSemantics *sem : llvm::reverse(through))
      f = towardZero(f, *sem).convertToDouble();
    return f;
  };
  if (auto sel = inner.getDefiningOp<SelectOp>()) {
    if (isSplat(sel.getOnTrue(), 0.0))
      if (auto f = negativeFill(sel.getOnFalse()))
        return std::tuple{sel.getCond(), true, reaching(*f)};
    if (isSplat(sel.getOnFalse(), 0.0))
      if (auto f = negativeFill(sel.getOnTrue()))
        return std::tuple{sel.getCond(), false, reaching(*f)};
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
      return std::tuple{c, false, reaching(*f)};
    if (auto sub = stripAligned(a).getDefiningOp<SubOp>();
        sub && isSplat(sub.getLhs(), 1.0))
      if (Value c = boolOf(sub.getRhs()))
        return std::tuple{c, true, reaching(*f)};
  }
  return std::nullopt;
}

/// Whether a constant's dims other than the head axis (frame axis 1) and
/// the key axis (frame axis 3) are 1, and which of the two it varies along.
bool headKeyOnly(RankedTensorType t, bool &alongHeads, bool &alongKeys) {
  int64_t off = 4 - t.getRank();
  alongHeads = alongKeys = false;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    int64_t axis = i + off, n = t.getDimSize(i);
    if (axis == 1)
      alongHeads = n != 1;
    else if (axis == 3)
      alongKeys = n != 1;
    else if (n != 1)
      return false;
  }
  return true;
}

/// A constant bias table over the heads and keys only, C[h, t] equal to
/// slope[h] * t + c[h] in every entry (checked exactly, on the stored
/// values): the ALiBi bias up to c[h] + slope[h] * qpos, which is constant
/// along each row and so leaves the softmax unchanged. BLOOM's and
/// Falcon's build_alibi_tensor (slope * (cumsum(mask) - 1), folded for an
/// all-visible mask) and MPT's slope * (t - (S - 1)) fold to such tables. A
/// table rounded on the way (bf16 products past 256 keys) is not linear
/// and stays a tensor.
std::optional<SmallVector<double>> alibiTable(ConstantOp cst, int64_t hq) {
  auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue());
  auto t = typeOf(cst.getResult());
  bool alongHeads, alongKeys;
  if (!dense || t.getRank() > 4 || !headKeyOnly(t, alongHeads, alongKeys) ||
      !alongKeys)
    return std::nullopt;
  int64_t heads = alongHeads ? hq : 1;
  if (t.getNumElements() % heads != 0)
    return std::nullopt;
  int64_t keys = t.getNumElements() / heads;
  if (keys < 2 || (alongHeads && t.getNumElements() != hq * keys))
    return std::nullopt;
  SmallVector<double> v;
  for (const APFloat &f : dense.getValues<APFloat>())
    v.push_back(f.convertToDouble());
  SmallVector<double> slopes;
  for (int64_t h = 0; h < heads; ++h) {
    const double *row = v.data() + h * keys;
    double slope = row[1] - row[0];
    if (!std::isfinite(slope))
      return std::nullopt;
    for (int64_t k = 0; k < keys; ++k)
      if (row[k] != row[0] + slope * static_cast<double>(k))
        return std::nullopt;
    slopes.push_back(slope);
  }
  if (heads == 1)
    slopes.assign(hq, slopes.front());
  // A table of zeros is no bias, and not worth an ALiBi.
  if (llvm::all_of(slopes, [](double s) { return s == 0.0; }))
    return std::nullopt;
  return slopes;
}

/// slope[h] * float(t - qpos): the ALiBi bias, or slope[h] * float(t + c)
/// (the key position alone, or with a constant: BLOOM, Falcon and MPT
/// bias by the key position), which differs from it by slope[h] (qpos + c),
/// constant along each row: softmax(x + a) = softmax(x) for a constant a.
std::optional<SmallVector<double>> alibiSlopes(Value term, int64_t hq,
                                               int64_t lq, Visibility &vis) {
  if (auto cst = stripAligned(term).getDefiningOp<ConstantOp>())
    return alibiTable(cst, hq);
  auto mul = stripAligned(term).getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                      std::pair{mul.getRhs(), mul.getLhs()}}) {
    auto cv = stripAligned(a).getDefiningOp<ConvertOp>();
    Value sv = stripAligned(b);
    if (!cv)
      continue;
    auto lin = affineOf(cv.getX());
    bool flip;
    Visibility probe = vis;
    // The key position alone (plus a constant): no position is read.
    bool keyOnly = lin && lin->kt == 1 && lin->ki == 0 && lin->kp == 0;
    if (!lin || (!keyOnly && (lin->c != 0 || !asRelative(*lin, flip, probe, lq) ||
                              flip)))
      continue;
    // The slopes: a constant, or computed in the graph from a head arange
    // (FlexAttention's exp2(-(h + 1) * 8 / H)), varying along the head axis
    // (frame axis 1) only.
    auto ct = typeOf(sv);
    auto values = isa<FloatType>(ct.getElementType()) && ct.getRank() <= 4
                      ? constantElements(sv)
                      : std::nullopt;
    if (!values)
      continue;
    int64_t rank = ct.getRank(), axis = 1 - (4 - rank); // the head axis
    int64_t heads = axis >= 0 ? ct.getDimSize(axis) : 1;
    if (heads != 1 && heads != hq)
      continue;
    // Head h's value is the element at (0, .., h, .., 0); every element
    // must equal its head's.
    int64_t stride = 1;
    for (int64_t d = rank - 1; d > axis; --d)
      stride *= ct.getDimSize(d);
    SmallVector<double> slopes(heads);
    for (int64_t h = 0; h < heads; ++h)
      slopes[h] = (*values)[h * stride];
    bool headOnly = true;
    for (int64_t i = 0, e = values->size(); i < e && headOnly; ++i)
      headOnly = (*values)[i] == slopes[heads == 1 ? 0 : (i / stride) % heads];
    if (!headOnly)
      continue;
    if (heads == 1)
      slopes.assign(hq, slopes.front());
    vis = probe;
    return slopes;
  }
  return std::nullopt;
}

/// Reads the masks for their meaning. A finite negative fill is read as
/// hiding keys only when `finiteHides`; the conditions of `finiteFills` are
/// selects on the scores with such a fill.
/// The conjuncts of a visibility condition (an `and` of visible parts, an
/// `or` of hidden ones, through `not`), each with its polarity.
void conjuncts(Value cond, bool visibleWhenTrue,
               SmallVectorImpl<std::pair<Value, bool>> &out) {
  Value c = stripAligned(cond);
  if (auto n = c.getDefiningOp<NotOp>())
    return conjuncts(n.getX(), !visibleWhenTrue, out);
  if (auto a = c.getDefiningOp<AndOp>(); a && visibleWhenTrue) {
    conjuncts(a.getLhs(), true, out);
    conjuncts(a.getRhs(), true, out);
    return;
  }
  if (auto o = c.getDefiningOp<OrOp>(); o && !visibleWhenTrue) {
    conjuncts(o.getLhs(), false, out);
    conjuncts(o.getRhs(), false, out);
    return;
  }
  out.push_back({cond, visibleWhenTrue});
}

/// Reads the conjuncts of `cond` it can into `vis` and returns the others
/// in `unread` as (condition, hides when true). With a -inf fill a key is
/// hidden iff some conjunct hides it, so select(a & b, 0, -inf) is
/// select(a, 0, -inf) + select(b, 0, -inf) exactly: the read part is a
/// meaning and the rest a tensor. True when something was read.
bool readConjuncts(Value cond, bool visibleWhenTrue, Visibility &vis,
                   int64_t lq,
                   SmallVectorImpl<std::pair<Value, bool>> &unread) {
  SmallVector<std::pair<Value, bool>> parts;
  conjuncts(cond, visibleWhenTrue, parts);
  if (parts.size() < 2)
    return false;
  bool any = false;
  for (auto [p, visible] : parts) {
    Visibility trial = vis;
    if (collectVisibility(p, visible, trial, lq)) {
      vis = trial;
      any = true;
    } else {
      unread.push_back({p, !visible});
    }
  }
  return any;
}

MaskMeaning explainMasks(ArrayRef<Value> masks,
                         ArrayRef<std::pair<Value, bool>> conds, int64_t hq,
                         int64_t lq, int64_t lk, bool finiteHides,
                         const llvm::DenseMap<Value, double> &finiteFills,
                         const llvm::DenseMap<Value, double> &biasFactor,
                         bool allowAbsolute = true) {
  MaskMeaning out;
  Visibility vis;
  vis.allowAbsolute = allowAbsolute;
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
    // A bias added inside the scale reaches the softmax as b * c: it is
    // read as ALiBi with its slopes times c, or kept as the tensor b * c.
    if (auto it = biasFactor.find(term);
        it != biasFactor.end() && it->second != 1.0) {
      if (out.alibi.empty())
        if (auto slopes = alibiSlopes(term, hq, lq, vis)) {
          for (double &slope : *slopes)
            slope *= it->second;
          out.alibi = *slopes;
          out.scaledBias = true;
          continue;
        }
      out.rest.push_back(term);
      out.scaledBias = true;
      continue;
    }
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
      SmallVector<std::pair<Value, bool>> unread;
      trial = vis;
      if (readConjuncts(cond, visibleWhenTrue, trial, lq, unread)) {
        if (std::isinf(fill)) {
          vis = trial;
          llvm::append_range(out.restConds, unread);
          continue;
        }
        // A finite fill does not split: where both parts hide a key the
        // sum of two fills is not the one fill.
        out.notes.push_back(
            llvm::formatv("mask kept as a tensor: finite fill {0} over a "
                          "condition read only in part",
                          llvm::format("%g", fill))
                .str());
      }
    }
    if (out.alibi.empty())
      if (auto slopes = alibiSlopes(term, hq, lq, vis)) {
        out.alibi = *slopes;
        continue;
      }
    if (enclosingBand(term, vis, lq, lk))
      out.notes.push_back("band read off the table's -inf cells");
    out.rest.push_back(term);
  }
  for (auto [c, inverted] : allConds) {
    auto finite = finiteFills.find(c);
    bool isFinite = finite != finiteFills.end();
    Visibility trial = vis;
    SmallVector<std::pair<Value, bool>> unread;
    if ((!isFinite || finiteHides) &&
        collectVisibility(c, !inverted, trial, lq)) {
      vis = trial;
      if (isFinite)
        noteFill(finite->second);
    } else if ((!isFinite || finiteHides) &&
               readConjuncts(c, !inverted, trial = vis, lq, unread)) {
      // A finite fill read as hiding its keys splits as -inf does (the
      // caller proves that exact, every row keeping a visible key).
      vis = trial;
      if (isFinite)
        noteFill(finite->second);
      llvm::append_range(out.restConds, unread);
    } else {
      out.restConds.push_back({c, inverted});
    }
  }
  // A bound on t - pos alone says nothing the band does not (then it is
  // dropped) or the mask is read again without such bounds.
  for (auto [isUpper, bound] : vis.absolute) {
    bool implied = isUpper ? ((vis.upper && lq - 1 + *vis.upper <= bound) ||
                              (!vis.posUsed && bound >= lk - 1))
                           : ((vis.lower && *vis.lower >= bound) ||
                              (!vis.posUsed && bound <= 0));
    if (!implied) {
      MaskMeaning again =
          explainMasks(masks, conds, hq, lq, lk, finiteHides, finiteFills,
                       biasFactor, /*allowAbsolute=*/false);
      again.notes.push_back(
          llvm::formatv("a bound t - pos {0} {1} on every row is not implied "
                        "by the band",
                        isUpper ? "<=" : ">=", bound)
              .str());
      return again;
    }
  }
  auto keepAll = [&](const char *why) {
    MaskMeaning all;
    all.rest.assign(masks.begin(), masks.end());
    all.restConds.assign(conds.begin(), conds.end());
    all.scaledBias = out.scaledBias;
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

/// Interval reading of an integer or bool mask expression at one key column
/// and one query row (the last two axes, as the masks align to the scores),
/// over every other index: an iota along the last axis is that column,
/// along the row axis that row, along another axis its whole range, a
/// constant its values there, anything else the range integer range
/// analysis proves for it (an input's declared range). Elementwise ops
/// broadcast (an operand whose last dim, or row dim, is 1 is read at its
/// one column or row), reshapes that keep the last two dims or make them 1,
/// converts, +, -, *, min, max and division of a nonnegative value by a
/// positive constant. Column or row -1 stands for every one.
struct AtKeyColumn {
  const RangeOracle &oracle;
  using Range = std::pair<int64_t, int64_t>;
  enum class Truth { False, True, Unknown };
  struct At {
    int64_t row, key;
  };

  static int64_t dimFromBack(Value v, int64_t i) {
    auto t = typeOf(v);
    return t.getRank() > i ? t.getDimSize(t.getRank() - 1 - i) : 1;
  }
  /// The row and column of operand `x` that (row, key) of a result reads.
  static At atOf(Value x, At at) {
    return {dimFromBack(x, 1) == 1 ? 0 : at.row,
            dimFromBack(x, 0) == 1 ? 0 : at.key};
  }
  /// The same position of a reshape's input, where the reshape keeps it.
  static std::optional<At> throughReshape(ReshapeOp rs, At at) {
    Value x = rs.getX(), v = rs.getResult();
    bool keyKept = dimFromBack(x, 0) == dimFromBack(v, 0);
    bool rowKept = keyKept && dimFromBack(x, 1) == dimFromBack(v, 1);
    At in{-1, -1};
    if (dimFromBack(v, 0) != 1 && at.key >= 0) {
      if (!keyKept)
        return std::nullopt;
      in.key = at.key;
    }
    if (dimFromBack(v, 1) != 1 && at.row >= 0) {
      if (!rowKept)
        return std::nullopt;
      in.row = at.row;
    }
    return in;
  }
  static std::optional<Range> checked(__int128 lo, __int128 hi) {
    constexpr __int128 lim = static_cast<__int128>(1) << 62;
    if (lo < -lim || hi > lim)
      return std::nullopt;
    return Range{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  }

  std::optional<Range> range(Value v, At at, int depth = 0) const {
    if (depth > 24)
      return std::nullopt;
    auto vt = typeOf(v);
    if (!vt.getElementType().isSignlessInteger() ||
        vt.getElementType().isInteger(1))
      return std::nullopt;
    Operation *def = v.getDefiningOp();
    auto whole = [&]() -> std::optional<Range> {
      if (auto r = oracle.rangeOf(v))
        return Range{r->smin().getSExtValue(), r->smax().getSExtValue()};
      return std::nullopt;
    };
    if (!def)
      return whole();
    int64_t rank = vt.getRank();
    if (auto c = dyn_cast<ConstantOp>(def)) {
      auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
      if (!dense || dense.getNumElements() > (1 << 16))
        return whole();
      int64_t n = dimFromBack(v, 0), m = dimFromBack(v, 1), idx = 0;
      std::optional<Range> r;
      for (const APInt &x : dense.getValues<APInt>()) {
        int64_t col = idx % n, row = (idx / n) % m;
        ++idx;
        if (!dense.isSplat() && ((at.key >= 0 && col != at.key % n) ||
                                 (rank >= 2 && at.row >= 0 &&
                                  row != at.row % m)))
          continue;
        int64_t e = x.getSExtValue();
        r = r ? Range{std::min(r->first, e), std::max(r->second, e)}
              : Range{e, e};
        if (dense.isSplat())
          break;
      }
      return r;
    }
    if (auto io = dyn_cast<IotaOp>(def)) {
      int64_t dim = static_cast<int64_t>(io.getDim());
      int64_t size = vt.getDimSize(dim);
      int64_t fixed = dim == rank - 1 ? at.key : dim == rank - 2 ? at.row : -1;
      if (fixed >= 0)
        return fixed < size ? std::optional<Range>(Range{fixed, fixed})
                            : std::nullopt;
      return Range{0, size - 1};
    }
    if (auto bc = dyn_cast<BroadcastOp>(def))
      return range(bc.getX(), atOf(bc.getX(), at), depth + 1);
    if (auto rs = dyn_cast<ReshapeOp>(def)) {
      if (auto in = throughReshape(rs, at))
        return range(rs.getX(), *in, depth + 1);
      return whole();
    }
    if (auto cv = dyn_cast<ConvertOp>(def)) {
      auto r = range(cv.getX(), atOf(cv.getX(), at), depth + 1);
      unsigned width = vt.getElementType().getIntOrFloatBitWidth();
      if (r && width < 64 &&
          (r->first < -(int64_t(1) << (width - 1)) ||
           r->second >= (int64_t(1) << (width - 1))))
        return whole();
      return r ? r : whole();
    }
    if (isa<AddOp, SubOp, MulOp, MinOp, MaxOp, DivOp>(def)) {
      Value x = def->getOperand(0), y = def->getOperand(1);
      auto a = range(x, atOf(x, at), depth + 1);
      auto b = range(y, atOf(y, at), depth + 1);
      if (!a || !b)
        return whole();
      __int128 al = a->first, ah = a->second, bl = b->first, bh = b->second;
      std::optional<Range> r;
      if (isa<AddOp>(def))
        r = checked(al + bl, ah + bh);
      else if (isa<SubOp>(def))
        r = checked(al - bh, ah - bl);
      else if (isa<MinOp>(def))
        r = Range{std::min(a->first, b->first), std::min(a->second, b->second)};
      else if (isa<MaxOp>(def))
        r = Range{std::max(a->first, b->first), std::max(a->second, b->second)};
      else if (isa<MulOp>(def)) {
        __int128 p[4] = {al * bl, al * bh, ah * bl, ah * bh};
        r = checked(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
      } else if (bl == bh && bl > 0 && al >= 0) {
        r = Range{a->first / b->first, a->second / b->first};
      }
      return r ? r : whole();
    }
    return whole();
  }

  /// The value a compare operand `x` views and the index it reads there at
  /// a diagonal element of the compare (row index = key index), through
  /// broadcasts and reshapes that only insert or drop unit dims: each entry
  /// a frame axis (the row and key axes as one) or -1 for index 0. Two
  /// operands that reach the same value at the same index are equal there.
  static std::pair<Value, SmallVector<int64_t>> diagonalSource(Value x,
                                                               int64_t frame) {
    auto t = typeOf(x);
    int64_t r = t.getRank();
    SmallVector<int64_t> idx(r, -1);
    for (int64_t d = 0; d < r; ++d)
      if (t.getDimSize(d) != 1)
        idx[d] = std::min(d + frame - r, frame - 2);
    while (Operation *def = x.getDefiningOp()) {
      if (auto bc = dyn_cast<BroadcastOp>(def)) {
        auto ot = typeOf(bc.getX());
        int64_t ro = ot.getRank(), rv = idx.size();
        SmallVector<int64_t> in(ro, -1);
        for (int64_t d = 0; d < ro; ++d)
          if (ot.getDimSize(d) != 1)
            in[d] = idx[d + rv - ro];
        x = bc.getX();
        idx = in;
        continue;
      }
      auto rs = dyn_cast<ReshapeOp>(def);
      if (!rs)
        break;
      auto it = typeOf(rs.getX()), vt = typeOf(x);
      SmallVector<int64_t> pin, pout;
      for (int64_t d = 0; d < it.getRank(); ++d)
        if (it.getDimSize(d) != 1)
          pin.push_back(d);
      for (int64_t d = 0; d < vt.getRank(); ++d)
        if (vt.getDimSize(d) != 1)
          pout.push_back(d);
      if (pin.size() != pout.size() ||
          llvm::any_of(llvm::seq<size_t>(0, pin.size()), [&](size_t i) {
            return it.getDimSize(pin[i]) != vt.getDimSize(pout[i]);
          }))
        break;
      SmallVector<int64_t> in(it.getRank(), -1);
      for (size_t i = 0; i < pin.size(); ++i)
        in[pin[i]] = idx[pout[i]];
      x = rs.getX();
      idx = in;
    }
    return {x, idx};
  }

  Truth truth(Value v, At at, int depth = 0) const {
    if (depth > 24 || !typeOf(v).getElementType().isInteger(1))
      return Truth::Unknown;
    Operation *def = v.getDefiningOp();
    if (!def)
      return Truth::Unknown;
    auto flip = [](Truth t) {
      return t == Truth::True    ? Truth::False
             : t == Truth::False ? Truth::True
                                 : Truth::Unknown;
    };
    if (auto c = dyn_cast<ConstantOp>(def)) {
      auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
      if (dense && dense.isSplat())
        return dense.getSplatValue<bool>() ? Truth::True : Truth::False;
      return Truth::Unknown;
    }
    if (auto bc = dyn_cast<BroadcastOp>(def))
      return truth(bc.getX(), atOf(bc.getX(), at), depth + 1);
    if (auto rs = dyn_cast<ReshapeOp>(def)) {
      if (auto in = throughReshape(rs, at))
        return truth(rs.getX(), *in, depth + 1);
      return Truth::Unknown;
    }
    if (auto n = dyn_cast<NotOp>(def))
      return flip(truth(n.getX(), atOf(n.getX(), at), depth + 1));
    if (isa<AndOp, OrOp>(def)) {
      Value x = def->getOperand(0), y = def->getOperand(1);
      Truth a = truth(x, atOf(x, at), depth + 1);
      Truth b = truth(y, atOf(y, at), depth + 1);
      Truth absorbing = isa<AndOp>(def) ? Truth::False : Truth::True;
      if (a == absorbing || b == absorbing)
        return absorbing;
      if (a == b)
        return a;
      return Truth::Unknown;
    }
    if (auto cmp = dyn_cast<CompareOp>(def)) {
      Value x = cmp.getLhs(), y = cmp.getRhs();
      // On the diagonal, both sides one element of one value: a segment or
      // document id compared with itself (RecurrentGemma's q_seg == k_seg).
      int64_t frame = typeOf(v).getRank();
      if (at.row >= 0 && at.row == at.key && frame >= 2 &&
          diagonalSource(x, frame) == diagonalSource(y, frame)) {
        switch (cmp.getPredicate()) {
        case ComparePredicate::eq:
        case ComparePredicate::le:
        case ComparePredicate::ge:
          return Truth::True;
        default:
          return Truth::False;
        }
      }
      auto a = range(x, atOf(x, at), depth + 1);
      auto b = range(y, atOf(y, at), depth + 1);
      if (!a || !b)
        return Truth::Unknown;
      auto [al, ah] = *a;
      auto [bl, bh] = *b;
      bool yes = false, no = false;
      switch (cmp.getPredicate()) {
      case ComparePredicate::lt: yes = ah < bl; no = al >= bh; break;
      case ComparePredicate::le: yes = ah <= bl; no = al > bh; break;
      case ComparePredicate::gt: yes = al > bh; no = ah <= bl; break;
      case ComparePredicate::ge: yes = al >= bh; no = ah < bl; break;
      case ComparePredicate::eq:
        yes = al == ah && bl == bh && al == bl;
        no = ah < bl || bh < al;
        break;
      case ComparePredicate::ne:
        yes = ah < bl || bh < al;
        no = al == ah && bl == bh && al == bl;
        break;
      }
      return yes ? Truth::True : no ? Truth::False : Truth::Unknown;
    }
    return Truth::Unknown;
  }
};

/// Whether every mask kept as a tensor leaves every row a visible key it
/// can name: key 0 on every row (a padding mask over lengths declared
/// >= 1, a chunk mask whose first block starts at 0), or the row's own
/// diagonal key i + Lk - Lq (a document mask beside causal), checked row by
/// row; the band (if any) keeps that key too, with no live length. Then no
/// row is left without a visible key.
/// Whether tensor masks that are constants (conditions computed from
/// constants and iotas alone, FlexAttention's mask_mod over a trace-time
/// table: Flamingo's image intervals), or constant tables added to the
/// scores (diffusers' perturbed-attention identity mask of 0 and -inf),
/// leave every row a key the band keeps too, checked element by element.
bool constantMasksKeepAKey(const MaskMeaning &m, const Scores &sc, int64_t lq,
                           int64_t lk) {
  if (m.posUsed && (m.upper || m.lower))
    return false;
  struct Cond {
    SmallVector<double> values;
    SmallVector<int64_t> shape;
    bool visibleWhenTrue;
    /// Values added to the scores rather than a condition: a key counts as
    /// kept where the value is finite and no lower than -1e4, so the sum
    /// with a score stays finite in any float type (a larger finite
    /// penalty may overflow to -inf in f16, and is not counted as kept).
    bool additive = false;
    bool keeps(int64_t flat) const {
      double v = values[flat];
      if (additive)
        return std::isfinite(v) && v >= -1e4;
      return (v != 0.0) == visibleWhenTrue;
    }
  };
  SmallVector<Cond> conds;
  auto add = [&](Value c, bool visibleWhenTrue, bool additive = false) {
    auto values = constantElements(c, int64_t(1) << 20);
    if (!values)
      return false;
    conds.push_back({std::move(*values),
                     SmallVector<int64_t>(typeOf(c).getShape()),
                     visibleWhenTrue, additive});
    return true;
  };
  for (auto [c, inverted] : m.restConds)
    if (!add(c, !inverted))
      return false;
  for (Value t : m.rest) {
    // A bias scaled into the scores by a positive factor keeps its finite
    // values finite and its -inf -inf, so the additive reading holds for it.
    auto fm = fillMask(t);
    if (fm && !sc.biasFactor.count(t)) {
      if (!add(std::get<0>(*fm), std::get<1>(*fm)))
        return false;
      continue;
    }
    auto ft = dyn_cast<FloatType>(typeOf(t).getElementType());
    auto factor = sc.biasFactor.find(t);
    if (!ft || (factor != sc.biasFactor.end() &&
                !(factor->second > 0 && factor->second <= 1)) ||
        !add(t, true, /*additive=*/true))
      return false;
  }
  if (conds.empty())
    return false;
  // The frame: the conditions' leading dims broadcast, then [lq, lk].
  SmallVector<int64_t> lead;
  for (const Cond &c : conds) {
    int64_t r = c.shape.size();
    if ((r >= 1 && c.shape[r - 1] != 1 && c.shape[r - 1] != lk) ||
        (r >= 2 && c.shape[r - 2] != 1 && c.shape[r - 2] != lq))
      return false;
    int64_t nl = std::max<int64_t>(r - 2, 0);
    if (nl > static_cast<int64_t>(lead.size()))
      lead.insert(lead.begin(), nl - lead.size(), 1);
    for (int64_t d = 0; d < nl; ++d) {
      int64_t &x = lead[lead.size() - nl + d];
      if (x != 1 && c.shape[d] != 1 && x != c.shape[d])
        return false;
      x = std::max(x, c.shape[d]);
    }
  }
  int64_t outer = 1;
  for (int64_t d : lead)
    outer *= d;
  if (outer * lq * lk > (int64_t(1) << 22))
    return false;
  SmallVector<int64_t> at(lead.size() + 2);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t d = lead.size() - 1, r = o; d >= 0; --d) {
      at[d] = r % lead[d];
      r /= lead[d];
    }
    for (int64_t i = 0; i < lq; ++i) {
      bool kept = false;
      for (int64_t t = 0; t < lk && !kept; ++t) {
        if ((m.upper && t - i > *m.upper) || (m.lower && t - i < *m.lower))
          continue;
        at[lead.size()] = i;
        at[lead.size() + 1] = t;
        kept = llvm::all_of(conds, [&](const Cond &c) {
          int64_t off = at.size() - c.shape.size(), flat = 0;
          for (size_t d = 0; d < c.shape.size(); ++d)
            flat = flat * c.shape[d] + (c.shape[d] == 1 ? 0 : at[d + off]);
          return c.keeps(flat);
        });
      }
      if (!kept)
        return false;
    }
  }
  return true;
}

/// Whether the mask term `v` is a bias computed from the graph's products
/// the way the scores are: from matmuls through data movement and
/// arithmetic, with no constant above 1 in magnitude (zeros a relative
/// shift pads with, 0/1 tables, scales), and no tensor from outside. The
/// fill rules bound the scores' magnitude (docs/numerics.md); such a bias
/// is held to the same bound, so it moves a kept key no further than a
/// score does and hides nothing (Transformer-XL's BD term). A constant
/// like finfo.min, a -inf, or an input (which may hold either) makes it a
/// mask again.
static bool biasLikeTheScores(Value v, int depth = 0) {
  if (depth > 32)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<MatmulOp>(def))
    return true;
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto dense = dyn_cast<DenseFPElementsAttr>(c.getValue());
    auto small = [](const APFloat &x) {
      return x.isFinite() && std::fabs(x.convertToDouble()) <= 1.0;
    };
    if (!dense)
      return false;
    if (dense.isSplat())
      return small(dense.getSplatValue<APFloat>());
    return dense.getNumElements() <= (int64_t(1) << 20) &&
           llvm::all_of(dense.getValues<APFloat>(), small);
  }
  auto all = [&](ValueRange xs) {
    return llvm::all_of(
        xs, [&](Value x) { return biasLikeTheScores(x, depth + 1); });
  };
  if (isa<ReshapeOp, TransposeOp, BroadcastOp, SliceOp, ConcatOp, AddOp,
          SubOp, MulOp, MaxOp, MinOp, NegOp, AbsOp, TanhOp>(def))
    return all(def->getOperands());
  // A float convert that widens keeps a value as it is.
  if (auto cv = dyn_cast<ConvertOp>(def)) {
    auto from = dyn_cast<FloatType>(typeOf(cv.getX()).getElementType());
    auto to = dyn_cast<FloatType>(cv.getType().getElementType());
    return from && to && to.getWidth() >= from.getWidth() && all(cv.getX());
  }
  if (auto g = dyn_cast<GatherOp>(def))
    return all(g->getOperand(0));
  if (auto sel = dyn_cast<SelectOp>(def))
    return all({sel.getOnTrue(), sel.getOnFalse()});
  return false;
}

/// The mask terms left as tensors that biasLikeTheScores holds, reaching the
/// scores at a factor of at most 1.
static SmallVector<Value> scoreLikeBiases(const MaskMeaning &m,
                                          const Scores &sc) {
  SmallVector<Value> out;
  for (Value t : m.rest) {
    auto factor = sc.biasFactor.find(t);
    if ((factor == sc.biasFactor.end() ||
         (factor->second > 0 && factor->second <= 1)) &&
        biasLikeTheScores(t))
      out.push_back(t);
  }
  return out;
}

bool tensorMasksKeepAKey(const MaskMeaning &m, const Scores &sc,
                         func::FuncOp fn, int64_t lq, int64_t lk,
                         bool liveLength) {
  SmallVector<Value> biases = scoreLikeBiases(m, sc);
  if (liveLength || !m.alibi.empty())
    return false;
  RangeOracle oracle(fn);
  AtKeyColumn reader{oracle};
  using Truth = AtKeyColumn::Truth;
  auto keeps = [&](AtKeyColumn::At at) {
    SmallVector<std::pair<double, double>> bounded;
    SmallVector<Type> types{typeOf(sc.qk).getElementType()};
    for (auto [c, inverted] : m.restConds)
      if (reader.truth(c, AtKeyColumn::atOf(c, at)) !=
          (inverted ? Truth::False : Truth::True))
        return false;
    for (Value t : m.rest) {
      if (llvm::is_contained(biases, t))
        continue;
      auto fm = fillMask(t);
      if (!fm || sc.biasFactor.count(t)) {
        // A term of bounded values hides no key, where the terms so read
        // cannot sum past the type's range.
        auto b = sc.biasFactor.count(t) ? std::nullopt : finiteBound(t, oracle);
        if (!b)
          return false;
        bounded.push_back(*b);
        types.push_back(typeOf(t).getElementType());
        continue;
      }
      auto [c, visibleWhenTrue, fill] = *fm;
      (void)fill;
      if (reader.truth(c, AtKeyColumn::atOf(c, at)) !=
          (visibleWhenTrue ? Truth::True : Truth::False))
        return false;
    }
    return bounded.empty() || sumStaysFinite(bounded, types);
  };
  if (constantMasksKeepAKey(m, sc, lq, lk))
    return true;
  // Key 0 on every row, where the band keeps it.
  if (!m.lower &&
      (!m.upper || rowsKeepAKey(m.upper, std::nullopt,
                                m.posUsed ? m.pos : Value(), lq, lk, fn)) &&
      keeps({-1, 0}))
    return true;
  // The diagonal, row by row: t = i + (Lk - Lq), which a band without pos
  // (t - i in [lower, upper]) keeps where lower <= Lk - Lq <= upper.
  if (m.posUsed || lq > 4096 || lk < lq ||
      (m.upper && *m.upper < lk - lq) || (m.lower && *m.lower > lk - lq))
    return false;
  for (int64_t i = 0; i < lq; ++i)
    if (!keeps({i, i + lk - lq}))
      return false;
  return true;
}

/// The least magnitude of a finite select fill that absorbs the scores:
/// s + f rounds to f for |s| below half an ulp of f, which at 2^96 is
/// 2^72 in f32 and 2^43 (about 9e12) in f64 (the oracle), far past any
/// score; -1e30 (Haiku's and Grok-1's fill, about 2^99.7) passes.
constexpr double kAbsorbingFill = -0x1p96;

/// Why the finite fill `fill` of the select on the scores by `cond` is not
/// exactly the additive mask select(cond, 0, fill), or "" when it is. Where
/// the select hides a key the graph's score is f, then whatever masks lie
/// outside it are added; the fused op adds s * scale to the same sum. The
/// two agree when
/// - f absorbs the score (|f| >= 2^96): s * scale + f rounds back to f,
///   so a row the masks hide whole averages v in both, and a row that
///   keeps a key gives the hidden ones weight 0 in both;
/// - the select is the mask nearest the scores (a -inf mask inside it would
///   be replaced by f in the graph but kept by the fused op), and no other
///   select fill is finite;
/// - every other mask term is a -inf select, a meaning the fused op
///   applies (a band, ALiBi: outside the select either way), or a fill term
///   of 0 and g where f + g overflows to -inf in the scores' type (the
///   padding masks front ends build from finfo.min), so no term can pull
///   the sum back into the range of the scores.
std::string absorbedFillRisk(const Scores &sc, const MaskMeaning &m,
                             Value cond, double fill, Type et,
                             SmallVectorImpl<Value> *inside = nullptr) {
  if (!std::isfinite(fill) || fill > kAbsorbingFill)
    return "too small to absorb the scores";
  if (llvm::count_if(sc.selectConds, [&](const std::pair<Value, bool> &x) {
        return x.first == cond;
      }) != 1)
    return "a mask is applied inside the select";
  // Tensor terms T added inside the select, select(c, s + T, f), go into
  // it: s + select(c, T, f) is the same, s + f rounding back to f, whatever
  // T holds where c hides. Only plain tensor terms (no select, meaning or
  // term inside a scale, which the fused op would apply outside).
  SmallVector<Value> within;
  if (sc.innermostSelect != cond) {
    auto it = sc.peeledBefore.find(cond);
    if (it == sc.peeledBefore.end() ||
        sc.selectConds.size() != it->second.second + 1)
      return "a mask is applied inside the select";
    for (size_t k = it->second.first; k < sc.masks.size(); ++k) {
      Value t = sc.masks[k];
      if (!llvm::is_contained(m.rest, t) || sc.biasFactor.count(t))
        return "a mask is applied inside the select";
      within.push_back(t);
    }
  }
  auto ft = dyn_cast<FloatType>(et);
  if (!ft)
    return "scores of no float type";
  auto in = [&](double x) { return towardZero(x, ft.getFloatSemantics()); };
  for (Value t : m.rest) {
    if (llvm::is_contained(within, t))
      continue;
    auto fm = fillMask(t);
    if (!fm || sc.biasFactor.count(t))
      return "another tensor mask beside it";
    double g = std::get<2>(*fm);
    if (std::isinf(g))
      continue;
    APFloat sum = in(fill);
    sum.add(in(g), APFloat::rmNearestTiesToEven);
    if (!sum.isInfinity())
      return "another finite fill beside it";
  }
  if (inside)
    inside->assign(within.begin(), within.end());
  return "";
}

/// Whether the clamp max(x, L) of the masked scores x moves no score, so
/// that it drops whatever the masks mean: the masks are one additive term
/// of 0 and a fill g that absorbs the scores (|g| >= 2^96) with L <= g in
/// the scores' type, and nothing else (no select, band or -inf fill that
/// could put a score below L). Every score is then s * scale (+ a finite
/// bias) or exactly g: XGLM's and OPT-style clamps behind a padding mask.
bool clampMovesNothing(const Scores &sc, const MaskMeaning &m, Type et) {
  auto ft = dyn_cast<FloatType>(et);
  if (!ft || !sc.clampFill || !sc.selectConds.empty() || m.upper || m.lower ||
      !m.restConds.empty() || m.rest.size() != 1 ||
      sc.biasFactor.count(m.rest.front()))
    return false;
  auto fm = fillMask(m.rest.front());
  if (!fm)
    return false;
  double g = std::get<2>(*fm);
  auto in = [&](double x) {
    return towardZero(x, ft.getFloatSemantics()).convertToDouble();
  };
  return std::isfinite(in(g)) && in(g) <= kAbsorbingFill &&
         in(*sc.clampFill) <= in(g);
}

/// Why a finite fill read as hiding keys may differ from -inf, or "" when it
/// cannot: the fill is low enough that exp underflows to exactly 0 (for any
/// score at finfo.min-like fills), and every query row is proven to keep a
/// visible key, so the only place the two differ (a row with no visible key:
/// a finite fill averages it, -inf gives 0/0) never occurs.
std::string finiteFillRisk(const MaskMeaning &m, const Scores &sc,
                           int64_t lq, int64_t lk, bool liveLength,
                           func::FuncOp fn, bool rowsMayBeEmpty = false) {
  double fill = *m.finiteFill;
  std::string f = llvm::formatv("{0}", llvm::format("%g", fill)).str();
  if (fill > kHidingFill)
    return llvm::formatv("finite mask fill {0} is too small to hide keys: "
                         "exp(score + fill) need not underflow",
                         f);
  // ALiBi moves a hidden score by slope * (t + a row constant): the row
  // constant cancels against the row's max, and within a row the bias
  // spreads by at most max|slope| * (Lk - 1). A fill that still hides keys
  // with that spread on top of the score bound the hiding fill assumes is
  // as good as -inf; finfo.min-like fills hide keys under any bias.
  if (!m.alibi.empty() && fill > kLowestFill) {
    double maxSlope = 0.0;
    for (double slope : m.alibi)
      maxSlope = std::max(maxSlope, std::fabs(slope));
    double spread = maxSlope * static_cast<double>(lk - 1);
    if (!(std::isfinite(spread) && fill + spread <= kHidingFill))
      return llvm::formatv("finite mask fill {0} under an ALiBi bias that "
                           "may outgrow it",
                           f);
  }
  // Each bias held to the scores' bound widens the range a row's values
  // span as one more score would: the fill must hide keys under that many
  // (kHidingFill is twice the score bound plus exp's underflow margin).
  if (size_t n = scoreLikeBiases(m, sc).size();
      n && fill > kHidingFill * static_cast<double>(1 + n))
    return llvm::formatv("finite mask fill {0} beside {1} bias(es) computed "
                         "from products, which may outgrow it",
                         f, n);
  if (rowsMayBeEmpty)
    return "";
  std::string noKey = llvm::formatv(
      "finite mask fill {0} with rows that may have no visible key", f);
  // Tensor masks beside the band: each row must keep key 0 or its own
  // diagonal key through all of them (a segment or document compare).
  // A window keeps keys above a row's position only, which may all lie
  // past a live length.
  if (liveLength && m.lower)
    return noKey + " (a window under a live length)";
  if (!m.rest.empty() || !m.restConds.empty()
          ? !tensorMasksKeepAKey(m, sc, fn, lq, lk, liveLength)
          : !rowsKeepAKey(m.upper, m.lower, m.posUsed ? m.pos : Value(), lq,
                          lk, fn))
    return noKey;
  return "";
}

/// The live form read from the scores alone: a mask that hides exactly the
/// keys t >= len[b] (scoresLiveBound), with 1 <= len <= Lk proven, as a -inf
/// select or added term, or with a finite fill where that fill stands for
/// -inf exactly (finiteFillRisk under the live length, with the other
/// masks). The mask is taken out of `sc` and `selectConds` and len
/// returned; nothing changes where there is none.
///
/// Keys past len are then never read, where the graph reads them and gives
/// them weight 0: the two agree wherever the graph's output is a number (a
/// key or value row past len holding inf or NaN makes the graph's 0 * x
/// NaN, and the fused op skips that row).
Value liveFromScores(Scores &sc,
                     SmallVectorImpl<std::pair<Value, bool>> &selectConds,
                     int64_t b, int64_t hq, int64_t lq, int64_t lk,
                     func::FuncOp fn) {
  std::string why;
  auto exact = [&](double fill, ArrayRef<Value> masks,
                   ArrayRef<std::pair<Value, bool>> conds) {
    if (std::isinf(fill))
      return true;
    MaskMeaning probe = explainMasks(masks, conds, hq, lq, lk,
                                     /*finiteHides=*/true, sc.finiteFills,
                                     sc.biasFactor);
    probe.finiteFill =
        probe.finiteFill ? std::max(*probe.finiteFill, fill) : fill;
    return finiteFillRisk(probe, sc, lq, lk, /*liveLength=*/true, fn).empty();
  };
  // A select of the scores by the bound.
  for (auto [cond, inverted] : selectConds) {
    Value len = scoresLiveBound(cond, !inverted, b);
    if (!len || !proveLiveBound(len, lk, fn, why))
      continue;
    auto it = sc.finiteFills.find(cond);
    double fill = it == sc.finiteFills.end()
                      ? -std::numeric_limits<double>::infinity()
                      : it->second;
    std::pair<Value, bool> taken{cond, inverted};
    SmallVector<std::pair<Value, bool>> rest;
    for (const auto &c : selectConds)
      if (c != taken)
        rest.push_back(c);
    if (!exact(fill, sc.masks, rest))
      continue;
    // Every select by it goes; the selects after one count one fewer
    // before them.
    for (int64_t j = static_cast<int64_t>(sc.selectConds.size()) - 1; j >= 0;
         --j) {
      if (sc.selectConds[j] != taken)
        continue;
      sc.selectConds.erase(sc.selectConds.begin() + j);
      for (auto &entry : sc.peeledBefore)
        if (entry.second.second > static_cast<size_t>(j))
          --entry.second.second;
    }
    sc.peeledBefore.erase(cond);
    sc.finiteFills.erase(cond);
    if (sc.innermostSelect == cond)
      sc.innermostSelect = Value();
    selectConds.assign(rest.begin(), rest.end());
    return len;
  }
  // An added term of 0 and a fill, by the bound.
  for (size_t i = 0; i < sc.masks.size(); ++i) {
    SmallVector<Value> terms;
    maskTerms(sc.masks[i], terms);
    for (Value term : terms) {
      auto fm = fillMask(term);
      if (!fm || sc.biasFactor.count(term) || sc.biasFactor.count(sc.masks[i]))
        continue;
      auto [cond, visibleWhenTrue, fill] = *fm;
      Value len = scoresLiveBound(cond, visibleWhenTrue, b);
      if (!len || !proveLiveBound(len, lk, fn, why))
        continue;
      SmallVector<Value> others;
      for (size_t j = 0; j < sc.masks.size(); ++j)
        if (j != i)
          others.push_back(sc.masks[j]);
        else
          for (Value t : terms)
            if (t != term)
              others.push_back(t);
      if (!exact(fill, others, selectConds))
        continue;
      // The mask is replaced by its other terms, in place.
      SmallVector<Value> kept;
      for (Value t : terms)
        if (t != term)
          kept.push_back(t);
      sc.masks.erase(sc.masks.begin() + i);
      sc.masks.insert(sc.masks.begin() + i, kept.begin(), kept.end());
      for (auto &entry : sc.peeledBefore)
        if (entry.second.first > i)
          entry.second.first = entry.second.first + kept.size() - 1;
      return len;
    }
  }
  return nullptr;
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
  // Probabilities that something else reads (a second product, an output
  // of the graph) stay computed for it: fusing P . V would compute them
  // twice and save no read of them.
  if (!root.getLhs().hasOneUse()) {
    Operation *other = nullptr;
    for (Operation *user : root.getLhs().getUsers())
      if (user != root.getOperation())
        other = user;
    return decline(rewriter, root,
                   "the probabilities are also read by " +
                       (other ? describeOp(other)
                              : std::string("the product twice")) +
                       ": fused, they would be computed twice");
  }
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
  SmallVector<const RowGuard *> finiteSameMask;
  for (const RowGuard &g : rowGuards) {
    if (g.kind == RowGuard::EmptyScores && !onChain(*peeled, g.scores))
      return decline(rewriter, root,
                     describeOp(g.op) +
                         " zeroes rows by the max of a value that is not on "
                         "the score chain the softmax normalises");
    if (g.kind == RowGuard::SameMask &&
        !hidesWithNegInf(*peeled, g.cond, g.visibleWhenTrue)) {
      // The scores selected by the same condition with a finite fill:
      // decided once the masks are read (where that fill stands exactly for
      // -inf, the probabilities are already 0 where the guard zeroes them).
      if (selectingCond(*peeled, g.cond, g.visibleWhenTrue, /*finite=*/true)) {
        finiteSameMask.push_back(&g);
        continue;
      }
      return decline(rewriter, root,
                     describeOp(g.op) +
                         " masks the probabilities after the softmax by a "
                         "condition the scores are not masked with: the "
                         "weights it keeps are not renormalised");
    }
  }
  auto qk = peeled->qk.getDefiningOp<MatmulOp>();

  // q [B, Hq, Lq, Dk] . kT [B, H, Dk, Lk], each possibly scaled.
  double scale = peeled->scale;
  Value q = peelScale(qk.getLhs(), scale, nullptr, true);
  Value kT = peelScale(qk.getRhs(), scale, nullptr, true);
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
  std::optional<GroupedView> kGroup, vGroup;
  int64_t groups = 1;
  if (grouped) {
    kGroup = matchGroupedView(kT);
    vGroup = matchGroupedView(root.getRhs());
    if (!kGroup || !vGroup)
      return decline(rewriter, root,
                     "grouped keys or values are not one head per group "
                     "spread over the group axis");
    groups = qt.getDimSize(2);
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
  int64_t lead = unbatched ? 1 : 0; // dims the fused op has that q lacks
  int64_t b = unbatched ? 1 : qt.getDimSize(0);
  int64_t hq = qt.getDimSize(1 - lead), lq = qt.getDimSize(2 - lead);
  if (grouped) {
    hq = qt.getDimSize(1) * groups;
    lq = qt.getDimSize(3);
  }
  // One query head the first matmul broadcasts against several key heads
  // (MGP-STR's learned queries [T, C] against a batch of keys): the query
  // is read by every head, so the fused op gets it broadcast, one query
  // head per key head.
  bool broadcastQueryHeads = false;
  if (!grouped && hq == 1 && ktt.getDimSize(1 - lead) > 1 &&
      typeOf(root.getRhs()).getDimSize(1 - lead) ==
          ktt.getDimSize(1 - lead)) {
    hq = ktt.getDimSize(1 - lead);
    broadcastQueryHeads = true;
  }
  Location loc = root.getLoc();
  int64_t headAxis = 1 - lead;
  auto isIdentityPerm = [](ArrayRef<int64_t> p) {
    return llvm::equal(p, llvm::seq<int64_t>(0, p.size()));
  };

  // Keys and values, each read through its head maps (HeadMap.h: repeat_kv
  // as reshape/broadcast/reshape in either order, a head gather by a known
  // index, a broadcast head) down to the tensor the fused op reads, with
  // the maps composed into one per query head. The first reading takes the
  // maps; where they are not one grouping shared by k and v, the second
  // reads k and v as the matmuls see them (n_rep 1: correct, just not
  // reading the keys once).
  double scaleTop = scale;
  Value kTTop = kT;
  // k is kExp [.., Lk, D], or kLayoutSrc (or the view kHeadView) transposed
  // by kLayoutPerm; v is vExp or the view vHeadView.
  Value kExp, kLayoutSrc, vExp;
  SmallVector<int64_t> kLayoutPerm, kShape;
  std::optional<heads::HeadMapLevel> kHeadView, vHeadView;
  RankedTensorType vt;
  SmallVector<int64_t> kMap, vMap;
  int64_t kHeads = 0, vHeads = 0;
  Value kLive, vLive;
  std::string headNote, differ;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool useMaps = attempt == 0 && !grouped;
    scale = scaleTop;
    kT = kTTop;
    kExp = kLayoutSrc = vExp = kLive = vLive = Value();
    kHeadView.reset();
    vHeadView.reset();
    // The map of the operand as the matmul sees it: its own heads, or one
    // head the matmul broadcasts.
    auto topMap = [&](int64_t h, SmallVectorImpl<int64_t> &map) {
      map.clear();
      for (int64_t i = 0; i < hq; ++i)
        map.push_back(h == hq ? i : 0);
      return h == hq || h == 1;
    };
    // Reads the head maps behind x along `axis` into `map`, peeling splat
    // scales on the way for k. Null when the last base is only a view (in
    // `view`).
    auto strip = [&](Value x, int64_t axis, SmallVectorImpl<int64_t> &map,
                     int64_t &count, bool peel,
                     std::optional<heads::HeadMapLevel> &view) -> Value {
      while (useMaps) {
        if (peel)
          x = peelScale(x, scale, nullptr, true);
        auto level = heads::readHeadMap(x);
        if (!level || level->axis != axis)
          break;
        for (int64_t &m : map)
          m = level->map[m];
        count = level->baseType.getDimSize(axis);
        if (!level->base()) {
          view = level;
          return Value();
        }
        x = level->src;
      }
      return x;
    };

    Value kTSrc = kT;
    SmallVector<int64_t> kTPerm; // k^T is kTSrc transposed by it, when set
    kLayoutPerm = unbatched ? SmallVector<int64_t>{0, 2, 1}
                            : SmallVector<int64_t>{0, 1, 3, 2};
    if (grouped) {
      kTSrc = kGroup->src;
      kTPerm = kGroup->perm;
    } else {
      kHeads = typeOf(kT).getDimSize(headAxis);
      if (!topMap(kHeads, kMap))
        return decline(rewriter, root,
                       llvm::formatv("key heads {0} do not match query heads "
                                     "{1}",
                                     kHeads, hq));
      // Maps on k^T itself: a head gather on a pre-transposed cache, or a
      // repeat poot-canonicalize moved above the transpose.
      kTSrc = strip(kT, headAxis, kMap, kHeads, true, kHeadView);
    }
    if (kTSrc && kTPerm.empty())
      if (auto tr = kTSrc.getDefiningOp<TransposeOp>()) {
        kTSrc = tr.getX();
        kTPerm = llvm::to_vector(tr.getPerm());
      }
    // The fused op wants k as [.., Lk, D]. k^T is a transpose of it, or of
    // a tensor in another layout (one permute from [B, L, H, D]), or k laid
    // out [.., D, Lk] in memory; the last two get a transpose when fused.
    if (!kTSrc) {
      // k^T is the view: k is its transpose.
    } else if (!kTPerm.empty()) {
      SmallVector<int64_t> composed;
      for (int64_t p : kLayoutPerm)
        composed.push_back(kTPerm[p]);
      if (isIdentityPerm(composed)) {
        kExp = peelScale(kTSrc, scale, nullptr, true);
      } else {
        kLayoutSrc = kTSrc;
        kLayoutPerm = composed;
      }
    } else {
      kLayoutSrc = kTSrc;
    }
    if (kExp) {
      kExp = strip(kExp, headAxis, kMap, kHeads, true, kHeadView);
      if (!kExp)
        kLayoutPerm = llvm::to_vector(llvm::seq<int64_t>(0, 4 - lead));
    } else if (kLayoutSrc) {
      kLayoutSrc = strip(kLayoutSrc, kLayoutPerm[headAxis], kMap, kHeads, true,
                         kHeadView);
    }
    auto ktt = grouped ? permuted(typeOf(kTSrc), kTPerm) : typeOf(kTTop);
    kShape = {unbatched ? 1 : ktt.getDimSize(0),
              grouped ? ktt.getDimSize(1) : kHeads, ktt.getDimSize(3 - lead),
              ktt.getDimSize(2 - lead)};

    vExp = grouped ? vGroup->src : root.getRhs();
    if (!grouped && typeOf(vExp).getRank() != 4 - lead)
      return decline(rewriter, root, "expected a rank-4 value");
    if (!grouped) {
      vHeads = typeOf(vExp).getDimSize(headAxis);
      if (!topMap(vHeads, vMap))
        return decline(rewriter, root,
                       llvm::formatv("key heads {0} do not match query heads "
                                     "{1}",
                                     vHeads, hq));
      vExp = strip(vExp, headAxis, vMap, vHeads, false, vHeadView);
    }

    // select(t < len, x, 0) zeroes inactive rows (a true select, so a NaN
    // there cannot reach the output); read on [B, H, L, D] only, inside or
    // outside the head maps.
    auto live = [&](Value &x, SmallVectorImpl<int64_t> &map, int64_t &count,
                    bool peel,
                    std::optional<heads::HeadMapLevel> &view) -> Value {
      if (!x || unbatched || grouped)
        return Value();
      auto sel = x.getDefiningOp<SelectOp>();
      if (!sel || !isSplat(sel.getOnFalse(), 0.0) ||
          sel.getOnTrue().getType() != sel.getType())
        return Value();
      Value len = matchLiveCond(sel.getCond(), 2);
      if (!len)
        return Value();
      x = strip(sel.getOnTrue(), headAxis, map, count, peel, view);
      return len;
    };
    kLive = live(kExp, kMap, kHeads, true, kHeadView);
    if (!kExp && !kLayoutSrc && kHeadView && kLive)
      kLayoutPerm = llvm::to_vector(llvm::seq<int64_t>(0, 4 - lead));
    vLive = live(vExp, vMap, vHeads, false, vHeadView);
    vt = grouped ? permuted(typeOf(vExp), vGroup->perm)
                 : (vExp ? typeOf(vExp) : vHeadView->baseType);
    if (!useMaps)
      break;
    // One map for k and v, a grouping: every key head read by the same
    // number of query heads.
    std::string wrong;
    if (kHeads != vHeads || kMap != vMap) {
      wrong = "key and value heads are mapped differently";
      differ = llvm::formatv("k and v repeat their heads differently ({0} vs "
                             "{1})",
                             hq / kHeads, hq / vHeads);
    } else if (hq % kHeads) {
      wrong = llvm::formatv("{0} key heads do not divide {1} query heads",
                            kHeads, hq);
    } else {
      SmallVector<int64_t> count(kHeads, 0);
      for (int64_t m : kMap)
        ++count[m];
      if (llvm::any_of(count, [&](int64_t c) { return c != hq / kHeads; }))
        wrong = "the head map is not a grouping (key heads read by "
                "different numbers of query heads)";
    }
    if (wrong.empty())
      break;
    headNote = "; " + wrong + ", so n_rep 1 over the repeated keys and values";
  }
  if (!grouped && (kHeads != vHeads || kMap != vMap))
    return decline(rewriter, root,
                   !differ.empty() ? differ
                                   : llvm::formatv("k and v repeat their heads "
                                                   "differently ({0} vs {1})",
                                                   hq / kHeads, hq / vHeads)
                                         .str());
  if (vt.getRank() != 4 - lead)
    return decline(rewriter, root, "expected a rank-4 value");
  int64_t vBatch = unbatched ? 1 : vt.getDimSize(0);
  // Keys and values of batch 1 against queries of batch N (a prefix shared
  // by every row; an explicit broadcast of the batch axis in front of a
  // matmul is dropped by poot-canonicalize): folded into the query heads,
  // or broadcast to the query batch in front of the fused op (only the
  // dense form), where the op is built.
  const bool broadcastBatch =
      !grouped && kShape[0] == 1 && vBatch == 1 && b > 1;
  if ((kShape[0] != b || vBatch != b) && !broadcastBatch)
    return decline(rewriter, root,
                   llvm::formatv("key/value batch {0}/{1} broadcast against "
                                 "query batch {2}",
                                 kShape[0], vBatch, b));
  if (grouped) {
    // One key head per group; the group axis is the repeat.
    int64_t hkv = qt.getDimSize(1);
    if (kShape[1] != hkv || vt.getDimSize(1) != hkv)
      return decline(rewriter, root,
                     llvm::formatv("grouped key/value heads {0}/{1} do not "
                                   "match the query's {2} groups",
                                   kShape[1], vt.getDimSize(1), hkv));
  }
  int64_t nRep = grouped ? groups : hq / kHeads;
  // Query heads in the order the map groups them: h' = kv * n_rep + r reads
  // key head h' / n_rep. The fused op sees q (and every per-head mask and
  // slope) permuted by it and its output is permuted back.
  SmallVector<int64_t> qPerm;
  if (!grouped) {
    SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, hq));
    llvm::stable_sort(order,
                      [&](int64_t x, int64_t y) { return kMap[x] < kMap[y]; });
    if (!isIdentityPerm(order))
      qPerm = order;
  }
  Value k = kExp, v = vExp;
  int64_t lk = kShape[2];

  // The live form: the same len bounds the key rows, the value rows and the
  // scores, and is proven inside [1, Lk].
  Value len;
  SmallVector<std::pair<Value, bool>> selectConds(peeled->selectConds);
  auto fn = root->getParentOfType<func::FuncOp>();
  if (kLive && kLive == vLive) {
    auto it = llvm::find_if(selectConds, [&](std::pair<Value, bool> c) {
      return !c.second && !peeled->finiteFills.count(c.first) &&
             matchLiveCond(c.first, 3) == kLive;
    });
    if (it == selectConds.end())
      return decline(rewriter, root,
                     "key rows are zeroed past a length the "
                     "scores are not masked by");
    if (!proveLiveBound(kLive, lk, fn, why))
      return decline(rewriter, root, why);
    len = kLive;
    selectConds.erase(it);
  } else if (kLive || vLive) {
    return decline(rewriter, root,
                   "key and value rows are bounded by different lengths");
  } else if (!unbatched && !grouped && !broadcastBatch &&
             !peeled->clampFill && rowGuards.empty() &&
             finiteSameMask.empty()) {
    len = liveFromScores(*peeled, selectConds, b, hq, lq, lk, fn);
  }

  // Key forms: paged through a proven read map, or the split MLA key.
  std::string form = "dense";
  Value read, kShared;
  // The gathered view: k (or v) = transpose(gather(pool, read)), or k read
  // as kLayoutSrc transposed by [0, 2, 1, 3] with kLayoutSrc the gather.
  auto pagedOf = [](Value x, Value src = Value(),
                    ArrayRef<int64_t> perm = {}) -> std::pair<GatherOp, bool> {
    auto tr = x ? x.getDefiningOp<TransposeOp>() : nullptr;
    if (tr && tr.getPerm() == ArrayRef<int64_t>{0, 2, 1, 3}) {
      src = tr.getX();
      perm = tr.getPerm();
    } else if (x) {
      src = Value();
    }
    if (!src || perm != ArrayRef<int64_t>{0, 2, 1, 3})
      return {nullptr, false};
    auto g = src.getDefiningOp<GatherOp>();
    if (!g ||
        (static_cast<int64_t>(g.getAxis()) != 0 &&
         static_cast<int64_t>(g.getAxis()) != -3) ||
        typeOf(g.getX()).getRank() != 3 || typeOf(g.getIdx()).getRank() != 2)
      return {nullptr, false};
    return {g, true};
  };
  auto [kg, kPaged] = pagedOf(k, kLayoutSrc, kLayoutPerm);
  auto [vg, vPaged] = pagedOf(v);
  std::string note;
  if (len && !kLive)
    note += "; the live length read from the scores' mask alone (keys past "
            "it are not read)";
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

  if (broadcastBatch && (form != "dense" || kLive))
    return decline(rewriter, root,
                   llvm::formatv("key/value batch 1 broadcast against query "
                                 "batch {0} with a {1} key{2}",
                                 b, form == "dense" ? "live" : form,
                                 form == "dense" ? " length" : ""));

  // One element type for the fused op: the widest the chain holds, so no
  // operand and no result loses precision (a bf16 model whose attention
  // core runs in f32 keeps its f32 core).
  auto resultType = typeOf(root.getResult());
  Type et = widerFloat(resultType.getElementType(), qt.getElementType());
  et = widerFloat(et, k            ? typeOf(k).getElementType()
                      : kLayoutSrc ? typeOf(kLayoutSrc).getElementType()
                                   : kHeadView->baseType.getElementType());
  et = widerFloat(et, vt.getElementType());
  if (kShared)
    et = widerFloat(et, typeOf(kShared).getElementType());

  // Masks: what the graph proves of them becomes attributes (causal,
  // window, ALiBi slopes at the query position); the rest stays a tensor.
  auto scoresType = RankedTensorType::get({b, hq, lq, lk}, et);
  // Grouped scores are [B, Hkv, n, Lq, Lk]; a mask over [Lq, Lk] alone
  // means the same in the rank-4 frame. So does one whose head axes Hkv
  // and n both have size 1 (a mask per batch row, the padding of JAX's
  // [B, 1, 1, T, S]): it is that mask viewed [B|1, 1, Lq|1, Lk|1]. Others
  // (per head or per group) would need their axes regrouped.
  auto unitHeadsView = [&](Value m) -> std::optional<RankedTensorType> {
    auto t = typeOf(m);
    if (t.getRank() > 5)
      return std::nullopt;
    SmallVector<int64_t> d(5 - t.getRank(), 1);
    llvm::append_range(d, t.getShape());
    // A mask that varies over the key heads or the group (Doge's dynamic
    // mask, repeated with the keys) is one mask per query head h = g * n +
    // r, in the order the grouped query heads are flattened.
    if ((d[1] != 1 && d[1] != qt.getDimSize(1)) ||
        (d[2] != 1 && d[2] != qt.getDimSize(2)))
      return std::nullopt;
    int64_t heads = d[1] == 1 && d[2] == 1
                        ? 1
                        : qt.getDimSize(1) * qt.getDimSize(2);
    return RankedTensorType::get({d[0], heads, d[3], d[4]},
                                 t.getElementType());
  };
  auto maskViewType = [&](Value m) {
    if (!grouped)
      return typeOf(m);
    Value s = stripAligned(m);
    if (typeOf(s).getRank() <= 2)
      return typeOf(s);
    return *unitHeadsView(m);
  };
  auto maskView = [&](Value m) -> Value {
    if (!grouped)
      return m;
    Value s = stripAligned(m);
    if (typeOf(s).getRank() <= 2)
      return s;
    auto view = *unitHeadsView(m);
    auto t = typeOf(m);
    if (view.getDimSize(1) != 1) {
      // Spelled out over both head axes before they merge.
      SmallVector<int64_t> d(5 - t.getRank(), 1);
      llvm::append_range(d, t.getShape());
      Value x = m;
      if (t.getRank() != 5)
        x = rewriter.create<ReshapeOp>(
            loc, RankedTensorType::get(d, t.getElementType()), x);
      SmallVector<int64_t> full{d[0], qt.getDimSize(1), qt.getDimSize(2), d[3],
                                d[4]};
      if (ArrayRef<int64_t>(full) != ArrayRef<int64_t>(d))
        x = rewriter.create<BroadcastOp>(loc, x, full);
      return rewriter.create<ReshapeOp>(loc, view, x);
    }
    return rewriter.create<ReshapeOp>(loc, view, m);
  };
  if (grouped) {
    SmallVector<Value> all(peeled->masks);
    for (auto [c, inverted] : selectConds)
      all.push_back(c);
    for (Value m : all)
      if (typeOf(stripAligned(m)).getRank() > 2 && !unitHeadsView(m))
        return decline(rewriter, root,
                       llvm::formatv("grouped scores take masks over [Lq, Lk] "
                                     "or with unit head and group axes only, "
                                     "got {0}",
                                     typeOf(m)));
  }
  MaskMeaning meaning =
      explainMasks(peeled->masks, selectConds, hq, lq, lk,
                   /*finiteHides=*/true, peeled->finiteFills,
                   peeled->biasFactor);
  bool finiteExact = false;
  // The finite fill stands for -inf with rows that may be empty: the one
  // mask is the select the guard after the softmax repeats, so a row it
  // hides whole is 0 in the graph (averaged, then zeroed) and 0 in the
  // fused op under zero_empty_rows.
  bool finiteEmptyRowsZero = false;
  auto guardsRepeatTheMask = [&] {
    return !finiteSameMask.empty() &&
           llvm::all_of(rowGuards, [&](const RowGuard &g) {
             return g.kind == RowGuard::SameMask &&
                    onlyMaskIs(*peeled, g.cond, g.visibleWhenTrue,
                               static_cast<bool>(len));
           });
  };
  if (meaning.finiteFill) {
    // A finite fill stands for -inf only where that is exact; otherwise the
    // masks are read again with finite fills as values (an additive one
    // stays a tensor, which computes the same sum).
    std::string risk = finiteFillRisk(meaning, *peeled, lq, lk,
                                      static_cast<bool>(len), fn);
    if (!risk.empty() && guardsRepeatTheMask() &&
        finiteFillRisk(meaning, *peeled, lq, lk, static_cast<bool>(len), fn,
                       /*rowsMayBeEmpty=*/true)
            .empty()) {
      risk.clear();
      finiteEmptyRowsZero = true;
    }
    finiteExact = risk.empty();
    if (!risk.empty()) {
      meaning = explainMasks(peeled->masks, selectConds, hq, lq, lk,
                             /*finiteHides=*/false, peeled->finiteFills,
                             peeled->biasFactor);
      meaning.notes.push_back("mask kept as a tensor: " + risk);
      // A select fill left as a condition fuses only as the additive mask
      // of a fill that absorbs the scores (below); any other is declined
      // here with the reason it cannot stand for -inf.
      for (auto [c, inverted] : meaning.restConds)
        if (auto it = peeled->finiteFills.find(c);
            it != peeled->finiteFills.end() &&
            !absorbedFillRisk(*peeled, meaning, c, it->second, et).empty())
          return decline(rewriter, root, risk);
    }
  }
  // The same with the fill on a condition kept as a tensor (a padding
  // mask): the one mask, low enough that exp underflows to exactly 0 on
  // the keys it hides, so it is the -inf tensor mask under zero_empty_rows.
  if (!finiteExact && guardsRepeatTheMask()) {
    Value c = peeled->selectConds.front().first;
    double f = peeled->finiteFills.lookup(c);
    if (std::isfinite(f) && f <= kHidingFill &&
        llvm::any_of(meaning.restConds,
                     [&](const std::pair<Value, bool> &r) {
                       return r.first == c;
                     })) {
      finiteEmptyRowsZero = true;
      finiteExact = true;
    }
  }
  // where(c, p, 0) after a softmax whose scores c selects with a finite
  // fill: where the fill is exactly -inf (every row keeps a visible key
  // and exp underflows to 0 on the hidden ones), p is already 0 wherever
  // the where zeroes it. Keras 3's Softmax layer with a mask does this.
  if (!finiteSameMask.empty() && !finiteExact)
    return decline(rewriter, root,
                   describeOp(finiteSameMask.front()->op) +
                       " masks the probabilities after the softmax by a "
                       "condition the scores are selected with by a finite "
                       "fill that is not proven to hide its keys exactly");

  // A clamp of the scores at a finite L makes every hidden score L: exact
  // as the -inf the fused op uses only where every row keeps a visible key
  // and no tensor mask is left that could hide a whole row.
  if (peeled->clampFill) {
    MaskMeaning probe = meaning;
    probe.finiteFill = probe.finiteFill
                           ? std::max(*probe.finiteFill, *peeled->clampFill)
                           : *peeled->clampFill;
    if (std::string risk = finiteFillRisk(probe, *peeled, lq, lk,
                                          static_cast<bool>(len), fn);
        !risk.empty() && !clampMovesNothing(*peeled, meaning, et))
      return decline(rewriter, root,
                     llvm::formatv("the scores are clamped at {0}: {1}",
                                   llvm::format("%g", *peeled->clampFill),
                                   risk));
  }
  // select(c, s, f) with a finite f is no additive mask: it fuses as the
  // -inf it stands for, or as the additive select(c, 0, f) where f absorbs
  // the scores (absorbedFillRisk says when).
  Value absorbed;
  SmallVector<Value> insideAbsorbed;
  for (auto [c, inverted] : meaning.restConds)
    if (auto it = peeled->finiteFills.find(c);
        !finiteEmptyRowsZero && it != peeled->finiteFills.end()) {
      std::string risk =
          absorbed ? "a second finite select fill"
                   : absorbedFillRisk(*peeled, meaning, c, it->second, et,
                                      &insideAbsorbed);
      if (!risk.empty())
        return decline(rewriter, root,
                       llvm::formatv("finite mask fill {0} with rows that may "
                                     "have no visible key ({1})",
                                     llvm::format("%g", it->second), risk));
      absorbed = c;
      meaning.notes.push_back(
          llvm::formatv("the select fill {0} absorbs every score, so it is "
                        "the additive mask of that fill",
                        llvm::format("%g", it->second)));
    }
  for (auto [c, inverted] : meaning.restConds)
    if (!fitsScores(maskViewType(c), scoresType))
      return decline(rewriter, root,
                     llvm::formatv("mask of shape {0} does not broadcast to "
                                   "the scores {1}",
                                   typeOf(c), scoresType));
  for (Value m : meaning.rest)
    if (!fitsScores(maskViewType(m), scoresType))
      return decline(rewriter, root,
                     llvm::formatv("mask of shape {0} does not broadcast to "
                                   "the scores {1}",
                                   typeOf(m), scoresType));
  // An empty-row guard gives 0 where the softmax gives 0/0. It fuses as
  // nothing where it never fires (every row provably keeps a visible key,
  // the scores q.k * scale themselves being finite), and as zero_empty_rows
  // where the rows it zeroes are exactly the rows the fused op finds empty:
  // - max(x) == -inf (or all(x == -inf)) of the masked scores x the
  //   softmax normalises: the row has no score above -inf there and in the
  //   fused op alike;
  // - where(c, p, 0) or where(any(c), p, 0) with c the one mask of the
  //   scores: a row is empty exactly where c hides it whole, and the guard
  //   zeroes such a row (in a row that keeps a key, the keys c hides weigh
  //   0 already).
  bool zeroEmptyRows = false;
  auto zeroesEmptyRows = [&](const RowGuard &g) {
    if (g.kind == RowGuard::EmptyScores) {
      // The tested value carries every mask the softmax sees (read as the
      // scores are, down to the same product), and no shift.
      std::string ignored;
      auto gs = peelScores(g.scores, ignored);
      return !finiteEmptyRowsZero && succeeded(gs) &&
             gs->qk == peeled->qk && gs->shifts.empty() &&
             gs->masks == peeled->masks &&
             gs->selectConds == peeled->selectConds &&
             gs->clampFill == peeled->clampFill;
    }
    return onlyMaskIs(*peeled, g.cond, g.visibleWhenTrue,
                      static_cast<bool>(len)) &&
           (finiteEmptyRowsZero ||
            hidesWithNegInf(*peeled, g.cond, g.visibleWhenTrue));
  };
  // No score of the fused op is -inf where no band, live length or -inf
  // fill hides a key: every mask value is finite (a select fill absorbed as
  // the additive mask, a finite fill term) and the scores keep to their
  // bound, so every row keeps a key and a test of the row max for -inf
  // never fires (IDEFICS' finfo.min image mask under the safe softmax).
  std::optional<RangeOracle> oracle;
  auto masksFinite = [&] {
    if (meaning.upper || meaning.lower || len || !insideAbsorbed.empty())
      return false;
    for (const auto &rc : meaning.restConds)
      if (rc.first != absorbed)
        return false;
    SmallVector<std::pair<double, double>> bounds;
    SmallVector<Type> types{typeOf(peeled->qk).getElementType()};
    for (Value m : meaning.rest) {
      types.push_back(typeOf(m).getElementType());
      // A widening float convert keeps a finite value finite.
      Value t = m;
      while (auto cv = t.getDefiningOp<ConvertOp>()) {
        auto from = dyn_cast<FloatType>(typeOf(cv.getX()).getElementType());
        auto to = dyn_cast<FloatType>(typeOf(t).getElementType());
        if (!from || !to || to.getWidth() < from.getWidth())
          break;
        t = cv.getX();
      }
      auto fm = fillMask(t);
      if (fm && std::isfinite(std::get<2>(*fm))) {
        double f = std::get<2>(*fm);
        bounds.push_back({std::min(f, 0.0), std::max(f, 0.0)});
        continue;
      }
      // Or a mask computed from bounded values only (IDEFICS' `(1 -
      // convert(image_mask)) * finfo.min` from a 0/1 integer input).
      if (!oracle)
        oracle.emplace(fn);
      auto b = finiteBound(t, *oracle);
      if (!b)
        return false;
      bounds.push_back(*b);
    }
    // Each term finite is not enough: two finfo.min terms sum to -inf.
    return sumStaysFinite(bounds, types);
  };
  for (const RowGuard &g : rowGuards) {
    std::string risk;
    if (finiteEmptyRowsZero) {
      risk = "a finite fill stands for -inf";
    } else if (g.kind != RowGuard::NoVisibleKey) {
      if ((!meaning.rest.empty() || !meaning.restConds.empty()) &&
          !tensorMasksKeepAKey(meaning, *peeled, fn, lq, lk,
                               static_cast<bool>(len)))
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
    if (!risk.empty() && g.kind == RowGuard::EmptyScores && masksFinite())
      risk.clear();
    if (!risk.empty() && zeroesEmptyRows(g)) {
      zeroEmptyRows = true;
      note += "; rows with no visible key are 0, as " + describeOp(g.op) +
              " makes them";
      continue;
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
  if (meaning.scaledBias)
    note += "; a bias added before the scale, multiplied by it";

  // The rewrite.
  if (!k) {
    Value src = kLayoutSrc ? kLayoutSrc : kHeadView->materialize(rewriter, loc);
    // One transpose of src, composed with a transpose src already is.
    auto transposed = [&](Value x, SmallVector<int64_t> perm) -> Value {
      if (auto tr = x.getDefiningOp<TransposeOp>()) {
        SmallVector<int64_t> composed;
        for (int64_t p : perm)
          composed.push_back(tr.getPerm()[p]);
        x = tr.getX();
        perm = composed;
      }
      if (isIdentityPerm(perm))
        return x;
      return rewriter.create<TransposeOp>(loc, x, perm);
    };
    // A head map the keys are read through (n_rep 1) stays outside the
    // transpose: k = map(transpose(base)), as it was spelled on k.
    auto level = heads::readHeadMap(src);
    if (level && !isIdentityPerm(kLayoutPerm)) {
      int64_t axis = llvm::find(kLayoutPerm, level->axis) - kLayoutPerm.begin();
      Value inner = transposed(level->materialize(rewriter, loc), kLayoutPerm);
      SmallVector<int64_t> shape;
      for (int64_t p : kLayoutPerm)
        shape.push_back(typeOf(src).getDimSize(p));
      k = heads::rebuildHeadMap(
          rewriter, loc, *level, inner, axis,
          RankedTensorType::get(shape, typeOf(src).getElementType()));
    } else {
      k = transposed(src, kLayoutPerm);
    }
  }
  if (!v)
    v = vHeadView->materialize(rewriter, loc);
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
  if (broadcastQueryHeads) {
    SmallVector<int64_t> shape(typeOf(q).getShape());
    shape[1] = hq;
    q = rewriter.create<BroadcastOp>(loc, q, shape);
    note += llvm::formatv("; the one query head broadcast to the {0} key "
                          "heads",
                          hq);
  }

  if (grouped) {
    q = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get({b, hq, lq, qt.getDimSize(4)},
                                   qt.getElementType()),
        q);
    if (!vGroup->perm.empty())
      v = rewriter.create<TransposeOp>(loc, v, vGroup->perm);
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
  // Query heads regrouped by their key head: a gather of heads.
  auto gatherHeads = [&](Value x, ArrayRef<int64_t> order) -> Value {
    auto it = RankedTensorType::get({static_cast<int64_t>(order.size())},
                                    rewriter.getI32Type());
    SmallVector<int32_t> idx(order.begin(), order.end());
    Value iv = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(it, ArrayRef<int32_t>(idx)));
    return rewriter.create<GatherOp>(loc, x, iv, 1);
  };
  if (!qPerm.empty())
    q = gatherHeads(q, qPerm);
  Value mask;
  for (auto [c, inverted] : meaning.restConds) {
    std::optional<double> fill;
    if (c == absorbed)
      fill = peeled->finiteFills.lookup(c);
    Value n = normaliseMask(
        rewriter, loc,
        maskFromCond(rewriter, loc, maskView(c), inverted, scoresType, fill),
        scoresType);
    if (c == absorbed && !insideAbsorbed.empty()) {
      // select(c, T, f) for the terms T added inside the select: n is 0
      // where c keeps a key and f (nonzero) where it hides one.
      Value inner;
      for (Value t : insideAbsorbed) {
        Value tn = normaliseMask(rewriter, loc, maskView(t), scoresType);
        inner = inner ? rewriter.create<AddOp>(loc, inner, tn).getResult()
                      : tn;
      }
      auto nt = typeOf(n);
      Value zero = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(
                   RankedTensorType::get({}, nt.getElementType()),
                   rewriter.getFloatAttr(nt.getElementType(), 0.0)));
      Value keeps = rewriter.create<CompareOp>(loc, ComparePredicate::eq, n,
                                               zero);
      n = normaliseMask(rewriter, loc,
                        rewriter.create<SelectOp>(loc, keeps, inner, n),
                        scoresType);
    }
    mask = mask ? rewriter.create<AddOp>(loc, mask, n).getResult() : n;
  }
  for (Value m : meaning.rest) {
    if (llvm::is_contained(insideAbsorbed, m))
      continue;
    Value src = maskView(m);
    if (auto it = peeled->biasFactor.find(m);
        it != peeled->biasFactor.end() && it->second != 1.0) {
      // The bias added inside the scale, b * c, as an op of its own on the
      // bias (in f32 at least, so c is not rounded to a narrow type).
      auto st = typeOf(src);
      Type ft = widerFloat(st.getElementType(), rewriter.getF32Type());
      if (ft != st.getElementType())
        src = rewriter.create<ConvertOp>(
            loc, RankedTensorType::get(st.getShape(), ft), src);
      Value c = rewriter.create<ConstantOp>(
          loc, DenseElementsAttr::get(RankedTensorType::get({}, ft),
                                      rewriter.getFloatAttr(ft, it->second)));
      src = rewriter.create<MulOp>(loc, src, c);
    }
    Value n = normaliseMask(rewriter, loc, src, scoresType);
    mask = mask ? rewriter.create<AddOp>(loc, mask, n).getResult() : n;
  }
  if (!qPerm.empty() && mask && typeOf(mask).getDimSize(1) == hq)
    mask = gatherHeads(mask, qPerm);
  SmallVector<double> slopes(meaning.alibi);
  if (!qPerm.empty() && !slopes.empty())
    for (int64_t h = 0; h < hq; ++h)
      slopes[h] = meaning.alibi[qPerm[h]];
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

  // A length read from the scores' mask may be spelled [B, 1] (or one
  // element of any shape at B = 1): the fused op takes it as [B].
  if (len && typeOf(len).getRank() != 1)
    len = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get({b}, typeOf(len).getElementType()), len);

  // Keys and values of batch 1: where nothing else of the chain depends on
  // the batch row (a scalar position, no mask tensor of its own per row or
  // head), the batch rows become query heads (head h of row n is head
  // h b + n, n_rep b times larger), so the fused op reads the shared keys
  // once for every row; otherwise they are broadcast to the query batch.
  const bool foldBatch =
      broadcastBatch && (!pos || typeOf(pos).getNumElements() == 1) &&
      (!mask ||
       (typeOf(mask).getDimSize(0) == 1 && typeOf(mask).getDimSize(1) == 1));
  if (foldBatch) {
    auto qt4 = typeOf(q);
    q = rewriter.create<TransposeOp>(loc, q, ArrayRef<int64_t>{1, 0, 2, 3});
    q = rewriter.create<ReshapeOp>(
        loc,
        RankedTensorType::get({1, hq * b, lq, qt4.getDimSize(3)},
                              qt4.getElementType()),
        q);
    if (!slopes.empty()) {
      SmallVector<double> perRow;
      for (double slope : slopes)
        perRow.append(b, slope);
      slopes = perRow;
    }
    nRep *= b;
    note += llvm::formatv("; keys and values of batch 1, the query batch {0} "
                          "folded into the heads",
                          b);
  } else if (broadcastBatch) {
    auto toBatch = [&](Value x) -> Value {
      SmallVector<int64_t> shape(typeOf(x).getShape());
      shape[0] = b;
      return rewriter.create<BroadcastOp>(loc, x, shape);
    };
    k = toBatch(k);
    v = toBatch(v);
    note += llvm::formatv("; keys and values of batch 1 broadcast to the "
                          "query batch {0}",
                          b);
  }

  auto softcap = peeled->softcap ? rewriter.getF64FloatAttr(*peeled->softcap)
                                 : FloatAttr();
  // The result keeps the root's type; a bf16 chain that computed its
  // softmax in f32 converts back exactly as before.
  SmallVector<int64_t> fusedShape(lead, 1);
  llvm::append_range(fusedShape, resultType.getShape());
  if (grouped)
    fusedShape = {b, hq, lq, resultType.getDimSize(4)};
  if (foldBatch)
    fusedShape = {1, hq * b, lq, fusedShape[3]};
  auto fusedType = RankedTensorType::get(fusedShape, et);
  auto fused = rewriter.create<AttentionOp>(
      loc, fusedType, q, k, kShared, v, read, mask, len, pos,
      rewriter.getF64FloatAttr(scale), softcap,
      rewriter.getI64IntegerAttr(nRep),
      meaning.causal ? rewriter.getUnitAttr() : UnitAttr(),
      meaning.window ? rewriter.getI64IntegerAttr(*meaning.window)
                     : IntegerAttr(),
      slopes.empty() ? DenseF64ArrayAttr()
                     : rewriter.getDenseF64ArrayAttr(slopes),
      zeroEmptyRows ? rewriter.getUnitAttr() : UnitAttr());
  Value result = fused.getResult();
  if (foldBatch) {
    result = rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get({hq, b, lq, fusedShape[3]}, et), result);
    result = rewriter.create<TransposeOp>(loc, result,
                                          ArrayRef<int64_t>{1, 0, 2, 3});
  }
  if (!qPerm.empty()) {
    SmallVector<int64_t> back(hq);
    for (int64_t h = 0; h < hq; ++h)
      back[qPerm[h]] = h;
    result = gatherHeads(result, back);
  }
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
        (qPerm.empty() ? std::string()
                       : std::string("; query heads regrouped by key head")) +
            headNote + note);
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

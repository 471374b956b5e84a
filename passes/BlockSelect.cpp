//===- BlockSelect.cpp - Block-selection masks -> the sparse ops ----------===//
//
// poot-block-select runs after poot-attention. A sparse indexer's graph
// reaches it as a poot.attention whose tensor mask is the block selection
// the tracer spells out (ops::sparseBlockMask): the indexer's per-key
// scores, hidden past the query position, maxed over blocks of `ratio` keys,
// the top K blocks by poot.topk, and the mask
// `select((any_k(top[k] == t / ratio) or t / ratio == qpos / ratio) and
// t <= qpos, 0, -inf)`. The pattern proves that the mask is exactly that,
// term by term, and replaces the attention with poot.block_topk on the
// indexer scores and poot.selected_attention, which visits (K + 1) * ratio
// keys per row instead of Lk.
//
// The proof reads every integer and boolean value of the mask as a function
// of the score grid: each axis of each value is labelled with what it stands
// for (batch row, head, query row, key, top-K slot), and the labels follow
// the value back through broadcasts, transposes and reshapes that only add
// or drop unit dims. A key index is an iota along a key axis, a query
// position is `pos + i` with pos constant over keys and rows, the chosen
// blocks are the indices of the one poot.topk whose axes line up with the
// batch and query rows of the mask. Anything the reading cannot explain
// declines with its reason and keeps the dense attention, which computes the
// same function.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "SoftmaxForm.h"
#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace poot {
#define GEN_PASS_DEF_BLOCKSELECT
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

//===----------------------------------------------------------------------===//
// Splat constants
//===----------------------------------------------------------------------===//

/// The value of a splat constant seen through broadcasts and reshapes.
std::optional<Attribute> splatAttr(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    if (!c)
      return std::nullopt;
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || !dense.isSplat())
      return std::nullopt;
    return dense.getSplatValue<Attribute>();
  }
  return std::nullopt;
}

std::optional<int64_t> intSplat(Value v) {
  auto a = splatAttr(v);
  auto i = a ? dyn_cast<IntegerAttr>(*a) : nullptr;
  if (!i || i.getType().isInteger(1))
    return std::nullopt;
  return i.getValue().getSExtValue();
}

/// A float splat, also seen through float-to-float converts (a mask built
/// in f32 and stored as bf16 keeps its 0 and -inf).
std::optional<double> floatSplat(Value v) {
  while (auto cv = v.getDefiningOp<ConvertOp>()) {
    if (!isa<FloatType>(typeOf(cv.getX()).getElementType()))
      return std::nullopt;
    v = cv.getX();
  }
  auto a = splatAttr(v);
  auto f = a ? dyn_cast<FloatAttr>(*a) : nullptr;
  if (!f)
    return std::nullopt;
  return f.getValueAsDouble();
}

bool isNegInf(Value v) {
  auto s = floatSplat(v);
  return s && std::isinf(*s) && *s < 0;
}

bool isIntTensor(Value v) {
  Type et = typeOf(v).getElementType();
  return et.isSignlessInteger() && !et.isInteger(1);
}

//===----------------------------------------------------------------------===//
// Axis labels
//===----------------------------------------------------------------------===//

/// What an axis of a value stands for in the score grid. An axis of size 1
/// is always Unit: nothing varies along it.
enum class Ax : uint8_t { Unit, Batch, Head, Row, Key, Slot };
using Labels = SmallVector<Ax, 6>;

/// `labels` with every size-1 axis of `type` made Unit.
Labels normalised(RankedTensorType type, Labels labels) {
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.getDimSize(d) == 1)
      labels[d] = Ax::Unit;
  return labels;
}

/// The labels of `operand` of an elementwise op (or of a broadcast's input)
/// producing `result`: numpy broadcasting aligns the dims to the right, and
/// a broadcast dim varies along nothing.
std::optional<Labels> operandLabels(Value operand, Value result,
                                    ArrayRef<Ax> labels) {
  auto ot = typeOf(operand), rt = typeOf(result);
  int64_t off = rt.getRank() - ot.getRank();
  if (off < 0)
    return std::nullopt;
  Labels out;
  for (int64_t d = 0; d < ot.getRank(); ++d) {
    int64_t n = ot.getDimSize(d);
    if (n != 1 && n != rt.getDimSize(d + off))
      return std::nullopt;
    out.push_back(n == 1 ? Ax::Unit : labels[d + off]);
  }
  return out;
}

/// One step back through a layout op that keeps every labelled axis whole:
/// a broadcast, a transpose, or a reshape that only inserts or drops unit
/// dims.
std::optional<std::pair<Value, Labels>> peelLayout(Value v,
                                                   ArrayRef<Ax> labels) {
  if (auto b = v.getDefiningOp<BroadcastOp>()) {
    auto in = operandLabels(b.getX(), v, labels);
    if (!in)
      return std::nullopt;
    return std::pair{b.getX(), *in};
  }
  if (auto t = v.getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> perm = t.getPerm();
    Labels in(perm.size(), Ax::Unit);
    for (auto [k, p] : llvm::enumerate(perm))
      in[p] = labels[k];
    return std::pair{t.getX(), in};
  }
  if (auto r = v.getDefiningOp<ReshapeOp>()) {
    auto in = typeOf(r.getX()), out = typeOf(v);
    SmallVector<int64_t> outDims;
    Labels outLabels;
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (out.getDimSize(d) != 1) {
        outDims.push_back(out.getDimSize(d));
        outLabels.push_back(labels[d]);
      }
    Labels inLabels;
    size_t next = 0;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      if (in.getDimSize(d) == 1) {
        inLabels.push_back(Ax::Unit);
        continue;
      }
      if (next == outDims.size() || outDims[next] != in.getDimSize(d))
        return std::nullopt;
      inLabels.push_back(outLabels[next++]);
    }
    if (next != outDims.size())
      return std::nullopt;
    return std::pair{r.getX(), inLabels};
  }
  return std::nullopt;
}

std::pair<Value, Labels> stripLayout(Value v, Labels labels) {
  while (auto p = peelLayout(v, labels)) {
    v = p->first;
    labels = p->second;
  }
  return {v, labels};
}

bool onlyAlong(ArrayRef<Ax> labels, std::initializer_list<Ax> allowed) {
  return llvm::all_of(labels, [&](Ax a) {
    return a == Ax::Unit || llvm::is_contained(allowed, a);
  });
}

//===----------------------------------------------------------------------===//
// Integer values as affine forms over the grid
//===----------------------------------------------------------------------===//

/// `kt * t + ki * i + kp * pos + c`, with t the key, i the query row and
/// pos a value that varies at most along the batch.
struct Affine {
  int64_t kt = 0, ki = 0, kp = 0, c = 0;
  Value pos;
};

/// l + sign * r; nothing when the two read different positions.
std::optional<Affine> combine(const Affine &l, const Affine &r, int64_t sign) {
  if (l.kp && r.kp && l.pos != r.pos)
    return std::nullopt;
  Affine a{l.kt + sign * r.kt, l.ki + sign * r.ki, l.kp + sign * r.kp,
           l.c + sign * r.c, l.kp ? l.pos : r.pos};
  if (!a.kp)
    a.pos = nullptr;
  return a;
}

std::optional<Affine> affineOf(Value v, ArrayRef<Ax> labels, int depth = 0) {
  if (depth > 32 || !isIntTensor(v))
    return std::nullopt;
  if (auto s = intSplat(v)) {
    Affine a;
    a.c = *s;
    return a;
  }
  if (auto iota = v.getDefiningOp<IotaOp>()) {
    Affine a;
    switch (labels[iota.getDim()]) {
    case Ax::Key:
      a.kt = 1;
      break;
    case Ax::Row:
      a.ki = 1;
      break;
    case Ax::Unit:
      break; // an iota of one element is 0
    default:
      return std::nullopt;
    }
    return a;
  }
  if (auto p = peelLayout(v, labels))
    return affineOf(p->first, p->second, depth + 1);
  if (auto cv = v.getDefiningOp<ConvertOp>()) {
    // Widening keeps every value; narrowing could wrap.
    Value x = cv.getX();
    if (isIntTensor(x) && typeOf(x).getElementTypeBitWidth() <=
                              typeOf(v).getElementTypeBitWidth())
      return affineOf(x, labels, depth + 1);
    return std::nullopt;
  }
  if (isa_and_nonnull<AddOp, SubOp>(v.getDefiningOp())) {
    Operation *op = v.getDefiningOp();
    auto ll = operandLabels(op->getOperand(0), v, labels);
    auto rl = operandLabels(op->getOperand(1), v, labels);
    if (!ll || !rl)
      return std::nullopt;
    auto l = affineOf(op->getOperand(0), *ll, depth + 1);
    auto r = affineOf(op->getOperand(1), *rl, depth + 1);
    if (!l || !r)
      return std::nullopt;
    return combine(*l, *r, isa<SubOp>(op) ? -1 : 1);
  }
  if (auto n = v.getDefiningOp<NegOp>()) {
    auto x = affineOf(n.getX(), labels, depth + 1);
    if (!x)
      return std::nullopt;
    return Affine{-x->kt, -x->ki, -x->kp, -x->c, x->pos};
  }
  // Anything else constant over keys, heads and rows is the position the
  // queries start at.
  if (onlyAlong(labels, {Ax::Batch})) {
    Affine a;
    a.kp = 1;
    a.pos = v;
    return a;
  }
  return std::nullopt;
}

/// The position of query row i: `pos + i + c`, pos absent for 0.
struct QPos {
  Value pos;
  int64_t c = 0;
  bool operator==(const QPos &o) const { return pos == o.pos && c == o.c; }
  bool operator!=(const QPos &o) const { return !(*this == o); }
};

std::optional<QPos> asQueryPosition(const Affine &a, int64_t lq) {
  if (a.kt != 0 || a.ki != (lq > 1 ? 1 : 0) || (a.kp != 0 && a.kp != 1))
    return std::nullopt;
  return QPos{a.kp ? a.pos : Value(), a.c};
}

/// "pos + i", "i + 2", "pos" (one query row), "0".
std::string describe(const QPos &q, int64_t lq) {
  std::string s;
  if (q.pos)
    s = "pos";
  if (lq > 1)
    s += s.empty() ? "i" : " + i";
  if (q.c || s.empty())
    s += s.empty()
             ? std::to_string(q.c)
             : llvm::formatv(" {0} {1}", q.c < 0 ? '-' : '+', std::abs(q.c))
                   .str();
  return s;
}


ComparePredicate negated(ComparePredicate p) {
  switch (p) {
  case ComparePredicate::lt:
    return ComparePredicate::ge;
  case ComparePredicate::le:
    return ComparePredicate::gt;
  case ComparePredicate::gt:
    return ComparePredicate::le;
  case ComparePredicate::ge:
    return ComparePredicate::lt;
  case ComparePredicate::eq:
    return ComparePredicate::ne;
  case ComparePredicate::ne:
    return ComparePredicate::eq;
  }
  return p;
}

/// Reads a comparison as the causal bound `t <= qpos` (visible when it
/// holds, or when it fails for `visibleWhenTrue = false`); returns qpos.
std::optional<QPos> causalBound(Value v, ArrayRef<Ax> labels,
                                bool visibleWhenTrue, int64_t lq) {
  auto cmp = v.getDefiningOp<CompareOp>();
  if (!cmp)
    return std::nullopt;
  auto ll = operandLabels(cmp.getLhs(), v, labels);
  auto rl = operandLabels(cmp.getRhs(), v, labels);
  if (!ll || !rl)
    return std::nullopt;
  auto l = affineOf(cmp.getLhs(), *ll), r = affineOf(cmp.getRhs(), *rl);
  std::optional<Affine> diff = l && r ? combine(*l, *r, -1) : std::nullopt;
  if (!diff)
    return std::nullopt;
  Affine e = *diff;
  ComparePredicate pred = cmp.getPredicate();
  if (e.kt == -1) {
    e = Affine{1, -e.ki, -e.kp, -e.c, e.pos};
    pred = match::swapped(pred);
  }
  if (e.kt != 1)
    return std::nullopt;
  if (!visibleWhenTrue)
    pred = negated(pred);
  // Visible iff t + rest <= 0 (or < 0): t <= -rest (or -rest - 1).
  int64_t adjust;
  if (pred == ComparePredicate::le)
    adjust = 0;
  else if (pred == ComparePredicate::lt)
    adjust = -1;
  else
    return std::nullopt;
  return asQueryPosition(Affine{0, -e.ki, -e.kp, -e.c + adjust, e.pos}, lq);
}

//===----------------------------------------------------------------------===//
// Boolean structure
//===----------------------------------------------------------------------===//

/// A leaf of a condition, true when the key is visible unless `negated`.
struct Literal {
  Value v;
  Labels labels;
  bool negated = false;
};

/// Splits `cond` (negated or not) into literals whose conjunction it is
/// (`conjunction = true`) or whose disjunction it is, through not, and/or
/// and De Morgan. What it cannot split stays one literal, which the reading
/// then has to explain.
void flatten(Value cond, Labels labels, bool neg, bool conjunction,
             SmallVectorImpl<Literal> &out, int depth = 0) {
  std::tie(cond, labels) = stripLayout(cond, labels);
  if (depth < 32) {
    if (auto n = cond.getDefiningOp<NotOp>())
      return flatten(n.getX(), labels, !neg, conjunction, out, depth + 1);
    Operation *def = cond.getDefiningOp();
    bool splits = conjunction ? (isa_and_nonnull<AndOp>(def) && !neg) ||
                                    (isa_and_nonnull<OrOp>(def) && neg)
                              : (isa_and_nonnull<OrOp>(def) && !neg) ||
                                    (isa_and_nonnull<AndOp>(def) && neg);
    auto l =
        splits ? operandLabels(def->getOperand(0), cond, labels) : std::nullopt;
    auto r =
        splits ? operandLabels(def->getOperand(1), cond, labels) : std::nullopt;
    if (l && r) {
      flatten(def->getOperand(0), *l, neg, conjunction, out, depth + 1);
      flatten(def->getOperand(1), *r, neg, conjunction, out, depth + 1);
      return;
    }
  }
  out.push_back({cond, labels, neg});
}

/// Whether a literal is itself a disjunction (an or, or a negated and).
bool isDisjunction(const Literal &lit) {
  Operation *def = lit.v.getDefiningOp();
  return (isa_and_nonnull<OrOp>(def) && !lit.negated) ||
         (isa_and_nonnull<AndOp>(def) && lit.negated);
}

//===----------------------------------------------------------------------===//
// The pieces of the block selection
//===----------------------------------------------------------------------===//

/// `t / r` for the key index t: returns r.
std::optional<int64_t> keyBlockRatio(Value v, ArrayRef<Ax> labels) {
  auto [x, l] = stripLayout(v, Labels(labels));
  auto div = x.getDefiningOp<DivOp>();
  if (!div)
    return std::nullopt;
  auto r = intSplat(div.getRhs());
  auto ll = operandLabels(div.getLhs(), x, l);
  if (!r || *r < 1 || !ll)
    return std::nullopt;
  auto a = affineOf(div.getLhs(), *ll);
  if (!a || a->kt != 1 || a->ki || a->kp || a->c)
    return std::nullopt;
  return *r;
}

/// `qpos / r`: returns r and qpos.
std::optional<std::pair<int64_t, QPos>>
positionBlock(Value v, ArrayRef<Ax> labels, int64_t lq) {
  auto [x, l] = stripLayout(v, Labels(labels));
  auto div = x.getDefiningOp<DivOp>();
  if (!div)
    return std::nullopt;
  auto r = intSplat(div.getRhs());
  auto ll = operandLabels(div.getLhs(), x, l);
  if (!r || *r < 1 || !ll)
    return std::nullopt;
  auto a = affineOf(div.getLhs(), *ll);
  if (!a)
    return std::nullopt;
  auto q = asQueryPosition(*a, lq);
  if (!q)
    return std::nullopt;
  return std::pair{*r, *q};
}

/// The own block: `t / r == qpos / r`.
struct OwnBlock {
  int64_t ratio;
  QPos qpos;
};

std::optional<OwnBlock> readOwnBlock(const Literal &lit, int64_t lq) {
  auto cmp = lit.v.getDefiningOp<CompareOp>();
  if (!cmp || cmp.getPredicate() !=
                  (lit.negated ? ComparePredicate::ne : ComparePredicate::eq))
    return std::nullopt;
  for (auto [a, b] : {std::pair{cmp.getLhs(), cmp.getRhs()},
                      std::pair{cmp.getRhs(), cmp.getLhs()}}) {
    auto la = operandLabels(a, lit.v, lit.labels);
    auto lb = operandLabels(b, lit.v, lit.labels);
    if (!la || !lb)
      continue;
    auto key = keyBlockRatio(a, *la);
    auto row = positionBlock(b, *lb, lq);
    if (key && row && *key == row->first)
      return OwnBlock{*key, row->second};
  }
  return std::nullopt;
}

/// The chosen blocks: the indices of a poot.topk whose axes are the batch
/// and query rows (any of them unit) and, last, the top-K slots.
std::optional<std::pair<TopKOp, Labels>> topkIndices(Value v,
                                                     ArrayRef<Ax> labels) {
  auto [x, l] = stripLayout(v, Labels(labels));
  auto res = dyn_cast<OpResult>(x);
  auto topk = res ? dyn_cast<TopKOp>(res.getOwner()) : nullptr;
  if (!topk || res.getResultNumber() != 1)
    return std::nullopt;
  for (auto [d, a] : llvm::enumerate(l)) {
    bool last = d + 1 == l.size();
    if (last ? (a != Ax::Slot && a != Ax::Unit)
             : (a != Ax::Unit && a != Ax::Batch && a != Ax::Row))
      return std::nullopt;
  }
  return std::pair{topk, l};
}

/// The selected term: `any over the K slots of (top[k] == t / r)`, spelled
/// as a max (or sum) of the converted hits compared with 0.
struct Selected {
  TopKOp topk;
  Labels indexLabels;
  int64_t ratio;
};

FailureOr<Selected> readSelected(const Literal &lit, std::string &why) {
  why = "the selected term is not any_k(top[k] == t / ratio) != 0";
  auto cmp = lit.v.getDefiningOp<CompareOp>();
  if (!cmp || lit.negated)
    return failure();
  ComparePredicate pred = cmp.getPredicate();
  auto zero = [](Value x) {
    auto s = intSplat(x);
    return s && *s == 0;
  };
  Value count;
  if ((pred == ComparePredicate::ne || pred == ComparePredicate::gt) &&
      zero(cmp.getRhs()))
    count = cmp.getLhs();
  else if ((pred == ComparePredicate::ne || pred == ComparePredicate::lt) &&
           zero(cmp.getLhs()))
    count = cmp.getRhs();
  if (!count)
    return failure();
  auto cl = operandLabels(count, lit.v, lit.labels);
  if (!cl)
    return failure();
  auto [red, rl] = stripLayout(count, *cl);
  Operation *def = red.getDefiningOp();
  if (!isa_and_nonnull<ReduceMaxOp, ReduceSumOp>(def))
    return failure();
  Value hits = def->getOperand(0);
  int64_t rank = typeOf(hits).getRank();
  int64_t axis = cast<IntegerAttr>(def->getAttr("axis")).getInt();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return failure();
  Labels hl = rl;
  if (def->hasAttr("keepdim"))
    hl[axis] = Ax::Slot;
  else
    hl.insert(hl.begin() + axis, Ax::Slot);
  hl = normalised(typeOf(hits), hl);
  std::tie(hits, hl) = stripLayout(hits, hl);
  // Any of 0/1 values: the hits are booleans converted to integers.
  auto cv = hits.getDefiningOp<ConvertOp>();
  if (!cv || !typeOf(cv.getX()).getElementType().isInteger(1))
    return failure();
  auto [hit, ml] = stripLayout(cv.getX(), hl);
  auto eq = hit.getDefiningOp<CompareOp>();
  if (!eq || eq.getPredicate() != ComparePredicate::eq)
    return failure();
  for (auto [a, b] : {std::pair{eq.getLhs(), eq.getRhs()},
                      std::pair{eq.getRhs(), eq.getLhs()}}) {
    auto la = operandLabels(a, hit, ml), lb = operandLabels(b, hit, ml);
    if (!la || !lb)
      continue;
    auto top = topkIndices(a, *la);
    auto ratio = keyBlockRatio(b, *lb);
    if (top && ratio)
      return Selected{top->first, top->second, *ratio};
  }
  why = "the selected term does not compare top-k indices, laid along the "
        "batch and query rows, with t / ratio";
  return failure();
}

/// What stands behind the top-K: block maxima of the indexer scores hidden
/// past the query position.
struct Indexer {
  Value select;  ///< the hidden scores select(hidden, -inf, s)
  Labels labels; ///< of `select`
  Value scores;  ///< s, broadcast to the select's shape if needed
  int64_t ratio;
  QPos qpos;
};

FailureOr<Indexer> readIndexer(const Selected &sel, int64_t lq,
                               std::string &why) {
  TopKOp topk = sel.topk;
  auto max = topk.getX().getDefiningOp<ReduceMaxOp>();
  int64_t rank = max ? typeOf(max.getX()).getRank() : 0;
  int64_t axis = max ? static_cast<int64_t>(max.getAxis()) : 0;
  if (!max || max.getKeepdim() || (axis != rank - 1 && axis != -1)) {
    why = "the top-k does not rank block maxima (a reduce_max over the last "
          "axis)";
    return failure();
  }
  auto split = max.getX().getDefiningOp<ReshapeOp>();
  auto y = typeOf(max.getX());
  auto s = split ? typeOf(split.getX()) : RankedTensorType();
  if (!split || s.getRank() != rank - 1 ||
      s.getShape().drop_back() != y.getShape().drop_back(2) ||
      s.getShape().back() != y.getDimSize(rank - 2) * y.getDimSize(rank - 1)) {
    why = "the block maxima are not over the keys split into blocks "
          "[..., Lk] -> [..., Lk / ratio, ratio]";
    return failure();
  }
  Indexer out;
  out.ratio = y.getDimSize(rank - 1);
  Labels labels = sel.indexLabels;
  labels.back() = Ax::Key;
  labels = normalised(s, labels);
  auto [filled, fl] = stripLayout(split.getX(), labels);
  auto fill = filled.getDefiningOp<SelectOp>();
  bool hiddenWhenTrue = fill && isNegInf(fill.getOnTrue());
  if (!fill || (!hiddenWhenTrue && !isNegInf(fill.getOnFalse()))) {
    why = "the indexer scores are not hidden by a -inf select before the "
          "block max";
    return failure();
  }
  // Every literal of the visible condition is the causal bound.
  SmallVector<Literal> lits;
  std::optional<QPos> qpos;
  bool causal = false;
  if (auto cl = operandLabels(fill.getCond(), filled, fl)) {
    flatten(fill.getCond(), *cl, /*neg=*/hiddenWhenTrue,
            /*conjunction=*/true, lits);
    causal = true;
    for (const Literal &lit : lits) {
      auto q = causalBound(lit.v, lit.labels, !lit.negated, lq);
      causal = causal && q && (!qpos || *q == *qpos);
      if (q)
        qpos = q;
    }
  }
  if (!causal) {
    why = "the indexer scores are not hidden exactly past the query "
          "position (t > pos + i)";
    return failure();
  }
  out.qpos = *qpos;
  out.select = filled;
  out.labels = fl;
  out.scores = hiddenWhenTrue ? fill.getOnFalse() : fill.getOnTrue();
  return out;
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// Whether the mask is computed from a poot.topk: only those attentions are
/// candidates worth explaining. Breadth first, since the top-k sits a few
/// ops above the mask while the indexer scores behind it reach back through
/// every earlier layer.
bool reachesTopK(Value mask) {
  SmallVector<Operation *> queue;
  llvm::SmallPtrSet<Operation *, 32> seen;
  auto push = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && seen.insert(def).second)
      queue.push_back(def);
  };
  push(mask);
  for (size_t next = 0; next < queue.size() && next < 4096; ++next) {
    if (isa<TopKOp>(queue[next]))
      return true;
    for (Value operand : queue[next]->getOperands())
      push(operand);
  }
  return false;
}

struct BlockSelectFusion : public OpRewritePattern<AttentionOp> {
  BlockSelectFusion(MLIRContext *ctx, ExplainFn explain)
      : OpRewritePattern(ctx, /*benefit=*/1), explain(std::move(explain)) {}

  LogicalResult decline(PatternRewriter &rewriter, AttentionOp root,
                        const std::string &why) const {
    if (explain)
      explain(root, false, why);
    return rewriter.notifyMatchFailure(root, why);
  }

  static bool isCandidate(AttentionOp op) {
    return op.getMask() && reachesTopK(op.getMask());
  }

  LogicalResult matchAndRewrite(AttentionOp root,
                                PatternRewriter &rewriter) const override;

  ExplainFn explain;
};

/// Brings a query position to the operand form: a scalar or [batch], plus
/// its constant offset. Null for position 0.
Value materialisePos(PatternRewriter &rewriter, Location loc, const QPos &q,
                     int64_t batch) {
  Value pos = q.pos;
  if (pos) {
    auto t = typeOf(pos);
    SmallVector<int64_t> shape;
    if (t.getNumElements() != 1)
      shape.push_back(batch);
    if (t.getShape() != ArrayRef<int64_t>(shape))
      pos = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, t.getElementType()), pos);
  }
  if (!q.c)
    return pos;
  auto type =
      pos ? typeOf(pos) : RankedTensorType::get({}, rewriter.getI32Type());
  Value c = rewriter.create<ConstantOp>(
      loc, DenseElementsAttr::get(
               type, rewriter.getIntegerAttr(type.getElementType(), q.c)));
  return pos ? rewriter.create<AddOp>(loc, pos, c).getResult() : c;
}

LogicalResult
BlockSelectFusion::matchAndRewrite(AttentionOp root,
                                   PatternRewriter &rewriter) const {
  if (!isCandidate(root))
    return rewriter.notifyMatchFailure(root, "no mask computed by a top-k");
  if (root.getLen())
    return decline(rewriter, root,
                   "a live length: selected_attention has no len operand");
  if (root.getKShared())
    return decline(rewriter, root,
                   "a split key: selected_attention has no k_shared operand");
  if (root.getZeroEmptyRows())
    return decline(rewriter, root,
                   "rows with no visible key are 0: selected_attention gives "
                   "them 0/0");
  if (root.getWindow() || root.getAlibiSlopes())
    return decline(rewriter, root,
                   "a sliding window or ALiBi term besides the selection");

  auto qt = root.getQ().getType();
  int64_t b = qt.getDimSize(0), lq = qt.getDimSize(2);
  int64_t lk = root.getKeyLength();

  // The mask: select(visible, 0, -inf) over the grid [B, Hq, Lq, Lk].
  Value mask = root.getMask();
  Labels frame =
      normalised(typeOf(mask), {Ax::Batch, Ax::Head, Ax::Row, Ax::Key});
  Value m = mask;
  while (true) {
    std::tie(m, frame) = stripLayout(m, frame);
    auto cv = m.getDefiningOp<ConvertOp>();
    if (!cv || !isa<FloatType>(typeOf(cv.getX()).getElementType()))
      break;
    m = cv.getX();
  }
  auto sel = m.getDefiningOp<SelectOp>();
  auto zero = [](Value x) {
    auto s = floatSplat(x);
    return s && *s == 0.0;
  };
  bool visibleWhenTrue =
      sel && zero(sel.getOnTrue()) && isNegInf(sel.getOnFalse());
  if (!sel || (!visibleWhenTrue &&
               !(isNegInf(sel.getOnTrue()) && zero(sel.getOnFalse()))))
    return decline(rewriter, root,
                   "the mask is not select(visible, 0, -inf) alone");

  // visible = (selected or own) and t <= qpos, in any order and spelling.
  SmallVector<Literal> conj;
  if (auto condLabels = operandLabels(sel.getCond(), m, frame))
    flatten(sel.getCond(), *condLabels, !visibleWhenTrue,
            /*conjunction=*/true, conj);
  else
    conj.push_back({sel.getCond(), {}, !visibleWhenTrue});
  SmallVector<QPos> causal;
  std::optional<Literal> either;
  SmallVector<Literal> others;
  for (const Literal &lit : conj) {
    if (auto q = causalBound(lit.v, lit.labels, !lit.negated, lq)) {
      causal.push_back(*q);
      continue;
    }
    if (isDisjunction(lit)) {
      if (either)
        return decline(rewriter, root,
                       "more than one or in the visible condition");
      either = lit;
      continue;
    }
    others.push_back(lit);
  }
  std::string why;
  if (!either && others.size() == 1 && succeeded(readSelected(others[0], why)))
    return decline(rewriter, root,
                   "no own-block term: the row's own block is visible only "
                   "when selected");
  if (!others.empty())
    return decline(rewriter, root,
                   "a term of the visible condition is neither the block "
                   "selection nor the causal bound t <= pos + i");
  if (!either)
    return decline(rewriter, root,
                   "no (selected or own block) term in the visible "
                   "condition");

  // either = selected or own, in any order.
  SmallVector<Literal> disj;
  flatten(either->v, either->labels, either->negated, /*conjunction=*/false,
          disj);
  const char *notOwn = "the or's other term is not the own block t / ratio "
                       "== (pos + i) / ratio";
  std::optional<OwnBlock> own;
  std::optional<Selected> selected;
  for (const Literal &d : disj) {
    if (!own && (own = readOwnBlock(d, lq)))
      continue;
    if (!selected) {
      auto s = readSelected(d, why);
      if (succeeded(s)) {
        selected = *s;
        continue;
      }
    } else {
      why = notOwn;
    }
    if (disj.size() > 2)
      why = "the or has a term beyond the selected and the own block";
    return decline(rewriter, root, why);
  }
  if (!own || !selected)
    return decline(rewriter, root, !own ? std::string(notOwn) : why);
  auto indexer = readIndexer(*selected, lq, why);
  if (failed(indexer))
    return decline(rewriter, root, why);

  // One ratio, one query position, one key length for every piece.
  if (selected->ratio != own->ratio || selected->ratio != indexer->ratio)
    return decline(rewriter, root,
                   llvm::formatv("blocks of {0} keys in the block maxima, {1} "
                                 "in the selected term, {2} in the own block",
                                 indexer->ratio, selected->ratio, own->ratio));
  int64_t ratio = own->ratio;
  QPos qpos = own->qpos;
  bool samePos = indexer->qpos == qpos &&
                 llvm::all_of(causal, [&](const QPos &q) { return q == qpos; });
  if (!samePos)
    return decline(rewriter, root,
                   "the indexer, the own block and the causal bound read "
                   "different query positions");
  if (causal.empty() && !root.getCausal())
    return decline(rewriter, root,
                   "no causal bound t <= pos + i on the visible keys");
  if (root.getCausal()) {
    // The op's own causal bound must be the one the selection implies.
    Value attPos = root.getPos();
    Labels pl(attPos ? typeOf(attPos).getRank() : 0, Ax::Batch);
    Value base = attPos
                     ? stripLayout(attPos, normalised(typeOf(attPos), pl)).first
                     : Value();
    if (qpos.c != 0 || base != qpos.pos)
      return decline(rewriter, root,
                     "the attention's causal bound reads another position "
                     "than the selection");
  }
  int64_t indexKeys = typeOf(indexer->select).getShape().back();
  if (indexKeys != lk)
    return decline(rewriter, root,
                   llvm::formatv("the indexer ranks {0} keys, the attention "
                                 "has {1}",
                                 indexKeys, lk));

  // The indexer scores as [B', Lq', Lk]: batch, row and key axes in order.
  auto st = typeOf(indexer->select);
  int64_t sb = 1, sq = 1;
  SmallVector<Ax> order;
  for (auto [d, a] : llvm::enumerate(indexer->labels)) {
    if (a == Ax::Unit)
      continue;
    order.push_back(a);
    if (a == Ax::Batch)
      sb = st.getDimSize(d);
    if (a == Ax::Row)
      sq = st.getDimSize(d);
  }
  // Batch, row and key, each at most once and in that order.
  bool inOrder = indexer->labels.back() == Ax::Key;
  for (size_t n = 1; n < order.size(); ++n)
    inOrder =
        inOrder && static_cast<int>(order[n - 1]) < static_cast<int>(order[n]);
  // A position per batch row needs the scores per batch row too.
  bool posFits = !qpos.pos || typeOf(qpos.pos).getNumElements() == 1 ||
                 typeOf(qpos.pos).getNumElements() == sb;
  if (!inOrder || !posFits || (sb != 1 && sb != b) || (sq != 1 && sq != lq))
    return decline(rewriter, root,
                   "the indexer scores are not laid out [batch, row, key]");

  Location loc = root.getLoc();
  int64_t topK = typeOf(selected->topk.getIndices()).getShape().back();
  Value scores = indexer->scores;
  if (typeOf(scores) != st)
    scores = rewriter.create<BroadcastOp>(loc, scores, st.getShape());
  auto scores3 = RankedTensorType::get({sb, sq, lk}, st.getElementType());
  scores = rewriter.create<ReshapeOp>(loc, scores3, scores);
  auto blocksType =
      RankedTensorType::get({sb, sq, topK}, rewriter.getI32Type());
  Value blocks = rewriter.create<BlockTopKOp>(
      loc, blocksType, scores, materialisePos(rewriter, loc, qpos, sb),
      rewriter.getI64IntegerAttr(ratio), rewriter.getI64IntegerAttr(topK));
  if (sb != b || sq != lq)
    blocks = rewriter.create<BroadcastOp>(loc, blocks,
                                          ArrayRef<int64_t>{b, lq, topK});
  auto fused = rewriter.create<SelectedAttentionOp>(
      loc, root.getType(), root.getQ(), root.getK(), root.getV(), blocks,
      root.getRead(), materialisePos(rewriter, loc, qpos, b),
      root.getScaleAttr(), root.getSoftcapAttr(), root.getNRepAttr(),
      rewriter.getI64IntegerAttr(ratio));
  if (explain) {
    std::string softcap;
    if (auto cap = root.getSoftcap())
      softcap = llvm::formatv(", softcap {0}",
                              llvm::format("%g", cap->convertToDouble()));
    explain(root, true,
            llvm::formatv("{0}top {1} blocks of {2} keys from {3}, n_rep {4}, "
                          "scale {5}{6}; a row visits at most {7} of {8} keys",
                          root.getRead() ? "paged, " : "", topK, ratio,
                          describe(qpos, lq), root.getNRep(),
                          llvm::format("%g", root.getScale().convertToDouble()),
                          softcap, fused.getVisitedKeys(), lk));
  }
  rewriter.replaceOp(root, fused.getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct BlockSelectPass : public poot::impl::BlockSelectBase<BlockSelectPass> {
  using BlockSelectBase::BlockSelectBase;

  void runOnOperation() override {
    if (failed(applyFusionPatterns(
            getOperation(), "block selection", explain || explainByDefault(),
            [](RewritePatternSet &patterns, ExplainFn fn) {
              populateBlockSelectPatterns(patterns, std::move(fn));
            },
            [](Operation *op) { return isa<AttentionOp>(op); })))
      signalPassFailure();
  }
};

} // namespace

void poot::populateBlockSelectPatterns(RewritePatternSet &patterns,
                                       ExplainFn explain) {
  patterns.add<BlockSelectFusion>(patterns.getContext(), std::move(explain));
}

//===- Rope.cpp - RoPE chains -> poot.rope --------------------------------===//
//
// Recognises rotary position embeddings in the spellings front ends write and
// replaces each chain with one poot.rope.
//
// Rather than matching one op sequence per spelling, the matcher reads the
// chain as linear algebra over channels. Every value between x and the
// products is a rearrangement of x (slices with or without a step, reshapes,
// concats, transposes and constant-index gathers of the trailing dims,
// negations, multiplication by constant +-1), so each of its elements is
// +-x[..., c] for a channel c the matcher computes exactly. Each output
// channel is a sum of two such rearrangements times a table, possibly
// assembled from several sums by concats and reshapes (the split-halves and
// stacked-pairs spellings), and possibly followed by pass-through channels.
// The chain is RoPE exactly when, channel for channel, one product reads
// x[lo + g] (the cos term) and the other reads the rotate-half or the
// interleaved partner with the right sign (the sin term). The fused op's
// cos and sin are assembled from the chain's own tables with the same
// concats and reshapes, so every output element is computed from the same
// table elements as before.
//
// A chain that is almost RoPE but differs in what it computes is declined
// with the reason, and keeps its primitive form.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"
#include "poot/Passes/Passes.h"
#include "poot/Passes/Patterns.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <memory>
#include <optional>

namespace poot {
#define GEN_PASS_DEF_ROPEFUSION
#include "poot/Passes/Passes.h.inc"
} // namespace poot

using namespace mlir;
using namespace poot;

namespace {

/// Lane maps are computed element by element over the trailing dims; past
/// this many elements a value is not treated as a rearrangement of x.
constexpr int64_t kMaxLanes = 1 << 16;
/// How far back through rearranging ops the matcher looks.
constexpr int kMaxDepth = 24;

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t normaliseAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t k = 0;
  for (auto [i, d] : llvm::zip_equal(index, shape))
    k = k * d + i;
  return k;
}

/// Calls `fn` with every multi-index of `shape`, row-major.
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t n = numElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(index);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

bool hasLead(Value v, ArrayRef<int64_t> lead) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() > static_cast<int64_t>(lead.size()) &&
         t.getShape().take_front(lead.size()) == lead;
}

/// A splat constant seen through broadcast, reshape and convert.
std::optional<double> splatOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp, ConvertOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
    if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
      return std::nullopt;
    return dense.getSplatValue<APFloat>().convertToDouble();
  }
  return std::nullopt;
}

bool isSplat(Value v, double x) {
  auto s = splatOf(v);
  return s && *s == x;
}

/// For a constant of +-1 only (a splat, or a dense constant that varies only
/// along the trailing dims), whether each element of a value of type `t` is
/// multiplied by -1, row-major over the dims past `lead`.
std::optional<SmallVector<bool>> signsOf(Value c, RankedTensorType t,
                                         size_t lead) {
  ArrayRef<int64_t> trail = t.getShape().drop_front(lead);
  if (auto s = splatOf(c)) {
    if (*s != 1.0 && *s != -1.0)
      return std::nullopt;
    return SmallVector<bool>(numElements(trail), *s < 0);
  }
  auto cst = c.getDefiningOp<ConstantOp>();
  auto dense = cst ? dyn_cast<DenseElementsAttr>(cst.getValue()) : nullptr;
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  auto ct = cast<RankedTensorType>(dense.getType());
  if (ct.getRank() > t.getRank())
    return std::nullopt;
  SmallVector<int64_t> padded(t.getRank() - ct.getRank(), 1);
  llvm::append_range(padded, ct.getShape());
  for (size_t d = 0; d < padded.size(); ++d) {
    bool leadDim = d < lead;
    if (padded[d] != 1 && (leadDim || padded[d] != t.getDimSize(d)))
      return std::nullopt;
  }
  SmallVector<double> values;
  for (const APFloat &v : dense.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  ArrayRef<int64_t> cTrail = ArrayRef<int64_t>(padded).drop_front(lead);
  SmallVector<bool> out;
  bool ok = true;
  forEachIndex(trail, [&](ArrayRef<int64_t> m) {
    SmallVector<int64_t> i(m);
    for (size_t d = 0; d < i.size(); ++d)
      if (cTrail[d] == 1)
        i[d] = 0;
    double v = values[linearize(i, cTrail)];
    ok &= v == 1.0 || v == -1.0;
    out.push_back(v < 0);
  });
  if (!ok)
    return std::nullopt;
  return out;
}

//===----------------------------------------------------------------------===//
// Rearrangements: where each element of a value comes from
//===----------------------------------------------------------------------===//

/// One element's origin: the operand it is read from and its row-major index
/// over that operand's trailing dims.
struct Source {
  unsigned operand;
  int64_t index;
};

/// For an op that only moves elements and keeps the first `lead` dims as
/// they are (slice, reshape, concat, transpose, gather by constant index),
/// the origin of each result element, row-major over the trailing dims.
std::optional<SmallVector<Source>> sourcesOf(Operation *op, size_t lead,
                                             bool onlyConcatReshape = false) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!out || out.getRank() <= static_cast<int64_t>(lead))
    return std::nullopt;
  ArrayRef<int64_t> outLead = out.getShape().take_front(lead);
  ArrayRef<int64_t> outTrail = out.getShape().drop_front(lead);
  if (numElements(outTrail) > kMaxLanes)
    return std::nullopt;
  auto trailOf = [&](Value v) -> std::optional<ArrayRef<int64_t>> {
    auto t = typeOf(v);
    if (t.getRank() <= static_cast<int64_t>(lead) ||
        t.getShape().take_front(lead) != outLead)
      return std::nullopt;
    return t.getShape().drop_front(lead);
  };
  SmallVector<Source> sources;
  sources.reserve(numElements(outTrail));

  if (auto r = dyn_cast<ReshapeOp>(op)) {
    // Row-major order is kept, so with the lead dims untouched every element
    // keeps its index over the trailing dims.
    if (!trailOf(r.getX()))
      return std::nullopt;
    for (int64_t k = 0, n = numElements(outTrail); k < n; ++k)
      sources.push_back({0, k});
    return sources;
  }
  if (auto c = dyn_cast<ConcatOp>(op)) {
    int64_t axis = normaliseAxis(c.getAxis(), out.getRank());
    if (axis < static_cast<int64_t>(lead))
      return std::nullopt;
    SmallVector<ArrayRef<int64_t>> trails;
    for (Value in : c.getInputs()) {
      auto t = trailOf(in);
      if (!t)
        return std::nullopt;
      trails.push_back(*t);
    }
    int64_t a = axis - lead;
    forEachIndex(outTrail, [&](ArrayRef<int64_t> m) {
      SmallVector<int64_t> i(m);
      unsigned which = 0;
      while (i[a] >= trails[which][a])
        i[a] -= trails[which++][a];
      sources.push_back({which, linearize(i, trails[which])});
    });
    return sources;
  }
  if (onlyConcatReshape)
    return std::nullopt;

  if (auto s = dyn_cast<SliceOp>(op)) {
    auto in = typeOf(s.getX());
    ArrayRef<int64_t> start = s.getStart(), limit = s.getLimit(),
                      step = s.getStep();
    for (size_t d = 0; d < lead; ++d)
      if (start[d] != 0 || step[d] != 1 || limit[d] != in.getDimSize(d))
        return std::nullopt;
    auto inTrail = trailOf(s.getX());
    if (!inTrail)
      return std::nullopt;
    forEachIndex(outTrail, [&](ArrayRef<int64_t> m) {
      SmallVector<int64_t> i(m.size());
      for (size_t d = 0; d < m.size(); ++d)
        i[d] = start[lead + d] + m[d] * step[lead + d];
      sources.push_back({0, linearize(i, *inTrail)});
    });
    return sources;
  }
  if (auto t = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = t.getPerm();
    for (size_t d = 0; d < lead; ++d)
      if (perm[d] != static_cast<int64_t>(d))
        return std::nullopt;
    auto inTrail = trailOf(t.getX());
    if (!inTrail)
      return std::nullopt;
    forEachIndex(outTrail, [&](ArrayRef<int64_t> m) {
      SmallVector<int64_t> i(m.size());
      for (size_t d = 0; d < m.size(); ++d)
        i[perm[lead + d] - lead] = m[d];
      sources.push_back({0, linearize(i, *inTrail)});
    });
    return sources;
  }
  if (auto g = dyn_cast<GatherOp>(op)) {
    auto inType = typeOf(g.getX());
    int64_t axis = normaliseAxis(g.getAxis(), inType.getRank());
    auto cst = g.getIdx().getDefiningOp<ConstantOp>();
    auto dense = cst ? dyn_cast<DenseIntElementsAttr>(cst.getValue()) : nullptr;
    if (axis < static_cast<int64_t>(lead) || !dense ||
        cast<RankedTensorType>(dense.getType()).getRank() != 1)
      return std::nullopt;
    auto inTrail = trailOf(g.getX());
    if (!inTrail)
      return std::nullopt;
    SmallVector<int64_t> idx;
    for (const APInt &v : dense.getValues<APInt>()) {
      int64_t i = v.getSExtValue();
      if (i < 0 || i >= inType.getDimSize(axis))
        return std::nullopt;
      idx.push_back(i);
    }
    int64_t a = axis - lead;
    forEachIndex(outTrail, [&](ArrayRef<int64_t> m) {
      SmallVector<int64_t> i(m);
      i[a] = idx[m[a]];
      sources.push_back({0, linearize(i, *inTrail)});
    });
    return sources;
  }
  return std::nullopt;
}

/// One element of a rearranged x: channel `channel`, negated or not.
struct Lane {
  int64_t channel;
  bool negated;
};

/// Reads values as rearrangements of one base x: each element, row-major
/// over the dims past x's leading dims, as a lane of x.
class LaneResolver {
public:
  explicit LaneResolver(Value base) : base(base) {
    auto t = typeOf(base);
    lead.assign(t.getShape().begin(), t.getShape().end() - 1);
    width = t.getShape().back();
  }

  /// The lanes of `v`, or null when it is not a rearrangement of the base.
  const SmallVector<Lane> *resolve(Value v, int depth = 0) {
    if (depth > kMaxDepth || !hasLead(v, lead))
      return nullptr;
    if (auto it = memo.find(v); it != memo.end())
      return it->second.get();
    std::unique_ptr<SmallVector<Lane>> lanes = compute(v, depth);
    SmallVector<Lane> *result = lanes.get();
    memo[v] = std::move(lanes);
    return result;
  }

  Value base;
  SmallVector<int64_t> lead;
  int64_t width;

private:
  std::unique_ptr<SmallVector<Lane>> flipped(const SmallVector<Lane> *in,
                                             ArrayRef<bool> flips = {}) {
    if (!in)
      return nullptr;
    auto out = std::make_unique<SmallVector<Lane>>(*in);
    for (size_t k = 0; k < out->size(); ++k)
      if (flips.empty() || flips[k])
        (*out)[k].negated = !(*out)[k].negated;
    return out;
  }

  std::unique_ptr<SmallVector<Lane>> compute(Value v, int depth) {
    if (v == base) {
      auto out = std::make_unique<SmallVector<Lane>>();
      for (int64_t c = 0; c < width; ++c)
        out->push_back({c, false});
      return out;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return nullptr;
    auto t = typeOf(v);
    if (auto neg = dyn_cast<NegOp>(def))
      return flipped(resolve(neg.getX(), depth + 1));
    if (auto mul = dyn_cast<MulOp>(def)) {
      // A multiply by constant signs: x[..., perm] * [-1, 1, ...].
      for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                          std::pair{mul.getRhs(), mul.getLhs()}}) {
        if (typeOf(a) != t)
          continue;
        auto signs = signsOf(b, t, lead.size());
        if (!signs)
          continue;
        return flipped(resolve(a, depth + 1), *signs);
      }
      return nullptr;
    }
    if (auto sub = dyn_cast<SubOp>(def)) {
      if (isSplat(sub.getLhs(), 0.0) && typeOf(sub.getRhs()) == t)
        return flipped(resolve(sub.getRhs(), depth + 1));
      return nullptr;
    }
    // convert(y) where x is itself convert(x0) between the same float
    // types: y read as a rearrangement of x0. Rounding commutes with
    // negation and with moving elements, so convert(rot(x0)) is rot(x):
    // CogVideoX rotates x in f16 and upcasts x and its rotation each
    // (x.float() * cos + x_rotated.float() * sin).
    if (auto cv = dyn_cast<ConvertOp>(def)) {
      auto bcv = base.getDefiningOp<ConvertOp>();
      if (!bcv || typeOf(cv.getX()).getElementType() !=
                      typeOf(bcv.getX()).getElementType() ||
          t.getElementType() != typeOf(base).getElementType() ||
          !isa<FloatType>(t.getElementType()) ||
          !isa<FloatType>(typeOf(cv.getX()).getElementType()))
        return nullptr;
      if (!inner)
        inner = std::make_unique<LaneResolver>(bcv.getX());
      const SmallVector<Lane> *in = inner->resolve(cv.getX(), depth + 1);
      return in ? std::make_unique<SmallVector<Lane>>(*in) : nullptr;
    }
    auto sources = sourcesOf(def, lead.size());
    if (!sources)
      return nullptr;
    SmallVector<const SmallVector<Lane> *> operands;
    for (Value operand : def->getOperands())
      operands.push_back(isa<GatherOp>(def) && operands.size() == 1
                             ? nullptr
                             : resolve(operand, depth + 1));
    auto out = std::make_unique<SmallVector<Lane>>();
    for (const Source &s : *sources) {
      if (!operands[s.operand])
        return nullptr;
      out->push_back((*operands[s.operand])[s.index]);
    }
    return out;
  }

  DenseMap<Value, std::unique_ptr<SmallVector<Lane>>> memo;
  /// The resolver over the operand of x's own convert, when x is one.
  std::unique_ptr<LaneResolver> inner;
};

//===----------------------------------------------------------------------===//
// Sums of products
//===----------------------------------------------------------------------===//

/// A product term `[-] a * b` of a rotation sum.
struct Product {
  MulOp mul;
  bool negated = false;
};

/// Collects the product terms of a sum of the shape `leafType` built from
/// add, sub, neg and multiplication by a splat -1 or 1.
bool collectProducts(Value v, bool negated, RankedTensorType leafType,
                     SmallVectorImpl<Product> &products, int depth = 0) {
  if (depth > kMaxDepth || products.size() > 8 || typeOf(v) != leafType)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto add = dyn_cast<AddOp>(def))
    return collectProducts(add.getLhs(), negated, leafType, products,
                           depth + 1) &&
           collectProducts(add.getRhs(), negated, leafType, products,
                           depth + 1);
  if (auto sub = dyn_cast<SubOp>(def)) {
    if (isSplat(sub.getLhs(), 0.0))
      return collectProducts(sub.getRhs(), !negated, leafType, products,
                             depth + 1);
    return collectProducts(sub.getLhs(), negated, leafType, products,
                           depth + 1) &&
           collectProducts(sub.getRhs(), !negated, leafType, products,
                           depth + 1);
  }
  if (auto neg = dyn_cast<NegOp>(def))
    return collectProducts(neg.getX(), !negated, leafType, products,
                           depth + 1);
  if (auto mul = dyn_cast<MulOp>(def)) {
    for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                        std::pair{mul.getRhs(), mul.getLhs()}}) {
      auto s = splatOf(b);
      if (s && (*s == 1.0 || *s == -1.0))
        return collectProducts(a, negated != (*s < 0), leafType, products,
                               depth + 1);
    }
    products.push_back({mul, negated});
    return true;
  }
  return false;
}

/// Whether a product factor looks like a rearranged x (the rotated operand
/// or a half of x), as opposed to an activation or a score.
bool looksRearranged(Value v) {
  // Through reshapes, and float converts (a rotation upcast before its
  // product).
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ReshapeOp, ConvertOp>(def) ||
        !isa<FloatType>(typeOf(def->getOperand(0)).getElementType()))
      break;
    v = def->getOperand(0);
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<ConcatOp, GatherOp, NegOp, SliceOp, TransposeOp>(def))
    return true;
  if (auto mul = dyn_cast<MulOp>(def))
    return signsOf(mul.getRhs(), typeOf(v), 0) ||
           signsOf(mul.getLhs(), typeOf(v), 0);
  return false;
}

/// Whether `v` is a float sum of at least two products with a rearranged
/// factor: the cos + sin sum of a rotation, or a half of one.
bool isRotationSum(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !isa<FloatType>(t.getElementType()) ||
      (!v.getDefiningOp<AddOp>() && !v.getDefiningOp<SubOp>()))
    return false;
  SmallVector<Product> products;
  if (!collectProducts(v, false, t, products) || products.size() < 2)
    return false;
  return llvm::any_of(products, [](Product p) {
    return looksRearranged(p.mul.getLhs()) || looksRearranged(p.mul.getRhs());
  });
}

/// Whether `v` is, or begins with (through concats and reshapes), a
/// rotation sum.
bool leadsWithSum(Value v, int depth = 0) {
  if (depth > kMaxDepth)
    return false;
  if (isRotationSum(v))
    return true;
  if (auto c = v.getDefiningOp<ConcatOp>())
    return leadsWithSum(c.getInputs().front(), depth + 1);
  if (auto r = v.getDefiningOp<ReshapeOp>())
    return leadsWithSum(r.getX(), depth + 1);
  return false;
}

/// Whether `v` contains a sum anywhere under concats and reshapes.
bool containsSum(Value v, int depth = 0) {
  if (depth > kMaxDepth)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<AddOp, SubOp, NegOp, MulOp>(def))
    return true;
  if (isa<ConcatOp, ReshapeOp>(def))
    return llvm::any_of(def->getOperands(), [&](Value operand) {
      return containsSum(operand, depth + 1);
    });
  return false;
}

/// Whether `op` could be the output of a rotation chain: a rotation sum; a
/// concat along the last axis whose first input is (or begins with) one,
/// for split halves and pass-through channels; or a reshape that flattens
/// such a concat, for stacked pairs.
bool isChainShaped(Operation *op) {
  if (isa<AddOp, SubOp>(op))
    return isRotationSum(op->getResult(0));
  if (auto c = dyn_cast<ConcatOp>(op)) {
    int64_t rank = c.getType().getRank();
    return normaliseAxis(c.getAxis(), rank) == rank - 1 &&
           leadsWithSum(c.getInputs().front());
  }
  if (auto r = dyn_cast<ReshapeOp>(op)) {
    auto c = r.getX().getDefiningOp<ConcatOp>();
    auto in = typeOf(r.getX()), out = r.getType();
    if (!c || !isChainShaped(c) || in.getRank() < 2 ||
        out.getRank() != in.getRank() - 1)
      return false;
    return out.getShape().drop_back() == in.getShape().drop_back(2) &&
           out.getShape().back() ==
               in.getShape().back() * in.getShape()[in.getRank() - 2];
  }
  return false;
}

/// The chain-shaped op that consumes `op` as part of a larger chain, if any.
Operation *enclosingChain(Operation *op) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  Operation *user = *result.getUsers().begin();
  return isa<ConcatOp, ReshapeOp>(user) && isChainShaped(user) ? user
                                                               : nullptr;
}

/// A fusion candidate: the outermost op of a chain-shaped group. Inner sums
/// are tried when their enclosing chain does not fuse, but only the
/// outermost one explains a decline.
bool isCandidate(Operation *op) {
  return isChainShaped(op) && !enclosingChain(op);
}

//===----------------------------------------------------------------------===//
// The matcher
//===----------------------------------------------------------------------===//

/// A recognised rotation.
struct RopeMatch {
  Value base;                  ///< the x every rotated lane reads
  int64_t lo = 0;              ///< first rotary channel of the base
  int64_t rotary = 0;          ///< rotary_dim
  bool interleaved = false;
  bool passThrough = false;    ///< base channels past rotary_dim follow
  Value window;                ///< an existing base[..., lo:lo + rotary]
  SmallVector<Value> rotaryParts;  ///< the rotated parts, in channel order
  /// Each rotation sum's cos and sin tables.
  DenseMap<Value, std::pair<Value, Value>> tables;
};

/// The most informative decline over the bases tried: the one that matched
/// furthest.
struct Decline {
  int stage = -1;
  std::string why;
  void note(int s, std::string w) {
    if (s > stage) {
      stage = s;
      why = std::move(w);
    }
  }
};

/// Matching stages, in order; a later stage is a nearer miss.
enum Stage {
  StageBase,     ///< the products do not share one x
  StageLayout,   ///< the output or a product is not laid out like x
  StageCos,      ///< no product is x * cos
  StagePairing,  ///< the rotated channels are not partners
  StageSign,     ///< partners with the wrong signs
  StagePass,     ///< the pass-through channels
};

std::string describe(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

/// The values a product factor is a rearrangement of, nearest first: the
/// candidates for x.
SmallVector<Value> candidateBases(Value factor) {
  SmallVector<Value> order;
  DenseSet<Value> seen;
  SmallVector<std::pair<Value, int>> queue{{factor, 0}};
  for (size_t i = 0; i < queue.size(); ++i) {
    auto [v, depth] = queue[i];
    if (!seen.insert(v).second)
      continue;
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && t.getRank() >= 1 && isa<FloatType>(t.getElementType()))
      order.push_back(v);
    Operation *def = v.getDefiningOp();
    if (!def || depth >= kMaxDepth)
      continue;
    if (isa<NegOp, MulOp, SubOp, SliceOp, ReshapeOp, ConcatOp, TransposeOp>(
            def)) {
      for (Value operand : def->getOperands())
        queue.push_back({operand, depth + 1});
    } else if (auto g = dyn_cast<GatherOp>(def)) {
      queue.push_back({g.getX(), depth + 1});
    }
  }
  return order;
}

/// Walks the output side of a chain: through the concats and reshapes that
/// assemble it, down to its sums, recording for each output element the sum
/// and the element of that sum it is.
class OutputLanes {
public:
  using Entry = std::pair<unsigned, int64_t>;

  explicit OutputLanes(ArrayRef<int64_t> lead) : lead(lead) {}

  std::optional<SmallVector<Entry>> walk(Value v, int depth = 0) {
    if (depth > kMaxDepth || !hasLead(v, lead)) {
      why = llvm::formatv("a rotated part {0} is not laid out like x",
                          typeOf(v));
      return std::nullopt;
    }
    Operation *def = v.getDefiningOp();
    if (def && isa<AddOp, SubOp, NegOp, MulOp>(def)) {
      auto [it, inserted] = index.try_emplace(v, sums.size());
      if (inserted)
        sums.push_back(v);
      SmallVector<Entry> entries;
      int64_t n = numElements(typeOf(v).getShape().drop_front(lead.size()));
      for (int64_t k = 0; k < n; ++k)
        entries.push_back({it->second, k});
      return entries;
    }
    auto sources =
        def ? sourcesOf(def, lead.size(), /*onlyConcatReshape=*/true)
            : std::nullopt;
    if (!sources) {
      why = def ? describe(def) + " among the rotated channels"
                : "a function argument among the rotated channels";
      return std::nullopt;
    }
    SmallVector<SmallVector<Entry>> operands;
    for (Value operand : def->getOperands()) {
      auto o = walk(operand, depth + 1);
      if (!o)
        return std::nullopt;
      operands.push_back(std::move(*o));
    }
    SmallVector<Entry> entries;
    for (const Source &s : *sources)
      entries.push_back(operands[s.operand][s.index]);
    return entries;
  }

  /// The sums found, in order of first appearance.
  SmallVector<Value> sums;
  /// Why the walk stopped.
  std::string why;

private:
  ArrayRef<int64_t> lead;
  DenseMap<Value, unsigned> index;
};

/// Given, for each rotary lane g, the lane its rotated operand reads
/// (relative to the window) and whether negated: true for interleaved
/// pairs, false for rotate-half, nothing (with the reason) when the lanes
/// are neither with the right signs.
std::optional<bool> classifyRotation(ArrayRef<int64_t> partner,
                                     ArrayRef<bool> negated, int64_t lo,
                                     Decline &decline) {
  int64_t r = partner.size(), half = r / 2;
  auto halfPartner = [&](int64_t g) { return g < half ? g + half : g - half; };
  auto pairPartner = [](int64_t g) { return g ^ 1; };
  bool isHalf = llvm::all_of(llvm::seq<int64_t>(0, r), [&](int64_t g) {
    return partner[g] == halfPartner(g);
  });
  bool isPairs = llvm::all_of(llvm::seq<int64_t>(0, r), [&](int64_t g) {
    return partner[g] == pairPartner(g);
  });
  if (!isHalf && !isPairs) {
    int64_t g = 0;
    while (partner[g] == halfPartner(g) || partner[g] == pairPartner(g))
      ++g;
    decline.note(StagePairing,
                 llvm::formatv("rotated channel {0} reads x channel {1}: "
                               "neither the rotate-half partner {2} nor the "
                               "interleaved partner {3}",
                               g, lo + partner[g], lo + halfPartner(g),
                               lo + pairPartner(g)));
    return std::nullopt;
  }
  // With two channels both pairings coincide; call it half.
  bool interleaved = !isHalf;
  auto wantNegated = [&](int64_t g) {
    return interleaved ? g % 2 == 0 : g < half;
  };
  SmallVector<int64_t> wrong;
  for (int64_t g = 0; g < r; ++g)
    if (negated[g] != wantNegated(g))
      wrong.push_back(g);
  if (!wrong.empty()) {
    std::string why;
    bool firstWrong = llvm::any_of(wrong, wantNegated);
    bool secondWrong = llvm::any_of(wrong, [&](int64_t g) {
      return !wantNegated(g);
    });
    if (static_cast<int64_t>(wrong.size()) == r)
      why = interleaved ? "the rotation runs backwards: rot pairs are "
                          "(x[2i+1], -x[2i]), expected (-x[2i+1], x[2i])"
                        : "the rotation runs backwards: rot = concat(x2, "
                          "-x1), expected concat(-x2, x1)";
    else if (firstWrong && !secondWrong)
      why = interleaved ? "the rotated even channels are not the negated odd "
                          "channels"
                        : "the rotated half is not the negated second half";
    else if (secondWrong && !firstWrong)
      why = interleaved ? "the rotated odd channels are negated: expected "
                          "(-x[2i+1], x[2i])"
                        : "the second rotated half is negated: expected "
                          "concat(-x2, x1)";
    else
      why = llvm::formatv("rotated channel {0} has the wrong sign", wrong[0]);
    decline.note(StageSign, why);
    return std::nullopt;
  }

  return interleaved;
}

/// Matches the chain whose output is `root` as a rotation of `base`.
std::optional<RopeMatch> matchOnBase(Operation *root, Value base,
                                     Decline &decline) {
  LaneResolver lanes(base);
  ArrayRef<int64_t> lead = lanes.lead;
  auto baseType = typeOf(base);
  auto rootType = typeOf(root->getResult(0));
  if (rootType.getRank() != baseType.getRank() ||
      rootType.getShape().drop_back() != lead ||
      rootType.getElementType() != baseType.getElementType()) {
    decline.note(StageLayout,
                 llvm::formatv("the output {0} is not laid out like x {1}",
                               rootType, baseType));
    return std::nullopt;
  }

  // The rotated parts come first, then any pass-through channels.
  SmallVector<Value> parts;
  if (auto c = dyn_cast<ConcatOp>(root);
      c && normaliseAxis(c.getAxis(), rootType.getRank()) ==
               rootType.getRank() - 1)
    llvm::append_range(parts, c.getInputs());
  else
    parts.push_back(root->getResult(0));
  size_t numRotary = 0;
  while (numRotary < parts.size() && containsSum(parts[numRotary]))
    ++numRotary;
  for (size_t i = numRotary; i < parts.size(); ++i) {
    if (containsSum(parts[i])) {
      decline.note(StagePass, "pass-through channels between rotated ones");
      return std::nullopt;
    }
  }

  // Output lanes of the rotated parts: (sum, element of that sum).
  OutputLanes out(lead);
  SmallVector<std::pair<unsigned, int64_t>> global;
  for (size_t i = 0; i < numRotary; ++i) {
    auto o = out.walk(parts[i]);
    if (!o) {
      decline.note(StageLayout, llvm::formatv("{0} (x is {1})", out.why,
                                              baseType));
      return std::nullopt;
    }
    llvm::append_range(global, *o);
  }
  ArrayRef<Value> leaves = out.sums;
  int64_t r = global.size();

  // Each sum: x * cos and rot * sin, each factor a rearranged x or a table.
  struct Term {
    Product product;
    Value x, table;
    const SmallVector<Lane> *lanes;
  };
  SmallVector<SmallVector<Term, 2>> terms(leaves.size());
  for (auto [i, leaf] : llvm::enumerate(leaves)) {
    SmallVector<Product> products;
    if (!collectProducts(leaf, false, typeOf(leaf), products)) {
      decline.note(StageLayout,
                   llvm::formatv("{0} in a rotated part is not a sum of "
                                 "products",
                                 describe(leaf.getDefiningOp())));
      return std::nullopt;
    }
    if (products.size() != 2) {
      decline.note(StageLayout,
                   llvm::formatv("expected x * cos + rot * sin, got a sum of "
                                 "{0} products",
                                 products.size()));
      return std::nullopt;
    }
    for (Product p : products) {
      Term term{p, nullptr, nullptr, nullptr};
      for (auto [a, b] : {std::pair{p.mul.getLhs(), p.mul.getRhs()},
                          std::pair{p.mul.getRhs(), p.mul.getLhs()}}) {
        const SmallVector<Lane> *l = lanes.resolve(a);
        if (!l)
          continue;
        if (typeOf(a) != p.mul.getType()) {
          decline.note(StageLayout,
                       llvm::formatv("the table of {0} broadcasts x from {1} "
                                     "to {2}",
                                     describe(p.mul), typeOf(a),
                                     p.mul.getType()));
          return std::nullopt;
        }
        term = {p, a, b, l};
        break;
      }
      if (!term.lanes) {
        bool firstTerm = i == 0 && terms[0].empty();
        decline.note(firstTerm ? StageBase : StageLayout,
                     llvm::formatv("no factor of {0} is a rearrangement "
                                   "(slices, negations, concats, reshapes) "
                                   "of the x the other products read",
                                   describe(p.mul)));
        return std::nullopt;
      }
      terms[i].push_back(term);
    }
  }

  // Which lanes each sum produces.
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> lanesOf(leaves.size());
  for (auto [g, entry] : llvm::enumerate(global))
    lanesOf[entry.first].push_back({static_cast<int64_t>(g), entry.second});

  // The cos term reads x[lo + g] at output lane g, unnegated.
  std::optional<int64_t> lo;
  SmallVector<unsigned> cosTerm(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto identityFrom = [&](const Term &t, bool wantNegated)
        -> std::optional<int64_t> {
      std::optional<int64_t> start;
      for (auto [g, k] : lanesOf[i]) {
        Lane lane = (*t.lanes)[k];
        bool negated = lane.negated != t.product.negated;
        if (negated != wantNegated || (start && lane.channel - g != *start))
          return std::nullopt;
        start = lane.channel - g;
      }
      return start;
    };
    // A window starts inside x; the sin term of a second half reads from
    // before the window and so cannot pass for the cos term.
    auto inside = [&](std::optional<int64_t> start) -> std::optional<int64_t> {
      if (start && (*start < 0 || *start + r > lanes.width))
        return std::nullopt;
      return start;
    };
    auto a = inside(identityFrom(terms[i][0], false));
    auto b = inside(identityFrom(terms[i][1], false));
    if (a && b && lo && *a != *b) {
      // Only one of them continues the window the other sums read.
      if (*a != *lo)
        a.reset();
      else
        b.reset();
    }
    if (a && b) {
      decline.note(StageCos, "both products read x unrotated");
      return std::nullopt;
    }
    if (!a && !b) {
      if (identityFrom(terms[i][0], true) || identityFrom(terms[i][1], true))
        decline.note(StageCos, "the x * cos product is negated");
      else
        decline.note(StageCos, "no product reads x channel for channel "
                               "(expected x * cos)");
      return std::nullopt;
    }
    int64_t start = a ? *a : *b;
    if (lo && *lo != start) {
      decline.note(StageCos,
                   llvm::formatv("the cos products read x from channel {0} "
                                 "and from channel {1}",
                                 *lo, start));
      return std::nullopt;
    }
    lo = start;
    cosTerm[i] = a ? 0 : 1;
  }
  if (r < 2 || r % 2) {
    decline.note(StagePairing,
                 llvm::formatv("odd rotary width {0}: channels cannot pair", r));
    return std::nullopt;
  }

  // The sin term reads the partner of lane g, negated in the first of each
  // pair.
  SmallVector<int64_t> partner(r);
  SmallVector<bool> negated(r);
  for (auto [g, entry] : llvm::enumerate(global)) {
    const Term &t = terms[entry.first][1 - cosTerm[entry.first]];
    Lane lane = (*t.lanes)[entry.second];
    partner[g] = lane.channel - *lo;
    negated[g] = lane.negated != t.product.negated;
    if (partner[g] < 0 || partner[g] >= r) {
      decline.note(StagePairing,
                   llvm::formatv("rotated channel {0} reads x channel {1}, "
                                 "outside the rotary channels [{2}, {3})",
                                 g, lane.channel, *lo, *lo + r));
      return std::nullopt;
    }
  }
  std::optional<bool> interleaved = classifyRotation(partner, negated, *lo,
                                                     decline);
  if (!interleaved)
    return std::nullopt;

  // Pass-through channels: x[..., r:D] in order, after the rotary ones.
  int64_t n = rootType.getShape().back();
  if (numRotary < parts.size()) {
    int64_t g = r;
    for (size_t i = numRotary; i < parts.size(); ++i) {
      const SmallVector<Lane> *l = lanes.resolve(parts[i]);
      if (!l) {
        decline.note(StagePass, "the channels after the rotary ones are not "
                                "a slice of x");
        return std::nullopt;
      }
      for (const Lane &lane : *l) {
        if (lane.negated || lane.channel != g) {
          decline.note(StagePass,
                       llvm::formatv("pass-through channel {0} is {1}x "
                                     "channel {2}, expected x channel {0}",
                                     g, lane.negated ? "-" : "",
                                     lane.channel));
          return std::nullopt;
        }
        ++g;
      }
    }
    if (*lo != 0) {
      decline.note(StagePass,
                   llvm::formatv("the rotary channels start at channel {0} "
                                 "of x, but pass-through channels follow",
                                 *lo));
      return std::nullopt;
    }
    if (n != lanes.width) {
      decline.note(StagePass,
                   llvm::formatv("the output keeps {0} of the {1} channels "
                                 "of x",
                                 n, lanes.width));
      return std::nullopt;
    }
  }

  RopeMatch m;
  m.base = base;
  m.lo = *lo;
  m.rotary = r;
  m.interleaved = *interleaved;
  m.passThrough = numRotary < parts.size();
  m.rotaryParts.assign(parts.begin(), parts.begin() + numRotary);
  for (auto [i, leaf] : llvm::enumerate(leaves))
    m.tables[leaf] = {terms[i][cosTerm[i]].table,
                      terms[i][1 - cosTerm[i]].table};
  // An existing x[..., lo:lo + r] saves a slice: the cos factor usually is
  // one.
  if (!m.passThrough && !(m.lo == 0 && r == lanes.width)) {
    SmallVector<int64_t> windowShape(lead);
    windowShape.push_back(r);
    for (auto &leafTerms : terms) {
      for (const Term &t : leafTerms) {
        if (typeOf(t.x).getShape() != ArrayRef<int64_t>(windowShape))
          continue;
        bool identity = true;
        for (int64_t k = 0; k < r && identity; ++k)
          identity = !(*t.lanes)[k].negated &&
                     (*t.lanes)[k].channel == m.lo + k;
        if (identity) {
          m.window = t.x;
          break;
        }
      }
      if (m.window)
        break;
    }
  }
  return m;
}

/// The first sum under `v` through concats and reshapes.
Value firstSum(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > kMaxDepth)
    return nullptr;
  if (isa<AddOp, SubOp>(def))
    return v;
  if (isa<ConcatOp, ReshapeOp>(def))
    for (Value operand : def->getOperands())
      if (Value sum = firstSum(operand, depth + 1))
        return sum;
  return nullptr;
}

/// Matches the chain whose output is `root`, trying every candidate x
/// nearest first; on failure `why` is the nearest miss.
FailureOr<RopeMatch> matchRope(Operation *root, std::string &why) {
  // x is under every product; the factors of any one product lead to it.
  Value sum = firstSum(root->getResult(0));
  SmallVector<Product> products;
  if (!sum || !collectProducts(sum, false, typeOf(sum), products) ||
      products.empty()) {
    why = "the output is not a sum of products";
    return failure();
  }
  SmallVector<Value> bases = candidateBases(products.front().mul.getLhs());
  for (Value v : candidateBases(products.front().mul.getRhs()))
    if (!llvm::is_contained(bases, v))
      bases.push_back(v);
  Decline decline;
  for (Value base : bases)
    if (auto m = matchOnBase(root, base, decline))
      return *m;
  why = decline.why.empty() ? "no x found under the products" : decline.why;
  return failure();
}

//===----------------------------------------------------------------------===//
// Building the fused op
//===----------------------------------------------------------------------===//

/// Builds the fused op's cos and sin from the chain's own tables.
class TableBuilder {
public:
  TableBuilder(PatternRewriter &rewriter, Location loc, const RopeMatch &m)
      : rewriter(rewriter), loc(loc), m(m),
        lead(typeOf(m.base).getRank() - 1) {}

  /// The table for the whole rotary part, with last dim rotary_dim.
  Value assemble(bool cos) {
    if (m.rotaryParts.size() == 1) {
      Value part = m.rotaryParts.front();
      if (auto it = m.tables.find(part); it != m.tables.end()) {
        // One sum: its table already fits when it spans the channels.
        Value table = cos ? it->second.first : it->second.second;
        if (typeOf(table).getShape().back() == m.rotary)
          return table;
      }
      return mirror(part, cos);
    }
    SmallVector<Value> tables;
    for (Value part : m.rotaryParts)
      tables.push_back(mirror(part, cos));
    broadcastLeads(tables);
    return rewriter.create<ConcatOp>(loc, tables,
                                     rewriter.getI64IntegerAttr(lead));
  }

private:
  /// The cos (or sin) table laid out like `node`: the chain's concats and
  /// reshapes applied to the tables of its sums.
  Value mirror(Value node, bool cos) {
    if (auto it = m.tables.find(node); it != m.tables.end())
      return spellOut(cos ? it->second.first : it->second.second,
                      typeOf(node));
    if (auto r = node.getDefiningOp<ReshapeOp>()) {
      Value in = mirror(r.getX(), cos);
      auto t = typeOf(in);
      SmallVector<int64_t> shape(t.getShape().take_front(lead));
      llvm::append_range(shape, r.getType().getShape().drop_front(lead));
      return rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(shape, t.getElementType()), in);
    }
    auto c = node.getDefiningOp<ConcatOp>();
    SmallVector<Value> inputs;
    for (Value in : c.getInputs())
      inputs.push_back(mirror(in, cos));
    broadcastLeads(inputs);
    return rewriter.create<ConcatOp>(
        loc, inputs,
        rewriter.getI64IntegerAttr(
            normaliseAxis(c.getAxis(), c.getType().getRank())));
  }

  /// Brings a table of a sum of type `sumType` to the sum's rank with its
  /// trailing dims spelled out (leading dims stay 1 where they broadcast),
  /// so tables concatenate and reshape like the sums they multiply. A table
  /// several sums share is spelled out once.
  Value spellOut(Value table, RankedTensorType sumType) {
    Value &known = spelled[{table, sumType}];
    if (known)
      return known;
    auto t = typeOf(table);
    if (t.getRank() < sumType.getRank()) {
      SmallVector<int64_t> padded(sumType.getRank() - t.getRank(), 1);
      llvm::append_range(padded, t.getShape());
      table = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(padded, t.getElementType()), table);
      t = typeOf(table);
    }
    SmallVector<int64_t> target(t.getShape().take_front(lead));
    llvm::append_range(target, sumType.getShape().drop_front(lead));
    if (ArrayRef<int64_t>(target) != t.getShape())
      table = rewriter.create<BroadcastOp>(loc, table, target);
    known = table;
    return table;
  }

  /// Broadcasts each value's leading dims to their common shape.
  void broadcastLeads(SmallVectorImpl<Value> &values) {
    SmallVector<int64_t> common(lead, 1);
    for (Value v : values)
      for (size_t d = 0; d < lead; ++d)
        common[d] = std::max(common[d], typeOf(v).getDimSize(d));
    for (Value &v : values) {
      auto t = typeOf(v);
      if (t.getShape().take_front(lead) == ArrayRef<int64_t>(common))
        continue;
      SmallVector<int64_t> target(common);
      llvm::append_range(target, t.getShape().drop_front(lead));
      v = rewriter.create<BroadcastOp>(loc, v, target);
    }
  }

  PatternRewriter &rewriter;
  Location loc;
  const RopeMatch &m;
  size_t lead;
  DenseMap<std::pair<Value, Type>, Value> spelled;
};

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct RopeFusion : public OpRewritePattern<OpTy> {
  RopeFusion(MLIRContext *ctx, ExplainFn explain)
      : OpRewritePattern<OpTy>(ctx, /*benefit=*/1),
        explain(std::move(explain)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Operation *root = op.getOperation();
    if (!isChainShaped(root))
      return rewriter.notifyMatchFailure(root, "not a rotation chain");
    // A larger chain that fuses takes this one with it.
    Operation *outer = enclosingChain(root);
    if (outer) {
      std::string ignored;
      if (succeeded(matchRope(outer, ignored)))
        return rewriter.notifyMatchFailure(root, "part of a larger rotation");
    }
    std::string why;
    auto m = matchRope(root, why);
    if (failed(m)) {
      // Only the outermost chain explains itself.
      if (explain && !outer)
        explain(root, false, why);
      return rewriter.notifyMatchFailure(root, why);
    }

    Location loc = root->getLoc();
    int64_t width = typeOf(m->base).getShape().back();
    Value x = m->base;
    if (!m->passThrough && !(m->lo == 0 && m->rotary == width)) {
      x = m->window;
      if (!x) {
        auto t = typeOf(m->base);
        SmallVector<int64_t> start(t.getRank(), 0), limit(t.getShape()),
            step(t.getRank(), 1);
        start.back() = m->lo;
        limit.back() = m->lo + m->rotary;
        x = rewriter.create<SliceOp>(loc, m->base, start, limit, step);
      }
    }
    TableBuilder tables(rewriter, loc, *m);
    Value cos = tables.assemble(/*cos=*/true);
    Value sin = tables.assemble(/*cos=*/false);
    StringRef style = m->interleaved ? "interleaved" : "half";
    // A rotary of c * y (q scaled before the rotary, as ESM does) is c
    // times the rotary of y: the rotary is linear in its input. The factor
    // goes after it, where the attention matcher takes it as the scale.
    Value factor;
    if (auto mul = x.getDefiningOp<MulOp>(); mul && x == m->base)
      for (auto [y, c] : {std::pair{mul.getLhs(), mul.getRhs()},
                          std::pair{mul.getRhs(), mul.getLhs()}})
        if (y.getType() == x.getType() && splatOf(c)) {
          x = y;
          factor = c;
          break;
        }
    auto rope = rewriter.create<RopeOp>(loc, x, cos, sin, style,
                                        static_cast<uint64_t>(m->rotary));
    if (explain) {
      std::string what = llvm::formatv("{0}, rotary_dim {1} of {2}", style,
                                       m->rotary, typeOf(x).getShape().back());
      if (x != m->base)
        what += llvm::formatv(" (x channels {0}..{1})", m->lo,
                              m->lo + m->rotary);
      if (m->rotaryParts.size() > 1 ||
          !m->tables.count(m->rotaryParts.front()))
        what += llvm::formatv(", cos/sin assembled from {0} tables",
                              m->tables.size());
      explain(root, true, what);
    }
    Value out = rope.getResult();
    if (factor)
      out = rewriter.create<MulOp>(loc, out, factor);
    rewriter.replaceOp(root, out);
    return success();
  }

  ExplainFn explain;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct RopeFusionPass : public poot::impl::RopeFusionBase<RopeFusionPass> {
  using RopeFusionBase::RopeFusionBase;

  void runOnOperation() override {
    if (failed(applyFusionPatterns(
            getOperation(), "rope", explain || explainByDefault(),
            [](RewritePatternSet &patterns, ExplainFn fn) {
              populateRopeFusionPatterns(patterns, std::move(fn));
            },
            isCandidate)))
      signalPassFailure();
  }
};

} // namespace

void poot::populateRopeFusionPatterns(RewritePatternSet &patterns,
                                      ExplainFn explain) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<RopeFusion<AddOp>>(ctx, explain);
  patterns.add<RopeFusion<SubOp>>(ctx, explain);
  patterns.add<RopeFusion<ConcatOp>>(ctx, explain);
  patterns.add<RopeFusion<ReshapeOp>>(ctx, std::move(explain));
}

//===- SoftmaxForm.cpp - The softmax normal forms the fusions read --------===//
//
// The readers of SoftmaxForm.h. Each says what it recognised or, in `why`,
// which op broke the reading and how; none changes the IR.
//
//===----------------------------------------------------------------------===//

#include "SoftmaxForm.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <iterator>

using namespace mlir;
using namespace poot;
using namespace poot::match;

//===----------------------------------------------------------------------===//
// Value helpers
//===----------------------------------------------------------------------===//

Value poot::match::stripFloatConvert(Value v) {
  while (auto cv = v.getDefiningOp<ConvertOp>()) {
    if (!isa<FloatType>(typeOf(cv.getX()).getElementType()) ||
        !isa<FloatType>(cv.getType().getElementType()))
      break;
    v = cv.getX();
  }
  return v;
}

Value poot::match::stripBroadcast(Value v) {
  while (auto b = v.getDefiningOp<BroadcastOp>())
    v = b.getX();
  return v;
}

/// Whether a reshape from `in` to `out` only adds or drops leading unit
/// dims (nothing moves under right-aligned broadcasting), or makes one
/// element of one.
static bool isAlignedReshape(RankedTensorType in, RankedTensorType out) {
  if (in.getNumElements() == 1 && out.getNumElements() == 1)
    return true;
  auto trimmed = [](ArrayRef<int64_t> s) {
    while (!s.empty() && s.front() == 1)
      s = s.drop_front();
    return s;
  };
  return trimmed(in.getShape()) == trimmed(out.getShape());
}

Value poot::match::stripRowView(Value v) {
  while (true) {
    Operation *def = v.getDefiningOp();
    if (auto b = dyn_cast_or_null<BroadcastOp>(def)) {
      v = b.getX();
      continue;
    }
    if (auto r = dyn_cast_or_null<ReshapeOp>(def);
        r && isAlignedReshape(typeOf(r.getX()), r.getType())) {
      v = r.getX();
      continue;
    }
    Value s = stripFloatConvert(v);
    if (s == v)
      return v;
    v = s;
  }
}

std::optional<double> poot::match::splatOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<BroadcastOp, ReshapeOp, ConvertOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto c = dyn_cast<ConstantOp>(def);
    if (!c)
      return std::nullopt;
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || !dense.isSplat())
      return std::nullopt;
    if (isa<FloatType>(dense.getElementType()))
      return dense.getSplatValue<APFloat>().convertToDouble();
    if (dense.getElementType().isSignlessInteger())
      return static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
    return std::nullopt;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Constant expressions
//===----------------------------------------------------------------------===//

/// `x` rounded to element type `et` as a stored value of it is.
static double roundTo(Type et, double x) {
  if (auto ft = dyn_cast<FloatType>(et)) {
    APFloat f(x);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  }
  if (et.isInteger(1))
    return x != 0.0 ? 1.0 : 0.0;
  unsigned w = et.getIntOrFloatBitWidth();
  if (w >= 64 || !std::isfinite(x))
    return x;
  return static_cast<double>(
      APInt(64, static_cast<int64_t>(x), /*isSigned=*/true).sextOrTrunc(w)
          .getSExtValue());
}

/// The flat index into an operand of shape `in`, right-aligned and
/// broadcast against the result's multi-index `at`.
static int64_t broadcastIndex(ArrayRef<int64_t> in, ArrayRef<int64_t> at) {
  int64_t off = at.size() - in.size(), flat = 0;
  for (size_t d = 0; d < in.size(); ++d)
    flat = flat * in[d] + (in[d] == 1 ? 0 : at[d + off]);
  return flat;
}

static std::optional<SmallVector<double>>
constantElementsOf(Value v, int64_t limit, int depth,
                   DenseMap<Value, std::optional<SmallVector<double>>> &memo);

static std::optional<SmallVector<double>>
constantNode(Value v, int64_t limit, int depth,
             DenseMap<Value, std::optional<SmallVector<double>>> &memo) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  Operation *def = v.getDefiningOp();
  if (!t || !def || depth > 32 || t.getNumElements() > limit)
    return std::nullopt;
  Type et = t.getElementType();
  int64_t n = t.getNumElements(), rank = t.getRank();
  SmallVector<double> out(n);
  auto multiIndex = [&](int64_t flat, SmallVector<int64_t> &at) {
    at.assign(rank, 0);
    for (int64_t d = rank - 1; d >= 0; --d) {
      at[d] = flat % t.getDimSize(d);
      flat /= t.getDimSize(d);
    }
  };
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense)
      return std::nullopt;
    int64_t i = 0;
    if (isa<FloatType>(et)) {
      for (const APFloat &x : dense.getValues<APFloat>())
        out[i++] = x.convertToDouble();
    } else if (et.isInteger(1)) {
      for (bool x : dense.getValues<bool>())
        out[i++] = x ? 1.0 : 0.0;
    } else {
      for (const APInt &x : dense.getValues<APInt>())
        out[i++] = static_cast<double>(x.getSExtValue());
    }
    if (dense.isSplat())
      std::fill(out.begin(), out.end(), out.front());
    return out;
  }
  if (auto iota = dyn_cast<IotaOp>(def)) {
    SmallVector<int64_t> at;
    for (int64_t i = 0; i < n; ++i) {
      multiIndex(i, at);
      out[i] = roundTo(et, static_cast<double>(at[iota.getDim()]));
    }
    return out;
  }
  if (isa<ReshapeOp>(def))
    return constantElementsOf(def->getOperand(0), limit, depth + 1, memo);
  if (auto sl = dyn_cast<SliceOp>(def)) {
    auto x = constantElementsOf(sl.getX(), limit, depth + 1, memo);
    if (!x)
      return std::nullopt;
    ArrayRef<int64_t> in = typeOf(sl.getX()).getShape();
    SmallVector<int64_t> at;
    for (int64_t i = 0; i < n; ++i) {
      multiIndex(i, at);
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat = flat * in[d] + sl.getStart()[d] + at[d] * sl.getStep()[d];
      out[i] = (*x)[flat];
    }
    return out;
  }
  if (auto tr = dyn_cast<TransposeOp>(def)) {
    auto x = constantElementsOf(tr.getX(), limit, depth + 1, memo);
    if (!x)
      return std::nullopt;
    ArrayRef<int64_t> in = typeOf(tr.getX()).getShape();
    ArrayRef<int64_t> perm = tr.getPerm();
    SmallVector<int64_t> at, src(rank);
    for (int64_t i = 0; i < n; ++i) {
      multiIndex(i, at);
      for (int64_t d = 0; d < rank; ++d)
        src[perm[d]] = at[d];
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat = flat * in[d] + src[d];
      out[i] = (*x)[flat];
    }
    return out;
  }
  if (auto cat = dyn_cast<ConcatOp>(def)) {
    int64_t axis = cat.getAxis() < 0 ? cat.getAxis() + rank : cat.getAxis();
    if (axis < 0 || axis >= rank)
      return std::nullopt;
    SmallVector<SmallVector<double>> parts;
    SmallVector<int64_t> offsets;
    int64_t off = 0;
    for (Value x : cat.getInputs()) {
      auto e = constantElementsOf(x, limit, depth + 1, memo);
      if (!e)
        return std::nullopt;
      parts.push_back(std::move(*e));
      offsets.push_back(off);
      off += typeOf(x).getDimSize(axis);
    }
    SmallVector<int64_t> at;
    for (int64_t i = 0; i < n; ++i) {
      multiIndex(i, at);
      size_t j = offsets.size() - 1;
      while (offsets[j] > at[axis])
        --j;
      ArrayRef<int64_t> in = typeOf(cat.getInputs()[j]).getShape();
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat = flat * in[d] + (d == axis ? at[d] - offsets[j] : at[d]);
      out[i] = parts[j][flat];
    }
    return out;
  }
  if (auto dus = dyn_cast<DynamicUpdateSliceOp>(def)) {
    // The starts clamp into [0, dim - size], as the op's own do.
    auto x = constantElementsOf(dus.getX(), limit, depth + 1, memo);
    auto u = constantElementsOf(dus.getUpdate(), limit, depth + 1, memo);
    if (!x || !u || static_cast<int64_t>(dus.getStarts().size()) != rank)
      return std::nullopt;
    ArrayRef<int64_t> us = typeOf(dus.getUpdate()).getShape();
    SmallVector<int64_t> starts;
    for (auto [d, st] : llvm::enumerate(dus.getStarts())) {
      auto e = constantElementsOf(st, limit, depth + 1, memo);
      if (!e || e->size() != 1)
        return std::nullopt;
      int64_t hi = t.getDimSize(d) - us[d];
      starts.push_back(std::clamp<int64_t>(static_cast<int64_t>((*e)[0]), 0,
                                           std::max<int64_t>(hi, 0)));
    }
    out = *x;
    SmallVector<int64_t> at;
    for (int64_t i = 0, m = typeOf(dus.getUpdate()).getNumElements(); i < m;
         ++i) {
      int64_t rest = i;
      at.assign(rank, 0);
      for (int64_t d = rank - 1; d >= 0; --d) {
        at[d] = rest % us[d];
        rest /= us[d];
      }
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat = flat * t.getDimSize(d) + at[d] + starts[d];
      out[flat] = (*u)[i];
    }
    return out;
  }
  if (auto g = dyn_cast<GatherOp>(def)) {
    auto x = constantElementsOf(g.getX(), limit, depth + 1, memo);
    auto idx = constantElementsOf(g.getIdx(), limit, depth + 1, memo);
    if (!x || !idx)
      return std::nullopt;
    ArrayRef<int64_t> in = typeOf(g.getX()).getShape();
    int64_t axis = g.getAxis(), ir = typeOf(g.getIdx()).getRank();
    ArrayRef<int64_t> is = typeOf(g.getIdx()).getShape();
    SmallVector<int64_t> at;
    for (int64_t i = 0; i < n; ++i) {
      multiIndex(i, at);
      int64_t k = 0;
      for (int64_t d = 0; d < ir; ++d)
        k = k * is[d] + at[axis + d];
      double row = (*idx)[k];
      if (row < 0 || row >= in[axis])
        return std::nullopt; // a run-time error, not a value
      int64_t flat = 0;
      for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
        int64_t j = d < axis    ? at[d]
                    : d == axis ? static_cast<int64_t>(row)
                                : at[d - 1 + ir];
        flat = flat * in[d] + j;
      }
      out[i] = (*x)[flat];
    }
    return out;
  }
  if (auto sel = dyn_cast<SelectOp>(def)) {
    SmallVector<SmallVector<double>> args;
    for (Value x : def->getOperands()) {
      auto e = constantElementsOf(x, limit, depth + 1, memo);
      if (!e)
        return std::nullopt;
      args.push_back(std::move(*e));
    }
    SmallVector<int64_t> at;
    for (int64_t i = 0; i < n; ++i) {
      multiIndex(i, at);
      auto arg = [&](unsigned j) {
        return args[j][broadcastIndex(typeOf(def->getOperand(j)).getShape(),
                                      at)];
      };
      out[i] = arg(0) != 0.0 ? arg(1) : arg(2);
    }
    return out;
  }
  bool elementwise =
      isa<BroadcastOp, ConvertOp, NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
          SinOp, CosOp, TanhOp, AddOp, SubOp, MulOp, DivOp, PowOp, MinOp,
          MaxOp, CompareOp, AndOp, OrOp, NotOp>(def);
  if (!elementwise)
    return std::nullopt;
  if (auto cv = dyn_cast<ConvertOp>(def);
      cv && isa<FloatType>(typeOf(cv.getX()).getElementType()) &&
      !isa<FloatType>(et))
    return std::nullopt; // float to integer: the rounding mode is the op's
  SmallVector<SmallVector<double>> args;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value x : def->getOperands()) {
    auto e = constantElementsOf(x, limit, depth + 1, memo);
    if (!e)
      return std::nullopt;
    args.push_back(std::move(*e));
    shapes.push_back(typeOf(x).getShape());
  }
  SmallVector<int64_t> at;
  for (int64_t i = 0; i < n; ++i) {
    multiIndex(i, at);
    double a = args[0][broadcastIndex(shapes[0], at)];
    double b = args.size() > 1 ? args[1][broadcastIndex(shapes[1], at)] : 0;
    double r;
    if (isa<BroadcastOp, ConvertOp>(def))
      r = a;
    else if (isa<NegOp>(def))
      r = -a;
    else if (isa<AbsOp>(def))
      r = std::fabs(a);
    else if (isa<ExpOp>(def))
      r = std::exp(a);
    else if (isa<LogOp>(def))
      r = std::log(a);
    else if (isa<SqrtOp>(def))
      r = std::sqrt(a);
    else if (isa<RsqrtOp>(def))
      r = 1.0 / std::sqrt(a);
    else if (isa<SinOp>(def))
      r = std::sin(a);
    else if (isa<CosOp>(def))
      r = std::cos(a);
    else if (isa<TanhOp>(def))
      r = std::tanh(a);
    else if (isa<AddOp>(def))
      r = a + b;
    else if (isa<SubOp>(def))
      r = a - b;
    else if (isa<MulOp>(def))
      r = a * b;
    else if (isa<DivOp>(def)) {
      // Integer division truncates; by zero it is not a constant here.
      if (!isa<FloatType>(et)) {
        if (b == 0)
          return std::nullopt;
        r = std::trunc(a / b);
      } else {
        r = a / b;
      }
    } else if (isa<PowOp>(def)) {
      r = std::pow(a, b);
    } else if (isa<MinOp>(def)) {
      r = std::min(a, b);
    } else if (isa<MaxOp>(def)) {
      r = std::max(a, b);
    } else if (isa<AndOp>(def)) {
      r = a != 0.0 && b != 0.0;
    } else if (isa<OrOp>(def)) {
      r = a != 0.0 || b != 0.0;
    } else if (isa<NotOp>(def)) {
      r = a == 0.0;
    } else {
      switch (cast<CompareOp>(def).getPredicate()) {
      case ComparePredicate::eq: r = a == b; break;
      case ComparePredicate::ne: r = a != b; break;
      case ComparePredicate::lt: r = a < b; break;
      case ComparePredicate::le: r = a <= b; break;
      case ComparePredicate::gt: r = a > b; break;
      case ComparePredicate::ge: r = a >= b; break;
      }
    }
    if (!isa<FloatType>(et) && !(std::fabs(r) <= 0x1p53))
      return std::nullopt; // past the exact integers of a double
    out[i] = roundTo(et, r);
  }
  return out;
}

static std::optional<SmallVector<double>>
constantElementsOf(Value v, int64_t limit, int depth,
                   DenseMap<Value, std::optional<SmallVector<double>>> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  auto r = constantNode(v, limit, depth, memo);
  memo[v] = r;
  return r;
}

std::optional<SmallVector<double>>
poot::match::constantElements(Value v, int64_t limit) {
  DenseMap<Value, std::optional<SmallVector<double>>> memo;
  return constantElementsOf(v, limit, 0, memo);
}

namespace {
using Bound = std::pair<double, double>;

/// Reads finiteBound with a memo (masks share their subexpressions).
struct BoundReader {
  explicit BoundReader(const RangeOracle &oracle) : oracle(oracle) {}
  const RangeOracle &oracle;
  DenseMap<Value, std::optional<Bound>> memo;

  /// [lo, hi] widened outward by a double ulp (the double arithmetic that
  /// computed it rounds too), then rounded to `et` to nearest as the op
  /// does; rounding is monotone, so the op's every result lies inside.
  static std::optional<Bound> roundedTo(Type et, double lo, double hi) {
    auto ft = dyn_cast<FloatType>(et);
    if (!ft || std::isnan(lo) || std::isnan(hi))
      return std::nullopt;
    auto to = [&](double x) {
      APFloat f(x);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      return f.convertToDouble();
    };
    lo = to(std::nextafter(lo, -INFINITY));
    hi = to(std::nextafter(hi, INFINITY));
    if (!std::isfinite(lo) || !std::isfinite(hi))
      return std::nullopt;
    return Bound{lo, hi};
  }

  std::optional<Bound> integer(Value v) {
    auto et = typeOf(v).getElementType();
    if (et.isInteger(1))
      return Bound{0.0, 1.0};
    auto r = oracle.rangeOf(v);
    if (!r)
      return std::nullopt;
    return Bound{static_cast<double>(r->smin().getSExtValue()),
                 static_cast<double>(r->smax().getSExtValue())};
  }

  std::optional<Bound> read(Value v, int depth) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || depth > 48)
      return std::nullopt;
    if (!isa<FloatType>(t.getElementType()))
      return integer(v);
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    auto r = node(v, t.getElementType(), depth);
    memo[v] = r;
    return r;
  }

  std::optional<Bound> node(Value v, Type et, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    auto arg = [&](Value x) { return read(x, depth + 1); };
    if (auto c = dyn_cast<ConstantOp>(def)) {
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense || dense.empty())
        return std::nullopt;
      double lo = INFINITY, hi = -INFINITY;
      for (const APFloat &x : dense.getValues<APFloat>()) {
        double d = x.convertToDouble();
        if (!std::isfinite(d))
          return std::nullopt;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
        if (dense.isSplat())
          break;
      }
      return Bound{lo, hi};
    }
    if (isa<ReshapeOp, TransposeOp, BroadcastOp, SliceOp, DynamicSliceOp,
            GatherOp>(def))
      return arg(def->getOperand(0));
    if (isa<ConcatOp, DynamicUpdateSliceOp, SelectOp>(def)) {
      // Every element is one of the value operands' elements.
      std::optional<Bound> all;
      for (Value x : def->getOperands()) {
        if (isa<SelectOp>(def) && x == def->getOperand(0))
          continue;
        if (isa<DynamicUpdateSliceOp>(def) &&
            !isa<FloatType>(typeOf(x).getElementType()))
          continue;
        auto b = arg(x);
        if (!b)
          return std::nullopt;
        all = all ? Bound{std::min(all->first, b->first),
                          std::max(all->second, b->second)}
                  : *b;
      }
      return all;
    }
    if (auto cv = dyn_cast<ConvertOp>(def)) {
      auto b = arg(cv.getX());
      return b ? roundedTo(et, b->first, b->second) : std::nullopt;
    }
    if (isa<NegOp, AbsOp>(def)) {
      auto b = arg(def->getOperand(0));
      if (!b)
        return std::nullopt;
      if (isa<NegOp>(def))
        return Bound{-b->second, -b->first};
      double lo = b->first <= 0 && b->second >= 0
                      ? 0.0
                      : std::min(std::abs(b->first), std::abs(b->second));
      return Bound{lo, std::max(std::abs(b->first), std::abs(b->second))};
    }
    if (!isa<AddOp, SubOp, MulOp, MaxOp, MinOp>(def))
      return std::nullopt;
    auto a = arg(def->getOperand(0)), b = arg(def->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    double lo, hi;
    if (isa<AddOp>(def)) {
      lo = a->first + b->first;
      hi = a->second + b->second;
    } else if (isa<SubOp>(def)) {
      lo = a->first - b->second;
      hi = a->second - b->first;
    } else if (isa<MulOp>(def)) {
      double p[] = {a->first * b->first, a->first * b->second,
                    a->second * b->first, a->second * b->second};
      lo = *std::min_element(std::begin(p), std::end(p));
      hi = *std::max_element(std::begin(p), std::end(p));
    } else if (isa<MaxOp>(def)) {
      lo = std::max(a->first, b->first);
      hi = std::max(a->second, b->second);
    } else {
      lo = std::min(a->first, b->first);
      hi = std::min(a->second, b->second);
    }
    return roundedTo(et, lo, hi);
  }
};
} // namespace

std::optional<std::pair<double, double>>
poot::match::finiteBound(Value v, const RangeOracle &oracle) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !isa<FloatType>(t.getElementType()))
    return std::nullopt;
  BoundReader reader(oracle);
  return reader.read(v, 0);
}

bool poot::match::sumStaysFinite(ArrayRef<std::pair<double, double>> bounds,
                                 ArrayRef<Type> types) {
  double threshold = INFINITY, score = 0x1p96;
  for (Type t : types) {
    auto ft = dyn_cast<FloatType>(t);
    if (!ft)
      return false;
    APFloat largest = APFloat::getLargest(ft.getFloatSemantics());
    APFloat below = largest;
    below.next(/*nextDown=*/true);
    double l = largest.convertToDouble();
    double halfUlp = (l - below.convertToDouble()) / 2;
    threshold = std::min(threshold, l + halfUlp);
    score = std::min(score, l);
  }
  double lo = -score, hi = score;
  for (auto [l, h] : bounds) {
    lo += l;
    hi += h;
  }
  lo = std::nextafter(lo, -INFINITY);
  hi = std::nextafter(hi, INFINITY);
  return std::isfinite(threshold) && lo > -threshold && hi < threshold;
}

/// Whether a value of type `ct` is, right-aligned against `frame`, one
/// value per row of it.
static bool rowShaped(RankedTensorType ct, RankedTensorType frame) {
  int64_t off = frame.getRank() - ct.getRank();
  if (off < 0)
    return false;
  for (int64_t i = 0; i < ct.getRank(); ++i) {
    int64_t d = ct.getDimSize(i), f = frame.getDimSize(i + off);
    if (d != 1 && d != f)
      return false;
  }
  return ct.getRank() == 0 || ct.getDimSize(ct.getRank() - 1) == 1 ||
         frame.getDimSize(frame.getRank() - 1) == 1;
}

bool poot::match::isRowConstant(Value c, RankedTensorType frame) {
  // A broadcast (right-aligned), an aligned reshape or a convert of a row
  // constant is one.
  while (true) {
    if (rowShaped(typeOf(c), frame))
      return true;
    Value next = c;
    if (auto b = c.getDefiningOp<BroadcastOp>())
      next = b.getX();
    else if (auto r = c.getDefiningOp<ReshapeOp>();
             r && isAlignedReshape(typeOf(r.getX()), r.getType()))
      next = r.getX();
    else
      next = stripFloatConvert(c);
    if (next == c)
      return false;
    c = next;
  }
}

static std::string num(double x) {
  return llvm::formatv("{0}", llvm::format("%g", x)).str();
}

//===----------------------------------------------------------------------===//
// The normaliser
//===----------------------------------------------------------------------===//

/// exp(a - lse(a)): lse(a) = log(sum(exp(a))) (log_softmax's last step) or
/// m + log(sum(exp(a - m))) (logsumexp with its max), over the key axis.
static FailureOr<SoftmaxForm> readLogSumExp(ExpOp exp, std::string &why) {
  using namespace mlir::matchers;
  Value arg = stripFloatConvert(exp.getX());
  auto sub = arg.getDefiningOp<SubOp>();
  if (!sub) {
    why = describeOp(exp) + " is not normalised: the probabilities are "
                            "neither divided by the sum of the exp nor "
                            "shifted by its log-sum-exp";
    return failure();
  }
  Value a = sub.getLhs();
  auto frame = typeOf(a);
  auto variesAlongKeys = [&]() -> FailureOr<SoftmaxForm> {
    why = describeOp(sub) + " subtracts a value that varies along the key "
                            "axis: not a log-sum-exp";
    return failure();
  };
  if (a.getType() != sub.getType())
    return variesAlongKeys();
  // The log term, and the max beside it when there is one.
  Value c = stripRowView(sub.getRhs()), m;
  LogOp log = c.getDefiningOp<LogOp>();
  if (auto add = c.getDefiningOp<AddOp>(); add && !log) {
    for (auto [x, y] : {std::pair{add.getLhs(), add.getRhs()},
                        std::pair{add.getRhs(), add.getLhs()}})
      if (auto l = stripRowView(x).getDefiningOp<LogOp>()) {
        log = l;
        m = y;
        break;
      }
  }
  if (!log) {
    why =
        describeOp(c.getDefiningOp() ? c.getDefiningOp() : sub.getOperation()) +
        " is subtracted inside the exp but is no log-sum-exp "
        "(log(sum(exp(x))) or m + log(sum(exp(x - m)))): nothing "
        "normalises the probabilities";
    return failure();
  }
  Value w;
  ReduceSumOp sum = stripRowView(log.getX()).getDefiningOp<ReduceSumOp>();
  if (!sum) {
    why = describeOp(log) + " is not the log of a sum: no log-sum-exp";
    return failure();
  }
  int64_t rank = typeOf(sum.getX()).getRank();
  if (!sum.getKeepdim() && typeOf(sum.getResult()).getNumElements() != 1) {
    why = describeOp(sum) + " in the log-sum-exp drops its axis: it does "
                            "not broadcast per row";
    return failure();
  }
  if (!isLastAxis(sum.getAxis(), rank)) {
    why = llvm::formatv("{0} in the log-sum-exp sums over axis {1}, expected "
                        "the key axis {2}",
                        describeOp(sum), static_cast<int64_t>(sum.getAxis()),
                        rank - 1);
    return failure();
  }
  if (!m_Cvt(m_Op<ExpOp>(m_Any(&w))).match(sum.getX())) {
    why = describeOp(sum) + " in the log-sum-exp sums no exp";
    return failure();
  }
  if (!isRowConstant(sub.getRhs(), frame))
    return variesAlongKeys();
  w = stripFloatConvert(w);
  // torch.logsumexp (its decomposition) adds the max with infinities
  // zeroed, select(|m| == inf, 0, m), and subtracts m itself inside: on a
  // row whose max is finite both are m, and where it is infinite the row is
  // NaN either way.
  auto unguarded = [](Value v) {
    v = stripRowView(v);
    auto sel = v.getDefiningOp<SelectOp>();
    auto cmp = sel ? sel.getCond().getDefiningOp<CompareOp>() : CompareOp();
    if (!cmp || !isSplat(cmp.getRhs(), INFINITY))
      return v;
    // |x| == inf picks 0 when true, |x| != inf when false.
    bool eq = cmp.getPredicate() == ComparePredicate::eq;
    if (!eq && cmp.getPredicate() != ComparePredicate::ne)
      return v;
    Value zero = eq ? sel.getOnTrue() : sel.getOnFalse();
    Value x = stripRowView(eq ? sel.getOnFalse() : sel.getOnTrue());
    auto abs = cmp.getLhs().getDefiningOp<AbsOp>();
    return isSplat(zero, 0.0) && abs && stripRowView(abs.getX()) == x ? x : v;
  };
  bool same;
  if (!m) {
    same = w == stripFloatConvert(a);
  } else {
    auto inner = w.getDefiningOp<SubOp>();
    same = inner && stripFloatConvert(inner.getLhs()) == stripFloatConvert(a) &&
           unguarded(inner.getRhs()) == unguarded(m) &&
           isRowConstant(m, frame);
  }
  if (!same) {
    why =
        describeOp(w.getDefiningOp() ? w.getDefiningOp() : sum.getOperation()) +
        ": the log-sum-exp is taken over another exponent than the one it "
        "normalises";
    return failure();
  }
  SoftmaxForm form;
  form.input = a;
  form.logSumExp = true;
  if (m)
    form.shifts.push_back({m, sub});
  return form;
}

FailureOr<SoftmaxForm> poot::match::readSoftmax(Value p, std::string &why) {
  p = stripFloatConvert(p);
  if (auto exp = p.getDefiningOp<ExpOp>())
    return readLogSumExp(exp, why);
  Value numer, denom;
  if (auto div = p.getDefiningOp<DivOp>()) {
    numer = div.getLhs();
    denom = div.getRhs();
  } else if (auto mul = p.getDefiningOp<MulOp>()) {
    // e * (1 / z)
    for (auto [a, b] : {std::pair{mul.getLhs(), mul.getRhs()},
                        std::pair{mul.getRhs(), mul.getLhs()}}) {
      auto recip = b.getDefiningOp<DivOp>();
      if (recip && isSplat(recip.getLhs(), 1.0)) {
        numer = a;
        denom = recip.getRhs();
      }
    }
  }
  if (!numer) {
    auto sel = p.getDefiningOp<SelectOp>();
    if (!sel) {
      why = "the probabilities are not exp(s) / sum(exp(s))";
      return failure();
    }
    // A select by a condition of its own (not computed from p itself) that
    // zeroes some weights is a mask applied after the softmax.
    auto cmp = sel.getCond().getDefiningOp<CompareOp>();
    auto computedFrom = [&](Value x) {
      return cmp && (stripFloatConvert(cmp.getLhs()) == stripFloatConvert(x) ||
                     stripFloatConvert(cmp.getRhs()) == stripFloatConvert(x));
    };
    bool ofItself =
        computedFrom(sel.getOnTrue()) || computedFrom(sel.getOnFalse());
    if (!ofItself &&
        (isSplat(sel.getOnTrue(), 0.0) || isSplat(sel.getOnFalse(), 0.0)))
      why = describeOp(sel) + " masks the probabilities after the softmax: "
                              "the weights it keeps are not renormalised";
    else
      why = "a select on the probabilities that is not a NaN guard "
            "select(p != p, 0, p)";
    return failure();
  }
  SoftmaxForm form;
  auto sum = stripBroadcast(denom).getDefiningOp<ReduceSumOp>();
  if (sum && sum.getX() != numer) {
    // jnp.sum(e, where=mask): the sum of select(mask, e, 0).
    if (auto sel = sum.getX().getDefiningOp<SelectOp>()) {
      if (sel.getOnTrue() == numer && isSplat(sel.getOnFalse(), 0.0)) {
        form.sumMask = sel.getCond();
        form.sumKeepsTrue = true;
      } else if (sel.getOnFalse() == numer && isSplat(sel.getOnTrue(), 0.0)) {
        form.sumMask = sel.getCond();
        form.sumKeepsTrue = false;
      }
      form.sumOp = sum;
    }
  }
  if (!sum || (sum.getX() != numer && !form.sumMask)) {
    why = "the denominator is not the sum of the numerator";
    return failure();
  }
  int64_t rank = typeOf(numer).getRank();
  // Without keepdim the sums would broadcast against the wrong dims.
  if (!sum.getKeepdim()) {
    why = "the softmax sum drops its axis: it does not broadcast per row";
    return failure();
  }
  if (!isLastAxis(sum.getAxis(), rank)) {
    why = llvm::formatv("softmax over axis {0}, expected the key axis {1}",
                        static_cast<int64_t>(sum.getAxis()), rank - 1);
    return failure();
  }
  auto exp = stripFloatConvert(numer).getDefiningOp<ExpOp>();
  if (!exp) {
    why = "the numerator is not an exp";
    return failure();
  }
  form.input = exp.getX();
  return form;
}

//===----------------------------------------------------------------------===//
// Shifts
//===----------------------------------------------------------------------===//

static LogicalResult readShiftInto(Value c, RankedTensorType frame,
                                   Operation *at, ShiftSource &out,
                                   std::string &why, int depth = 0) {
  c = stripRowView(c);
  Operation *def = c.getDefiningOp();
  if (depth > 16 || !def) {
    why = describeOp(at) + " subtracts an input, not a max of the scores: "
                           "a shift must be finite on every row with a "
                           "visible key";
    return failure();
  }
  if (auto s = splatOf(c)) {
    if (std::isfinite(*s))
      return success();
    why = describeOp(def) + " subtracts " + num(*s) +
          " from the scores: a shift must be finite";
    return failure();
  }
  auto positive = [](Value x) {
    auto s = splatOf(x);
    return s && *s > 0 && std::isfinite(*s);
  };
  if (auto mul = dyn_cast<MulOp>(def)) {
    if (positive(mul.getRhs()))
      return readShiftInto(mul.getLhs(), frame, at, out, why, depth + 1);
    if (positive(mul.getLhs()))
      return readShiftInto(mul.getRhs(), frame, at, out, why, depth + 1);
    why = describeOp(def) + " scales the subtracted max by a factor that is "
                            "not a positive constant";
    return failure();
  }
  if (auto div = dyn_cast<DivOp>(def)) {
    if (positive(div.getRhs()))
      return readShiftInto(div.getLhs(), frame, at, out, why, depth + 1);
    why = describeOp(def) + " divides the subtracted max by a value that is "
                            "not a positive constant";
    return failure();
  }
  // jax.scipy.special.logsumexp: select(isfinite(m), m, 0). Either side is
  // a shift, so the select is one.
  if (auto sel = dyn_cast<SelectOp>(def)) {
    if (failed(
            readShiftInto(sel.getOnTrue(), frame, at, out, why, depth + 1)) ||
        failed(readShiftInto(sel.getOnFalse(), frame, at, out, why, depth + 1)))
      return failure();
    return success();
  }
  if (!isa<ReduceMaxOp>(def)) {
    why = describeOp(def) + " computes the value subtracted from the scores, "
                            "which is not a max of them (nor a finite "
                            "constant): a shift must be finite on every row "
                            "with a visible key";
    return failure();
  }
  // A chain of max reductions: each keeps its axis (the row stays where it
  // was), or the chain ends in one element (a max over everything).
  Value y = c;
  bool keepsAll = true;
  ReduceMaxOp first;
  while (auto r = stripFloatConvert(y).getDefiningOp<ReduceMaxOp>()) {
    keepsAll &= r.getKeepdim();
    first = r;
    y = r.getX();
  }
  auto ct = typeOf(c);
  if (typeOf(y).getShape() != frame.getShape()) {
    why = llvm::formatv("{0} takes the max over a {1}, not over scores of "
                        "shape {2}",
                        describeOp(first), typeOf(y), frame);
    return failure();
  }
  bool overRow = keepsAll ? ct.getDimSize(ct.getRank() - 1) == 1
                          : ct.getNumElements() == 1;
  if (!overRow) {
    why = describeOp(def) + " is not a max over the key axis that broadcasts "
                            "per row";
    return failure();
  }
  out.maxOver.push_back(y);
  return success();
}

FailureOr<ShiftSource> poot::match::readShift(Value c, RankedTensorType frame,
                                              Operation *at, std::string &why) {
  ShiftSource out;
  if (failed(readShiftInto(c, frame, at, out, why)))
    return failure();
  return out;
}

//===----------------------------------------------------------------------===//
// Empty-row guards
//===----------------------------------------------------------------------===//

static bool holds(ComparePredicate p, double a, double b) {
  switch (p) {
  case ComparePredicate::eq:
    return a == b;
  case ComparePredicate::ne:
    return a != b;
  case ComparePredicate::lt:
    return a < b;
  case ComparePredicate::le:
    return a <= b;
  case ComparePredicate::gt:
    return a > b;
  case ComparePredicate::ge:
    return a >= b;
  }
  return false;
}

ComparePredicate poot::match::swapped(ComparePredicate p) {
  switch (p) {
  case ComparePredicate::lt:
    return ComparePredicate::gt;
  case ComparePredicate::le:
    return ComparePredicate::ge;
  case ComparePredicate::gt:
    return ComparePredicate::lt;
  case ComparePredicate::ge:
    return ComparePredicate::le;
  default:
    return p;
  }
}

/// The boolean behind convert(b) (to any numeric type), if any.
static Value boolBehind(Value x) {
  while (auto cv = stripRowView(x).getDefiningOp<ConvertOp>()) {
    x = cv.getX();
    if (typeOf(x).getElementType().isInteger(1))
      return x;
  }
  return nullptr;
}

/// Reads `b` as "the score y is -inf" (returns y and true) or "y is not
/// -inf" (y and false).
static std::optional<std::pair<Value, bool>> negInfTest(Value b) {
  auto cmp = stripRowView(b).getDefiningOp<CompareOp>();
  if (!cmp)
    return std::nullopt;
  Value y = cmp.getLhs();
  ComparePredicate pred = cmp.getPredicate();
  auto k = splatOf(cmp.getRhs());
  if (!k) {
    y = cmp.getRhs();
    k = splatOf(cmp.getLhs());
    pred = swapped(pred);
  }
  if (!k || !(std::isinf(*k) && *k < 0) ||
      !isa<FloatType>(typeOf(y).getElementType()))
    return std::nullopt;
  // y == -inf is -inf; y != -inf is not (a NaN is "not", as it is for the
  // max the fused op takes; y > -inf would call a NaN -inf).
  if (pred == ComparePredicate::eq)
    return std::pair{y, true};
  if (pred == ComparePredicate::ne)
    return std::pair{y, false};
  return std::nullopt;
}

std::optional<FailureOr<RowGuard>> poot::match::readRowGuard(Value v,
                                                             std::string &why) {
  auto sel = stripFloatConvert(v).getDefiningOp<SelectOp>();
  if (!sel)
    return std::nullopt;
  RowGuard g;
  g.op = sel;
  // select(Z, 0, p) zeroes where Z; select(C, p, 0) zeroes where !C.
  bool zeroWhenTrue;
  if (isSplat(sel.getOnTrue(), 0.0) &&
      sel.getOnFalse().getType() == sel.getType()) {
    g.guarded = sel.getOnFalse();
    zeroWhenTrue = true;
  } else if (isSplat(sel.getOnFalse(), 0.0) &&
             sel.getOnTrue().getType() == sel.getType()) {
    g.guarded = sel.getOnTrue();
    zeroWhenTrue = false;
  } else {
    return std::nullopt;
  }
  auto frame = typeOf(sel.getResult());
  if (!isRowConstant(sel.getCond(), frame)) {
    // A mask on the probabilities. One computed from p itself (a threshold
    // on the weights) is no mask the caller could prove; leave it.
    auto cmp = sel.getCond().getDefiningOp<CompareOp>();
    auto ofP = [&](Value x) {
      return stripFloatConvert(x) == stripFloatConvert(g.guarded);
    };
    if (cmp && (ofP(cmp.getLhs()) || ofP(cmp.getRhs())))
      return std::nullopt;
    g.kind = RowGuard::SameMask;
    g.cond = sel.getCond();
    g.visibleWhenTrue = !zeroWhenTrue;
    return g;
  }
  Value c = stripRowView(sel.getCond());
  while (auto n = c.getDefiningOp<NotOp>()) {
    zeroWhenTrue = !zeroWhenTrue;
    c = stripRowView(n.getX());
  }
  auto notRead = [&](const char *what) -> FailureOr<RowGuard> {
    why = describeOp(sel) +
          " zeroes whole rows of the probabilities by a "
          "condition that is not " +
          what;
    return failure();
  };
  auto cmp = c.getDefiningOp<CompareOp>();
  if (!cmp)
    return notRead("a test of the row for a visible key");
  Value r = cmp.getLhs();
  ComparePredicate pred = cmp.getPredicate();
  auto k = splatOf(cmp.getRhs());
  if (!k) {
    r = cmp.getRhs();
    k = splatOf(cmp.getLhs());
    pred = swapped(pred);
  }
  if (!k)
    return notRead("a test of the row for a visible key");
  r = stripRowView(r);
  int64_t lk = frame.getDimSize(frame.getRank() - 1);
  // Whether the guard zeroes a row, given the reduction's value there.
  auto zeroes = [&](double reduced) {
    return holds(pred, reduced, *k) == zeroWhenTrue;
  };

  // max(y) == -inf: the row of y is all -inf (PyTorch's _safe_softmax).
  Value y;
  if (matchPattern(r, m_KeyReduce<ReduceMaxOp>(mlir::matchers::m_Any(&y))) &&
      isa<FloatType>(typeOf(y).getElementType()) && std::isinf(*k) && *k < 0) {
    // Zero exactly on an empty row: where the max is -inf, and not where it
    // is anything above, nor NaN (a NaN row stays NaN in the fused op).
    if (!zeroes(-INFINITY) || zeroes(0.0) || zeroes(-1e300) ||
        zeroes(INFINITY) || zeroes(NAN))
      return notRead("\"the row's max is -inf\"");
    g.kind = RowGuard::EmptyScores;
    g.scores = y;
    return g;
  }

  // any / all over a boolean row: max, sum or min of convert(b).
  Value x;
  bool isMax =
      matchPattern(r, m_KeyReduce<ReduceMaxOp>(mlir::matchers::m_Any(&x)));
  bool isSum =
      !isMax &&
      matchPattern(r, m_KeyReduce<ReduceSumOp>(mlir::matchers::m_Any(&x)));
  bool isMin =
      !isMax && !isSum &&
      matchPattern(r, m_KeyReduce<ReduceMinOp>(mlir::matchers::m_Any(&x)));
  Value b = (isMax || isSum || isMin) ? boolBehind(x) : nullptr;
  if (!b)
    return notRead("a test of the row for a visible key");
  // The reduction over a row with no true element, and over one with some
  // (for a sum, any count in [1, Lk]; the guard must not tell them apart).
  double none, some;
  bool consistent = true;
  if (isMin) {
    // min is 1 exactly when every element is true: all(b).
    none = 1.0;
    some = 0.0;
  } else {
    none = 0.0;
    some = 1.0;
    if (isSum) {
      SmallVector<double> counts{1.0, static_cast<double>(lk)};
      for (double t : {std::floor(*k), std::ceil(*k), std::floor(*k) + 1,
                       std::ceil(*k) - 1})
        if (t >= 1 && t <= lk)
          counts.push_back(t);
      for (double t : counts)
        consistent &= zeroes(t) == zeroes(1.0);
    }
  }
  // isMin reads all(b): b true is the "hidden" polarity; max and sum read
  // any(b): b true is "visible".
  bool visibleWhenTrue = !isMin;
  if (!consistent || !zeroes(none) || zeroes(some))
    return notRead("\"no key of the row is visible\"");
  if (auto t = negInfTest(b)) {
    // all(y == -inf) or any(y != -inf): the scores' own row.
    auto [scores, isNegInf] = *t;
    if (isNegInf == visibleWhenTrue)
      return notRead("\"no key of the row is visible\"");
    g.kind = RowGuard::EmptyScores;
    g.scores = scores;
    return g;
  }
  g.kind = RowGuard::NoVisibleKey;
  g.cond = b;
  g.visibleWhenTrue = visibleWhenTrue;
  return g;
}

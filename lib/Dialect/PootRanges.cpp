//===- PootRanges.cpp - Integer range inference of the poot ops -----------===//
//
// InferIntRangeInterface for every poot op that produces or moves integers,
// so MLIR's IntegerRangeAnalysis can bound positions, lengths and map words.
// Layout ops keep the range of what they move; arithmetic uses MLIR's own
// range arithmetic (InferIntRangeCommon); float results stay uninitialised.
//
//===----------------------------------------------------------------------===//

#include "poot/Dialect/PootDialect.h"

#include "mlir/Interfaces/Utils/InferIntRangeCommon.h"

using namespace mlir;
using namespace poot;

namespace {

/// The element bit width of an integer tensor, or 0 for anything else.
unsigned intWidth(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return 0;
  auto it = dyn_cast<IntegerType>(tensor.getElementType());
  return it ? it.getWidth() : 0;
}

ConstantIntRanges maxRangeOf(Value value) {
  unsigned width = intWidth(value);
  if (width == 1)
    return ConstantIntRanges::fromUnsigned(APInt(1, 0), APInt(1, 1));
  return ConstantIntRanges::maxRange(width);
}

ConstantIntRanges signedRange(unsigned width, int64_t lo, int64_t hi) {
  return ConstantIntRanges::fromSigned(APInt(width, lo, /*isSigned=*/true),
                                       APInt(width, hi, /*isSigned=*/true));
}

/// Sets `result` to the union of `ranges` when it is an integer tensor; an
/// uninitialised input gives the type's full range.
void setUnion(Value result, ArrayRef<IntegerValueRange> ranges,
              SetIntLatticeFn set) {
  if (!intWidth(result))
    return;
  std::optional<ConstantIntRanges> acc;
  for (const IntegerValueRange &r : ranges) {
    if (r.isUninitialized()) {
      set(result, maxRangeOf(result));
      return;
    }
    acc = acc ? acc->rangeUnion(r.getValue()) : r.getValue();
  }
  set(result, acc ? *acc : maxRangeOf(result));
}

void setMax(Value result, SetIntLatticeFn set) {
  if (intWidth(result))
    set(result, maxRangeOf(result));
}

bool allInitialized(ArrayRef<IntegerValueRange> ranges) {
  return llvm::all_of(ranges, [](const IntegerValueRange &r) {
    return !r.isUninitialized();
  });
}

/// Binary integer arithmetic through MLIR's range helpers.
template <typename Fn>
void setArith(Value result, ArrayRef<IntegerValueRange> args,
              SetIntLatticeFn set, Fn fn) {
  if (!intWidth(result))
    return;
  if (intWidth(result) == 1 || !allInitialized(args)) {
    set(result, maxRangeOf(result));
    return;
  }
  SmallVector<ConstantIntRanges> ranges;
  for (const IntegerValueRange &r : args)
    ranges.push_back(r.getValue());
  set(result, fn(ranges));
}

} // namespace

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

void ConstantOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                               SetIntLatticeFn set) {
  unsigned width = intWidth(getResult());
  auto dense = dyn_cast<DenseIntElementsAttr>(getValue());
  if (!width || !dense)
    return setMax(getResult(), set);
  std::optional<ConstantIntRanges> acc;
  for (const APInt &v : dense.getValues<APInt>()) {
    auto point = ConstantIntRanges::constant(v);
    acc = acc ? acc->rangeUnion(point) : point;
  }
  set(getResult(), acc ? *acc : maxRangeOf(getResult()));
}

void IotaOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                           SetIntLatticeFn set) {
  unsigned width = intWidth(getResult());
  if (!width)
    return;
  int64_t n = getType().getDimSize(getDim());
  if (width == 1)
    return set(getResult(), maxRangeOf(getResult()));
  set(getResult(), signedRange(width, 0, n - 1));
}

//===----------------------------------------------------------------------===//
// Layout ops keep the range of what they move
//===----------------------------------------------------------------------===//

void ConvertOp::inferResultRangesFromOptional(
    ArrayRef<IntegerValueRange> args, SetIntLatticeFn set) {
  unsigned to = intWidth(getResult());
  unsigned from = intWidth(getX());
  if (!to)
    return;
  if (!from || args[0].isUninitialized() || to == 1)
    return set(getResult(), maxRangeOf(getResult()));
  const ConstantIntRanges &r = args[0].getValue();
  if (from == 1)
    return set(getResult(), intrange::extUIRange(r, to));
  if (to == from)
    return set(getResult(), r);
  set(getResult(), to > from ? intrange::extSIRange(r, to)
                             : intrange::truncRange(r, to));
}

#define POOT_FORWARD_RANGE(OP, ...)                                            \
  void OP::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,     \
                                         SetIntLatticeFn set) {                \
    setUnion(getResult(), __VA_ARGS__, set);                                   \
  }
POOT_FORWARD_RANGE(ReshapeOp, args.take_front(1))
POOT_FORWARD_RANGE(TransposeOp, args.take_front(1))
POOT_FORWARD_RANGE(BroadcastOp, args.take_front(1))
POOT_FORWARD_RANGE(SliceOp, args.take_front(1))
POOT_FORWARD_RANGE(ConcatOp, args)
POOT_FORWARD_RANGE(DynamicSliceOp, args.take_front(1))
POOT_FORWARD_RANGE(DynamicUpdateSliceOp, args.take_front(2))
POOT_FORWARD_RANGE(GatherOp, args.take_front(1))
POOT_FORWARD_RANGE(ReduceMaxOp, args.take_front(1))
POOT_FORWARD_RANGE(ReduceMinOp, args.take_front(1))
#undef POOT_FORWARD_RANGE

void ScatterUpdateOp::inferResultRangesFromOptional(
    ArrayRef<IntegerValueRange> args, SetIntLatticeFn set) {
  setUnion(getResult(), {args[0], args[2]}, set);
}

void SelectOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                             SetIntLatticeFn set) {
  // A condition known to be all true (or all false) picks one side.
  if (!args[0].isUninitialized()) {
    if (auto c = args[0].getValue().getConstantValue())
      return setUnion(getResult(), c->isZero() ? args[2] : args[1], set);
  }
  setUnion(getResult(), args.drop_front(), set);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

using intrange::OverflowFlags;

void AddOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  setArith(getResult(), args, set, [](ArrayRef<ConstantIntRanges> r) {
    return intrange::inferAdd(r, OverflowFlags::None);
  });
}
void SubOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  setArith(getResult(), args, set, [](ArrayRef<ConstantIntRanges> r) {
    return intrange::inferSub(r, OverflowFlags::None);
  });
}
void MulOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  setArith(getResult(), args, set, [](ArrayRef<ConstantIntRanges> r) {
    return intrange::inferMul(r, OverflowFlags::None);
  });
}
void DivOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  setArith(getResult(), args, set, [](ArrayRef<ConstantIntRanges> r) {
    return intrange::inferDivS(r);
  });
}
void MaxOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  setArith(getResult(), args, set, [](ArrayRef<ConstantIntRanges> r) {
    return intrange::inferMaxS(r);
  });
}
void MinOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  setArith(getResult(), args, set, [](ArrayRef<ConstantIntRanges> r) {
    return intrange::inferMinS(r);
  });
}
void PowOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                          SetIntLatticeFn set) {
  setMax(getResult(), set);
}
void NegOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  unsigned width = intWidth(getResult());
  if (!width)
    return;
  if (args[0].isUninitialized())
    return set(getResult(), maxRangeOf(getResult()));
  auto zero = ConstantIntRanges::constant(APInt(width, 0));
  set(getResult(),
      intrange::inferSub({zero, args[0].getValue()}, OverflowFlags::None));
}
void AbsOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  unsigned width = intWidth(getResult());
  if (!width)
    return;
  if (args[0].isUninitialized())
    return set(getResult(), maxRangeOf(getResult()));
  const ConstantIntRanges &r = args[0].getValue();
  if (r.smin().isNonNegative())
    return set(getResult(), r);
  if (r.smin().isMinSignedValue())
    return set(getResult(), maxRangeOf(getResult()));
  APInt hi = llvm::APIntOps::smax(r.smin().abs(), r.smax().abs());
  APInt lo = r.smax().isNegative() ? r.smax().abs() : APInt(width, 0);
  set(getResult(), ConstantIntRanges::fromSigned(lo, hi));
}
void ReduceSumOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                                SetIntLatticeFn set) {
  setMax(getResult(), set);
}
void MatmulOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,
                                             SetIntLatticeFn set) {
  setMax(getResult(), set);
}

//===----------------------------------------------------------------------===//
// Predicates and logic
//===----------------------------------------------------------------------===//

static intrange::CmpPredicate toIntPredicate(ComparePredicate pred) {
  switch (pred) {
  case ComparePredicate::eq:
    return intrange::CmpPredicate::eq;
  case ComparePredicate::ne:
    return intrange::CmpPredicate::ne;
  case ComparePredicate::lt:
    return intrange::CmpPredicate::slt;
  case ComparePredicate::le:
    return intrange::CmpPredicate::sle;
  case ComparePredicate::gt:
    return intrange::CmpPredicate::sgt;
  case ComparePredicate::ge:
    return intrange::CmpPredicate::sge;
  }
  llvm_unreachable("unknown predicate");
}

static void setBool(Value result, std::optional<bool> known,
                    SetIntLatticeFn set) {
  if (known)
    set(result, ConstantIntRanges::constant(APInt(1, *known ? 1 : 0)));
  else
    set(result, maxRangeOf(result));
}

void CompareOp::inferResultRangesFromOptional(
    ArrayRef<IntegerValueRange> args, SetIntLatticeFn set) {
  std::optional<bool> known;
  if (intWidth(getLhs()) > 1 && allInitialized(args))
    known = intrange::evaluatePred(toIntPredicate(getPredicate()),
                                   args[0].getValue(), args[1].getValue());
  setBool(getResult(), known, set);
}

static std::optional<bool> constantBool(const IntegerValueRange &r) {
  if (r.isUninitialized())
    return std::nullopt;
  if (auto c = r.getValue().getConstantValue())
    return !c->isZero();
  return std::nullopt;
}

void AndOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  auto a = constantBool(args[0]), b = constantBool(args[1]);
  std::optional<bool> known;
  if ((a && !*a) || (b && !*b))
    known = false;
  else if (a && b)
    known = true;
  setBool(getResult(), known, set);
}
void OrOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                         SetIntLatticeFn set) {
  auto a = constantBool(args[0]), b = constantBool(args[1]);
  std::optional<bool> known;
  if ((a && *a) || (b && *b))
    known = true;
  else if (a && b)
    known = false;
  setBool(getResult(), known, set);
}
void NotOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                          SetIntLatticeFn set) {
  auto a = constantBool(args[0]);
  setBool(getResult(), a ? std::optional<bool>(!*a) : std::nullopt, set);
}

//===----------------------------------------------------------------------===//
// topk, index_guard
//===----------------------------------------------------------------------===//

void TopKOp::inferResultRangesFromOptional(ArrayRef<IntegerValueRange> args,
                                           SetIntLatticeFn set) {
  setUnion(getValues(), args.take_front(1), set);
  int64_t n = getX().getType().getShape().back();
  set(getIndices(), signedRange(intWidth(getIndices()), 0, n - 1));
}

void IndexGuardOp::inferResultRangesFromOptional(
    ArrayRef<IntegerValueRange> args, SetIntLatticeFn set) {
  unsigned width = intWidth(getClamped());
  int64_t lo = getLo(), hi = getHi();
  auto guard = signedRange(width, lo, hi);
  if (args[0].isUninitialized()) {
    set(getClamped(), guard);
    return setBool(getWitness(), std::nullopt, set);
  }
  const ConstantIntRanges &in = args[0].getValue();
  int64_t smin = in.smin().getSExtValue(), smax = in.smax().getSExtValue();
  // The clamp lands every element in [lo, hi]; when the input range already
  // lies inside, the witness is known true, when it lies outside, false.
  int64_t clo = std::min(std::max(smin, lo), hi);
  int64_t chi = std::max(std::min(smax, hi), lo);
  set(getClamped(), signedRange(width, clo, chi));
  std::optional<bool> known;
  if (smin >= lo && smax <= hi)
    known = true;
  else if (smax < lo || smin > hi)
    known = false;
  setBool(getWitness(), known, set);
}

// Float-only ops produce nothing the integer analysis tracks.
#define POOT_NO_INT_RESULT(OP)                                                 \
  void OP::inferResultRangesFromOptional(ArrayRef<IntegerValueRange>,          \
                                         SetIntLatticeFn) {}
POOT_NO_INT_RESULT(ExpOp)
POOT_NO_INT_RESULT(LogOp)
POOT_NO_INT_RESULT(TanhOp)
POOT_NO_INT_RESULT(SinOp)
POOT_NO_INT_RESULT(CosOp)
POOT_NO_INT_RESULT(SqrtOp)
POOT_NO_INT_RESULT(RsqrtOp)
#undef POOT_NO_INT_RESULT

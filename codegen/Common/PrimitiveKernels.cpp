//===- PrimitiveKernels.cpp - Kernels of the unfused primitive ops --------===//
//
// Every primitive op that stays unfused gets one simple kernel: one thread
// per output element (grid-stride), the source element found by index
// arithmetic on the static shapes, math in f32 (integers in their own
// width, wrapping), the result stored in its storage dtype. Reductions and
// matmul loop over the reduced axis per output element in index order, as
// the oracle accumulates; topk ranks each element against its row, which
// reproduces the oracle's order exactly (descending, ties to the lower
// index, NaN above every number). Run-time errors the oracle reports (an
// index outside its axis, an integer division by zero, a slot written
// twice) are written into an error word the runner turns into a typed
// error. The semantics are lib/Runtime/Evaluator.cpp's.
//
// A cache write the planner marked in place (poot.in_place) has no result
// buffer: its result is operand 0's storage, and the kernel runs one
// thread per updated element, writing only those.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "poot/Dialect/PootDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

#include <limits>

using namespace mlir;
using namespace poot;
using namespace poot::codegen;
using Pred = arith::CmpIPredicate;
using FPred = arith::CmpFPredicate;

namespace {

RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

int64_t intAttr(Operation *op, StringRef name, int64_t fallback = 0) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return fallback;
}

SmallVector<int64_t> intsAttr(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(a.asArrayRef());
  return {};
}

bool inPlace(Operation *op) { return op->hasAttr(attrs::kInPlace); }

/// The kernel body of one op: its operands and results as buffers.
class PrimitiveEmitter {
public:
  PrimitiveEmitter(Operation *op, KernelBuilder &k) : op(op), k(k), b(k.b) {}

  LogicalResult emit(int64_t &total);

private:
  Value in(unsigned i) { return k.arg(i); }
  /// Result i's buffer; an in-place write's result is operand 0's.
  Value out(unsigned i) {
    return inPlace(op) ? k.arg(i) : k.arg(op->getNumOperands() + i);
  }
  Type elemIn(unsigned i) { return tensorOf(op->getOperand(i)).getElementType(); }
  Type elemOut(unsigned i) {
    return cast<RankedTensorType>(op->getResult(i).getType()).getElementType();
  }
  ArrayRef<int64_t> shapeIn(unsigned i) { return tensorOf(op->getOperand(i)).getShape(); }
  ArrayRef<int64_t> shapeOut(unsigned i) {
    return cast<RankedTensorType>(op->getResult(i).getType()).getShape();
  }
  int64_t sizeOut(unsigned i) {
    return cast<RankedTensorType>(op->getResult(i).getType()).getNumElements();
  }
  Location loc() { return k.loc; }

  /// An index as a compute value of `type`.
  Value fromIndex(Value index, Type type) {
    if (isa<FloatType>(type)) {
      // Indices fit i32 (the kernels index in 32 bits on SPIR-V), and no
      // target needs a 64-bit integer for them.
      Value i = b.create<arith::IndexCastOp>(loc(), b.getI32Type(), index);
      return b.create<arith::SIToFPOp>(loc(), type, i);
    }
    return b.create<arith::IndexCastOp>(loc(), type, index);
  }

  /// Flat offset of coordinates in a shape (no broadcasting).
  Value offsetOf(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> strides = stridesOf(shape);
    Value offset = k.idx(0);
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] != 1)
        offset = k.add(offset, strides[d] == 1
                                   ? coords[d]
                                   : k.mul(coords[d], k.idx(strides[d])));
    return offset;
  }

  Value convert(Value v, Type from, Type to);
  Value binary(Value x, Value y, Type element);
  Value unary(Value x, Type element);
  Value intPow(Value base, Value exp, Type type);
  Value floatPow(Value x, Value y);

  LogicalResult elementwise(int64_t &total);
  LogicalResult reduce(int64_t &total);
  LogicalResult matmul(int64_t &total);
  LogicalResult topk(int64_t &total);
  LogicalResult dynamicSlice(bool update, int64_t &total);
  LogicalResult scatterUpdate(int64_t &total);

  Operation *op;
  KernelBuilder &k;
  OpBuilder &b;
};

Value PrimitiveEmitter::convert(Value v, Type from, Type to) {
  if (to.isInteger(1)) {
    if (isa<FloatType>(from)) // NaN is nonzero, hence true
      return b.create<arith::CmpFOp>(loc(), FPred::UNE, v, k.f32(0));
    if (from.isInteger(1))
      return v;
    return k.cmp(Pred::ne, v, k.constant(from, 0));
  }
  if (isa<FloatType>(to)) {
    if (isa<FloatType>(from))
      return v; // both f32 in compute; the store rounds to the dtype
    if (from.isInteger(1))
      return b.create<arith::UIToFPOp>(loc(), b.getF32Type(), v);
    return b.create<arith::SIToFPOp>(loc(), b.getF32Type(), v);
  }
  unsigned bits = to.getIntOrFloatBitWidth();
  if (from.isInteger(1))
    return b.create<arith::ExtUIOp>(loc(), to, v);
  if (isa<IntegerType>(from)) {
    unsigned fromBits = from.getIntOrFloatBitWidth();
    if (fromBits == bits)
      return v;
    if (fromBits < bits)
      return b.create<arith::ExtSIOp>(loc(), to, v);
    return b.create<arith::TruncIOp>(loc(), to, v);
  }
  // Float to integer: truncate toward zero, saturate, NaN gives 0.
  double lo = bits == 32 ? -2147483648.0 : -9223372036854775808.0;
  double hiF = bits == 32 ? 2147483648.0 : 9223372036854775808.0;
  Value clampedLow = b.create<arith::MaximumFOp>(loc(), v, k.f32(lo));
  Value big = b.create<arith::CmpFOp>(loc(), FPred::OGE, v, k.f32(hiF));
  Value safe = k.select(big, k.f32(0), clampedLow);
  Value r = b.create<arith::FPToSIOp>(loc(), to, safe);
  int64_t maxValue = bits == 32 ? std::numeric_limits<int32_t>::max()
                                : std::numeric_limits<int64_t>::max();
  r = k.select(big, b.create<arith::ConstantOp>(
                        loc(), b.getIntegerAttr(to, maxValue)),
               r);
  Value nan = b.create<arith::CmpFOp>(loc(), FPred::UNO, v, v);
  return k.select(nan, k.constant(to, 0), r);
}

Value PrimitiveEmitter::intPow(Value base, Value exp, Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  Value one = k.constant(type, 1);
  auto results = k.loopCarry(
      k.idx(0), k.idx(bits), k.idx(1), ValueRange{one, base},
      [&](Value i, ValueRange carried) -> SmallVector<Value> {
        Value shift = b.create<arith::IndexCastOp>(loc(), type, i);
        Value bit = b.create<arith::AndIOp>(
            loc(), b.create<arith::ShRUIOp>(loc(), exp, shift), one);
        Value isSet = k.cmp(Pred::ne, bit, k.constant(type, 0));
        Value result = k.select(
            isSet, b.create<arith::MulIOp>(loc(), carried[0], carried[1]),
            carried[0]);
        Value square = b.create<arith::MulIOp>(loc(), carried[1], carried[1]);
        return {result, square};
      });
  return results[0];
}

Value PrimitiveEmitter::floatPow(Value x, Value y) {
  // |x|^y as e^(y ln|x|), then the sign and the special cases std::pow
  // gives: x^0 = 1, 1^y = 1, a negative base with an integral exponent
  // takes the exponent's parity, with a fractional one NaN.
  Value ax = b.create<arith::MaximumFOp>(loc(), x,
                                         b.create<arith::NegFOp>(loc(), x));
  Value mag = k.target.exp(
      b, loc(), b.create<arith::MulFOp>(
                    loc(), y, k.target.math(b, loc(), TargetHooks::MathFn::Log, ax)));
  // y is integral when it survives a round trip through i32 (every f32 of
  // magnitude 2^24 or more is an integer and even).
  Value ay = b.create<arith::MaximumFOp>(loc(), y,
                                         b.create<arith::NegFOp>(loc(), y));
  Value small = b.create<arith::CmpFOp>(loc(), FPred::OLT, ay, k.f32(16777216.0));
  Value yi = b.create<arith::FPToSIOp>(loc(), b.getI32Type(),
                                       k.select(small, y, k.f32(0)));
  Value back = b.create<arith::SIToFPOp>(loc(), b.getF32Type(), yi);
  Value integral = b.create<arith::OrIOp>(
      loc(), b.create<arith::CmpFOp>(loc(), FPred::OEQ, back, y),
      b.create<arith::AndIOp>(
          loc(), b.create<arith::XOrIOp>(loc(), small, k.i1(true)),
          b.create<arith::CmpFOp>(loc(), FPred::ORD, y, y)));
  Value odd = b.create<arith::AndIOp>(
      loc(), small,
      k.cmp(Pred::ne,
            b.create<arith::AndIOp>(loc(), yi, k.constant(b.getI32Type(), 1)),
            k.constant(b.getI32Type(), 0)));
  Value negative = b.create<arith::CmpFOp>(loc(), FPred::OLT, x, k.f32(0));
  Value nan = k.f32(std::numeric_limits<double>::quiet_NaN());
  Value signedMag = k.select(odd, b.create<arith::NegFOp>(loc(), mag), mag);
  Value r = k.select(negative, k.select(integral, signedMag, nan), mag);
  Value one = k.f32(1);
  Value trivial = b.create<arith::OrIOp>(
      loc(), b.create<arith::CmpFOp>(loc(), FPred::OEQ, y, k.f32(0)),
      b.create<arith::CmpFOp>(loc(), FPred::OEQ, x, one));
  return k.select(trivial, one, r);
}

Value PrimitiveEmitter::binary(Value x, Value y, Type element) {
  Location l = loc();
  if (isa<FloatType>(element))
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case([&](AddOp) { return b.create<arith::AddFOp>(l, x, y); })
        .Case([&](SubOp) { return b.create<arith::SubFOp>(l, x, y); })
        .Case([&](MulOp) { return b.create<arith::MulFOp>(l, x, y); })
        .Case([&](DivOp) { return b.create<arith::DivFOp>(l, x, y); })
        .Case([&](MaxOp) { return b.create<arith::MaximumFOp>(l, x, y); })
        .Case([&](MinOp) { return b.create<arith::MinimumFOp>(l, x, y); })
        .Case([&](PowOp) { return floatPow(x, y); });
  Value zero = k.constant(element, 0), minusOne = k.constant(element, -1);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AndOp) { return b.create<arith::AndIOp>(l, x, y); })
      .Case([&](OrOp) { return b.create<arith::OrIOp>(l, x, y); })
      .Case([&](AddOp) { return b.create<arith::AddIOp>(l, x, y); })
      .Case([&](SubOp) { return b.create<arith::SubIOp>(l, x, y); })
      .Case([&](MulOp) { return b.create<arith::MulIOp>(l, x, y); })
      .Case([&](MaxOp) { return b.create<arith::MaxSIOp>(l, x, y); })
      .Case([&](MinOp) { return b.create<arith::MinSIOp>(l, x, y); })
      .Case([&](DivOp) {
        // q = 0 is an error; p / -1 is -p (wrapping, where INT_MIN / -1
        // traps).
        Value byZero = k.cmp(Pred::eq, y, zero);
        Value byMinusOne = k.cmp(Pred::eq, y, minusOne);
        k.flag(byZero, kErrInvalid);
        Value safe = k.select(b.create<arith::OrIOp>(l, byZero, byMinusOne),
                              k.constant(element, 1), y);
        return k.select(byMinusOne, b.create<arith::SubIOp>(l, zero, x),
                        b.create<arith::DivSIOp>(l, x, safe));
      })
      .Case([&](PowOp) {
        // A negative exponent is an error.
        k.flag(k.cmp(Pred::slt, y, zero), kErrInvalid);
        return intPow(x, y, element);
      });
}

Value PrimitiveEmitter::unary(Value x, Type element) {
  Location l = loc();
  using Fn = TargetHooks::MathFn;
  if (isa<NotOp>(op))
    return b.create<arith::XOrIOp>(l, x, k.i1(true));
  if (!isa<FloatType>(element)) {
    Value neg = b.create<arith::SubIOp>(l, k.constant(element, 0), x);
    if (isa<NegOp>(op))
      return neg;
    return k.select(k.cmp(Pred::slt, x, k.constant(element, 0)), neg, x);
  }
  auto math = [&](Fn fn) { return k.target.math(b, l, fn, x); };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](ExpOp) { return k.target.exp(b, l, x); })
      .Case([&](TanhOp) { return k.target.tanh(b, l, x); })
      .Case([&](NegOp) { return b.create<arith::NegFOp>(l, x); })
      .Case([&](AbsOp) {
        return b.create<arith::MaximumFOp>(l, x, b.create<arith::NegFOp>(l, x));
      })
      .Case([&](LogOp) { return math(Fn::Log); })
      .Case([&](SinOp) { return math(Fn::Sin); })
      .Case([&](CosOp) { return math(Fn::Cos); })
      .Case([&](SqrtOp) { return math(Fn::Sqrt); })
      .Case([&](RsqrtOp) { return math(Fn::Rsqrt); });
}

LogicalResult PrimitiveEmitter::elementwise(int64_t &total) {
  ArrayRef<int64_t> shape = shapeOut(0);
  Type outElem = elemOut(0);
  total = sizeOut(0);
  unsigned n = op->getNumOperands();
  k.forEach(total, [&](Value i) {
    SmallVector<Value> c = k.unravel(i, shape);
    auto operand = [&](unsigned j) {
      return k.load(in(j), k.broadcastOffset(c, shapeIn(j)), elemIn(j));
    };
    Value r;
    if (isa<SelectOp>(op)) {
      r = k.select(operand(0), operand(1), operand(2));
    } else if (auto compare = dyn_cast<CompareOp>(op)) {
      Value x = operand(0), y = operand(1);
      Type et = elemIn(0);
      bool u = et.isInteger(1);
      // NaN compares unequal to everything: ne is the unordered predicate.
      std::pair<FPred, Pred> preds;
      switch (compare.getPredicate()) {
      case ComparePredicate::eq:
        preds = {FPred::OEQ, Pred::eq};
        break;
      case ComparePredicate::ne:
        preds = {FPred::UNE, Pred::ne};
        break;
      case ComparePredicate::lt:
        preds = {FPred::OLT, u ? Pred::ult : Pred::slt};
        break;
      case ComparePredicate::le:
        preds = {FPred::OLE, u ? Pred::ule : Pred::sle};
        break;
      case ComparePredicate::gt:
        preds = {FPred::OGT, u ? Pred::ugt : Pred::sgt};
        break;
      case ComparePredicate::ge:
        preds = {FPred::OGE, u ? Pred::uge : Pred::sge};
        break;
      }
      r = isa<FloatType>(et) ? b.create<arith::CmpFOp>(loc(), preds.first, x, y)
                                   .getResult()
                             : k.cmp(preds.second, x, y);
    } else if (n == 2) {
      r = binary(operand(0), operand(1), elemIn(0));
    } else {
      r = unary(operand(0), elemIn(0));
    }
    k.store(r, out(0), i, outElem);
  });
  return success();
}

LogicalResult PrimitiveEmitter::reduce(int64_t &total) {
  ArrayRef<int64_t> xs = shapeIn(0);
  int64_t axis = normalizeAxis(intAttr(op, "axis"), xs.size());
  int64_t len = xs[axis], inner = 1;
  for (size_t d = axis + 1; d < xs.size(); ++d)
    inner *= xs[d];
  Type et = elemIn(0), ct = k.computeType(et);
  bool isFloat = isa<FloatType>(et);
  total = sizeOut(0);
  k.forEach(total, [&](Value i) {
    Value o = k.div(i, inner), j = k.rem(i, inner);
    Value base = k.add(k.mul(o, k.idx(len * inner)), j);
    auto elem = [&](Value p) {
      return k.load(in(0), k.add(base, k.mul(p, k.idx(inner))), et);
    };
    double inf = std::numeric_limits<double>::infinity();
    Value init;
    int64_t first = 0;
    if (isa<ReduceSumOp>(op)) {
      init = k.constant(ct, 0);
    } else if (isFloat) {
      init = k.f32(isa<ReduceMaxOp>(op) ? -inf : inf);
    } else {
      init = elem(k.idx(0));
      first = 1;
    }
    auto r = k.loopCarry(
        k.idx(first), k.idx(len), k.idx(1), ValueRange{init},
        [&](Value p, ValueRange acc) -> SmallVector<Value> {
          Value v = elem(p);
          if (isa<ReduceSumOp>(op))
            return {isFloat ? b.create<arith::AddFOp>(loc(), acc[0], v).getResult()
                            : b.create<arith::AddIOp>(loc(), acc[0], v).getResult()};
          if (isa<ReduceMaxOp>(op))
            return {isFloat ? b.create<arith::MaximumFOp>(loc(), acc[0], v).getResult()
                            : b.create<arith::MaxSIOp>(loc(), acc[0], v).getResult()};
          return {isFloat ? b.create<arith::MinimumFOp>(loc(), acc[0], v).getResult()
                          : b.create<arith::MinSIOp>(loc(), acc[0], v).getResult()};
        });
    k.store(r[0], out(0), i, elemOut(0));
  });
  return success();
}

LogicalResult PrimitiveEmitter::matmul(int64_t &total) {
  ArrayRef<int64_t> as = shapeIn(0), bs = shapeIn(1), os = shapeOut(0);
  int64_t m = as[as.size() - 2], kk = as.back(), n = bs.back();
  SmallVector<int64_t> aBatch(as.begin(), as.end() - 2);
  SmallVector<int64_t> bBatch(bs.begin(), bs.end() - 2);
  SmallVector<int64_t> batch(os.begin(), os.end() - 2);
  Type et = elemOut(0), ct = k.computeType(et);
  bool isFloat = isa<FloatType>(et);
  total = sizeOut(0);
  k.forEach(total, [&](Value flat) {
    Value j = k.rem(flat, n), i = k.rem(k.div(flat, n), m);
    Value bi = k.div(flat, m * n);
    SmallVector<Value> bc = k.unravel(bi, batch);
    Value aBase = k.add(k.mul(k.broadcastOffset(bc, aBatch), k.idx(m * kk)),
                        k.mul(i, k.idx(kk)));
    Value bBase = k.add(k.mul(k.broadcastOffset(bc, bBatch), k.idx(kk * n)), j);
    auto r = k.loopCarry(
        k.idx(0), k.idx(kk), k.idx(1), ValueRange{k.constant(ct, 0)},
        [&](Value p, ValueRange acc) -> SmallVector<Value> {
          Value x = k.load(in(0), k.add(aBase, p), elemIn(0));
          Value y = k.load(in(1), k.add(bBase, k.mul(p, k.idx(n))), elemIn(1));
          if (isFloat)
            return {b.create<arith::AddFOp>(
                loc(), acc[0], b.create<arith::MulFOp>(loc(), x, y))};
          return {b.create<arith::AddIOp>(loc(), acc[0],
                                          b.create<arith::MulIOp>(loc(), x, y))};
        });
    k.store(r[0], out(0), flat, et);
  });
  return success();
}

LogicalResult PrimitiveEmitter::topk(int64_t &total) {
  ArrayRef<int64_t> xs = shapeIn(0);
  int64_t len = xs.back();
  int64_t kk = intAttr(op, "k");
  Type et = elemIn(0);
  bool isFloat = isa<FloatType>(et);
  int64_t rows = len == 0 ? 0 : tensorOf(op->getOperand(0)).getNumElements() / len;
  total = rows * len;
  // Thread (row, p) counts the elements ranked before p; the ranks are a
  // permutation, so the thread of rank r < k writes output slot r.
  k.forEach(total, [&](Value flat) {
    Value row = k.div(flat, len), p = k.rem(flat, len);
    Value base = k.mul(row, k.idx(len));
    Value v = k.load(in(0), flat, et);
    Value vNan = isFloat ? b.create<arith::CmpFOp>(loc(), FPred::UNO, v, v).getResult()
                         : k.i1(false);
    auto rank = k.loopCarry(
        k.idx(0), k.idx(len), k.idx(1), ValueRange{k.idx(0)},
        [&](Value q, ValueRange acc) -> SmallVector<Value> {
          Value u = k.load(in(0), k.add(base, q), et);
          Value lower = k.cmp(Pred::ult, q, p);
          Value before;
          if (isFloat) {
            Value uNan = b.create<arith::CmpFOp>(loc(), FPred::UNO, u, u);
            Value notV = b.create<arith::XOrIOp>(loc(), vNan, k.i1(true));
            Value above = b.create<arith::CmpFOp>(loc(), FPred::OGT, u, v);
            Value same = b.create<arith::CmpFOp>(loc(), FPred::OEQ, u, v);
            Value numeric = b.create<arith::OrIOp>(
                loc(), above, b.create<arith::AndIOp>(loc(), same, lower));
            Value ifNan = b.create<arith::OrIOp>(loc(), notV, lower);
            Value ifNum = b.create<arith::AndIOp>(loc(), notV, numeric);
            before = k.select(uNan, ifNan, ifNum);
          } else {
            before = b.create<arith::OrIOp>(
                loc(), k.cmp(Pred::sgt, u, v),
                b.create<arith::AndIOp>(loc(), k.cmp(Pred::eq, u, v), lower));
          }
          return {k.select(before, k.add(acc[0], k.idx(1)), acc[0])};
        });
    k.when(k.cmp(Pred::ult, rank[0], k.idx(kk)), [&] {
      Value at = k.add(k.mul(row, k.idx(kk)), rank[0]);
      k.store(v, out(0), at, elemOut(0));
      k.store(fromIndex(p, elemOut(1)), out(1), at, elemOut(1));
    });
  });
  return success();
}

LogicalResult PrimitiveEmitter::dynamicSlice(bool update, int64_t &total) {
  ArrayRef<int64_t> xs = shapeIn(0);
  SmallVector<int64_t> sizes =
      update ? SmallVector<int64_t>(shapeIn(1)) : intsAttr(op, "sizes");
  unsigned firstStart = update ? 2 : 1;
  Type outElem = elemOut(0);
  // Each start clamped so the window fits, as XLA does.
  auto clampedStarts = [&]() {
    SmallVector<Value> starts;
    for (size_t d = 0; d < xs.size(); ++d) {
      Value s = k.loadIndex(in(firstStart + d), k.idx(0));
      s = b.create<arith::MinSIOp>(loc(), s, k.idx(xs[d] - sizes[d]));
      starts.push_back(b.create<arith::MaxSIOp>(loc(), s, k.idx(0)));
    }
    return starts;
  };
  if (!update || inPlace(op)) {
    // One thread per window element: read it (a slice) or write it (an
    // update in place; the rest of x is already the result).
    total = ShapedType::getNumElements(sizes);
    k.forEach(total, [&](Value i) {
      SmallVector<Value> starts = clampedStarts();
      SmallVector<Value> c = k.unravel(i, sizes);
      for (size_t d = 0; d < c.size(); ++d)
        c[d] = k.add(c[d], starts[d]);
      if (update)
        k.store(k.load(in(1), i, elemIn(1)), out(0), offsetOf(c, xs),
                outElem);
      else
        k.store(k.load(in(0), offsetOf(c, xs), elemIn(0)), out(0), i,
                outElem);
    });
    return success();
  }
  total = sizeOut(0);
  k.forEach(total, [&](Value i) {
    SmallVector<Value> starts = clampedStarts();
    SmallVector<Value> c = k.unravel(i, xs);
    Value inside = k.i1(true);
    SmallVector<Value> uc;
    for (size_t d = 0; d < xs.size(); ++d) {
      Value rel = k.sub(c[d], starts[d]); // wraps when below: ult fails
      inside = b.create<arith::AndIOp>(
          loc(), inside, k.cmp(Pred::ult, rel, k.idx(sizes[d])));
      uc.push_back(rel);
    }
    Value v = k.ifElse(
        inside, k.computeType(outElem),
        [&]() { return k.load(in(1), offsetOf(uc, sizes), elemIn(1)); },
        [&]() { return k.load(in(0), i, elemIn(0)); });
    k.store(v, out(0), i, outElem);
  });
  return success();
}

LogicalResult PrimitiveEmitter::scatterUpdate(int64_t &total) {
  ArrayRef<int64_t> xs = shapeIn(0);
  Type outElem = elemOut(0);
  int64_t elements = sizeOut(0);
  int64_t rows = xs[0];
  int64_t rowSize = rows == 0 ? 0 : elements / rows;
  int64_t count = tensorOf(op->getOperand(1)).getNumElements();
  // Entry e is valid when inside the rows (or -1, which writes nothing),
  // and no earlier entry names its row; its first thread checks that.
  auto checkEntry = [&](Value e) {
    Value v = k.loadIndex(in(1), e);
    Value unused = k.cmp(Pred::eq, v, k.idx(-1));
    Value inside = b.create<arith::AndIOp>(
        loc(), k.cmp(Pred::sge, v, k.idx(0)),
        k.cmp(Pred::slt, v, k.idx(rows)));
    k.flag(b.create<arith::XOrIOp>(
               loc(), b.create<arith::OrIOp>(loc(), unused, inside),
               k.i1(true)),
           kErrIndexOutOfRange);
    k.when(inside, [&] {
      k.loop(k.idx(0), e, k.idx(1), [&](Value earlier) {
        k.flag(k.cmp(Pred::eq, k.loadIndex(in(1), earlier), v), kErrInvalid);
      });
    });
  };
  if (inPlace(op)) {
    // One thread per updated element: entry e's row j goes to its row of x
    // (already the result everywhere else). A slot named twice is an
    // error, so which of its writers lands does not matter.
    total = std::max<int64_t>(count * rowSize, count);
    k.forEach(total, [&](Value i) {
      if (rowSize > 0) {
        k.when(k.cmp(Pred::ult, i, k.idx(count * rowSize)), [&] {
          Value e = k.div(i, rowSize), j = k.rem(i, rowSize);
          Value row = k.loadIndex(in(1), e);
          Value inside = b.create<arith::AndIOp>(
              loc(), k.cmp(Pred::sge, row, k.idx(0)),
              k.cmp(Pred::slt, row, k.idx(rows)));
          k.when(inside, [&] {
            k.store(k.load(in(2), i, elemIn(2)), out(0),
                    k.add(k.mul(row, k.idx(rowSize)), j), outElem);
          });
        });
      }
      k.when(k.cmp(Pred::ult, i, k.idx(count)), [&] { checkEntry(i); });
    });
    return success();
  }
  total = std::max(elements, count);
  k.forEach(total, [&](Value i) {
    // Output element i: the entry naming its row writes it, if any.
    k.when(k.cmp(Pred::ult, i, k.idx(elements)), [&] {
      Value row = k.div(i, rowSize), j = k.rem(i, rowSize);
      auto writer = k.loopCarry(
          k.idx(0), k.idx(count), k.idx(1), ValueRange{k.idx(-1)},
          [&](Value e, ValueRange acc) -> SmallVector<Value> {
            Value names = k.cmp(Pred::eq, k.loadIndex(in(1), e), row);
            return {k.select(names, e, acc[0])};
          });
      Value found = k.cmp(Pred::sge, writer[0], k.idx(0));
      Value v = k.ifElse(
          found, k.computeType(outElem),
          [&]() {
            return k.load(in(2), k.add(k.mul(writer[0], k.idx(rowSize)), j),
                          elemIn(2));
          },
          [&]() { return k.load(in(0), i, elemIn(0)); });
      k.store(v, out(0), i, outElem);
    });
    k.when(k.cmp(Pred::ult, i, k.idx(count)), [&] { checkEntry(i); });
  });
  return success();
}

/// The kernel of `op`, chosen by its op class. The families with more to
/// them (elementwise, reductions, matmul, topk, dynamic slices, scatter)
/// have functions of their own; the rest are a few lines each, kept here in
/// one dispatch rather than split into a dozen small functions.
LogicalResult PrimitiveEmitter::emit(int64_t &total) {
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, AndOp, OrOp, NotOp,
          ExpOp, LogOp, TanhOp, NegOp, SinOp, CosOp, SqrtOp, RsqrtOp, AbsOp,
          CompareOp, SelectOp>(op))
    return elementwise(total);
  if (isa<ReduceSumOp, ReduceMaxOp, ReduceMinOp>(op))
    return reduce(total);
  if (isa<MatmulOp>(op))
    return matmul(total);
  if (isa<TopKOp>(op))
    return topk(total);

  total = op->getNumResults() ? sizeOut(0) : 0;
  Type outElem = op->getNumResults() ? elemOut(0) : Type();
  if (isa<IotaOp>(op)) {
    ArrayRef<int64_t> shape = shapeOut(0);
    int64_t axis = normalizeAxis(intAttr(op, "dim"), shape.size());
    k.forEach(total, [&](Value i) {
      Value c = k.rem(k.div(i, stridesOf(shape)[axis]), shape[axis]);
      k.store(fromIndex(c, k.computeType(outElem)), out(0), i, outElem);
    });
    return success();
  }
  if (isa<ConvertOp>(op)) {
    k.forEach(total, [&](Value i) {
      Value v = k.load(in(0), i, elemIn(0));
      k.store(convert(v, k.computeType(elemIn(0)), k.computeType(outElem)),
              out(0), i, outElem);
    });
    return success();
  }
  if (isa<ReshapeOp>(op)) {
    k.forEach(total, [&](Value i) {
      k.store(k.load(in(0), i, elemIn(0)), out(0), i, outElem);
    });
    return success();
  }
  if (isa<TransposeOp>(op) || isa<BroadcastOp>(op) || isa<SliceOp>(op)) {
    ArrayRef<int64_t> xs = shapeIn(0), os = shapeOut(0);
    SmallVector<int64_t> xStrides = stridesOf(xs);
    SmallVector<int64_t> perm = intsAttr(op, "perm");
    SmallVector<int64_t> start = intsAttr(op, "start");
    SmallVector<int64_t> step = intsAttr(op, "step");
    // numpy's bounds for a positive step, as the oracle normalises them.
    for (size_t d = 0; d < start.size(); ++d) {
      if (start[d] < 0)
        start[d] += xs[d];
      start[d] = std::min(std::max<int64_t>(start[d], 0), xs[d]);
    }
    if (step.empty())
      step.assign(xs.size(), 1);
    k.forEach(total, [&](Value i) {
      SmallVector<Value> c = k.unravel(i, os);
      Value src;
      if (isa<BroadcastOp>(op)) {
        src = k.broadcastOffset(c, xs);
      } else {
        src = k.idx(0);
        for (size_t j = 0; j < os.size(); ++j) {
          int64_t d = isa<TransposeOp>(op) ? perm[j] : j;
          Value coord = c[j];
          if (isa<SliceOp>(op))
            coord = k.add(k.idx(start[j]), k.mul(coord, k.idx(step[j])));
          src = k.add(src, k.mul(coord, k.idx(xStrides[d])));
        }
      }
      k.store(k.load(in(0), src, elemIn(0)), out(0), i, outElem);
    });
    return success();
  }
  if (isa<ConcatOp>(op)) {
    ArrayRef<int64_t> os = shapeOut(0);
    int64_t axis = normalizeAxis(intAttr(op, "axis"), os.size());
    Type ct = k.computeType(outElem);
    k.forEach(total, [&](Value i) {
      SmallVector<Value> c = k.unravel(i, os);
      // The operand holding coordinate a of the axis: an if-chain over the
      // operands' cumulative extents.
      std::function<Value(unsigned, int64_t)> pick = [&](unsigned j,
                                                         int64_t begin) {
        ArrayRef<int64_t> s = shapeIn(j);
        auto loadHere = [&]() {
          SmallVector<Value> cj(c.begin(), c.end());
          cj[axis] = k.sub(c[axis], k.idx(begin));
          return k.load(in(j), offsetOf(cj, s), elemIn(j));
        };
        if (j + 1 == op->getNumOperands())
          return loadHere();
        int64_t end = begin + s[axis];
        return k.ifElse(k.cmp(Pred::ult, c[axis], k.idx(end)), ct, loadHere,
                        [&]() { return pick(j + 1, end); });
      };
      k.store(pick(0, 0), out(0), i, outElem);
    });
    return success();
  }
  if (isa<DynamicSliceOp>(op) || isa<DynamicUpdateSliceOp>(op))
    return dynamicSlice(isa<DynamicUpdateSliceOp>(op), total);
  if (isa<GatherOp>(op)) {
    ArrayRef<int64_t> xs = shapeIn(0);
    int64_t axis = normalizeAxis(intAttr(op, "axis"), xs.size());
    int64_t bound = xs[axis], inner = 1;
    for (size_t d = axis + 1; d < xs.size(); ++d)
      inner *= xs[d];
    int64_t count = tensorOf(op->getOperand(1)).getNumElements();
    k.forEach(total, [&](Value i) {
      Value j = k.rem(i, inner), e = k.rem(k.div(i, inner), count);
      Value o = k.div(i, inner * count);
      Value row = k.loadIndex(in(1), e);
      Value ok = b.create<arith::AndIOp>(
          loc(), k.cmp(Pred::sge, row, k.idx(0)),
          k.cmp(Pred::slt, row, k.idx(bound)));
      k.flag(b.create<arith::XOrIOp>(loc(), ok, k.i1(true)),
             kErrIndexOutOfRange);
      row = k.select(ok, row, k.idx(0));
      Value src = k.add(k.mul(k.add(k.mul(o, k.idx(bound)), row),
                              k.idx(inner)),
                        j);
      k.store(k.load(in(0), src, elemIn(0)), out(0), i, outElem);
    });
    return success();
  }
  if (isa<ScatterUpdateOp>(op))
    return scatterUpdate(total);
  if (isa<IndexGuardOp>(op)) {
    int64_t lo = intAttr(op, "lo"), hi = intAttr(op, "hi");
    Type et = elemIn(0);
    int64_t n = total;
    total = std::max<int64_t>(n, 1);
    k.forEach(total, [&](Value i) {
      auto check = [&](Value v) {
        Value ok = b.create<arith::AndIOp>(
            loc(), k.cmp(Pred::sge, v, k.constant(et, lo)),
            k.cmp(Pred::sle, v, k.constant(et, hi)));
        return ok;
      };
      k.when(k.cmp(Pred::ult, i, k.idx(n)), [&] {
        Value v = k.load(in(0), i, et);
        Value clamped = k.select(
            check(v), v,
            k.select(k.cmp(Pred::sgt, v, k.constant(et, hi)),
                     k.constant(et, hi), k.constant(et, lo)));
        k.store(clamped, out(0), i, outElem);
      });
      // The witness: thread 0 checks every element.
      k.when(k.cmp(Pred::eq, i, k.idx(0)), [&] {
        auto all = k.loopCarry(
            k.idx(0), k.idx(n), k.idx(1), ValueRange{k.i1(true)},
            [&](Value e, ValueRange acc) -> SmallVector<Value> {
              return {b.create<arith::AndIOp>(loc(), acc[0],
                                              check(k.load(in(0), e, et)))};
            });
        k.store(all[0], out(1), k.idx(0), elemOut(1));
      });
    });
    return success();
  }
  return op->emitError() << "no kernel for " << op->getName();
}

bool needsErrWord(Operation *op) {
  if (isa<GatherOp, ScatterUpdateOp>(op))
    return true;
  if (isa<DivOp, PowOp>(op) &&
      !isa<FloatType>(tensorOf(op->getOperand(0)).getElementType()))
    return true;
  return false;
}

} // namespace

bool poot::codegen::hasSimpleKernels(Operation *op) {
  if (!isa<PootDialect>(op->getDialect()))
    return false;
  return !isa<AttentionOp, ConstantOp>(op);
}

FailureOr<std::vector<Launch>>
poot::codegen::buildSimpleKernels(Operation *op, gpu::GPUModuleOp module,
                                  const TargetHooks &target, StringRef name) {
  if (failed(checkStorage(op, target)))
    return failure();
  if (isa<RopeOp>(op))
    return buildRopeKernel(op, module, target, name);
  if (isa<BlockTopKOp>(op))
    return buildBlockTopKKernel(op, module, target, name);
  if (isa<SelectedAttentionOp>(op))
    return buildSelectedAttentionKernel(op, module, target, name);
  bool err = needsErrWord(op);
  SmallVector<Type> types(op->getOperandTypes());
  if (!inPlace(op))
    types.append(op->getResultTypes().begin(), op->getResultTypes().end());
  KernelBuilder k(module, op->getLoc(), target, name, types, err);
  PrimitiveEmitter emitter(op, k);
  int64_t total = 0;
  if (failed(emitter.emit(total)))
    return failure();
  std::vector<std::string> roles = operandRoles(op);
  if (inPlace(op))
    roles.resize(op->getNumOperands()); // the result is in0's storage
  if (err)
    roles.push_back("err");
  return std::vector<Launch>{k.finish(total, roles)};
}

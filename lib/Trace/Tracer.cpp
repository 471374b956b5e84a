//===- Tracer.cpp - Primitive graph builder and building blocks ----------===//
//
// The Tracer's primitive helpers are one poot op each; the building blocks
// below them are the decompositions the tracer records for attention, RoPE,
// paged caches, split keys and sparse block selection. The blocks emit the
// exact score order of docs/numerics.md -- (q.k)*scale, softcap, + mask, softmax,
// .v -- because the attention rewrite fuses only that order.
//
//===----------------------------------------------------------------------===//

#include "poot/Trace/Tracer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace poot::trace {

Type getFloatType(MLIRContext *ctx, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(ctx);
  case DType::F16:
    return Float16Type::get(ctx);
  case DType::BF16:
    return BFloat16Type::get(ctx);
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> parseDType(StringRef text) {
  if (text == "f32")
    return DType::F32;
  if (text == "f16")
    return DType::F16;
  if (text == "bf16")
    return DType::BF16;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Tracer: graph interface
//===----------------------------------------------------------------------===//

Tracer::Tracer(MLIRContext &context, StringRef funcName)
    : ctx(&context), builder(&context), loc(UnknownLoc::get(&context)) {
  ctx->loadDialect<PootDialect, func::FuncDialect>();
  module = ModuleOp::create(loc);
  fn = func::FuncOp::create(loc, funcName,
                            FunctionType::get(ctx, /*inputs=*/{}, {}));
  module->push_back(fn);
  builder.setInsertionPointToEnd(fn.addEntryBlock());
  setScope(funcName);
}

void Tracer::setScope(StringRef scope) {
  loc = NameLoc::get(StringAttr::get(ctx, scope));
}

RankedTensorType Tracer::tensorType(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}
Type Tracer::f32Type() { return builder.getF32Type(); }
Type Tracer::i32Type() { return builder.getI32Type(); }
Type Tracer::i1Type() { return builder.getI1Type(); }

RankedTensorType Tracer::typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}
ArrayRef<int64_t> Tracer::shapeOf(Value value) {
  return typeOf(value).getShape();
}
Type Tracer::elementTypeOf(Value value) {
  return typeOf(value).getElementType();
}
int64_t Tracer::rankOf(Value value) { return typeOf(value).getRank(); }

Value Tracer::addArgument(Port port, RankedTensorType type) {
  // The binding name is the argument's location, so a diagnostic on it
  // names the input.
  Location argLoc = NameLoc::get(StringAttr::get(ctx, port.name));
  port.value = fn.getBody().front().addArgument(type, argLoc);
  inputs.push_back(std::move(port));
  return inputs.back().value;
}

Value Tracer::input(StringRef name, ArrayRef<int64_t> shape, Type elementType) {
  Port port;
  port.name = name.str();
  return addArgument(std::move(port), tensorType(shape, elementType));
}

Value Tracer::slotInput(StringRef name, StringRef slot, ArrayRef<int64_t> shape,
                        Type elementType, std::optional<DeclaredRange> range) {
  Port port;
  port.name = name.str();
  port.slot = slot.str();
  port.range = range;
  return addArgument(std::move(port), tensorType(shape, elementType));
}

Value Tracer::stateInput(StringRef name, ArrayRef<int64_t> shape,
                         Type elementType) {
  Port port;
  port.name = name.str();
  port.state = name.str();
  return addArgument(std::move(port), tensorType(shape, elementType));
}

void Tracer::output(StringRef name, Value value) {
  Port port;
  port.name = name.str();
  port.value = value;
  outputs.push_back(std::move(port));
}

void Tracer::stateOutput(StringRef name, Value value) {
  Port port;
  port.name = name.str();
  port.state = name.str();
  port.value = value;
  outputs.push_back(std::move(port));
}

void Tracer::validationOutput(StringRef name, Value witness) {
  Port port;
  port.name = name.str();
  port.validation = true;
  port.value = witness;
  outputs.push_back(std::move(port));
}

OwningOpRef<ModuleOp> Tracer::finish() {
  // A state input without its output would not verify as a pair; say which
  // one the builder forgot instead of the generic pair diagnostic.
  for (const Port &in : inputs) {
    if (in.state.empty())
      continue;
    bool written = llvm::any_of(
        outputs, [&](const Port &out) { return out.state == in.state; });
    if (!written) {
      emitError(loc) << "state '" << in.state << "' has no output";
      return nullptr;
    }
  }

  SmallVector<Type> argTypes, resultTypes;
  SmallVector<Value> results;
  for (const Port &in : inputs)
    argTypes.push_back(in.value.getType());
  for (const Port &out : outputs) {
    resultTypes.push_back(out.value.getType());
    results.push_back(out.value);
  }
  create<func::ReturnOp>(results);
  fn.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));

  for (auto [i, in] : llvm::enumerate(inputs)) {
    SmallVector<NamedAttribute> attrs;
    attrs.push_back(
        builder.getNamedAttr(attrs::kName, builder.getStringAttr(in.name)));
    if (!in.slot.empty())
      attrs.push_back(
          builder.getNamedAttr(attrs::kSlot, builder.getStringAttr(in.slot)));
    if (in.range)
      attrs.push_back(builder.getNamedAttr(
          attrs::kRange,
          builder.getDenseI64ArrayAttr({in.range->lo, in.range->hi})));
    if (!in.state.empty())
      attrs.push_back(
          builder.getNamedAttr(attrs::kState, builder.getStringAttr(in.state)));
    fn.setArgAttrs(i, attrs);
  }
  for (auto [i, out] : llvm::enumerate(outputs)) {
    SmallVector<NamedAttribute> attrs;
    attrs.push_back(
        builder.getNamedAttr(attrs::kName, builder.getStringAttr(out.name)));
    if (!out.state.empty())
      attrs.push_back(builder.getNamedAttr(attrs::kState,
                                           builder.getStringAttr(out.state)));
    if (out.validation)
      attrs.push_back(
          builder.getNamedAttr(attrs::kValidation, builder.getUnitAttr()));
    fn.setResultAttrs(i, attrs);
  }

  if (failed(mlir::verify(*module)))
    return nullptr;
  return std::move(module);
}

//===----------------------------------------------------------------------===//
// Tracer: constants
//===----------------------------------------------------------------------===//

/// The attribute of one element of `elementType` holding `value`.
static Attribute elementAttr(Type elementType, double value) {
  if (isa<FloatType>(elementType))
    return FloatAttr::get(elementType, value);
  if (elementType.isInteger(1))
    return IntegerAttr::get(elementType, APInt(1, value != 0.0 ? 1 : 0));
  return IntegerAttr::get(elementType, static_cast<int64_t>(value));
}

Value Tracer::constant(DenseElementsAttr value) {
  return create<ConstantOp>(cast<ElementsAttr>(value)).getResult();
}

Value Tracer::constantF(ArrayRef<int64_t> shape, Type elementType,
                        ArrayRef<double> values) {
  SmallVector<Attribute> elements;
  for (double v : values)
    elements.push_back(elementAttr(elementType, v));
  return constant(
      DenseElementsAttr::get(tensorType(shape, elementType), elements));
}

Value Tracer::constantI(ArrayRef<int64_t> shape, Type elementType,
                        ArrayRef<int64_t> values) {
  SmallVector<Attribute> elements;
  for (int64_t v : values)
    elements.push_back(IntegerAttr::get(elementType, v));
  return constant(
      DenseElementsAttr::get(tensorType(shape, elementType), elements));
}

Value Tracer::scalar(double value, Type elementType) {
  return constant(DenseElementsAttr::get(tensorType({}, elementType),
                                         elementAttr(elementType, value)));
}

Value Tracer::splat(double value, ArrayRef<int64_t> shape, Type elementType) {
  Value c = scalar(value, elementType);
  return shape.empty() ? c : broadcast(c, shape);
}

Value Tracer::splatLike(double value, Value like) {
  return splat(value, shapeOf(like), elementTypeOf(like));
}

//===----------------------------------------------------------------------===//
// Tracer: primitive ops
//===----------------------------------------------------------------------===//

int64_t Tracer::normaliseAxis(Value x, int64_t axis) {
  return axis < 0 ? axis + rankOf(x) : axis;
}

Value Tracer::iota(ArrayRef<int64_t> shape, int64_t dim, Type elementType) {
  return create<IotaOp>(tensorType(shape, elementType),
                        builder.getI64IntegerAttr(dim));
}

Value Tracer::convert(Value x, Type elementType) {
  return create<ConvertOp>(tensorType(shapeOf(x), elementType), x);
}

Value Tracer::reshape(Value x, ArrayRef<int64_t> shape) {
  return create<ReshapeOp>(tensorType(shape, elementTypeOf(x)), x);
}

Value Tracer::transpose(Value x, ArrayRef<int64_t> perm) {
  return create<TransposeOp>(x, perm);
}

Value Tracer::broadcast(Value x, ArrayRef<int64_t> shape) {
  return create<BroadcastOp>(x, shape);
}

Value Tracer::slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit,
                    ArrayRef<int64_t> step) {
  SmallVector<int64_t> steps(step);
  if (steps.empty())
    steps.assign(start.size(), 1);
  return create<SliceOp>(x, start, limit, steps);
}

Value Tracer::concat(ValueRange values, int64_t axis) {
  return create<ConcatOp>(
      values, builder.getI64IntegerAttr(normaliseAxis(values.front(), axis)));
}

Value Tracer::dynamicSlice(Value x, ValueRange starts,
                           ArrayRef<int64_t> sizes) {
  return create<DynamicSliceOp>(x, starts, sizes);
}

Value Tracer::dynamicUpdateSlice(Value x, Value update, ValueRange starts) {
  return create<DynamicUpdateSliceOp>(x, update, starts);
}

Value Tracer::gather(Value x, Value idx, int64_t axis) {
  return create<GatherOp>(x, idx,
                          builder.getI64IntegerAttr(normaliseAxis(x, axis)));
}

Value Tracer::scatterUpdate(Value x, Value idx, Value updates) {
  return create<ScatterUpdateOp>(x, idx, updates);
}

Value Tracer::matmul(Value lhs, Value rhs) {
  return create<MatmulOp>(lhs, rhs);
}

Value Tracer::add(Value lhs, Value rhs) { return create<AddOp>(lhs, rhs); }
Value Tracer::sub(Value lhs, Value rhs) { return create<SubOp>(lhs, rhs); }
Value Tracer::mul(Value lhs, Value rhs) { return create<MulOp>(lhs, rhs); }
Value Tracer::div(Value lhs, Value rhs) { return create<DivOp>(lhs, rhs); }
Value Tracer::max(Value lhs, Value rhs) { return create<MaxOp>(lhs, rhs); }
Value Tracer::min(Value lhs, Value rhs) { return create<MinOp>(lhs, rhs); }
Value Tracer::pow(Value lhs, Value rhs) { return create<PowOp>(lhs, rhs); }

Value Tracer::compare(ComparePredicate predicate, Value lhs, Value rhs) {
  return create<CompareOp>(predicate, lhs, rhs);
}

Value Tracer::select(Value cond, Value onTrue, Value onFalse) {
  return create<SelectOp>(cond, onTrue, onFalse);
}

Value Tracer::logicalAnd(Value lhs, Value rhs) {
  return create<AndOp>(lhs, rhs);
}
Value Tracer::logicalOr(Value lhs, Value rhs) { return create<OrOp>(lhs, rhs); }
Value Tracer::logicalNot(Value x) { return create<NotOp>(x); }

Value Tracer::exp(Value x) { return create<ExpOp>(x); }
Value Tracer::log(Value x) { return create<LogOp>(x); }
Value Tracer::tanh(Value x) { return create<TanhOp>(x); }
Value Tracer::neg(Value x) { return create<NegOp>(x); }
Value Tracer::sin(Value x) { return create<SinOp>(x); }
Value Tracer::cos(Value x) { return create<CosOp>(x); }
Value Tracer::sqrt(Value x) { return create<SqrtOp>(x); }
Value Tracer::rsqrt(Value x) { return create<RsqrtOp>(x); }
Value Tracer::abs(Value x) { return create<AbsOp>(x); }

Value Tracer::reduceSum(Value x, int64_t axis, bool keepdim) {
  return create<ReduceSumOp>(x,
                             builder.getI64IntegerAttr(normaliseAxis(x, axis)),
                             keepdim ? builder.getUnitAttr() : UnitAttr());
}

Value Tracer::reduceMax(Value x, int64_t axis, bool keepdim) {
  return create<ReduceMaxOp>(x,
                             builder.getI64IntegerAttr(normaliseAxis(x, axis)),
                             keepdim ? builder.getUnitAttr() : UnitAttr());
}

Value Tracer::reduceMin(Value x, int64_t axis, bool keepdim) {
  return create<ReduceMinOp>(x,
                             builder.getI64IntegerAttr(normaliseAxis(x, axis)),
                             keepdim ? builder.getUnitAttr() : UnitAttr());
}

std::pair<Value, Value> Tracer::topk(Value x, int64_t k) {
  auto op = create<TopKOp>(x, builder.getI64IntegerAttr(k));
  return {op.getValues(), op.getIndices()};
}

std::pair<Value, Value> Tracer::indexGuard(Value idx, int64_t lo, int64_t hi) {
  auto op = create<IndexGuardOp>(idx, builder.getI64IntegerAttr(lo),
                                 builder.getI64IntegerAttr(hi));
  return {op.getClamped(), op.getWitness()};
}

//===----------------------------------------------------------------------===//
// Tracer: conveniences
//===----------------------------------------------------------------------===//

Value Tracer::broadcastTo(Value x, ArrayRef<int64_t> shape) {
  if (shapeOf(x) == shape)
    return x;
  return broadcast(x, shape);
}

Value Tracer::mulScalar(Value x, double c) { return mul(x, splatLike(c, x)); }
Value Tracer::addScalar(Value x, double c) { return add(x, splatLike(c, x)); }
Value Tracer::divScalar(Value x, double c) { return div(x, splatLike(c, x)); }

Value Tracer::convertIfNeeded(Value x, Type elementType) {
  if (elementTypeOf(x) == elementType)
    return x;
  return convert(x, elementType);
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

namespace ops {

static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

Value queryPositionsFrom(Tracer &t, Value pos, int64_t queryLen) {
  int64_t rows = Tracer::rankOf(pos) == 0 ? 1 : Tracer::shapeOf(pos)[0];
  Value qpos = t.reshape(pos, {rows, 1, 1, 1});
  if (queryLen == 1)
    return qpos;
  // Several new tokens (a chunk) sit at pos, pos + 1, ...
  Value offsets =
      t.iota({1, 1, queryLen, 1}, /*dim=*/2, Tracer::elementTypeOf(pos));
  return t.add(qpos, offsets);
}

Value queryPositionsFromZero(Tracer &t, int64_t queryLen) {
  return t.iota({1, 1, queryLen, 1}, /*dim=*/2, t.i32Type());
}

Value repeatKv(Tracer &t, Value kv, int64_t nRep) {
  if (nRep == 1)
    return kv;
  ArrayRef<int64_t> s = Tracer::shapeOf(kv);
  int64_t b = s[0], h = s[1], l = s[2], d = s[3];
  Value x = t.reshape(kv, {b, h, 1, l, d});
  x = t.broadcast(x, {b, h, nRep, l, d});
  return t.reshape(x, {b, h * nRep, l, d});
}

Value softmax(Tracer &t, Value scores) {
  Value m = t.reduceMax(scores, -1, /*keepdim=*/true);
  Value shifted = t.sub(scores, m);
  Value e = t.exp(shifted);
  Value sum = t.reduceSum(e, -1, /*keepdim=*/true);
  return t.div(e, sum);
}

Value hiddenKeys(Tracer &t, Value qpos, int64_t keyLen,
                 std::optional<int64_t> window) {
  Value kpos =
      t.iota({1, 1, 1, keyLen}, /*dim=*/3, Tracer::elementTypeOf(qpos));
  Value hidden = t.compare(ComparePredicate::gt, kpos, qpos);
  if (!window)
    return hidden;
  Value oldest = t.sub(qpos, t.splatLike(static_cast<double>(*window), qpos));
  Value tooOld = t.compare(ComparePredicate::le, kpos, oldest);
  return t.logicalOr(hidden, tooOld);
}

Value additiveMask(Tracer &t, Value hidden, Type elementType) {
  ArrayRef<int64_t> shape = Tracer::shapeOf(hidden);
  Value negInf = t.splat(kNegInf, shape, elementType);
  Value zero = t.splat(0.0, shape, elementType);
  return t.select(hidden, negInf, zero);
}

std::vector<double> alibiSlopes(int64_t numHeads) {
  auto geometric = [](int64_t n) {
    std::vector<double> slopes;
    double start = std::pow(2.0, -8.0 / static_cast<double>(n));
    for (int64_t i = 0; i < n; ++i)
      slopes.push_back(std::pow(start, static_cast<double>(i + 1)));
    return slopes;
  };
  int64_t pow2 = 1;
  while (pow2 * 2 <= numHeads)
    pow2 *= 2;
  std::vector<double> slopes = geometric(pow2);
  if (pow2 == numHeads)
    return slopes;
  // The remaining heads take every other slope of the next power of two,
  // as BLOOM and the ALiBi reference do.
  std::vector<double> extra = geometric(2 * pow2);
  for (int64_t i = 0; static_cast<int64_t>(slopes.size()) < numHeads; ++i)
    slopes.push_back(extra[2 * i]);
  return slopes;
}

Value alibiBias(Tracer &t, Value qpos, int64_t numHeads, int64_t keyLen,
                Type elementType) {
  Value kpos =
      t.iota({1, 1, 1, keyLen}, /*dim=*/3, Tracer::elementTypeOf(qpos));
  // Distances are exact integers; only the product with the slope rounds.
  Value distance = t.convert(t.sub(kpos, qpos), t.f32Type());
  Value slopes =
      t.constantF({1, numHeads, 1, 1}, t.f32Type(), alibiSlopes(numHeads));
  Value bias = t.mul(distance, slopes);
  return t.convertIfNeeded(bias, elementType);
}

Value attentionMask(Tracer &t, Value qpos, int64_t batch, int64_t numHeads,
                    int64_t keyLen, const AttentionOptions &options,
                    Type elementType) {
  Value hidden = hiddenKeys(t, qpos, keyLen, options.window);
  Value mask = additiveMask(t, hidden, elementType);
  int64_t maskHeads = 1;
  if (options.alibi) {
    mask = t.add(mask, alibiBias(t, qpos, numHeads, keyLen, elementType));
    maskHeads = numHeads;
  }
  int64_t queryLen = Tracer::shapeOf(qpos)[2];
  return t.broadcastTo(mask, {batch, maskHeads, queryLen, keyLen});
}

Value attentionCore(Tracer &t, Value q, Value k, Value v, Value mask,
                    const AttentionOptions &options, Value scoreSelect) {
  int64_t numHeads = Tracer::shapeOf(q)[1];
  int64_t kvHeads = Tracer::shapeOf(k)[1];
  int64_t keyWidth = Tracer::shapeOf(q)[3];
  Type storage = Tracer::elementTypeOf(q);

  // GQA repeat of both K and V first, as the seed records it.
  Value kExp = repeatKv(t, k, numHeads / kvHeads);
  Value vExp = repeatKv(t, v, numHeads / kvHeads);

  // s = (q . k^T) * scale
  Value s = t.matmul(q, t.transpose(kExp, {0, 1, 3, 2}));
  double scale = options.scale != 0.0
                     ? options.scale
                     : 1.0 / std::sqrt(static_cast<double>(keyWidth));
  s = t.mulScalar(s, scale);
  // s = softcap * tanh(s / softcap)
  if (options.softcap) {
    s = t.divScalar(s, *options.softcap);
    s = t.tanh(s);
    s = t.mulScalar(s, *options.softcap);
  }
  // s = s + mask
  if (mask)
    s = t.add(s, mask);
  // Live form: inactive keys score exactly -inf.
  if (scoreSelect)
    s = t.select(scoreSelect, s, t.splatLike(kNegInf, s));

  bool widen = options.softmaxInF32 && !storage.isF32();
  if (widen)
    s = t.convert(s, t.f32Type());
  Value p = softmax(t, s);
  if (widen)
    p = t.convert(p, storage);
  return t.matmul(p, vExp);
}

std::pair<Value, Value> writeCache(Tracer &t, Value kCache, Value vCache,
                                   Value k, Value v, Value pos) {
  Value zero = t.scalar(0.0, Tracer::elementTypeOf(pos));
  SmallVector<Value> starts{zero, zero, pos, zero};
  Value kNew = t.dynamicUpdateSlice(kCache, k, starts);
  Value vNew = t.dynamicUpdateSlice(vCache, v, starts);
  return {kNew, vNew};
}

CachedAttention attentionMasked(Tracer &t, Value q, Value k, Value v,
                                Value kCache, Value vCache, Value pos,
                                const AttentionOptions &options, Value qpos) {
  auto [kNew, vNew] = writeCache(t, kCache, vCache, k, v, pos);
  ArrayRef<int64_t> qs = Tracer::shapeOf(q);
  int64_t capacity = Tracer::shapeOf(kCache)[2];
  if (!qpos)
    qpos = queryPositionsFrom(t, pos, qs[2]);
  Value mask = attentionMask(t, qpos, qs[0], qs[1], capacity, options,
                             Tracer::elementTypeOf(q));
  Value out = attentionCore(t, q, kNew, vNew, mask, options);
  return {out, kNew, vNew};
}

Value attentionPrefill(Tracer &t, Value q, Value k, Value v,
                       const AttentionOptions &options) {
  ArrayRef<int64_t> qs = Tracer::shapeOf(q);
  Value qpos = queryPositionsFromZero(t, qs[2]);
  Value mask = attentionMask(t, qpos, qs[0], qs[1], Tracer::shapeOf(k)[2],
                             options, Tracer::elementTypeOf(q));
  return attentionCore(t, q, k, v, mask, options);
}

LiveAttention attentionLive(Tracer &t, Value q, Value k, Value v, Value len,
                            Value mask, const AttentionOptions &options) {
  int64_t batch = Tracer::shapeOf(k)[0];
  int64_t keyLen = Tracer::shapeOf(k)[2];
  Type indexType = Tracer::elementTypeOf(len);

  // 1 <= len <= Lk, witnessed: a bad length fails the run rather than
  // turning into a valid-looking answer.
  auto [clamped, witness] = t.indexGuard(len, 1, keyLen);
  Value rowLen = t.reshape(clamped, {batch, 1, 1, 1});

  // A true select zeroes the inactive rows: a NaN left in an unused cache
  // row would survive a multiply by zero.
  Value keyRow = t.iota({1, 1, keyLen, 1}, /*dim=*/2, indexType);
  Value activeRow = t.compare(ComparePredicate::lt, keyRow, rowLen);
  Value kLive = t.select(activeRow, k, t.splatLike(0.0, k));
  Value vLive = t.select(activeRow, v, t.splatLike(0.0, v));

  Value keyCol = t.iota({1, 1, 1, keyLen}, /*dim=*/3, indexType);
  Value activeScore = t.compare(ComparePredicate::lt, keyCol, rowLen);
  Value out = attentionCore(t, q, kLive, vLive, mask, options, activeScore);
  return {out, witness};
}

std::pair<Value, Value> ropeTables(Tracer &t, Value qpos, int64_t rotaryDim,
                                   double theta, RopeStyle style,
                                   Type elementType) {
  int64_t half = rotaryDim / 2;
  std::vector<double> invFreq;
  for (int64_t i = 0; i < half; ++i)
    invFreq.push_back(std::pow(theta, -2.0 * static_cast<double>(i) /
                                          static_cast<double>(rotaryDim)));
  ArrayRef<int64_t> ps = Tracer::shapeOf(qpos);
  int64_t rows = ps[0], queryLen = ps[2];

  // The angles are computed in f32 whatever the storage dtype: positions in
  // the thousands lose their low bits in f16.
  Value posF = t.convert(qpos, t.f32Type());
  Value freqs = t.mul(posF, t.constantF({1, 1, 1, half}, t.f32Type(), invFreq));
  Value angles;
  if (style == RopeStyle::Half) {
    angles = t.concat({freqs, freqs}, 3);
  } else {
    Value x = t.reshape(freqs, {rows, 1, queryLen, half, 1});
    x = t.broadcast(x, {rows, 1, queryLen, half, 2});
    angles = t.reshape(x, {rows, 1, queryLen, rotaryDim});
  }
  Value c = t.convertIfNeeded(t.cos(angles), elementType);
  Value s = t.convertIfNeeded(t.sin(angles), elementType);
  return {c, s};
}

/// x[..., lo:hi:step] along the last axis.
static Value lastAxisSlice(Tracer &t, Value x, int64_t lo, int64_t hi,
                           int64_t step = 1) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  SmallVector<int64_t> start(s.size(), 0), limit(s), steps(s.size(), 1);
  start.back() = lo;
  limit.back() = hi;
  steps.back() = step;
  return t.slice(x, start, limit, steps);
}

Value rope(Tracer &t, Value x, Value cos, Value sin, RopeStyle style,
           int64_t rotaryDim) {
  int64_t width = Tracer::shapeOf(x).back();
  Value rotated = rotaryDim < width ? lastAxisSlice(t, x, 0, rotaryDim) : x;
  int64_t half = rotaryDim / 2;

  // rot is x with each channel pair (a, b) turned into (-b, a).
  Value rot;
  if (style == RopeStyle::Half) {
    Value x1 = lastAxisSlice(t, rotated, 0, half);
    Value x2 = lastAxisSlice(t, rotated, half, rotaryDim);
    rot = t.concat({t.neg(x2), x1}, -1);
  } else {
    Value even = lastAxisSlice(t, rotated, 0, rotaryDim, 2);
    Value odd = lastAxisSlice(t, rotated, 1, rotaryDim, 2);
    SmallVector<int64_t> pairShape(Tracer::shapeOf(even));
    pairShape.push_back(1);
    Value first = t.reshape(t.neg(odd), pairShape);
    Value second = t.reshape(even, pairShape);
    Value pairs = t.concat({first, second}, -1);
    rot = t.reshape(pairs, Tracer::shapeOf(rotated));
  }
  // out = x * cos + rot * sin
  Value cosTerm = t.mul(rotated, cos);
  Value sinTerm = t.mul(rot, sin);
  Value out = t.add(cosTerm, sinTerm);
  if (rotaryDim < width)
    out = t.concat({out, lastAxisSlice(t, x, rotaryDim, width)}, -1);
  return out;
}

Value pagedWrite(Tracer &t, Value pool, Value rows, Value writeMap) {
  return t.scatterUpdate(pool, writeMap, rows);
}

Value tokenRows(Tracer &t, Value kv) {
  ArrayRef<int64_t> s = Tracer::shapeOf(kv);
  Value x = t.transpose(kv, {0, 2, 1, 3});
  return t.reshape(x, {s[0] * s[2], s[1], s[3]});
}

Value pagedRead(Tracer &t, Value pool, Value readMap) {
  Value rows = t.gather(pool, readMap, /*axis=*/0);
  return t.transpose(rows, {0, 2, 1, 3});
}

Value splitKey(Tracer &t, Value kNope, Value kPe) {
  ArrayRef<int64_t> n = Tracer::shapeOf(kNope);
  int64_t shared = Tracer::shapeOf(kPe)[3];
  Value pe = t.broadcast(kPe, {n[0], n[1], n[2], shared});
  return t.concat({kNope, pe}, 3);
}

Value sparseBlockMask(Tracer &t, Value indexQ, Value indexK, Value qpos,
                      int64_t ratio, int64_t topBlocks, Type elementType) {
  int64_t batch = Tracer::shapeOf(indexQ)[0];
  int64_t queryLen = Tracer::shapeOf(indexQ)[2];
  int64_t keyLen = Tracer::shapeOf(indexK)[2];
  int64_t numBlocks = keyLen / ratio;
  Type indexType = Tracer::elementTypeOf(qpos);

  // Key scores: relu(iq . ik^T) summed over the indexer heads.
  Value s = t.matmul(indexQ, t.transpose(indexK, {0, 1, 3, 2}));
  s = t.max(s, t.splatLike(0.0, s));
  s = t.reduceSum(s, 1, /*keepdim=*/true);

  // A future key never ranks a block.
  Value hidden = hiddenKeys(t, qpos, keyLen, std::nullopt);
  s = t.select(hidden, t.splatLike(kNegInf, s), s);

  // Block score = max of its keys; pick the best topBlocks.
  Value blocks = t.reshape(s, {batch, 1, queryLen, numBlocks, ratio});
  Value blockScore = t.reduceMax(blocks, -1, /*keepdim=*/false);
  Value chosen = t.topk(blockScore, topBlocks).second;

  // selected[b, q, j] = any_k(chosen[b, q, k] == j / ratio)
  Value keyPos = t.iota({1, 1, 1, keyLen}, /*dim=*/3, indexType);
  Value keyBlock =
      t.div(keyPos, t.splatLike(static_cast<double>(ratio), keyPos));
  Value chosenCol = t.reshape(chosen, {batch, 1, queryLen, topBlocks, 1});
  Value keyBlockRow = t.reshape(keyBlock, {1, 1, 1, 1, keyLen});
  Value hit = t.compare(ComparePredicate::eq, chosenCol, keyBlockRow);
  Value hits = t.reduceMax(t.convert(hit, indexType), 3, /*keepdim=*/false);
  Value selected =
      t.compare(ComparePredicate::ne, hits, t.splatLike(0.0, hits));

  // The row's own block is unfinished and always visible up to the row.
  Value ownBlock = t.div(qpos, t.splatLike(static_cast<double>(ratio), qpos));
  Value own = t.compare(ComparePredicate::eq, keyBlock, ownBlock);

  Value candidate = t.logicalOr(selected, own);
  Value past = t.logicalNot(hidden);
  Value visible = t.logicalAnd(candidate, past);
  ArrayRef<int64_t> shape = Tracer::shapeOf(visible);
  Value zero = t.splat(0.0, shape, elementType);
  Value negInf = t.splat(kNegInf, shape, elementType);
  return t.select(visible, zero, negInf);
}

} // namespace ops

} // namespace poot::trace

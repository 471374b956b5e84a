//===- KernelBuilder.cpp - Shared scaffolding of the simple kernels -------===//
//
// Flat buffers, one thread per output element in a grid-stride loop, loads
// and stores that convert between the storage type and the compute type
// (f32 for floats, i1 for bools, the integer itself for integers).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace poot::codegen;

Value TargetHooks::math(OpBuilder &b, Location loc, MathFn fn, Value x) const {
  switch (fn) {
  case MathFn::Log:
    return b.create<math::LogOp>(loc, x);
  case MathFn::Sin:
    return b.create<math::SinOp>(loc, x);
  case MathFn::Cos:
    return b.create<math::CosOp>(loc, x);
  case MathFn::Sqrt:
    return b.create<math::SqrtOp>(loc, x);
  case MathFn::Rsqrt:
    return b.create<math::RsqrtOp>(loc, x);
  }
  return x;
}

Type poot::codegen::deviceStorage(Type element) {
  if (element.isInteger(1))
    return IntegerType::get(element.getContext(), 32);
  return element;
}

LogicalResult poot::codegen::checkStorage(Operation *op,
                                          const TargetHooks &target) {
  auto check = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return op->emitError("expected statically shaped tensors");
    if (tensor.getNumElements() > target.maxElements())
      return op->emitError() << "expected at most " << target.maxElements()
                             << " elements per tensor on target "
                             << target.name() << ", got "
                             << tensor.getNumElements();
    Type storage = deviceStorage(tensor.getElementType());
    if (target.canStore(storage))
      return success();
    InFlightDiagnostic diag = op->emitError()
                              << "DtypeLowering: target " << target.name()
                              << " cannot store " << tensor.getElementType()
                              << " buffers";
    if (std::string feature = target.storageFeature(storage); !feature.empty())
      diag << ": the device lacks " << feature;
    return diag;
  };
  for (Type t : op->getOperandTypes())
    if (failed(check(t)))
      return failure();
  for (Type t : op->getResultTypes())
    if (failed(check(t)))
      return failure();
  return success();
}

SmallVector<int64_t> poot::codegen::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::vector<std::string> poot::codegen::operandRoles(Operation *op) {
  std::vector<std::string> roles;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    roles.push_back("in" + std::to_string(i));
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    roles.push_back("out" + std::to_string(i));
  return roles;
}

KernelBuilder::KernelBuilder(gpu::GPUModuleOp module, Location loc,
                             const TargetHooks &target, StringRef name,
                             TypeRange tensors, bool errWord)
    : b(module.getContext()), loc(loc), target(target) {
  MLIRContext *ctx = module.getContext();
  Attribute space = target.globalMemorySpace(ctx);
  SmallVector<Type> args;
  for (Type t : tensors) {
    auto tensor = cast<RankedTensorType>(t);
    // A flat buffer; an empty tensor still binds one element.
    int64_t n = std::max<int64_t>(tensor.getNumElements(), 1);
    args.push_back(MemRefType::get({n}, deviceStorage(tensor.getElementType()),
                                   MemRefLayoutAttrInterface(), space));
  }
  if (errWord)
    args.push_back(MemRefType::get({1}, IntegerType::get(ctx, 32),
                                   MemRefLayoutAttrInterface(), space));
  Block *body = module.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    b.setInsertionPoint(&body->back());
  else
    b.setInsertionPointToEnd(body);
  fn = b.create<gpu::GPUFuncOp>(loc, name, FunctionType::get(ctx, args, {}));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  target.setWorkgroupSize(fn, kSimpleLanes);
  b.setInsertionPointToStart(&fn.getBody().front());
}

Value KernelBuilder::idx(int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}
Value KernelBuilder::add(Value x, Value y) {
  return b.create<arith::AddIOp>(loc, x, y);
}
Value KernelBuilder::sub(Value x, Value y) {
  return b.create<arith::SubIOp>(loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return b.create<arith::MulIOp>(loc, x, y);
}
Value KernelBuilder::div(Value x, int64_t y) {
  if (y == 1)
    return x;
  return b.create<arith::DivUIOp>(loc, x, idx(y));
}
Value KernelBuilder::rem(Value x, int64_t y) {
  if (y == 1)
    return idx(0);
  return b.create<arith::RemUIOp>(loc, x, idx(y));
}
Value KernelBuilder::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, p, x, y);
}
Value KernelBuilder::select(Value c, Value x, Value y) {
  return b.create<arith::SelectOp>(loc, c, x, y);
}
Value KernelBuilder::f32(double v) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
}
Value KernelBuilder::i1(bool v) {
  return b.create<arith::ConstantOp>(loc, b.getBoolAttr(v));
}
Value KernelBuilder::constant(Type type, double v) {
  if (isa<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, v));
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, static_cast<int64_t>(v)));
}

SmallVector<Value> KernelBuilder::unravel(Value flat, ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  SmallVector<int64_t> strides = stridesOf(shape);
  for (size_t d = 0; d < shape.size(); ++d)
    coords[d] = shape[d] == 1 ? idx(0) : rem(div(flat, strides[d]), shape[d]);
  return coords;
}

Value KernelBuilder::broadcastOffset(ArrayRef<Value> coords,
                                     ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = stridesOf(shape);
  size_t lead = coords.size() - shape.size();
  Value offset = idx(0);
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      offset = add(offset, strides[d] == 1 ? coords[lead + d]
                                           : mul(coords[lead + d],
                                                 idx(strides[d])));
  return offset;
}

Type KernelBuilder::computeType(Type element) {
  if (isa<FloatType>(element))
    return b.getF32Type();
  return element;
}

Value KernelBuilder::load(Value buffer, Value flat, Type element) {
  Value v = b.create<memref::LoadOp>(loc, buffer, ValueRange{flat});
  if (element.isInteger(1))
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                   constant(v.getType(), 0));
  if (isa<FloatType>(element) && !element.isF32())
    return b.create<arith::ExtFOp>(loc, b.getF32Type(), v);
  return v;
}

Value KernelBuilder::loadIndex(Value buffer, Value flat) {
  Value v = b.create<memref::LoadOp>(loc, buffer, ValueRange{flat});
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
}

void KernelBuilder::store(Value value, Value buffer, Value flat,
                          Type element) {
  Value v = value;
  if (element.isInteger(1))
    v = b.create<arith::ExtUIOp>(loc, b.getI32Type(), v);
  else if (isa<FloatType>(element) && element != v.getType())
    v = b.create<arith::TruncFOp>(loc, element, v);
  b.create<memref::StoreOp>(loc, v, buffer, ValueRange{flat});
}

void KernelBuilder::flag(Value cond, KernelError code) {
  when(cond, [&] {
    b.create<memref::StoreOp>(
        loc, constant(b.getI32Type(), code), errArg(), ValueRange{idx(0)});
  });
}

void KernelBuilder::loop(Value lb, Value ub, Value step,
                         function_ref<void(Value)> body) {
  auto forOp = b.create<scf::ForOp>(loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forOp.getBody()->getTerminator());
  body(forOp.getInductionVar());
}

SmallVector<Value> KernelBuilder::loopCarry(
    Value lb, Value ub, Value step, ValueRange init,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto forOp = b.create<scf::ForOp>(loc, lb, ub, step, init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    SmallVector<Value> next =
        body(forOp.getInductionVar(), forOp.getRegionIterArgs());
    b.create<scf::YieldOp>(loc, next);
  }
  return SmallVector<Value>(forOp.getResults());
}

void KernelBuilder::when(Value cond, function_ref<void()> body) {
  auto ifOp = b.create<scf::IfOp>(loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

Value KernelBuilder::ifElse(Value cond, Type type, function_ref<Value()> then,
                            function_ref<Value()> otherwise) {
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{type}, cond,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    b.create<scf::YieldOp>(loc, then());
    b.setInsertionPointToStart(ifOp.elseBlock());
    b.create<scf::YieldOp>(loc, otherwise());
  }
  return ifOp.getResult(0);
}

void KernelBuilder::forEach(int64_t total, function_ref<void(Value)> body) {
  Value tid = b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  Value bid = b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
  Value groups = b.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
  Value start = add(mul(bid, idx(kSimpleLanes)), tid);
  Value stride = mul(groups, idx(kSimpleLanes));
  loop(start, idx(total), stride, body);
}

Launch KernelBuilder::finish(int64_t total, std::vector<std::string> roles) {
  b.create<gpu::ReturnOp>(loc);
  int64_t groups = (total + kSimpleLanes - 1) / kSimpleLanes;
  groups = std::min(std::max<int64_t>(groups, 1), kSimpleMaxGroups);
  return Launch{fn.getName().str(), {groups, 1}, kSimpleLanes,
                std::move(roles)};
}

//===- TargetHooks.cpp - Default bodies of the target hooks --------------===//
//
// What TargetHooks does where a target does not override it, and the hooks
// every LLVM-based target (NVVM, ROCDL) shares: global memory in address
// space 1, workgroup memory as a kernel attribution, the workgroup size as
// known block sizes.
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace poot;
using namespace poot::codegen;

TargetHooks::~TargetHooks() = default;

std::string TargetHooks::storageFeature(Type) const { return {}; }

Value TargetHooks::dynamicWorkgroup(OpBuilder &, Location loc, int64_t,
                                    ArrayRef<int64_t>, Type) const {
  llvm::report_fatal_error("dynamic workgroup memory asked of target '" +
                           name() + "', whose static limit is not finite");
}

Value TargetHooks::exp(OpBuilder &b, Location loc, Value x) const {
  return b.create<math::ExpOp>(loc, x);
}

Value TargetHooks::exp2(OpBuilder &b, Location loc, Value x, bool) const {
  Value ln2 = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.6931471805599453));
  return exp(b, loc, b.create<arith::MulFOp>(loc, x, ln2));
}

Value TargetHooks::tanh(OpBuilder &b, Location loc, Value x) const {
  return b.create<math::TanhOp>(loc, x);
}

SmallVector<Value, 4> TargetHooks::matrixTile(OpBuilder &, Location loc,
                                              Type, ValueRange, ValueRange,
                                              ValueRange) const {
  llvm::report_fatal_error("matrixTile called on a target without one");
}

Value TargetHooks::asyncCopy(OpBuilder &, Location, Value, ValueRange, Value,
                             ValueRange, int64_t) const {
  llvm::report_fatal_error("asyncCopy called on a target without one");
}

void TargetHooks::asyncCopyRounds(OpBuilder &, Location, Value, Value, int64_t,
                                  Value, ValueRange, int64_t, int64_t, int64_t,
                                  Value, int64_t) const {
  llvm::report_fatal_error("asyncCopyRounds called on a target without one");
}

Value TargetHooks::asyncGroup(OpBuilder &, Location, ValueRange) const {
  llvm::report_fatal_error("asyncGroup called on a target without one");
}

void TargetHooks::asyncWait(OpBuilder &, Location, Value, int64_t) const {
  llvm::report_fatal_error("asyncWait called on a target without one");
}

SmallVector<Value, 4> TargetHooks::loadTilesTransposed(OpBuilder &, Location,
                                                       Value,
                                                       ValueRange) const {
  llvm::report_fatal_error("loadTilesTransposed called on a target without "
                           "them");
}

Value TargetHooks::warpgroupOperand(OpBuilder &, Location, Value, Value,
                                    int64_t, int64_t) const {
  llvm::report_fatal_error("warpgroupOperand called on a target without a "
                           "warpgroup tile");
}

SmallVector<Value> TargetHooks::warpgroupTile(OpBuilder &, Location, Type,
                                              int64_t, bool, ValueRange, Value,
                                              ValueRange) const {
  llvm::report_fatal_error("warpgroupTile called on a target without one");
}

SmallVector<Value>
TargetHooks::warpgroupTileSharedA(OpBuilder &, Location, Type, int64_t, bool,
                                  Value, Value, ValueRange) const {
  llvm::report_fatal_error(
      "warpgroupTileSharedA called on a target without one");
}

void TargetHooks::warpgroupFence(OpBuilder &, Location) const {
  llvm::report_fatal_error("warpgroupFence called on a target without a "
                           "warpgroup tile");
}

void TargetHooks::warpgroupCommitAndWait(OpBuilder &, Location,
                                         int64_t) const {
  llvm::report_fatal_error("warpgroupCommitAndWait called on a target "
                           "without a warpgroup tile");
}

void TargetHooks::warpgroupCommit(OpBuilder &, Location) const {
  llvm::report_fatal_error("warpgroupCommit called on a target without a "
                           "warpgroup tile");
}

void TargetHooks::warpgroupOperandFence(OpBuilder &, Location) const {
  llvm::report_fatal_error("warpgroupOperandFence called on a target "
                           "without a warpgroup tile");
}

void TargetHooks::deviceFence(OpBuilder &, Location) const {
  llvm::report_fatal_error("deviceFence called on a target without one");
}

Attribute LLVMTargetHooks::globalMemorySpace(MLIRContext *ctx) const {
  return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
}

Value LLVMTargetHooks::allocWorkgroup(OpBuilder &b, Location loc,
                                      gpu::GPUFuncOp fn,
                                      ArrayRef<int64_t> shape,
                                      Type elementType, int64_t align) const {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value buffer = fn.addWorkgroupAttribution(
      MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(), space),
      loc);
  // Every buffer starts at least 16-byte aligned, as the kernels' vector
  // accesses need (otherwise each is aligned only to its element, and one
  // of odd size misaligns the next).
  fn.setWorkgroupAttributionAttr(fn.getNumWorkgroupAttributions() - 1,
                                 "llvm.align",
                                 b.getI64IntegerAttr(std::max<int64_t>(
                                     align, 16)));
  return buffer;
}

Value LLVMTargetHooks::dynamicWorkgroup(OpBuilder &b, Location loc,
                                        int64_t offset,
                                        ArrayRef<int64_t> shape,
                                        Type elementType) const {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value base = b.create<gpu::DynamicSharedMemoryOp>(
      loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                           MemRefLayoutAttrInterface(), space));
  Value shift = b.create<arith::ConstantIndexOp>(loc, offset);
  return b.create<memref::ViewOp>(
      loc,
      MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(), space),
      base, shift, ValueRange{});
}

void LLVMTargetHooks::setWorkgroupSize(gpu::GPUFuncOp fn,
                                       int64_t lanes) const {
  fn.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(
      fn.getContext(), {static_cast<int32_t>(lanes), 1, 1}));
}

bool LLVMTargetHooks::canStore(Type storage) const {
  return storage.isF32() || storage.isF16() || storage.isBF16() ||
         storage.isInteger(32) || storage.isInteger(64);
}

Value LLVMTargetHooks::tanh(OpBuilder &b, Location loc, Value x) const {
  Value one = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1.0));
  Value two = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(2.0));
  Value e2x = exp(b, loc, b.create<arith::MulFOp>(loc, x, two));
  Value frac =
      b.create<arith::DivFOp>(loc, two, b.create<arith::AddFOp>(loc, e2x, one));
  return b.create<arith::SubFOp>(loc, one, frac);
}

void LLVMTargetHooks::prepareModule(ModuleOp module) const {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
}

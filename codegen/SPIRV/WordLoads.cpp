//===- WordLoads.cpp - 16-bit buffers read a 32-bit word at a time --------===//
//
// See WordLoads.h. The rewrite keeps every value's type: a bf16 load still
// yields a bf16 (taken out of its pair with vector.extract), so the bf16
// rewrite that follows and MLIR's SPIR-V conversion see ordinary ops.
//
//===----------------------------------------------------------------------===//

#include "WordLoads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace poot::codegen {

bool isProvablyEven(Value v, int depth) {
  if (depth > 16)
    return false;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return !c[0];
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop && arg == loop.getInductionVar() &&
           isProvablyEven(loop.getLowerBound(), depth + 1) &&
           isProvablyEven(loop.getStep(), depth + 1);
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  auto even = [&](Value x) { return isProvablyEven(x, depth + 1); };
  if (auto mul = dyn_cast<arith::MulIOp>(def))
    return even(mul.getLhs()) || even(mul.getRhs());
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinUIOp, arith::MinSIOp,
          arith::MaxUIOp, arith::MaxSIOp>(def))
    return even(def->getOperand(0)) && even(def->getOperand(1));
  if (auto shl = dyn_cast<arith::ShLIOp>(def)) {
    APInt s;
    return (matchPattern(shl.getRhs(), m_ConstantInt(&s)) && s.getZExtValue() >= 1) ||
           even(shl.getLhs());
  }
  if (auto sel = dyn_cast<arith::SelectOp>(def))
    return even(sel.getTrueValue()) && even(sel.getFalseValue());
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp>(def))
    return even(def->getOperand(0));
  return false;
}

namespace {

bool isStorageBuffer(MemRefType type) {
  auto space = dyn_cast_or_null<spirv::StorageClassAttr>(type.getMemorySpace());
  return space && space.getValue() == spirv::StorageClass::StorageBuffer;
}

/// The pair type of a buffer that may be read in pairs, or null.
MemRefType pairsOf(BlockArgument arg) {
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 1 ||
      !type.getLayout().isIdentity() || !isStorageBuffer(type))
    return nullptr;
  // bf16 only: a pair of f16 would be a 16-bit float vector, which needs
  // the Float16 capability (f16 travels as storage only).
  Type e = type.getElementType();
  if (!e.isBF16())
    return nullptr;
  if (type.getShape().back() % 2 != 0)
    return nullptr;
  for (OpOperand &use : arg.getUses()) {
    Operation *user = use.getOwner();
    bool read = (isa<memref::LoadOp>(user) && use.getOperandNumber() == 0) ||
                (isa<vector::LoadOp>(user) && use.getOperandNumber() == 0);
    if (!read)
      return nullptr;
  }
  SmallVector<int64_t> shape(type.getShape());
  shape.back() /= 2;
  return MemRefType::get(shape, VectorType::get({2}, e), AffineMap(),
                         type.getMemorySpace());
}

/// Element `d` of the last dim as (pair d / 2, half d % 2).
std::pair<Value, Value> pairAt(OpBuilder &b, Location loc, Value d) {
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  return {b.create<arith::ShRUIOp>(loc, d, one),
          b.create<arith::AndIOp>(loc, d, one)};
}

/// The element at `indices` of a pair buffer (the half picked by a select:
/// MLIR 19 lowers no dynamic vector.extract to SPIR-V).
Value loadElement(OpBuilder &b, Location loc, Value pairs,
                  SmallVector<Value> indices) {
  auto [pair, half] = pairAt(b, loc, indices.back());
  indices.back() = pair;
  Value p = b.create<memref::LoadOp>(loc, pairs, indices);
  Value first = b.create<vector::ExtractOp>(loc, p, ArrayRef<int64_t>{0});
  Value second = b.create<vector::ExtractOp>(loc, p, ArrayRef<int64_t>{1});
  Value odd = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, half,
                                      b.create<arith::ConstantIndexOp>(loc, 0));
  return b.create<arith::SelectOp>(loc, odd, second, first);
}

/// A vector of `elements` (vector.insert into zeros: MLIR 19 lowers no
/// vector.from_elements to SPIR-V).
Value vectorOf(OpBuilder &b, Location loc, VectorType type,
               ArrayRef<Value> elements) {
  Value v = b.create<arith::ConstantOp>(loc, type, b.getZeroAttr(type));
  for (auto [i, x] : llvm::enumerate(elements))
    v = b.create<vector::InsertOp>(loc, x, v,
                                   ArrayRef<int64_t>{static_cast<int64_t>(i)});
  return v;
}

void rewriteLoads(BlockArgument arg) {
  SmallVector<Operation *> users(arg.getUsers());
  for (Operation *user : users) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      Value v = loadElement(b, loc, arg, SmallVector<Value>(load.getIndices()));
      load.replaceAllUsesWith(v);
      load.erase();
      continue;
    }
    auto load = cast<vector::LoadOp>(user);
    VectorType type = load.getVectorType();
    SmallVector<Value> indices(load.getIndices());
    Value d = indices.back();
    Value out;
    if (type.getRank() == 1 && type.getNumElements() % 2 == 0 &&
        isProvablyEven(d)) {
      // Whole pairs: d / 2 + j for j < n / 2, joined in order.
      Value first = pairAt(b, loc, d).first;
      SmallVector<Value> pairs;
      for (int64_t j = 0; j < type.getNumElements() / 2; ++j) {
        indices.back() =
            j ? b.create<arith::AddIOp>(
                    loc, first, b.create<arith::ConstantIndexOp>(loc, j))
              : first;
        pairs.push_back(b.create<memref::LoadOp>(loc, arg, indices));
      }
      while (pairs.size() > 1) {
        SmallVector<Value> joined;
        for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
          int64_t n = cast<VectorType>(pairs[i].getType()).getNumElements();
          SmallVector<int64_t> mask;
          for (int64_t k = 0; k < 2 * n; ++k)
            mask.push_back(k);
          joined.push_back(
              b.create<vector::ShuffleOp>(loc, pairs[i], pairs[i + 1], mask));
        }
        if (pairs.size() % 2)
          joined.push_back(pairs.back());
        pairs = joined;
      }
      // An odd count of pairs joined unevenly: fall back below.
      if (cast<VectorType>(pairs[0].getType()).getNumElements() ==
          type.getNumElements())
        out = pairs[0];
    }
    if (!out) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < type.getNumElements(); ++i) {
        SmallVector<Value> at(load.getIndices());
        if (i)
          at.back() = b.create<arith::AddIOp>(
              loc, at.back(), b.create<arith::ConstantIndexOp>(loc, i));
        elements.push_back(loadElement(b, loc, arg, at));
      }
      out = vectorOf(b, loc, type, elements);
    }
    load.replaceAllUsesWith(out);
    load.erase();
  }
}

/// A vector load of f16 from a buffer, whose users only take elements out
/// of it, becomes a scalar load per element taken: a vector of f16 in the
/// kernel would need the Float16 capability, a loaded f16 widened to f32
/// needs only 16-bit storage.
void scalarizeF16Loads(gpu::GPUFuncOp fn) {
  SmallVector<vector::LoadOp> loads;
  fn.walk([&](vector::LoadOp load) {
    auto base = cast<MemRefType>(load.getBase().getType());
    if (!base.getElementType().isF16() || !isStorageBuffer(base) ||
        load.getVectorType().getRank() != 1)
      return;
    for (Operation *user : load->getUsers()) {
      auto extract = dyn_cast<vector::ExtractOp>(user);
      if (!extract || !extract.getDynamicPosition().empty())
        return;
    }
    loads.push_back(load);
  });
  for (vector::LoadOp load : loads) {
    SmallVector<Operation *> users(load->getUsers());
    for (Operation *user : users) {
      auto extract = cast<vector::ExtractOp>(user);
      OpBuilder b(extract);
      Location loc = extract.getLoc();
      SmallVector<Value> at(load.getIndices());
      int64_t i = extract.getStaticPosition()[0];
      if (i)
        at.back() = b.create<arith::AddIOp>(
            loc, at.back(), b.create<arith::ConstantIndexOp>(loc, i));
      Value v = b.create<memref::LoadOp>(loc, load.getBase(), at);
      extract.replaceAllUsesWith(v);
      extract.erase();
    }
    load.erase();
  }
}

} // namespace

void readSixteenBitPairs(gpu::GPUModuleOp module) {
  for (auto fn : module.getOps<gpu::GPUFuncOp>()) {
    if (fn.getBody().empty())
      continue;
    scalarizeF16Loads(fn);
    SmallVector<Type> inputs(fn.getFunctionType().getInputs());
    bool changed = false;
    for (BlockArgument arg : fn.getArguments()) {
      MemRefType pairs = pairsOf(arg);
      if (!pairs)
        continue;
      arg.setType(pairs);
      inputs[arg.getArgNumber()] = pairs;
      rewriteLoads(arg);
      changed = true;
    }
    if (changed)
      fn.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
          fn.getContext(), inputs, fn.getFunctionType().getResults())));
  }
}

} // namespace poot::codegen

//===- Bf16Storage.cpp - bf16 buffers as 16-bit words on SPIR-V -----------===//
//
// A dialect conversion on the generated gpu.module, run by lowerToSPIRV
// before MLIR's SPIR-V conversion. The type converter maps bf16 to the f32
// it widens to exactly (scalars and vectors), a bf16 buffer to i16 words
// (a bf16 memref of any other storage class, such as workgroup memory, to
// f32, since 16-bit access there would need a capability of its own). The
// patterns then turn loads and stores into i16 loads and stores with the
// conversions spelled out in integer arithmetic, so the module needs
// StorageBuffer16BitAccess and nothing else of the device: no bfloat type,
// no Float16, no Int16.
//
// Every bf16 value the rewritten kernel holds is an f32 whose low 16 bits
// are zero (a load, a rounding, a constant, or an exact move of one), so a
// store only keeps the high half.
//
//===----------------------------------------------------------------------===//

#include "Bf16Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace poot::codegen;

namespace {

/// Whether `type` is or holds bf16 (a scalar, the elements of a vector or
/// memref, a function's inputs or results).
bool hasBf16(Type type) {
  if (type.isBF16())
    return true;
  if (auto shaped = dyn_cast<ShapedType>(type))
    return hasBf16(shaped.getElementType()); // a memref of vectors too
  if (auto fn = dyn_cast<FunctionType>(type))
    return llvm::any_of(fn.getInputs(), hasBf16) ||
           llvm::any_of(fn.getResults(), hasBf16);
  return false;
}

/// Whether `op` still names bf16 in its operands, results, region
/// arguments or (for a function) its signature.
bool namesBf16(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), hasBf16) ||
      llvm::any_of(op->getResultTypes(), hasBf16))
    return true;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    if (hasBf16(fn.getFunctionType()))
      return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (hasBf16(arg.getType()))
          return true;
  return false;
}

/// Where 16-bit storage (StorageBuffer16BitAccess) lets a kernel keep
/// 16-bit words: the kernel's buffers.
bool isStorageBuffer(MemRefType type) {
  auto space = dyn_cast_or_null<spirv::StorageClassAttr>(type.getMemorySpace());
  return space && space.getValue() == spirv::StorageClass::StorageBuffer;
}

/// `like`'s shape (a vector's, or none for a scalar) with `element`.
Type withElement(Type like, Type element) {
  if (auto vec = dyn_cast<VectorType>(like))
    return VectorType::get(vec.getShape(), element, vec.getScalableDims());
  return element;
}

class Bf16Converter : public TypeConverter {
public:
  explicit Bf16Converter(MLIRContext *ctx) {
    Type f32 = Float32Type::get(ctx), i16 = IntegerType::get(ctx, 16);
    // Tried last to first: everything without bf16 stays as it is.
    addConversion([](Type type) { return type; });
    addConversion([f32](BFloat16Type) -> Type { return f32; });
    addConversion([f32](VectorType type) -> Type {
      return type.getElementType().isBF16() ? withElement(type, f32) : type;
    });
    addConversion([f32, i16](MemRefType type) -> Type {
      if (!type.getElementType().isBF16())
        return type;
      return MemRefType::get(type.getShape(), isStorageBuffer(type) ? i16 : f32,
                             type.getLayout(), type.getMemorySpace());
    });
  }
};

/// An integer constant of `type` (a scalar or a splat vector).
Value intConstant(OpBuilder &b, Location loc, Type type, uint32_t value) {
  Type element = getElementTypeOrSelf(type);
  APInt bits(element.getIntOrFloatBitWidth(), value);
  if (auto vec = dyn_cast<VectorType>(type))
    return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(vec, bits));
  return b.create<arith::ConstantOp>(loc, IntegerAttr::get(element, bits));
}

/// 16-bit words (i16 or a vector of them) to the f32 of the bf16 they
/// hold: zero-extended to 32 bits and shifted left by 16.
Value widen(OpBuilder &b, Location loc, Value words) {
  Type i32 = withElement(words.getType(), b.getI32Type());
  Value w = b.create<arith::ExtUIOp>(loc, i32, words);
  w = b.create<arith::ShLIOp>(loc, w, intConstant(b, loc, i32, 16));
  return b.create<arith::BitcastOp>(
      loc, withElement(words.getType(), b.getF32Type()), w);
}

/// The 16-bit word of an f32 that holds a bf16 (its low half zero).
Value narrow(OpBuilder &b, Location loc, Value value) {
  Type i32 = withElement(value.getType(), b.getI32Type());
  Value w = b.create<arith::BitcastOp>(loc, i32, value);
  w = b.create<arith::ShRUIOp>(loc, w, intConstant(b, loc, i32, 16));
  return b.create<arith::TruncIOp>(
      loc, withElement(value.getType(), b.getI16Type()), w);
}

/// `x` (f32) rounded to the nearest bf16, ties to even, as an f32: add
/// 0x7FFF plus the lowest kept bit and clear the low half. A carry into the
/// exponent is the right rounding up (to infinity past the largest finite
/// bf16); infinities and zeros keep their sign. A NaN keeps its sign and
/// high payload with the quiet bit set, so it never becomes infinity.
Value roundToBf16(OpBuilder &b, Location loc, Value x) {
  Type i32 = withElement(x.getType(), b.getI32Type());
  auto c = [&](uint32_t v) { return intConstant(b, loc, i32, v); };
  Value bits = b.create<arith::BitcastOp>(loc, i32, x);
  Value lsb = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, bits, c(16)), c(1));
  Value bias = b.create<arith::AddIOp>(loc, lsb, c(0x7FFF));
  Value rounded = b.create<arith::AndIOp>(
      loc, b.create<arith::AddIOp>(loc, bits, bias), c(0xFFFF0000u));
  Value quiet = b.create<arith::AndIOp>(
      loc, b.create<arith::OrIOp>(loc, bits, c(0x00400000u)), c(0xFFFF0000u));
  Value nan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
  Value out = b.create<arith::SelectOp>(loc, nan, quiet, rounded);
  return b.create<arith::BitcastOp>(loc, x.getType(), out);
}

bool isWords(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType().isInteger(16);
}

struct LoadPattern : OpConversionPattern<memref::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isBF16())
      return failure();
    Value v = rewriter.create<memref::LoadOp>(op.getLoc(), adaptor.getMemref(),
                                              adaptor.getIndices());
    if (isWords(adaptor.getMemref()))
      v = widen(rewriter, op.getLoc(), v);
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// The indices of element `i` of a 1-D vector access at `indices`.
SmallVector<Value> elementIndices(OpBuilder &b, Location loc,
                                  ValueRange indices, int64_t i) {
  SmallVector<Value> at(indices);
  if (i)
    at.back() = b.create<arith::AddIOp>(
        loc, at.back(), b.create<arith::ConstantIndexOp>(loc, i));
  return at;
}

/// A vector of words is loaded element by element: MLIR's conversion would
/// load it through a pointer to a vector of 16-bit words, which 16-bit
/// storage alone does not allow (only width conversions may touch 16-bit
/// values). From an f32 memref (workgroup memory) it stays one load.
struct VectorLoadPattern : OpConversionPattern<vector::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(vector::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasBf16(op.getType()))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    if (!isWords(adaptor.getBase())) {
      rewriter.replaceOpWithNewOp<vector::LoadOp>(op, type, adaptor.getBase(),
                                                  adaptor.getIndices());
      return success();
    }
    if (type.getRank() != 1 || type.isScalable())
      return rewriter.notifyMatchFailure(op, "expected a 1-D vector");
    Value v = rewriter.create<arith::ConstantOp>(loc, type,
                                                 rewriter.getZeroAttr(type));
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      Value word = rewriter.create<memref::LoadOp>(
          loc, adaptor.getBase(),
          elementIndices(rewriter, loc, adaptor.getIndices(), i));
      v = rewriter.create<vector::InsertOp>(loc, widen(rewriter, loc, word), v,
                                            ArrayRef<int64_t>{i});
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct StorePattern : OpConversionPattern<memref::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getValue().getType().isBF16())
      return failure();
    Value v = adaptor.getValue();
    if (isWords(adaptor.getMemref()))
      v = narrow(rewriter, op.getLoc(), v);
    rewriter.replaceOpWithNewOp<memref::StoreOp>(op, v, adaptor.getMemref(),
                                                 adaptor.getIndices());
    return success();
  }
};

/// A vector of words is stored element by element (see VectorLoadPattern).
struct VectorStorePattern : OpConversionPattern<vector::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(vector::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasBf16(op.getValueToStore().getType()))
      return failure();
    Location loc = op.getLoc();
    Value v = adaptor.getValueToStore();
    if (!isWords(adaptor.getBase())) {
      rewriter.replaceOpWithNewOp<vector::StoreOp>(op, v, adaptor.getBase(),
                                                   adaptor.getIndices());
      return success();
    }
    auto type = cast<VectorType>(v.getType());
    if (type.getRank() != 1 || type.isScalable())
      return rewriter.notifyMatchFailure(op, "expected a 1-D vector");
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      Value element =
          rewriter.create<vector::ExtractOp>(loc, v, ArrayRef<int64_t>{i});
      rewriter.create<memref::StoreOp>(
          loc, narrow(rewriter, loc, element), adaptor.getBase(),
          elementIndices(rewriter, loc, adaptor.getIndices(), i));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// bf16 -> f32 is the value itself; to a wider float, from the f32.
struct ExtFPattern : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasBf16(op.getIn().getType()))
      return failure();
    Value v = adaptor.getIn();
    if (v.getType() != op.getType())
      v = rewriter.create<arith::ExtFOp>(op.getLoc(), op.getType(), v);
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// Whether the 32-bit integer `bits` has a zero low half by how it is
/// made: shifted left by 16 or more, masked by a constant whose low half is
/// zero, or a select of two such.
bool lowHalfZero(Value bits, int depth = 0) {
  if (depth > 8 || !getElementTypeOrSelf(bits.getType()).isInteger(32))
    return false;
  Operation *def = bits.getDefiningOp();
  if (!def)
    return false;
  APInt c;
  if (matchPattern(bits, m_ConstantInt(&c)))
    return c.extractBitsAsZExtValue(16, 0) == 0;
  if (auto shl = dyn_cast<arith::ShLIOp>(def))
    return matchPattern(shl.getRhs(), m_ConstantInt(&c)) &&
           c.getZExtValue() >= 16 && c.getZExtValue() < 32;
  if (auto mask = dyn_cast<arith::AndIOp>(def))
    return lowHalfZero(mask.getLhs(), depth + 1) ||
           lowHalfZero(mask.getRhs(), depth + 1);
  if (auto sel = dyn_cast<arith::SelectOp>(def))
    return lowHalfZero(sel.getTrueValue(), depth + 1) &&
           lowHalfZero(sel.getFalseValue(), depth + 1);
  return false;
}

/// f32 (or narrower: widened exactly first) -> bf16 rounds. From f64 it
/// would round twice, so that is left for the diagnostic. An f32 that is
/// the bitcast of a word with a zero low half is a bf16 already (the
/// halves of words WordLoads.h reads): it is the value itself.
struct TruncFPattern : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasBf16(op.getType()))
      return failure();
    Value v = adaptor.getIn();
    Type element = getElementTypeOrSelf(v.getType());
    if (element.getIntOrFloatBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "would round twice");
    if (auto cast = v.getDefiningOp<arith::BitcastOp>();
        cast && element.isF32() && lowHalfZero(cast.getIn())) {
      rewriter.replaceOp(op, v);
      return success();
    }
    Type f32 = withElement(v.getType(), rewriter.getF32Type());
    if (v.getType() != f32)
      v = rewriter.create<arith::ExtFOp>(op.getLoc(), f32, v);
    rewriter.replaceOp(op, roundToBf16(rewriter, op.getLoc(), v));
    return success();
  }
};

/// A bf16 constant is the f32 of the same (exact) value.
struct ConstantPattern : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasBf16(op.getType()))
      return failure();
    Type type = getTypeConverter()->convertType(op.getType());
    auto widenValue = [](APFloat v) {
      bool lost = false;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      return v;
    };
    TypedAttr value;
    if (auto scalar = dyn_cast<FloatAttr>(op.getValue()))
      value = FloatAttr::get(type, widenValue(scalar.getValue()));
    else if (auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue()))
      value = dense.mapValues(rewriter.getF32Type(), [&](const APFloat &v) {
        return widenValue(v).bitcastToAPInt();
      });
    else
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, value);
    return success();
  }
};

/// Ops that move or compare bf16 values without arithmetic: on the f32
/// form they give the same numbers, so they are rebuilt with the
/// converted types. A NaN the f32 min/max make up may have its payload in
/// the low half only, so their results go through the rounding too, which
/// leaves a number as it is and makes such a NaN one a store keeps.
/// (gpu.shuffle takes no bf16 in MLIR 19.)
struct RetypePattern : ConversionPattern {
  RetypePattern(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  static bool exact(Operation *op) {
    return isa<arith::SelectOp, arith::CmpFOp, arith::NegFOp, arith::MaximumFOp,
               arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
               vector::ExtractOp, vector::InsertOp, vector::FromElementsOp,
               vector::BroadcastOp, vector::SplatOp, vector::ShuffleOp,
               vector::ExtractStridedSliceOp, vector::InsertStridedSliceOp,
               memref::AllocOp, memref::AllocaOp>(op);
  }
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!exact(op) || op->getNumRegions() != 0)
      return failure();
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), results)))
      return failure();
    Operation *copy = rewriter.clone(*op);
    copy->setOperands(operands);
    for (auto [result, type] : llvm::zip(copy->getResults(), results))
      result.setType(type);
    if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
            arith::MinNumFOp>(op)) {
      rewriter.replaceOp(
          op, roundToBf16(rewriter, op->getLoc(), copy->getResult(0)));
      return success();
    }
    rewriter.replaceOp(op, copy->getResults());
    return success();
  }
};

} // namespace

LogicalResult poot::codegen::storeBf16AsWords(gpu::GPUModuleOp module,
                                              bool &changed) {
  changed = false;
  // Refuse what has no exact lowering before rewriting anything, with a
  // diagnostic that names the op.
  Operation *unsupported = nullptr;
  module.walk([&](Operation *op) {
    if (!namesBf16(op))
      return WalkResult::advance();
    changed = true;
    if (isa<gpu::GPUFuncOp, memref::LoadOp, memref::StoreOp, vector::LoadOp,
            vector::StoreOp, arith::ExtFOp, arith::ConstantOp, scf::ForOp,
            scf::IfOp, scf::WhileOp, scf::YieldOp, scf::ConditionOp>(op) ||
        RetypePattern::exact(op))
      return WalkResult::advance();
    if (auto trunc = dyn_cast<arith::TruncFOp>(op))
      if (getElementTypeOrSelf(trunc.getIn().getType())
              .getIntOrFloatBitWidth() <= 32)
        return WalkResult::advance();
    unsupported = op;
    return WalkResult::interrupt();
  });
  if (unsupported)
    return unsupported->emitError()
           << "DtypeLowering: target spirv stores bf16 as 16-bit words and "
              "computes in f32; '"
           << unsupported->getName() << "' on bf16 values has no lowering";
  if (!changed)
    return success();

  MLIRContext *ctx = module.getContext();
  Bf16Converter converter(ctx);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal(
      [](Operation *op) { return !namesBf16(op); });
  RewritePatternSet patterns(ctx);
  populateFunctionOpInterfaceTypeConversionPattern<gpu::GPUFuncOp>(patterns,
                                                                   converter);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  patterns.add<LoadPattern, VectorLoadPattern, StorePattern, VectorStorePattern,
               ExtFPattern, TruncFPattern, ConstantPattern>(converter, ctx);
  patterns.add<RetypePattern>(converter, ctx);
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return module.emitError("cannot store the kernels' bf16 as 16-bit words");
  return success();
}

LogicalResult poot::codegen::dropStorageOnlyInt16(spirv::ModuleOp module) {
  auto isI16 = [](Type type) {
    return getElementTypeOrSelf(type).isInteger(16);
  };
  // What 16-bit storage alone allows of a 16-bit value (SPIR-V's rules for
  // StorageBuffer16BitAccess without Int16): made by a load or a width
  // conversion, used by a width conversion or as the value of a store.
  auto check = [&](Value v, Operation *at) -> LogicalResult {
    if (!isI16(v.getType()))
      return success();
    Operation *def = v.getDefiningOp();
    if (!def || !isa<spirv::LoadOp, spirv::UConvertOp, spirv::SConvertOp>(def))
      return at->emitError("a 16-bit integer that is not a loaded or "
                           "narrowed bf16 word needs the Int16 capability");
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<spirv::UConvertOp, spirv::SConvertOp>(user))
        continue;
      if (auto store = dyn_cast<spirv::StoreOp>(user))
        if (use.get() == store.getValue())
          continue;
      return user->emitError("a 16-bit integer used other than to widen or "
                             "store it needs the Int16 capability");
    }
    return success();
  };
  WalkResult walk = module.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (failed(check(v, op)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg, op)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  std::optional<spirv::VerCapExtAttr> vce = module.getVceTriple();
  if (!vce)
    return success();
  SmallVector<spirv::Capability> caps;
  for (spirv::Capability cap : vce->getCapabilities())
    if (cap != spirv::Capability::Int16)
      caps.push_back(cap);
  SmallVector<spirv::Extension> exts(vce->getExtensions());
  module.setVceTripleAttr(spirv::VerCapExtAttr::get(vce->getVersion(), caps,
                                                    exts, module.getContext()));
  return success();
}

//===- NVVMTarget.cpp - The PTX (CUDA) target -----------------------------===//
//
// Kernels keep their buffers in the global address space (global loads, not
// flat ones) and their running state in workgroup attributions (shared
// memory). Lowering is MLIR's pipeline: attach an NVVM target, NVGPU to
// NVVM (the tile schedule's asynchronous copies and tile loads), SCF to CF,
// GPU to NVVM with bare pointers for the static memrefs (so the runtime
// passes one device pointer per argument), then LLVM's NVPTX backend
// through gpu-module-to-binary in ISA (PTX text) form.
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/NVVM.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace poot::codegen;

namespace {

class NVVMTarget : public LLVMTargetHooks {
public:
  StringRef name() const override { return "nvvm"; }
  // e^x as 2^(x log2 e) on the hardware's ex2.approx, and tanh from it.
  // The math ops (and LLVM's exp intrinsics) would become calls into CUDA's
  // libdevice, which the compiling machine does not have; ex2.approx is
  // what the CUDA fast-math exp uses too (2 ulp, -inf -> +0, NaN -> NaN).
  Value exp(OpBuilder &b, Location loc, Value x) const override {
    Value log2e = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1.4426950408889634));
    return exp2(b, loc, b.create<arith::MulFOp>(loc, x, log2e),
                /*flushSubnormals=*/false);
  }
  // ex2.approx.f32 keeps subnormals at the cost of a test and two
  // products around the instruction on sm_90; the .ftz form is the one
  // instruction (a third of the tile schedule's softmax instructions).
  Value exp2(OpBuilder &b, Location loc, Value x,
             bool flushSubnormals) const override {
    return ptx(b, loc,
               flushSubnormals ? "ex2.approx.ftz.f32 $0, $1;"
                               : "ex2.approx.f32 $0, $1;",
               x);
  }
  // The rest of the primitive kernels' math on the hardware's own
  // instructions, for the same reason: sqrt.rn is IEEE, the logarithm is
  // lg2.approx scaled by ln 2, sine and cosine run sin/cos.approx after a
  // reduction into [-pi, pi] (the approximations are only accurate there).
  Value math(OpBuilder &b, Location loc, MathFn fn, Value x) const override {
    auto f32 = [&](double v) -> Value {
      return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
    };
    switch (fn) {
    case MathFn::Sqrt:
      return ptx(b, loc, "sqrt.rn.f32 $0, $1;", x);
    case MathFn::Rsqrt:
      return b.create<arith::DivFOp>(loc, f32(1.0),
                                     ptx(b, loc, "sqrt.rn.f32 $0, $1;", x));
    case MathFn::Log:
      return b.create<arith::MulFOp>(loc, ptx(b, loc, "lg2.approx.f32 $0, $1;", x),
                                     f32(0.6931471805599453));
    case MathFn::Sin:
    case MathFn::Cos: {
      // r = x - k 2pi with k = rint(x / 2pi), 2pi in two parts so the
      // product's rounding does not leak into r.
      Value k = ptx(b, loc, "cvt.rni.f32.f32 $0, $1;",
                    b.create<arith::MulFOp>(loc, x, f32(0.15915494309189535)));
      Value r = b.create<arith::SubFOp>(
          loc, x, b.create<arith::MulFOp>(loc, k, f32(6.28125)));
      r = b.create<arith::SubFOp>(
          loc, r, b.create<arith::MulFOp>(loc, k, f32(0.0019353071795864769)));
      return ptx(b, loc,
                 fn == MathFn::Sin ? "sin.approx.f32 $0, $1;"
                                   : "cos.approx.f32 $0, $1;",
                 r);
    }
    }
    return x;
  }

  // Static shared memory is capped at 48 KiB a block on every CUDA
  // device; the opt-in carve-out (up to 227 KiB on sm_90) is dynamic shared
  // memory, sized at the launch.
  int64_t staticWorkgroupLimit() const override { return 48 * 1024; }

  // .minnctapersm: ptxas keeps the registers a lane to what that many
  // workgroups a streaming multiprocessor leave (65536 registers in all).
  void setWorkgroupsPerUnit(gpu::GPUFuncOp fn,
                            int64_t workgroups) const override {
    fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                IntegerAttr::get(IntegerType::get(fn.getContext(), 32),
                                 workgroups));
  }

  // cp.async (16 bytes, L1 bypassed), its commit and wait groups, and
  // ldmatrix .x4 .trans (sm_80 and later), through the nvgpu dialect, which
  // the pipeline lowers with the rest.
  bool hasAsyncCopy() const override { return true; }
  Value asyncCopy(OpBuilder &b, Location loc, Value dst, ValueRange dstIndices,
                  Value src, ValueRange srcIndices,
                  int64_t elements) const override {
    auto copy = b.create<nvgpu::DeviceAsyncCopyOp>(
        loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
        dstIndices, src, srcIndices, b.getIndexAttr(elements),
        /*srcElements=*/Value(), /*bypassL1=*/b.getUnitAttr());
    return copy.getAsyncToken();
  }
  // The rounds as cp.async with immediate offsets from one shared and one
  // global address, and the ignore-src predicate (PTX ISA 7.5) for the
  // rounds past the limit, which then write zeros.
  void asyncCopyRounds(OpBuilder &b, Location loc, Value dst, Value dstIndex,
                       int64_t dstStep, Value src, ValueRange srcIndices,
                       int64_t srcDim, int64_t srcStep, int64_t rounds,
                       Value limit, int64_t elements) const override {
    Type i64 = b.getI64Type();
    const int64_t bytes =
        cast<MemRefType>(src.getType()).getElementTypeBitWidth() / 8;
    auto c64 = [&](int64_t v) -> Value {
      return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
    };
    auto address = [&](Value memref, Value offset) {
      Value base =
          b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
      Value at = b.create<arith::AddIOp>(
          loc, base,
          b.create<arith::MulIOp>(
              loc, offset,
              b.create<arith::ConstantIndexOp>(loc, bytes)));
      return b.create<arith::IndexCastOp>(loc, i64, at);
    };
    auto meta = b.create<memref::ExtractStridedMetadataOp>(loc, src);
    Value linear = meta.getOffset();
    for (auto [i, index] : llvm::enumerate(srcIndices))
      linear = b.create<arith::AddIOp>(
          loc, linear,
          b.create<arith::MulIOp>(loc, index, meta.getStrides()[i]));
    Value from = address(src, linear), to = address(dst, dstIndex);
    // The source's byte step between rounds: srcStep along its dimension,
    // an immediate per round where the stride is static, else a register
    // add a round.
    Value step = b.create<arith::IndexCastOp>(
        loc, i64,
        b.create<arith::MulIOp>(
            loc, meta.getStrides()[srcDim],
            b.create<arith::ConstantIndexOp>(loc, srcStep * bytes)));
    Value lim = b.create<arith::IndexCastOp>(loc, b.getI32Type(), limit);
    std::optional<int64_t> fixed;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (succeeded(getStridesAndOffset(cast<MemRefType>(src.getType()),
                                      strides, offset)) &&
        !ShapedType::isDynamic(strides[srcDim]))
      fixed = strides[srcDim] * srcStep * bytes;
    const int64_t size = elements * bytes;
    for (int64_t r = 0; r < rounds; ++r) {
      std::string srcOffset =
          fixed ? "+" + std::to_string(r * *fixed) : std::string();
      std::string text = "{\n.reg .pred p;\nsetp.le.s32 p, $2, " +
                         std::to_string(r * srcStep) +
                         ";\ncp.async.cg.shared.global [$0+" +
                         std::to_string(r * dstStep * bytes) + "], [$1" +
                         srcOffset + "], " + std::to_string(size) +
                         ", p;\n}";
      Value srcAt = from;
      if (!fixed && r)
        srcAt = b.create<arith::AddIOp>(
            loc, from, b.create<arith::MulIOp>(loc, step, c64(r)));
      b.create<LLVM::InlineAsmOp>(
          loc, Type(), ValueRange{to, srcAt, lim}, b.getStringAttr(text),
          b.getStringAttr("l,l,r,~{memory}"),
          /*has_side_effects=*/b.getUnitAttr(),
          /*is_align_stack=*/UnitAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
    }
  }
  Value asyncGroup(OpBuilder &b, Location loc,
                   ValueRange copies) const override {
    return b.create<nvgpu::DeviceAsyncCreateGroupOp>(
        loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), copies);
  }
  void asyncWait(OpBuilder &b, Location loc, Value group,
                 int64_t pending) const override {
    b.create<nvgpu::DeviceAsyncWaitOp>(loc, group,
                                       b.getI32IntegerAttr(pending));
  }
  SmallVector<Value, 4>
  loadTilesTransposed(OpBuilder &b, Location loc, Value memref,
                      ValueRange indices) const override {
    Type et = cast<MemRefType>(memref.getType()).getElementType();
    auto tiles = b.create<nvgpu::LdMatrixOp>(
        loc, VectorType::get({4, 2}, et), memref, indices,
        /*transpose=*/true, /*numTiles=*/4);
    SmallVector<Value, 4> words;
    for (int64_t i = 0; i < 4; ++i) {
      Value pair = b.create<vector::ExtractOp>(loc, tiles, i);
      Value w = b.create<vector::BitCastOp>(
          loc, VectorType::get({1}, b.getI32Type()), pair);
      words.push_back(b.create<vector::ExtractOp>(loc, w, 0));
    }
    return words;
  }

  // fence.acq_rel.gpu (PTX ISA 6.0, sm_70 and later); the memory clobber
  // keeps the compiler from moving loads and stores across it.
  bool hasDeviceFence() const override { return true; }
  void deviceFence(OpBuilder &b, Location loc) const override {
    b.create<LLVM::InlineAsmOp>(
        loc, Type(), ValueRange{}, b.getStringAttr("fence.acq_rel.gpu;"),
        b.getStringAttr("~{memory}"), /*has_side_effects=*/b.getUnitAttr(),
        /*is_align_stack=*/UnitAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
  }

  // The quad layout of Target.h is the fragment layout of PTX's
  // mma.sync m16n8k16 with row-major A and column-major B (sm_80 and
  // later), so one instruction is one tile; C is tied to D.
  bool hasMatrixTile(Type element) const override {
    return element.isBF16() || element.isF16();
  }
  SmallVector<Value, 4> matrixTile(OpBuilder &b, Location loc, Type element,
                                   ValueRange a, ValueRange bWords,
                                   ValueRange c) const override {
    std::string type = element.isBF16() ? "bf16" : "f16";
    std::string text = "mma.sync.aligned.m16n8k16.row.col.f32." + type + "." +
                       type +
                       ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                       "{$10, $11, $12, $13};";
    Type f32 = b.getF32Type();
    auto result = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                   {f32, f32, f32, f32});
    SmallVector<Value> operands(a.begin(), a.end());
    operands.append(bWords.begin(), bWords.end());
    operands.append(c.begin(), c.end());
    auto asmOp = b.create<LLVM::InlineAsmOp>(
        loc, result, operands, b.getStringAttr(text),
        b.getStringAttr("=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"),
        /*has_side_effects=*/UnitAttr(), /*is_align_stack=*/UnitAttr(),
        LLVM::AsmDialectAttr(), ArrayAttr());
    SmallVector<Value, 4> d;
    for (int64_t i = 0; i < 4; ++i)
      d.push_back(b.create<LLVM::ExtractValueOp>(loc, asmOp.getResult(0), i));
    return d;
  }

  // wgmma.mma_async with A in registers (sm_90a). MLIR 19's
  // nvvm.wgmma.mma_async takes A from shared memory only, so the product
  // is inline PTX; the fences and group waits are NVVM ops. B's words are
  // the matrix descriptor of the PTX ISA: the start address, the leading
  // and the stride byte offsets, each in 16-byte units, at bits 0, 16 and
  // 32, and the layout at bits 62-63 (1: the 128-byte swizzle).
  bool hasWarpgroupTile(Type element) const override {
    return element.isBF16() || element.isF16();
  }
  Value warpgroupOperand(OpBuilder &b, Location loc, Value memref,
                         Value offset, int64_t leadingBytes,
                         int64_t strideBytes) const override {
    Type i64 = b.getI64Type();
    Value base =
        b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, memref);
    Value addr = b.create<arith::IndexCastOp>(
        loc, i64, b.create<arith::AddIOp>(loc, base, offset));
    auto c64 = [&](int64_t v) -> Value {
      return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
    };
    Value start = b.create<arith::ShRUIOp>(
        loc, b.create<arith::AndIOp>(loc, addr, c64(0x3FFFF)), c64(4));
    int64_t fixed = ((leadingBytes >> 4) << 16) |
                    ((strideBytes >> 4) << 32) | (int64_t(1) << 62);
    return b.create<arith::OrIOp>(loc, start, c64(fixed));
  }
  SmallVector<Value> warpgroupTile(OpBuilder &b, Location loc, Type element,
                                   int64_t n, bool transposeB, ValueRange a,
                                   Value bOperand,
                                   ValueRange d) const override {
    return wgmma(b, loc, element, n, transposeB, a, bOperand, d);
  }
  SmallVector<Value> warpgroupTileSharedA(OpBuilder &b, Location loc,
                                          Type element, int64_t n,
                                          bool transposeB, Value aOperand,
                                          Value bOperand,
                                          ValueRange d) const override {
    return wgmma(b, loc, element, n, transposeB, ValueRange{aOperand},
                 bOperand, d);
  }
  void warpgroupFence(OpBuilder &b, Location loc) const override {
    b.create<NVVM::WgmmaFenceAlignedOp>(loc);
  }
  void warpgroupCommitAndWait(OpBuilder &b, Location loc,
                              int64_t pending) const override {
    b.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
    b.create<NVVM::WgmmaWaitGroupSyncOp>(loc, pending);
  }
  void warpgroupCommit(OpBuilder &b, Location loc) const override {
    b.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
  }
  void warpgroupOperandFence(OpBuilder &b, Location loc) const override {
    b.create<NVVM::FenceProxyOp>(
        loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

private:
  /// wgmma.mma_async m64nNk16 with f32 accumulators: A as 4 registers, or
  /// (one operand) as a descriptor of workgroup memory, K-major.
  static SmallVector<Value> wgmma(OpBuilder &b, Location loc, Type element,
                                  int64_t n, bool transposeB, ValueRange a,
                                  Value bOperand, ValueRange d) {
    std::string type = element.isBF16() ? "bf16" : "f16";
    const int64_t acc = n / 2, na = static_cast<int64_t>(a.size());
    const bool sharedA = na == 1;
    auto reg = [](int64_t i) { return "$" + std::to_string(i); };
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, " +
                       reg(acc + na + 1) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                       std::to_string(n) + "k16.f32." + type + "." + type +
                       " {";
    std::string constraints;
    for (int64_t i = 0; i < acc; ++i) {
      text += (i ? ", " : "") + reg(i);
      constraints += "=f,";
    }
    text += "}, ";
    if (sharedA) {
      text += reg(acc);
      constraints += "l,";
    } else {
      text += "{" + reg(acc) + ", " + reg(acc + 1) + ", " + reg(acc + 2) +
              ", " + reg(acc + 3) + "}";
      constraints += "r,r,r,r,";
    }
    // The SS form has A's transpose immediate (0: K-major) before B's.
    text += ", " + reg(acc + na) + ", p, 1, 1, " + (sharedA ? "0, " : "") +
            (transposeB ? "1" : "0") + ";\n}";
    constraints += "l,r";
    for (int64_t i = 0; i < acc; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Value> operands(a.begin(), a.end());
    operands.push_back(bOperand);
    operands.push_back(
        b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(1)));
    operands.append(d.begin(), d.end());
    SmallVector<Type> fields(acc, b.getF32Type());
    auto result = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
    auto asmOp = b.create<LLVM::InlineAsmOp>(
        loc, result, operands, b.getStringAttr(text),
        b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
        /*is_align_stack=*/UnitAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
    SmallVector<Value> out;
    for (int64_t i = 0; i < acc; ++i)
      out.push_back(
          b.create<LLVM::ExtractValueOp>(loc, asmOp.getResult(0), i));
    return out;
  }

  /// One f32 -> f32 PTX instruction.
  static Value ptx(OpBuilder &b, Location loc, StringRef text, Value x) {
    auto asmOp = b.create<LLVM::InlineAsmOp>(
        loc, b.getF32Type(), ValueRange{x}, b.getStringAttr(text),
        b.getStringAttr("=f,f"), /*has_side_effects=*/UnitAttr(),
        /*is_align_stack=*/UnitAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
    return asmOp.getResult(0);
  }
};

} // namespace

std::unique_ptr<TargetHooks> poot::codegen::createNVVMTarget() {
  return std::make_unique<NVVMTarget>();
}

FailureOr<std::string> poot::codegen::lowerToPTX(ModuleOp module,
                                                 StringRef chip) {
  static bool initialized = [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    registerGpuNVVMAttachTargetPass();
    registerGpuModuleToBinaryPassPass();
    registerSCFToControlFlowPass();
    registerConvertGpuOpsToNVVMOpsPass();
    registerConvertNVGPUToNVVMPass();
    registerConvertNVVMToLLVMPass();
    registerReconcileUnrealizedCastsPass();
    return true;
  }();
  (void)initialized;
  MLIRContext *ctx = module.getContext();
  DialectRegistry registry;
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadAllAvailableDialects();

  // Kernels on sm_90a's instructions (the warpgroup tile, whose products
  // come with wgmma fences and group waits) need the architecture-specific
  // target, which only runs on sm_90 itself, as a plan for sm_90 does
  // anyway, and PTX ISA 8.0.
  std::string target = ("chip=" + chip).str();
  bool archSpecific = false;
  module.walk([&](Operation *op) {
    archSpecific |= isa<NVVM::WgmmaFenceAlignedOp,
                        NVVM::WgmmaGroupSyncAlignedOp,
                        NVVM::WgmmaWaitGroupSyncOp>(op);
  });
  if (archSpecific)
    target += "a features=+ptx80";
  PassManager lower(ctx);
  std::string pipeline =
      "nvvm-attach-target{" + target + " O=3}, "
      "gpu.module(convert-nvgpu-to-nvvm, convert-scf-to-cf, "
      "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true}, "
      // NVVM ops that have no LLVM intrinsic (the wgmma fences and waits,
      // fence.proxy) become their inline PTX.
      "convert-nvvm-to-llvm, reconcile-unrealized-casts)";
  if (failed(parsePassPipeline(pipeline, lower)))
    return module.emitError("cannot build the NVVM pipeline");
  if (failed(lower.run(module)))
    return failure();
  // The generator issues vector loads and stores only at addresses aligned
  // to their size (see Target.h); the conversion gives them the element's
  // alignment, which would split each into scalar accesses. Say what is
  // known.
  auto sizeOf = [](Type type) -> unsigned {
    auto vec = dyn_cast<VectorType>(type);
    if (!vec)
      return 0;
    unsigned bytes = vec.getNumElements() *
                     vec.getElementType().getIntOrFloatBitWidth() / 8;
    return bytes <= 16 && (bytes & (bytes - 1)) == 0 ? bytes : 0;
  };
  // The dynamic shared memory's symbol comes internal and 16-byte aligned.
  // PTX declares it `.extern .shared` (an internal zero-sized array would
  // become a one-byte static variable of the kernel), and the generator
  // lays its buffers out from a 1024-byte boundary (the warpgroup tile's
  // swizzled layout repeats every 1024 bytes of address), which the
  // declaration's alignment gives.
  module.walk([&](LLVM::GlobalOp global) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (global.getAddrSpace() == 3 && array && array.getNumElements() == 0) {
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(1024);
    }
  });
  module.walk([&](Operation *op) {
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      if (unsigned bytes = sizeOf(load.getType()))
        load.setAlignment(bytes);
    } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      if (unsigned bytes = sizeOf(store.getValue().getType()))
        store.setAlignment(bytes);
    }
  });
  PassManager serialize(ctx);
  if (failed(parsePassPipeline("gpu-module-to-binary{format=isa}", serialize)))
    return module.emitError("cannot build the NVVM pipeline");
  if (failed(serialize.run(module)))
    return failure();
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute object : binary.getObjects()) {
      auto obj = cast<gpu::ObjectAttr>(object);
      std::string ptx = obj.getObject().getValue().str();
      // The ISA blob ends in a NUL byte; the driver accepts either form.
      while (!ptx.empty() && ptx.back() == '\0')
        ptx.pop_back();
      return ptx;
    }
  }
  return module.emitError("no PTX was produced");
}

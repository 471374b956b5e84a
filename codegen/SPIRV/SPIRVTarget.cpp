//===- SPIRVTarget.cpp - The SPIR-V (Vulkan) target -----------------------===//
//
// Buffers live in the StorageBuffer class (one descriptor binding each, in
// argument order), workgroup memory is a memref.alloc in the Workgroup class
// (the GPU-to-SPIR-V conversion turns it into a Workgroup global), and the
// workgroup size rides on spirv.entry_point_abi. Lowering is MLIR's own
// conversion passes; the module is then serialised. bf16 buffers are 16-bit
// words converted in the kernel (Bf16Storage.h), so they need only 16-bit
// storage, as f16 buffers do. Buffers a kernel only reads with vector
// loads are read up to 16 bytes a load (WordLoads.h). A loop that carries
// values and may run no iteration is put under a test of its bounds first
// (guardLoopResults).
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/SPIRV.h"

#include "Bf16Storage.h"
#include "WordLoads.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace poot::codegen;

namespace {

class SPIRVTarget : public TargetHooks {
public:
  SPIRVTarget(bool f16, int64_t subgroupSize, bool int64)
      : f16(f16), int64(int64), subgroupSize(subgroupSize) {}
  StringRef name() const override { return "spirv"; }
  Attribute globalMemorySpace(MLIRContext *ctx) const override {
    return spirv::StorageClassAttr::get(ctx, spirv::StorageClass::StorageBuffer);
  }
  // No buffer here needs more than its element's alignment.
  Value allocWorkgroup(OpBuilder &b, Location loc, gpu::GPUFuncOp,
                       ArrayRef<int64_t> shape, Type elementType,
                       int64_t /*align*/ = 16) const override {
    auto space = spirv::StorageClassAttr::get(b.getContext(),
                                              spirv::StorageClass::Workgroup);
    auto type = MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                                space);
    return b.create<memref::AllocOp>(loc, type);
  }
  void setWorkgroupSize(gpu::GPUFuncOp fn, int64_t lanes) const override {
    fn->setAttr(spirv::getEntryPointABIAttrName(),
                spirv::getEntryPointABIAttr(
                    fn.getContext(), {static_cast<int32_t>(lanes), 1, 1}));
  }
  bool canStore(Type storage) const override {
    if (storage.isF32())
      return true;
    // 16-bit storage (StorageBuffer16BitAccess) carries both: f16 as
    // itself, bf16 as 16-bit words that lowerToSPIRV converts in the
    // kernel, since SPIR-V has no bfloat type.
    if (storage.isF16() || storage.isBF16())
      return f16;
    // i64 as itself where the device has 64-bit integers: the module then
    // allows Int64 (prepareModule), without which MLIR's conversion would
    // not keep the type 64 bits wide. A storage buffer of i64 needs that
    // capability alone, no extension.
    if (storage.isInteger(64))
      return int64;
    return storage.isInteger(32);
  }
  std::string storageFeature(Type storage) const override {
    if (storage.isInteger(64))
      return "shaderInt64";
    if (storage.isF16() || storage.isBF16())
      return "storageBuffer16BitAccess";
    return {};
  }
  // OpMemoryBarrier at device scope over storage buffers, as GLSL's
  // memoryBarrierBuffer(). As GLSL's `coherent buffer`, lowerToSPIRV then
  // decorates the module's storage buffers Coherent, so the last
  // workgroup's loads of other workgroups' partials are not served from a
  // stale cache. The Vulkan device facts still do not offer the fence
  // (DeviceFacts::deviceFence): no Vulkan GPU has timed it, so only the
  // planner's request (fused-combine) plans it, and CI runs it on
  // lavapipe.
  bool hasDeviceFence() const override { return true; }
  void deviceFence(OpBuilder &b, Location loc) const override {
    b.create<spirv::MemoryBarrierOp>(
        loc, spirv::Scope::Device,
        spirv::MemorySemantics::AcquireRelease |
            spirv::MemorySemantics::UniformMemory);
  }
  // Indices are 32-bit (use-64bit-index=false); the margin keeps a
  // grid-stride step past the last element from wrapping.
  int64_t maxElements() const override {
    return (int64_t(1) << 31) - (int64_t(1) << 20);
  }
  void prepareModule(ModuleOp module) const override {
    MLIRContext *ctx = module.getContext();
    SmallVector<spirv::Capability> caps{spirv::Capability::Shader};
    SmallVector<spirv::Extension> exts{
        spirv::Extension::SPV_KHR_storage_buffer_storage_class};
    if (f16) {
      caps.push_back(spirv::Capability::Float16);
      caps.push_back(spirv::Capability::StorageBuffer16BitAccess);
      exts.push_back(spirv::Extension::SPV_KHR_16bit_storage);
    }
    // Allowed, not required: spirv-update-vce keeps Int64 among the
    // module's requirements only where a kernel holds an i64.
    if (int64)
      caps.push_back(spirv::Capability::Int64);
    spirv::ResourceLimitsAttr limits = spirv::getDefaultResourceLimits(ctx);
    if (subgroupSize > 0) {
      // gpu.shuffle converts only when its width is the declared subgroup.
      caps.push_back(spirv::Capability::GroupNonUniform);
      caps.push_back(spirv::Capability::GroupNonUniformShuffle);
      limits = spirv::ResourceLimitsAttr::get(
          ctx, limits.getMaxComputeSharedMemorySize(),
          limits.getMaxComputeWorkgroupInvocations(),
          limits.getMaxComputeWorkgroupSize(),
          static_cast<int>(subgroupSize), limits.getMinSubgroupSize(),
          limits.getMaxSubgroupSize(), limits.getCooperativeMatrixPropertiesKhr(),
          limits.getCooperativeMatrixPropertiesNv());
    }
    auto vce = spirv::VerCapExtAttr::get(spirv::Version::V_1_3, caps, exts, ctx);
    module->setAttr(spirv::getTargetEnvAttrName(),
                    spirv::TargetEnvAttr::get(vce, limits,
                                              spirv::ClientAPI::Vulkan));
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
  }

private:
  bool f16;
  bool int64;
  int64_t subgroupSize;
};

} // namespace

std::unique_ptr<TargetHooks>
poot::codegen::createSPIRVTarget(bool f16, int64_t subgroupSize, bool int64) {
  return std::make_unique<SPIRVTarget>(f16, subgroupSize, int64);
}

/// Adds `OpDecorate %var Coherent` for every StorageBuffer variable of a
/// serialised module that has none, after its other annotations (where
/// the module layout puts decorations). MLIR 19's serialiser has no way to
/// write this decoration, so the words are added here.
static void decorateStorageBuffersCoherent(std::vector<uint32_t> &words) {
  constexpr uint32_t kOpDecorate = 71, kOpMemberDecorate = 72,
                     kOpDecorationGroup = 73, kOpGroupDecorate = 74,
                     kOpGroupMemberDecorate = 75, kOpDecorateId = 332,
                     kOpDecorateString = 5632, kOpMemberDecorateString = 5633,
                     kOpVariable = 59, kStorageBuffer = 12, kCoherent = 23;
  auto isAnnotation = [&](uint32_t op) {
    return op == kOpDecorate || op == kOpMemberDecorate ||
           op == kOpDecorationGroup || op == kOpGroupDecorate ||
           op == kOpGroupMemberDecorate || op == kOpDecorateId ||
           op == kOpDecorateString || op == kOpMemberDecorateString;
  };
  std::vector<uint32_t> buffers;
  llvm::DenseSet<uint32_t> coherent;
  size_t afterAnnotations = 0;
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, op = words[at] & 0xFFFF;
    if (count == 0 || at + count > words.size())
      return; // not a module we can read: leave it as it is
    if (isAnnotation(op))
      afterAnnotations = at + count;
    if (op == kOpDecorate && count >= 3 && words[at + 2] == kCoherent)
      coherent.insert(words[at + 1]);
    if (op == kOpVariable && count >= 4 && words[at + 3] == kStorageBuffer)
      buffers.push_back(words[at + 2]);
    at += count;
  }
  if (afterAnnotations == 0 || buffers.empty())
    return;
  std::vector<uint32_t> added;
  for (uint32_t id : buffers)
    if (!coherent.contains(id))
      added.insert(added.end(), {(3u << 16) | kOpDecorate, id, kCoherent});
  words.insert(words.begin() + afterAnnotations, added.begin(), added.end());
}

/// MLIR's SCF-to-SPIR-V conversion carries the results of an scf.for in
/// Function variables that only the loop body stores (at its yield): the
/// initial values go to the loop header as block arguments, never to the
/// variables. A loop that runs no iteration therefore leaves its results
/// undefined: whatever the variable's register held, which on a GPU
/// differs from run to run (a split of no keys published garbage for its
/// (o, m, l), and the combine read it); inside another loop, what an
/// earlier iteration left there. So every loop with results whose
/// constant bounds do not prove an iteration is put under `lb < ub` (the
/// conversion's own signed test), its initial values being the results
/// otherwise: an scf.if stores its variables on both paths, and the
/// loop's are read only where it ran.
static void guardLoopResults(gpu::GPUModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop.getNumResults() == 0)
      return;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    if (lb && ub && *lb < *ub)
      return;
    loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    OpBuilder b(loop.getContext());
    b.setInsertionPointAfter(loop);
    Location loc = loop.getLoc();
    Value runs = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                         loop.getLowerBound(),
                                         loop.getUpperBound());
    auto guard = b.create<scf::IfOp>(
        loc, runs,
        [&](OpBuilder &tb, Location l) {
          tb.create<scf::YieldOp>(l, loop.getResults());
        },
        [&](OpBuilder &eb, Location l) {
          eb.create<scf::YieldOp>(l, loop.getInitArgs());
        });
    Operation *thenYield = guard.thenYield();
    loop.getResults().replaceUsesWithIf(
        guard.getResults(),
        [&](OpOperand &use) { return use.getOwner() != thenYield; });
    loop->moveBefore(thenYield);
  }
}

FailureOr<std::vector<std::vector<uint32_t>>>
poot::codegen::lowerToSPIRV(ModuleOp module) {
  static bool registered = [] {
    registerConvertGPUToSPIRVPass();
    registerConvertMathToSPIRVPass();
    spirv::registerSPIRVLowerABIAttributesPass();
    spirv::registerSPIRVUpdateVCEPass();
    return true;
  }();
  (void)registered;
  // bf16 first: the kernels then hold it as f32 and i16 words. Before
  // that, buffers the kernels only read with vector loads are read up to
  // 16 bytes a load (WordLoads.h).
  bool bf16 = false;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    readBuffersInGroups(gpuModule);
    bool changed = false;
    if (failed(storeBf16AsWords(gpuModule, changed)))
      return failure();
    bf16 |= changed;
    guardLoopResults(gpuModule);
  }
  if (bf16) {
    // The conversion keeps an i16 only where Int16 is allowed (otherwise
    // it would widen the loaded word to i32 and fail on the load);
    // dropStorageOnlyInt16 takes it off the module's requirements again.
    auto env = module->getAttrOfType<spirv::TargetEnvAttr>(
        spirv::getTargetEnvAttrName());
    if (!env)
      return module.emitError("expected a SPIR-V target environment");
    SmallVector<spirv::Capability> caps(env.getCapabilities());
    if (!llvm::is_contained(caps, spirv::Capability::Int16))
      caps.push_back(spirv::Capability::Int16);
    SmallVector<spirv::Extension> exts(env.getExtensions());
    auto vce = spirv::VerCapExtAttr::get(env.getVersion(), caps, exts,
                                         module.getContext());
    module->setAttr(spirv::getTargetEnvAttrName(),
                    spirv::TargetEnvAttr::get(
                        vce, env.getResourceLimits(), env.getClientAPI(),
                        env.getVendorID(), env.getDeviceType(),
                        env.getDeviceID()));
  }
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(
          "gpu.module(gpu.func(convert-math-to-spirv)), "
          "convert-gpu-to-spirv{use-64bit-index=false}, "
          "spirv.module(spirv-lower-abi-attrs, spirv-update-vce)",
          pm)))
    return module.emitError("cannot build the SPIR-V pipeline");
  if (failed(pm.run(module)))
    return failure();
  std::vector<std::vector<uint32_t>> binaries;
  for (auto spv : module.getOps<spirv::ModuleOp>()) {
    if (bf16 && failed(dropStorageOnlyInt16(spv)))
      return failure();
    bool deviceBarrier = false;
    spv.walk([&](spirv::MemoryBarrierOp barrier) {
      deviceBarrier |= barrier.getMemoryScope() == spirv::Scope::Device;
    });
    SmallVector<uint32_t> words;
    if (failed(spirv::serialize(spv, words)))
      return spv.emitError("cannot serialise the SPIR-V module");
    binaries.emplace_back(words.begin(), words.end());
    if (deviceBarrier)
      decorateStorageBuffersCoherent(binaries.back());
  }
  return binaries;
}

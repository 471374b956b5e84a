//===- SPIRVTarget.cpp - The SPIR-V (Vulkan) target -----------------------===//
//
// Buffers live in the StorageBuffer class (one descriptor binding each, in
// argument order), workgroup memory is a memref.alloc in the Workgroup class
// (the GPU-to-SPIR-V conversion turns it into a Workgroup global), and the
// workgroup size rides on spirv.entry_point_abi. Lowering is MLIR's own
// conversion passes; the module is then serialised.
//
//===----------------------------------------------------------------------===//

#include "poot/Codegen/SPIRV.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/SPIRV/Serialization.h"

using namespace mlir;
using namespace poot::codegen;

namespace {

class SPIRVTarget : public TargetHooks {
public:
  SPIRVTarget(bool f16, int64_t subgroupSize)
      : f16(f16), subgroupSize(subgroupSize) {}
  StringRef name() const override { return "spirv"; }
  Attribute globalMemorySpace(MLIRContext *ctx) const override {
    return spirv::StorageClassAttr::get(ctx, spirv::StorageClass::StorageBuffer);
  }
  Value allocWorkgroup(OpBuilder &b, Location loc, gpu::GPUFuncOp,
                       ArrayRef<int64_t> shape, Type elementType) const override {
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
    if (storage.isF16())
      return f16;
    // i64 would need the Int64 capability, which the module does not ask
    // for (the conversion would narrow it silently).
    return storage.isInteger(32);
  }
  // OpMemoryBarrier at device scope over storage buffers, as GLSL's
  // memoryBarrierBuffer(). GLSL would also declare the buffers `coherent`,
  // which MLIR 19's serialiser cannot write (it has no Coherent
  // decoration): a driver may then serve the last workgroup's loads of
  // other workgroups' partials from a stale cache. So the Vulkan device
  // facts never offer the fence (DeviceFacts::deviceFence), and only the
  // planner's test override (fused-combine) uses it, to run the common
  // fused-combine code on lavapipe in CI.
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
  int64_t subgroupSize;
};

} // namespace

std::unique_ptr<TargetHooks> poot::codegen::createSPIRVTarget(bool f16,
                                                             int64_t subgroupSize) {
  return std::make_unique<SPIRVTarget>(f16, subgroupSize);
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
    SmallVector<uint32_t> words;
    if (failed(spirv::serialize(spv, words)))
      return spv.emitError("cannot serialise the SPIR-V module");
    binaries.emplace_back(words.begin(), words.end());
  }
  return binaries;
}

//===- SPIRV.h - The SPIR-V target ------------------------------*- C++ -*-===//
#ifndef POOT_CODEGEN_SPIRV_H
#define POOT_CODEGEN_SPIRV_H

#include "poot/Codegen/Target.h"

#include <memory>

namespace poot::codegen {

/// Hooks of the SPIR-V (Vulkan) target. `f16` says whether the device has
/// 16-bit storage (f16 buffers, and bf16 buffers as 16-bit words converted
/// in the kernel).
/// `subgroupSize` > 0: the kernels shuffle across subgroups of exactly this
/// width (the channel schedule), which the module's target environment
/// then declares. `int64` says whether the device has 64-bit integers
/// (Vulkan's shaderInt64): i64 buffers are then stored as such and the
/// module may ask for Int64; without it they are refused.
std::unique_ptr<TargetHooks> createSPIRVTarget(bool f16 = true,
                                               int64_t subgroupSize = 0,
                                               bool int64 = true);

/// Lowers every gpu.module of `module` (in place) to a spirv.module through
/// MLIR's conversion patterns and serialises the result; one binary per
/// gpu.module, in module order.
mlir::FailureOr<std::vector<std::vector<uint32_t>>>
lowerToSPIRV(mlir::ModuleOp module);

} // namespace poot::codegen

#endif // POOT_CODEGEN_SPIRV_H

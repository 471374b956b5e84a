//===- SPIRV.h - The SPIR-V target ------------------------------*- C++ -*-===//
#ifndef POOT_CODEGEN_SPIRV_H
#define POOT_CODEGEN_SPIRV_H

#include "poot/Codegen/Target.h"

#include <memory>

namespace poot::codegen {

/// Hooks of the SPIR-V (Vulkan) target. `f16` says whether the device can
/// store 16-bit floats (bf16 never: SPIR-V has no bfloat storage here).
/// `subgroupSize` > 0: the kernels shuffle across subgroups of exactly this
/// width (the channel schedule), which the module's target environment
/// then declares.
std::unique_ptr<TargetHooks> createSPIRVTarget(bool f16 = true,
                                               int64_t subgroupSize = 0);

/// Lowers every gpu.module of `module` (in place) to a spirv.module through
/// MLIR's conversion patterns and serialises the result; one binary per
/// gpu.module, in module order.
mlir::FailureOr<std::vector<std::vector<uint32_t>>>
lowerToSPIRV(mlir::ModuleOp module);

} // namespace poot::codegen

#endif // POOT_CODEGEN_SPIRV_H

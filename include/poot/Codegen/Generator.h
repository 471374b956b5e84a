//===- Generator.h - The one kernel generator -------------------*- C++ -*-===//
//
// Turns each planned fused op into gpu-dialect kernels: the generation
// request and schedule the planner wrote on the op decide everything.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_GENERATOR_H
#define POOT_CODEGEN_GENERATOR_H

#include "poot/Codegen/Target.h"

#include "mlir/Support/LogicalResult.h"

namespace poot {
class AttentionOp;
}

namespace poot::codegen {

/// One launch of a generated kernel.
struct Launch {
  std::string kernel;           ///< gpu.func symbol in the gpu.module
  std::vector<int64_t> grid;    ///< workgroups x, y
  int64_t lanes = 1;            ///< threads per workgroup
  std::vector<std::string> args; ///< operand roles, in argument order
  /// Bytes of workgroup memory the launch gives the kernel dynamically
  /// (TargetHooks::dynamicWorkgroup); 0 for the kernels that declare theirs.
  int64_t shared = 0;
};

/// Builds the kernels of one planned poot.attention into `gpuModule` and
/// returns its launches in order (streaming: one; split-KV: partials then
/// combine). Fails with a diagnostic on the op when the target cannot store
/// its dtype (DtypeLowering) or the op carries no schedule.
mlir::FailureOr<std::vector<Launch>>
buildAttentionKernels(AttentionOp op, mlir::gpu::GPUModuleOp gpuModule,
                      const TargetHooks &target);

} // namespace poot::codegen

#endif // POOT_CODEGEN_GENERATOR_H

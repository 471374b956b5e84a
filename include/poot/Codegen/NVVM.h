//===- NVVM.h - The PTX (CUDA) target ---------------------------*- C++ -*-===//
#ifndef POOT_CODEGEN_NVVM_H
#define POOT_CODEGEN_NVVM_H

#include "poot/Codegen/Target.h"

#include <memory>
#include <string>

namespace poot::codegen {

/// Hooks of the NVVM target: global buffers in the global address space,
/// workgroup memory as gpu.func workgroup attributions, every storage dtype.
std::unique_ptr<TargetHooks> createNVVMTarget();

/// Lowers every gpu.module of `module` (in place) through NVVM and LLVM's
/// NVPTX backend for `chip` ("sm_80", "sm_90") and returns the PTX text of
/// the first one.
mlir::FailureOr<std::string> lowerToPTX(mlir::ModuleOp module,
                                        llvm::StringRef chip);

} // namespace poot::codegen

#endif // POOT_CODEGEN_NVVM_H

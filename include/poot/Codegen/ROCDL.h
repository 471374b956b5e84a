//===- ROCDL.h - The ROCm (AMDGPU code object) target -----------*- C++ -*-===//
#ifndef POOT_CODEGEN_ROCDL_H
#define POOT_CODEGEN_ROCDL_H

#include "poot/Codegen/Target.h"

#include <memory>
#include <string>

namespace poot::codegen {

/// Hooks of the ROCDL target for `chip` ("gfx90a", "gfx942", "gfx1100"):
/// global buffers in the global address space, workgroup memory as gpu.func
/// workgroup attributions (LDS), every storage dtype, exp and tanh through
/// LLVM's exp intrinsic so the kernels call no ROCm device library.
std::unique_ptr<TargetHooks> createROCDLTarget(llvm::StringRef chip);

/// The wavefront width the code objects for `chip` are compiled for: 32 on
/// RDNA (gfx10xx, gfx11xx, gfx12xx), 64 on GCN and CDNA (gfx9xx).
int64_t rocdlWavefrontSize(llvm::StringRef chip);

/// Lowers every gpu.module of `module` (in place) through ROCDL and LLVM's
/// AMDGPU backend for `chip` and returns the code object of the first one:
/// an AMDGPU ELF shared object linked with ld.lld, which is looked up at
/// run time (a clear error names it when it is missing). No ROCm device
/// libraries are needed: the few `__ocml_*` / `__ockl_*` functions the
/// conversion may call are defined in the module through intrinsics the
/// backend lowers itself.
mlir::FailureOr<std::string> lowerToHSACO(mlir::ModuleOp module,
                                          llvm::StringRef chip);

/// The same lowering, stopped at the backend's assembly text (what the code
/// object holds, for reading and for tests); needs no linker.
mlir::FailureOr<std::string> lowerToAMDGPUAssembly(mlir::ModuleOp module,
                                                   llvm::StringRef chip);

/// The linker the code objects go through: the path in POOT_LLD when that
/// is set, else "ld.lld-19" or "ld.lld" on PATH, else LLVM 19's own; an
/// empty string when there is none.
std::string findLLDLinker();

} // namespace poot::codegen

#endif // POOT_CODEGEN_ROCDL_H
